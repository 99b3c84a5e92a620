// Must NOT compile: field a takes number 2 explicitly, field b is position 2.
#include <refwire/serialization.hpp>

namespace app {
struct pair {
  int a = 0;
  int b = 0;
};
BOOST_DESCRIBE_STRUCT(pair, (), (a, b))
REFWIRE_ATTRIBUTES(pair, {.name = "a", .number = 2})
}  // namespace app

int main() { return static_cast<int>(refwire::serialize<refwire::protobuf>(app::pair{}).size()); }
