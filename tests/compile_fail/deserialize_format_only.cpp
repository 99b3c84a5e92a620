// Must NOT compile: the throwing deserialize given only the format gives one error naming both orders.
#include <refwire/serialization.hpp>

int main() {
  std::vector<std::byte> bytes;
  refwire::deserialize<refwire::json>(bytes);
  return 0;
}
