#include <refwire/serialization/types.hpp>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace refwire {

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

/// Each byte's hex digit value, 0xFF for a byte that is not a hex digit.
constexpr auto hex_values = [] {
  std::array<std::uint8_t, 256> t{};
  for (auto& x : t) x = 0xFF;
  for (int i = 0; i < 10; ++i) t[static_cast<std::size_t>('0' + i)] = static_cast<std::uint8_t>(i);
  for (int i = 0; i < 6; ++i) {
    t[static_cast<std::size_t>('a' + i)] = static_cast<std::uint8_t>(10 + i);
    t[static_cast<std::size_t>('A' + i)] = static_cast<std::uint8_t>(10 + i);
  }
  return t;
}();

}  // namespace

std::optional<uuid> uuid::parse(std::string_view text) noexcept {
  // The dashes, then all 32 digits through the table: a byte that is not a
  // hex digit sets a high bit in `bad`, checked once at the end.
  if (text.size() != 36) return std::nullopt;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  if (p[8] != '-' || p[13] != '-' || p[18] != '-' || p[23] != '-') return std::nullopt;
  static constexpr std::uint8_t at[16] = {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34};
  unsigned bad = 0;
  uuid id;
  for (std::size_t i = 0; i < 16; ++i) {
    const unsigned hi = hex_values[p[at[i]]];
    const unsigned lo = hex_values[p[at[i] + 1]];
    bad |= hi | lo;
    id.bytes[i] = static_cast<std::byte>((hi << 4) | (lo & 0xF));
  }
  if (bad & 0xF0) return std::nullopt;
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
