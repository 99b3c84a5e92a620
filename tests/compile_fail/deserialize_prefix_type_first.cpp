// Must NOT compile: deserialize_prefix with the type first gives one error naming its form.
#include <refwire/serialization.hpp>

struct point {
  int x = 0;
};
BOOST_DESCRIBE_STRUCT(point, (), (x))

int main() {
  std::vector<std::byte> bytes;
  point p;
  std::size_t used = 0;
  refwire::error e = refwire::deserialize_prefix<point, refwire::binary>(bytes, p, used);
  return e ? 1 : 0;
}
