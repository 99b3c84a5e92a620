// Must NOT compile: the throwing deserialize of a type without a default
// constructor gives one error (not a second one from value-initializing it).
#include <refwire/serialization.hpp>

struct point {
  point(int x_, int y_) : x(x_), y(y_) {}
  int x;
  int y;
};
BOOST_DESCRIBE_STRUCT(point, (), (x, y))

int main() {
  std::vector<std::byte> bytes;
  point p = refwire::deserialize<point>(bytes);
  return p.x;
}
