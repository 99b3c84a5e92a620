// Must NOT compile: the throwing deserialize with the format first gives one error naming both orders.
#include <refwire/serialization.hpp>

struct point {
  int x = 0;
};
BOOST_DESCRIBE_STRUCT(point, (), (x))

int main() {
  std::vector<std::byte> bytes;
  point p = refwire::deserialize<refwire::protobuf, point>(bytes);
  return p.x;
}
