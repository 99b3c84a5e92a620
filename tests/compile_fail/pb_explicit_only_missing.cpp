// Must NOT compile: numbering::explicit_only and a field without .number.
#include <refwire/serialization.hpp>

namespace shop {
struct order {
  int id = 0;
  int quantity = 0;
};
BOOST_DESCRIBE_STRUCT(order, (), (id, quantity))
REFWIRE_ATTRIBUTES(order, {.name = "id", .number = 1})
REFWIRE_TYPE_ATTRIBUTES(order, {.numbering = refwire::numbering::explicit_only})
}  // namespace shop

int main() { return static_cast<int>(refwire::serialize<refwire::protobuf>(shop::order{}).size()); }
