// Must NOT compile: a second REFWIRE_TYPE_ATTRIBUTES outside the namespace of
// its type, while one inside it exists, would be ignored.
#include <refwire/serialization.hpp>

namespace shop {
struct order {
  int id = 0;
};
BOOST_DESCRIBE_STRUCT(order, (), (id))
REFWIRE_TYPE_ATTRIBUTES(order, {.reserved = {4}})
}  // namespace shop

namespace other {
REFWIRE_TYPE_ATTRIBUTES(shop::order, {.reserved = {4, 5}})
}  // namespace other

int main() { return static_cast<int>(refwire::proto_schema<shop::order>().size()); }
