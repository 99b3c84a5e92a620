// Must NOT compile: a tag with a format's name, id and positional but an encode
// that takes the wrong arguments is not a refwire::format, and serialize says so.
#include <refwire/serialization.hpp>

struct almost_format {
  static constexpr std::string_view name = "almost";
  static constexpr std::uint8_t id = 201;
  static constexpr bool positional = true;
  template <class T>
  static void encode(const T&, std::string&) {}  // no options, and a string instead of bytes
  template <class T>
  static refwire::error decode(std::span<const std::byte>, T&, const refwire::decode_options&, std::size_t*) {
    return {};
  }
};

struct point {
  int x;
};
BOOST_DESCRIBE_STRUCT(point, (), (x))

int main() {
  std::vector<std::byte> out;
  refwire::serialize<almost_format>(point{1}, out);
  return static_cast<int>(out.size());
}
