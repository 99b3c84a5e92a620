// Must NOT compile: REFWIRE_TYPE_ATTRIBUTES outside the namespace of its type would be ignored.
#include <refwire/serialization.hpp>

namespace shop {
struct order {
  int id = 0;
};
BOOST_DESCRIBE_STRUCT(order, (), (id))
}  // namespace shop

REFWIRE_TYPE_ATTRIBUTES(shop::order, {.reserved = {4}})

int main() { return static_cast<int>(refwire::proto_schema<shop::order>().size()); }
