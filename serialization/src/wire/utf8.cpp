// UTF-8 validation, compiled once (detail/wire/utf8.hpp).
#include <refwire/serialization/detail/wire/utf8.hpp>

namespace refwire::detail::wire {

std::size_t utf8_first_invalid(const char* text, std::size_t n) noexcept {
  const auto* const begin = reinterpret_cast<const unsigned char*>(text);
  const unsigned char* const end = begin + n;
  const unsigned char* p = begin;
  while (p != end) {
    while (end - p >= 8) {  // ASCII, 8 bytes a step
      std::uint64_t chunk;
      std::memcpy(&chunk, p, 8);
      if ((chunk & 0x8080808080808080ULL) != 0) break;
      p += 8;
    }
    if (p == end) break;
    if (*p < 0x80) {
      ++p;
      continue;
    }
    const std::size_t len = utf8_sequence(p, end);
    if (len == 0) return static_cast<std::size_t>(p - begin);
    p += len;
  }
  return n;
}

}  // namespace refwire::detail::wire
