// Must NOT compile: a second REFWIRE_NAME outside the namespace of its type,
// while one inside it exists, would be ignored.
#include <refwire/serialization.hpp>

namespace app {
struct point {
  int x = 0;
};
BOOST_DESCRIBE_STRUCT(point, (), (x))
REFWIRE_NAME(point, "Point")
}  // namespace app

namespace wire {
REFWIRE_NAME(app::point, "Other")
}  // namespace wire

int main() { return static_cast<int>(refwire::proto_schema<app::point>().size()); }
