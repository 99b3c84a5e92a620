// Must NOT compile: an optional std::span<const std::byte>, decoded by the non-throwing deserialize.
#include <optional>
#include <span>
#include <vector>

#include <refwire/serialization.hpp>

struct frame {
  std::optional<std::span<const std::byte>> payload;
};
BOOST_DESCRIBE_STRUCT(frame, (), (payload))

int main() {
  std::vector<std::byte> bytes;
  frame f;
  refwire::error e = refwire::deserialize<refwire::protobuf>(bytes, f);
  return e ? 1 : 0;
}
