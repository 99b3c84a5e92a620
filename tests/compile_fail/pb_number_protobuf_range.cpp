// Must NOT compile: 19000..19999 belong to protobuf itself.
#include <refwire/serialization.hpp>

namespace app {
struct odd {
  int a = 0;
};
BOOST_DESCRIBE_STRUCT(odd, (), (a))
REFWIRE_ATTRIBUTES(odd, {.name = "a", .number = 19500})
}  // namespace app

int main() { return static_cast<int>(refwire::proto_schema<app::odd>().size()); }
