// Must NOT compile: a derived field with the name of a base field (two "id" keys).
#include <refwire/serialization.hpp>

namespace app {
struct base {
  int id = 0;
};
BOOST_DESCRIBE_STRUCT(base, (), (id))
struct derived : base {
  int id = 0;
};
BOOST_DESCRIBE_STRUCT(derived, (base), (id))
}  // namespace app

int main() { return static_cast<int>(refwire::to_json(app::derived{}).size()); }
