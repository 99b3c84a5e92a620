// Must NOT compile: protobuf field numbers stop at 2^29-1.
#include <refwire/serialization.hpp>

namespace app {
struct big {
  int a = 0;
};
BOOST_DESCRIBE_STRUCT(big, (), (a))
REFWIRE_ATTRIBUTES(big, {.name = "a", .number = 536870912})
}  // namespace app

int main() { return static_cast<int>(refwire::serialize<refwire::protobuf>(app::big{}).size()); }
