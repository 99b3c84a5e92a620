// Must NOT compile: a std::string_view field decoded from lz4-compressed input
// (the decompressed bytes live in a scratch buffer).
#include <string_view>
#include <vector>

#include <refwire/serialization.hpp>

struct entry {
  std::string_view label;
};
BOOST_DESCRIBE_STRUCT(entry, (), (label))

int main() {
  std::vector<std::byte> bytes;
  entry e;
  refwire::error err =
      refwire::deserialize<refwire::binary>(bytes, e, {.compression = refwire::compression::lz4});
  return err ? 1 : 0;
}
