// Must NOT compile: a std::string_view inside a container of a nested struct, decoded by the throwing deserialize.
#include <string_view>
#include <vector>

#include <refwire/serialization.hpp>

struct inner {
  std::vector<std::string_view> words;
};
BOOST_DESCRIBE_STRUCT(inner, (), (words))

struct outer {
  int id = 0;
  inner in;
};
BOOST_DESCRIBE_STRUCT(outer, (), (id, in))

int main() {
  std::vector<std::byte> bytes;
  outer o = refwire::deserialize<outer>(bytes);
  return o.id;
}
