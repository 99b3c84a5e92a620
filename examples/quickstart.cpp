// The README's example: describe a struct once, put it on the wire, read it back.
#include <refwire/serialization.hpp>

#include <cstdio>
#include <string>
#include <vector>

struct point {
  int x = 0;
  double y = 0;
  std::string name;
};
BOOST_DESCRIBE_STRUCT(point, (), (x, y, name))

int main() {
  point p{3, 4.5, "corner"};
  std::vector<std::byte> bytes = refwire::serialize(p);
  point q = refwire::deserialize<point>(bytes);
  std::printf("%zu bytes -> {x=%d, y=%g, name=%s}\n", bytes.size(), q.x, q.y, q.name.c_str());
  std::printf("%s\n", refwire::to_json(q).c_str());  // the same struct as JSON

  bytes.pop_back();  // a damaged message is an error, never garbage
  if (refwire::error e = refwire::deserialize<refwire::binary>(bytes, q)) {
    std::printf("%s\n", e.message().c_str());
  }
  return q.x == 3 ? 0 : 1;
}
