// Must NOT compile: a field given a number the type reserves.
#include <refwire/serialization.hpp>

namespace shop {
struct order {
  int id = 0;
  int quantity = 0;
};
BOOST_DESCRIBE_STRUCT(order, (), (id, quantity))
REFWIRE_ATTRIBUTES(order, {.name = "quantity", .number = 7})
REFWIRE_TYPE_ATTRIBUTES(order, {.reserved = {4, 7}})
}  // namespace shop

int main() { return static_cast<int>(refwire::deserialize<shop::order, refwire::protobuf>(std::string_view()).id); }
