// Must NOT compile: an alternative of an internally tagged variant has a
// field named like the tag ("kind").
#include <refwire/serialization.hpp>

#include <variant>

namespace app {
struct circle {
  double r = 0;
  int kind = 0;
};
BOOST_DESCRIBE_STRUCT(circle, (), (r, kind))
struct drawing {
  std::variant<circle> shape;
};
BOOST_DESCRIBE_STRUCT(drawing, (), (shape))
REFWIRE_TYPE_ATTRIBUTES(drawing, {.variants = refwire::variant_form::internally_tagged, .variant_tag = "kind"})
}  // namespace app

int main() { return static_cast<int>(refwire::to_json(app::drawing{}).size()); }
