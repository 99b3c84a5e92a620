// Must NOT compile: a std::span<const std::byte> field, decoded from the front of a stream (views: deserialize_view only).
#include <span>

#include <refwire/serialization.hpp>

struct packet {
  int id = 0;
  std::span<const std::byte> bytes;
};
BOOST_DESCRIBE_STRUCT(packet, (), (id, bytes))

int main() {
  std::vector<std::byte> in;
  packet p;
  std::size_t used = 0;
  refwire::error e = refwire::deserialize_prefix<refwire::binary>(in, p, used);
  return e ? 1 : 0;
}
