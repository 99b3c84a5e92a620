// Must NOT compile: deserialize_view of a temporary buffer (the views would dangle).
#include <string_view>
#include <vector>

#include <refwire/serialization.hpp>

struct entry {
  std::string_view label;
};
BOOST_DESCRIBE_STRUCT(entry, (), (label))

std::vector<std::byte> read_message() { return {}; }

int main() {
  entry e = refwire::deserialize_view<entry>(read_message());
  return static_cast<int>(e.label.size());
}
