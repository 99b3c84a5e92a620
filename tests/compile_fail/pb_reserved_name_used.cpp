// Must NOT compile: a field whose wire name the type reserves.
#include <refwire/serialization.hpp>

namespace shop {
struct order {
  int id = 0;
  int cost = 0;
};
BOOST_DESCRIBE_STRUCT(order, (), (id, cost))
REFWIRE_ATTRIBUTES(order, {.name = "cost", .rename = "price"})
REFWIRE_TYPE_ATTRIBUTES(order, {.reserved_names = {"price"}})
}  // namespace shop

int main() { return static_cast<int>(refwire::proto_schema<shop::order>().size()); }
