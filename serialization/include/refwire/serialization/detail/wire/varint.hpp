#pragma once
// LEB128 varints (7 bits a byte, least significant group first, the high bit
// set on every byte but the last): lengths and counts in binary, every
// integer in protobuf, the compression envelope's sizes (and later RPC frame headers).
//
// Writing: varint_size, store_varint (exactly its bytes), store_varint_wide
// (with 10 bytes of room, built in a word). Reading, with the rules as a
// policy: varint_rules::strict (binary, the envelope: only the minimal
// encoding) or varint_rules::lenient (protobuf: any encoding of up to 10
// bytes); bounded (read_varint: checks every byte against the end) or
// unrolled (read_varint10 / read_varint_before: 10 readable bytes known to be
// there). A reader maps a failed status to its own error record.

#include <bit>
#include <cstddef>
#include <cstdint>

#include <refwire/serialization/detail/wire/config.hpp>
#include <refwire/serialization/detail/wire/endian.hpp>

namespace refwire::detail::wire {

/// The most bytes a 64-bit varint takes.
inline constexpr std::size_t max_varint_bytes = 10;

/// The bytes v takes as a varint (1 to 10).
constexpr std::size_t varint_size(std::uint64_t v) noexcept {
  return static_cast<std::size_t>((std::bit_width(v | 1) * 9 + 64) / 64);
}

/// Stores v at p, exactly its bytes; returns the end.
REFWIRE_ALWAYS_INLINE std::byte* store_varint(std::byte* p, std::uint64_t v) noexcept {
  while (v >= 0x80) {
    *p++ = static_cast<std::byte>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<std::byte>(v);
  return p;
}

/// Stores v at p, which has room for 10 bytes (the bytes after the varint
/// may be overwritten): one to three bytes stored one by one; four or five
/// (32-bit values) with the low 28 bits spread into a 32-bit word; longer
/// ones built in a 64-bit word (the 7-bit groups spread into bytes in three
/// steps, the continuation bits from the length) and stored at once.
REFWIRE_ALWAYS_INLINE std::byte* store_varint_wide(std::byte* p, std::uint64_t v) noexcept {
  if (v < 0x80) {
    *p = static_cast<std::byte>(v);
    return p + 1;
  }
  if (v < 0x4000) {
    p[0] = static_cast<std::byte>(v | 0x80);
    p[1] = static_cast<std::byte>(v >> 7);
    return p + 2;
  }
  if (v < 0x200000) {
    p[0] = static_cast<std::byte>(v | 0x80);
    p[1] = static_cast<std::byte>((v >> 7) | 0x80);
    p[2] = static_cast<std::byte>(v >> 14);
    return p + 3;
  }
  if (v < (std::uint64_t{1} << 35)) {
    auto y = static_cast<std::uint32_t>(v & 0x0fffffff);
    y = (y & 0x00003fffU) | ((y & 0x0fffc000U) << 2);
    y = (y & 0x007f007fU) | ((y & 0x3f803f80U) << 1);
    if (v < (std::uint64_t{1} << 28)) {
      store_le(p, y | 0x00808080U);
      return p + 4;
    }
    store_le(p, y | 0x80808080U);
    p[4] = static_cast<std::byte>(v >> 28);
    return p + 5;
  }
  std::uint64_t x = v & 0x00ffffffffffffffULL;
  x = (x & 0x000000000fffffffULL) | ((x & 0x00fffffff0000000ULL) << 4);
  x = (x & 0x00003fff00003fffULL) | ((x & 0x0fffc0000fffc000ULL) << 2);
  x = (x & 0x007f007f007f007fULL) | ((x & 0x3f803f803f803f80ULL) << 1);
  if (v < (std::uint64_t{1} << 56)) {
    const std::size_t n = varint_size(v);  // 6 to 8
    store_le(p, x | (0x8080808080808080ULL >> (72 - 8 * n)));
    return p + n;
  }
  store_le(p, x | 0x8080808080808080ULL);
  const std::uint64_t top = v >> 56;  // bits 56..63: bit 7 is the continuation bit of a 10th byte
  p[8] = static_cast<std::byte>(top);
  p[9] = std::byte{1};
  return p + 9 + (top >> 7);
}

/// Which encodings a reader accepts.
enum class varint_rules : std::uint8_t {
  strict,   ///< only the minimal encoding (no trailing zero groups)
  lenient,  ///< any encoding of up to 10 bytes, as protobuf parsers accept
};

/// What reading a varint found.
enum class varint_status : std::uint8_t {
  ok,
  truncated,    ///< the input ends inside the varint
  overflow,     ///< a tenth byte over 1 (more than 64 bits, or more than 10 bytes)
  not_minimal,  ///< strict rules: a final zero group after the first byte
};

/// The outcome of read_varint: on ok, the bytes taken; on truncated, the
/// bytes the varint needs at least (those there plus one).
struct varint_read {
  varint_status status;
  unsigned length;
};

/// Reads the varint at p, checking every byte against end.
template <varint_rules Rules>
inline varint_read read_varint(const std::byte* p, const std::byte* end, std::uint64_t& v) noexcept {
  std::uint64_t result = 0;
  for (unsigned i = 0; i < max_varint_bytes; ++i) {
    if (p + i == end) return {varint_status::truncated, i + 1};
    const auto b = static_cast<std::uint8_t>(p[i]);
    if (i == 9 && b > 1) return {varint_status::overflow, i + 1};
    result |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      if constexpr (Rules == varint_rules::strict) {
        if (b == 0 && i > 0) return {varint_status::not_minimal, i + 1};
      }
      v = result;
      return {varint_status::ok, i + 1};
    }
  }
  return {varint_status::overflow, static_cast<unsigned>(max_varint_bytes)};  // not reached: byte 10 decides
}

/// The varint at p, which has ten readable bytes (no bounds checks), with
/// lenient rules: its length (1 to 10) with its value in v, or 0 when it is
/// longer than ten bytes or exceeds 64 bits. Each byte is added whole and
/// the previous byte's continuation bit subtracted.
REFWIRE_ALWAYS_INLINE std::size_t read_varint10(const std::uint8_t* p, std::uint64_t& v) noexcept {
  std::uint64_t res = p[0];
  if (res < 0x80) {
    v = res;
    return 1;
  }
  std::uint64_t b;
#define REFWIRE_VARINT_STEP(i)                     \
  b = p[i];                                        \
  res += (b - 1) << (7 * (i));                     \
  if (b < 0x80) {                                  \
    v = res;                                       \
    return (i) + 1;                                \
  }
  REFWIRE_VARINT_STEP(1)
  REFWIRE_VARINT_STEP(2)
  REFWIRE_VARINT_STEP(3)
  REFWIRE_VARINT_STEP(4)
  REFWIRE_VARINT_STEP(5)
  REFWIRE_VARINT_STEP(6)
  REFWIRE_VARINT_STEP(7)
  REFWIRE_VARINT_STEP(8)
#undef REFWIRE_VARINT_STEP
  b = p[9];
  if (b <= 1) {
    v = res + ((b - 1) << 63);
    return 10;
  }
  return 0;
}

/// As read_varint10, for a varint that must end by end (the bytes up to
/// limit, at or past end, are readable): 0 also when it does not end before end.
REFWIRE_ALWAYS_INLINE std::size_t read_varint_before(const std::uint8_t* p, const std::uint8_t* end,
                                                     const std::uint8_t* limit, std::uint64_t& v) noexcept {
  if (limit - p >= 10) {
    const std::size_t len = read_varint10(p, v);
    return len <= static_cast<std::size_t>(end - p) ? len : 0;
  }
  std::uint64_t res = 0;
  for (std::size_t i = 0; p + i != end; ++i) {
    const std::uint64_t b = p[i];
    res |= (b & 0x7f) << (7 * i);
    if (b < 0x80) {
      v = res;
      return i + 1;
    }
  }
  return 0;
}

}  // namespace refwire::detail::wire
