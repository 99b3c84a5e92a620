// Must NOT compile: serialize<F> with an F that is not a format gives one readable message.
#include <refwire/serialization.hpp>

struct point {
  int x;
};
BOOST_DESCRIBE_STRUCT(point, (), (x))

int main() {
  auto bytes = refwire::serialize<point>(point{1});  // the type where the format belongs
  return static_cast<int>(bytes.size());
}
