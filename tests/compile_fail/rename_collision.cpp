// Must NOT compile: a rename onto another field's name gives two fields one wire name.
#include <refwire/serialization.hpp>

namespace app {
struct pos {
  int x = 0;
  int y = 0;
};
BOOST_DESCRIBE_STRUCT(pos, (), (x, y))
REFWIRE_ATTRIBUTES(pos, {.name = "x", .rename = "y"})
}  // namespace app

int main() { return static_cast<int>(refwire::to_json(app::pos{}).size()); }
