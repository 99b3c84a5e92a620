// Must NOT compile: a std::span<const std::byte> viewed from JSON (base64 text).
#include <span>
#include <string_view>

#include <refwire/serialization.hpp>

struct packet {
  std::string_view name;
  std::span<const std::byte> body;
};
BOOST_DESCRIBE_STRUCT(packet, (), (name, body))

int main() {
  std::string_view text = R"({"name":"a","body":"AAE="})";
  packet p;
  refwire::error e = refwire::deserialize_view<refwire::json>(text, p);
  return e ? 1 : 0;
}
