// Must NOT compile: the non-throwing deserialize with the type first gives one error naming both orders.
#include <refwire/serialization.hpp>

struct point {
  int x = 0;
};
BOOST_DESCRIBE_STRUCT(point, (), (x))

int main() {
  std::vector<std::byte> bytes;
  point p;
  refwire::error e = refwire::deserialize<point, refwire::protobuf>(bytes, p);
  return e ? 1 : 0;
}
