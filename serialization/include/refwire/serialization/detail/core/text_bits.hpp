#pragma once
// The conversions of the text and bitset shapes, shared by every format:
// std::u8string and std::filesystem::path travel as UTF-8 text (a path as its
// generic form), std::bitset<N> as bytes (binary, protobuf) or '0'/'1' text
// (JSON). Machinery for the formats; layouts in docs/*-format.md.
//
//   std::byte b[2];
//   detail::bitset_to_bytes(std::bitset<12>{0x801}, b);   // b = 01 08: bit 0 is the lowest bit of byte 0

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <refwire/serialization/detail/core/shapes.hpp>

namespace refwire::detail {

/// The bytes of a std::bitset<N> in binary and protobuf: ceil(N / 8).
template <std::size_t N>
inline constexpr std::size_t bitset_bytes = (N + 7) / 8;

/// Writes v's bits to out[0, bitset_bytes<N>): bit i is bit i % 8 of byte
/// i / 8 (little-endian bit order); the padding bits past N are zero.
template <std::size_t N>
void bitset_to_bytes(const std::bitset<N>& v, std::byte* out) noexcept {
  if constexpr (N <= 64) {
    const unsigned long long x = v.to_ullong();
    for (std::size_t i = 0; i < bitset_bytes<N>; ++i) out[i] = static_cast<std::byte>((x >> (8 * i)) & 0xffU);
  } else {
    for (std::size_t i = 0; i < bitset_bytes<N>; ++i) out[i] = std::byte{0};
    for (std::size_t i = 0; i < N; ++i) {
      if (v[i]) out[i / 8] |= static_cast<std::byte>(1U << (i % 8));
    }
  }
}

/// Reads v from p[0, bitset_bytes<N>) (the layout of bitset_to_bytes); false,
/// v untouched, when a padding bit past N is set.
template <std::size_t N>
bool bitset_from_bytes(const std::byte* p, std::bitset<N>& v) noexcept {
  if constexpr (N % 8 != 0) {
    if ((std::to_integer<unsigned>(p[N / 8]) >> (N % 8)) != 0) return false;
  }
  if constexpr (N <= 64) {
    unsigned long long x = 0;
    for (std::size_t i = 0; i < bitset_bytes<N>; ++i) x |= std::to_integer<unsigned long long>(p[i]) << (8 * i);
    v = std::bitset<N>(x);
  } else {
    v.reset();
    for (std::size_t i = 0; i < N; ++i) {
      if (((std::to_integer<unsigned>(p[i / 8]) >> (i % 8)) & 1U) != 0) v.set(i);
    }
  }
  return true;
}

/// Reads v from exactly N characters '0' or '1', most significant bit first
/// (bitset::to_string's form); false, v untouched, for any other text.
template <std::size_t N>
bool bitset_from_text(std::string_view text, std::bitset<N>& v) noexcept {
  if (text.size() != N) return false;
  std::bitset<N> bits;
  for (std::size_t i = 0; i < N; ++i) {
    const char c = text[N - 1 - i];
    if (c == '1') bits.set(i);
    else if (c != '0') return false;
  }
  v = bits;
  return true;
}

// Out of line (src/core/text_bits.cpp).
/// The first 32 bytes of text for an error message: printable ASCII as it is,
/// other bytes (and `"`, `\`) as \xNN, then "..." when text is longer.
std::string text_excerpt(std::string_view text);
/// "bitset<N> has padding bits set (the bits of the last byte past bit N-1 must be zero)".
std::string bitset_padding_reason(std::size_t n);
/// "invalid bitset<N> (N characters '0' or '1')": what a JSON reader names in its error.
std::string bitset_text_what(std::size_t n);
/// "path \"a//b\" is not in its generic form \"a/b\"" (binary: one value, one encoding).
std::string path_not_generic_reason(std::string_view text, std::string_view generic);
/// Throws the encode failure of a path whose generic form is not UTF-8.
[[noreturn]] void throw_path_not_utf8(std::string_view text);

/// The text a std::u8string or std::filesystem::path travels as (a path:
/// its generic form, generic_u8string()).
template <class T>
std::string text_of(const T& v) {
  if constexpr (is_path_v<T>) {
    const std::u8string u = v.generic_u8string();
    return std::string(u.begin(), u.end());
  } else {
    return std::string(v.begin(), v.end());
  }
}

/// v = the value of text (already checked to be UTF-8 where the format requires it).
template <class T>
void assign_text(T& v, std::string_view text) {
  if constexpr (is_path_v<T>) {
    v = std::filesystem::path(std::u8string(text.begin(), text.end()));
  } else {
    v.assign(text.begin(), text.end());
  }
}

}  // namespace refwire::detail
