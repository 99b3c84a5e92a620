#pragma once
// Integers as decimal text, exactly the text std::to_chars writes, in
// straight-line code per digit count: the leading pair of digits from one
// multiplication, each further pair from the fraction of a 32.32 fixed-point
// number (J. Jeaiii's method), no loop, no division by ten. Used by JSON's
// writer (numbers, map keys, timestamps) and by the RFC 3339 formatter.
// Every step is REFWIRE_ALWAYS_INLINE: for the short numbers that are the
// common case a call costs more than the digits, and left to the compiler's
// heuristics the inlining into a caller came and went with unrelated code.
//
//   char buf[20];
//   char* end = format_integer(buf, std::int64_t{-42});   // "-42"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <refwire/serialization/detail/wire/config.hpp>

namespace refwire::detail::wire {

/// "00" "01" ... "99".
inline constexpr auto digit_pairs = [] {
  std::array<char, 200> a{};
  for (int i = 0; i < 100; ++i) {
    a[static_cast<std::size_t>(2 * i)] = static_cast<char>('0' + i / 10);
    a[static_cast<std::size_t>(2 * i + 1)] = static_cast<char>('0' + i % 10);
  }
  return a;
}();

/// The two digits of i < 100 at p.
REFWIRE_ALWAYS_INLINE void put_pair(char* p, std::uint32_t i) noexcept { std::memcpy(p, digit_pairs.data() + 2 * i, 2); }

/// u / 10^E as a 32.32 fixed-point number whose fraction yields the following
/// digits exactly (J. Jeaiii's constants; every u < 10^(E+2) is checked).
template <unsigned E>
REFWIRE_ALWAYS_INLINE std::uint64_t fixed_point(std::uint32_t u) noexcept {
  constexpr unsigned shift = E / 5 * E * 53 / 16;
  constexpr std::uint64_t pow10 = [] {
    std::uint64_t r = 1;
    for (unsigned i = 0; i < E; ++i) r *= 10;
    return r;
  }();
  constexpr std::uint64_t mul = (std::uint64_t{1} << (32 + shift)) / pow10 + 1 + E / 6 - E / 8;
  return (mul * u >> shift) + E / 6 * 4;
}

/// The next two digits of a fixed_point() number at p.
REFWIRE_ALWAYS_INLINE void next_pair(char* p, std::uint64_t& t) noexcept {
  t = std::uint64_t{100} * static_cast<std::uint32_t>(t);
  put_pair(p, static_cast<std::uint32_t>(t >> 32));
}
/// The next (last) digit of a fixed_point() number at p.
REFWIRE_ALWAYS_INLINE void next_digit(char* p, std::uint64_t t) noexcept {
  *p = static_cast<char>('0' + ((std::uint64_t{10} * static_cast<std::uint32_t>(t)) >> 32));
}

/// The pairs I... of a fixed_point() number after its leading pair at p.
template <unsigned... I>
REFWIRE_ALWAYS_INLINE void next_pairs(char* p, std::uint64_t& t, std::integer_sequence<unsigned, I...>) noexcept {
  (next_pair(p + 2 + 2 * I, t), ...);
}

/// The E + 2 digits of x at p, zero-padded (E >= 1): the leading pair, E / 2
/// more pairs and, when E is odd, a last digit.
template <unsigned E>
REFWIRE_ALWAYS_INLINE char* fixed_digits(char* p, std::uint32_t x) noexcept {
  std::uint64_t t = fixed_point<E>(x);
  put_pair(p, static_cast<std::uint32_t>(t >> 32));
  next_pairs(p, t, std::make_integer_sequence<unsigned, E / 2>{});
  if constexpr (E % 2 == 1) next_digit(p + E + 1, t);
  return p + E + 2;
}

/// x < 10^8 as eight ASCII digits at p, zero-padded.
REFWIRE_ALWAYS_INLINE void eight_digits(char* p, std::uint32_t x) noexcept { fixed_digits<6>(p, x); }

/// The decimal digits of x at p (the same text as std::to_chars), returning their end.
/// Straight-line code per digit count: the leading pair from one multiplication,
/// then each further pair from the fraction.
REFWIRE_ALWAYS_INLINE char* format_u32(char* p, std::uint32_t x) noexcept {
  if (x < 100) {
    if (x < 10) {
      *p = static_cast<char>('0' + x);
      return p + 1;
    }
    put_pair(p, x);
    return p + 2;
  }
  if (x < 1000000) {
    if (x < 10000) return x < 1000 ? fixed_digits<1>(p, x) : fixed_digits<2>(p, x);
    return x < 100000 ? fixed_digits<3>(p, x) : fixed_digits<4>(p, x);
  }
  if (x < 100000000) return x < 10000000 ? fixed_digits<5>(p, x) : fixed_digits<6>(p, x);
  return x < 1000000000 ? fixed_digits<7>(p, x) : fixed_digits<8>(p, x);
}

/// An integer's decimal text at p (room for 20 bytes), as std::to_chars
/// writes it; returns its end. T: any integer type of up to 64 bits but bool.
template <class T>
REFWIRE_ALWAYS_INLINE char* format_integer(char* p, T v) noexcept {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8);
  if constexpr (sizeof(T) <= 4) {
    if constexpr (std::is_signed_v<T>) {
      auto u = static_cast<std::uint32_t>(v);
      if (v < 0) {
        *p++ = '-';
        u = 0U - u;
      }
      return format_u32(p, u);
    } else {
      return format_u32(p, static_cast<std::uint32_t>(v));
    }
  } else {
    std::uint64_t u = static_cast<std::uint64_t>(v);
    if constexpr (std::is_signed_v<T>) {
      if (v < 0) {
        *p++ = '-';
        u = 0U - u;
      }
    }
    if (u <= 0xFFFFFFFFU) return format_u32(p, static_cast<std::uint32_t>(u));
    if (u < 10000000000000000ULL) {  // up to 16 digits: two halves
      p = format_u32(p, static_cast<std::uint32_t>(u / 100000000));
      eight_digits(p, static_cast<std::uint32_t>(u % 100000000));
      return p + 8;
    }
    p = format_u32(p, static_cast<std::uint32_t>(u / 10000000000000000ULL));  // <= 1844
    const std::uint64_t low = u % 10000000000000000ULL;
    eight_digits(p, static_cast<std::uint32_t>(low / 100000000));
    eight_digits(p + 8, static_cast<std::uint32_t>(low % 100000000));
    return p + 16;
  }
}

}  // namespace refwire::detail::wire
