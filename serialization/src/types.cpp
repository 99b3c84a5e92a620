#include <refwire/serialization/types.hpp>

#include <stdexcept>
#include <string>

namespace refwire {

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr bool is_dash_position(std::size_t i) noexcept { return i == 8 || i == 13 || i == 18 || i == 23; }

}  // namespace

std::optional<uuid> uuid::parse(std::string_view text) noexcept {
  if (text.size() != 36) return std::nullopt;
  uuid id;
  std::size_t out = 0;
  for (std::size_t i = 0; i < 36;) {
    if (is_dash_position(i)) {
      if (text[i] != '-') return std::nullopt;
      ++i;
      continue;
    }
    const int hi = hex_value(text[i]);
    const int lo = hex_value(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    id.bytes[out++] = static_cast<std::byte>(hi * 16 + lo);
    i += 2;
  }
  return id;
}

uuid uuid::from_string(std::string_view text) {
  if (auto id = parse(text)) return *id;
  throw std::invalid_argument("refwire::uuid: not a canonical UUID (8-4-4-4-12 hex digits): \"" +
                              std::string(text.substr(0, 64)) + "\"");
}

void uuid::to_chars(char* out) const noexcept {
  std::size_t pos = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out[pos++] = '-';
    const auto b = static_cast<unsigned>(bytes[i]);
    out[pos++] = hex_digits[b >> 4];
    out[pos++] = hex_digits[b & 15];
  }
}

std::string uuid::to_string() const {
  std::string s(36, '\0');
  to_chars(s.data());
  return s;
}

}  // namespace refwire

std::size_t std::hash<refwire::uuid>::operator()(const refwire::uuid& id) const noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::byte b : id.bytes) {
    h ^= static_cast<std::uint64_t>(b);
    h *= 0x100000001b3ULL;
  }
  return static_cast<std::size_t>(h);
}
