// Must NOT compile: loading a snapshot of a type without a default constructor gives one error.
#include <refwire/serialization.hpp>

struct point {
  point(int x_, int y_) : x(x_), y(y_) {}
  int x;
  int y;
};
BOOST_DESCRIBE_STRUCT(point, (), (x, y))

int main() {
  point p = refwire::load_snapshot<point>("point.rfw");
  return p.x;
}
