// Must NOT compile: two fields renamed to one wire name.
#include <refwire/serialization.hpp>

namespace app {
struct pos {
  int x = 0;
  int y = 0;
};
BOOST_DESCRIBE_STRUCT(pos, (), (x, y))
REFWIRE_ATTRIBUTES(pos, {.name = "x", .rename = "where"}, {.name = "y", .rename = "where"})
}  // namespace app

int main() { return static_cast<int>(refwire::to_json(app::pos{}).size()); }
