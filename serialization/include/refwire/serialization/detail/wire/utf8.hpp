#pragma once
// UTF-8 validation (RFC 3629: no overlong forms, no surrogates, nothing past
// U+10FFFF), used by JSON (its input text and every string it writes) and by
// protobuf (string fields must hold UTF-8, both ways).

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <refwire/serialization/detail/wire/config.hpp>

namespace refwire::detail::wire {

/// The length (2 to 4) of the valid multi-byte sequence at p, whose first
/// byte is >= 0x80, or 0 when it is not valid; nothing at or past end is read.
inline std::size_t utf8_sequence(const unsigned char* p, const unsigned char* end) noexcept {
  const unsigned c = p[0];
  const auto left = static_cast<std::size_t>(end - p);
  auto cont = [&](std::size_t i) { return i < left && (p[i] & 0xC0U) == 0x80U; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0;  // overlong
    if (c == 0xED && p[1] > 0x9F) return 0;  // a surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && p[1] < 0x90) return 0;  // overlong
    if (c == 0xF4 && p[1] > 0x8F) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

/// The index of the first byte of text[0, n) that does not start a valid
/// sequence, or n when all of it is valid UTF-8 (ASCII runs 8 bytes a step).
std::size_t utf8_first_invalid(const char* text, std::size_t n) noexcept;

/// True when text[0, n) is valid UTF-8.
inline bool utf8_valid_slow(const char* text, std::size_t n) noexcept { return utf8_first_invalid(text, n) == n; }

/// utf8_valid_slow with an inline ASCII fast path (8 bytes a step).
REFWIRE_ALWAYS_INLINE bool utf8_valid(const char* p, std::size_t n) noexcept {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t chunk;
    std::memcpy(&chunk, p + i, 8);
    if ((chunk & 0x8080808080808080ULL) != 0) return utf8_valid_slow(p + i, n - i);
  }
  for (; i < n; ++i) {
    if (static_cast<unsigned char>(p[i]) >= 0x80) return utf8_valid_slow(p + i, n - i);
  }
  return true;
}

/// True when every byte of p[0, n) is ASCII, with a few (possibly
/// overlapping) word loads and no byte loop; every load stays inside [p, p + n).
/// (The likely branches say that text is mostly ASCII: a caller testing for
/// the rare rest then branches once, with no flag materialized.)
REFWIRE_ALWAYS_INLINE bool all_ascii(const char* p, std::size_t n) noexcept {
  if (n >= 8) {
    std::uint64_t any, chunk;
    std::memcpy(&any, p, 8);
    std::memcpy(&chunk, p + n - 8, 8);
    any |= chunk;
    for (std::size_t i = 8; i + 8 < n; i += 8) {
      std::memcpy(&chunk, p + i, 8);
      any |= chunk;
    }
    if ((any & 0x8080808080808080ULL) == 0) [[likely]] return true;
    return false;
  }
  if (n >= 4) {
    std::uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    if (((a | b) & 0x80808080U) == 0) [[likely]] return true;
    return false;
  }
  // p[0], p[n / 2] and p[n - 1] are every byte of n <= 3
  if (n == 0 || ((static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[n / 2]) |
                  static_cast<unsigned char>(p[n - 1])) & 0x80U) == 0) [[likely]]
    return true;
  return false;
}

}  // namespace refwire::detail::wire
