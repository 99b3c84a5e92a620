// Must NOT compile: an internally tagged variant needs a described struct for
// every alternative, and std::string is not one.
#include <refwire/serialization.hpp>

#include <string>
#include <variant>

namespace app {
struct circle {
  double r = 0;
};
BOOST_DESCRIBE_STRUCT(circle, (), (r))
struct drawing {
  std::variant<circle, std::string> shape;
};
BOOST_DESCRIBE_STRUCT(drawing, (), (shape))
REFWIRE_TYPE_ATTRIBUTES(drawing, {.variants = refwire::variant_form::internally_tagged})
}  // namespace app

int main() { return static_cast<int>(refwire::to_json(app::drawing{}).size()); }
