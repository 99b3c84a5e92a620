// Must NOT compile: a named format on a PFR-only aggregate asks for a description.
#include <refwire/serialization.hpp>

struct named_format {
  static constexpr std::string_view name = "named";
  static constexpr std::uint8_t id = 200;
  static constexpr bool positional = false;
  template <class T>
  static void encode(const T&, std::vector<std::byte>&, const refwire::encode_options&) {}
  template <class T>
  static refwire::error decode(std::span<const std::byte>, T&, const refwire::decode_options&, std::size_t*) {
    return {};
  }
};

struct plain {
  int a;
};

int main() {
  auto bytes = refwire::serialize<named_format>(plain{1});
  return static_cast<int>(bytes.size());
}
