// Must NOT compile: the non-throwing deserialize given the type instead of the format.
#include <refwire/serialization.hpp>

struct point {
  int x = 0;
};
BOOST_DESCRIBE_STRUCT(point, (), (x))

int main() {
  std::string_view text = "{}";
  point p;
  refwire::error e = refwire::deserialize<point>(text, p);
  return e ? 1 : 0;
}
