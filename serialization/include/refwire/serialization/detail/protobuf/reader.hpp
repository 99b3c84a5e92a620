#pragma once
// The protobuf decoder's reader (core's byte_reader with protobuf's options)
// and what reads at its cursor: varints, tags, lengths, scalar payloads, the
// general tag loop (for_each_tag), and the failure paths compiled once in
// src/protobuf/decode.cpp.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include <refwire/serialization/detail/core/decode_context.hpp>
#include <refwire/serialization/detail/protobuf/classify.hpp>
#include <refwire/serialization/detail/wire/config.hpp>
#include <refwire/serialization/detail/wire/endian.hpp>
#include <refwire/serialization/detail/wire/varint.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/options.hpp>

namespace refwire::detail::pb {

/// The byte reader's cursor, budgets and failure record, plus protobuf's
/// unknown-field switch. `end` is the end of the message being parsed.
struct reader : byte_reader {
  bool reject_unknown;
  /// The end of the whole input: a varint near the end of a nested message
  /// may be loaded past it (within the input), then checked against end.
  const std::byte* input_end;
  reader(std::span<const std::byte> in, const decode_options& o) noexcept
      : byte_reader(in, o), reject_unknown(o.reject_unknown_fields), input_end(in.data() + in.size()) {}
};

/// The input offset of at (a position in r's input).
inline std::size_t offset_of(const reader& r, const std::byte* at) noexcept {
  return static_cast<std::size_t>(at - r.begin);
}

// Out of line (src/protobuf/decode.cpp); each failure returns false.
/// A failure recorded at `at` (the cursor is moved there).
bool fail_at(reader& r, const std::byte* at, errc code, std::string reason);
/// wire_type: "field N has wire type W (name), expected X (name)".
bool fail_wire(reader& r, const std::byte* at, std::uint64_t field, std::uint32_t got, std::uint32_t expected);
/// invalid_value: "value V (wire bits) out of range for <type>".
bool fail_range(reader& r, const std::byte* at, std::string_view type, std::uint64_t bits);
/// invalid_utf8: "string is not valid UTF-8".
bool fail_utf8(reader& r, const std::byte* at);
/// invalid_value: "invalid uuid map key \"<text>\" (a uuid key is its canonical 36-character string)".
bool fail_uuid_key(reader& r, const std::byte* at, std::string_view text);
/// invalid_field: field number 0 or past 2^29-1, wire type 6 or 7.
bool fail_tag(reader& r, const std::byte* at, std::uint64_t field, std::uint32_t wt);
/// invalid_value: "more elements than the array's N".
bool fail_array(reader& r, const std::byte* at, std::size_t extent);
/// Skips an unknown field (groups included), or fails with reject_unknown.
bool skip_field(reader& r, std::uint32_t wt, std::uint64_t field, const std::byte* at);
/// How many length-delimited occurrences of one tag follow each other from p
/// (p is just after the first tag, whose bytes are [tag, tag + tag_len)).
std::size_t count_run(const std::byte* p, const std::byte* end, const std::byte* tag, std::size_t tag_len) noexcept;

/// A varint of any encoding of up to 10 bytes (protobuf's rules): one byte
/// inline; longer ones unrolled while ten bytes of the input are left, else
/// bounded by the end; anything else (and every failure) out of line.
REFWIRE_ALWAYS_INLINE bool read_varint(reader& r, std::uint64_t& v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(r.cur);
  const std::size_t left = r.left();
  if (left != 0 && p[0] < 0x80) [[likely]] {
    v = p[0];
    r.cur += 1;
    return true;
  }
  if (static_cast<std::size_t>(r.input_end - r.cur) >= 10) [[likely]] {
    const std::size_t len = wire::read_varint10(p, v);
    if (len != 0 && len <= left) [[likely]] {
      r.cur += len;
      return true;
    }
    return detail::read_varint_slow<wire::varint_rules::lenient>(r, v);  // reports it within end
  }
  // Bounded by the bytes left (the end of a nested message or packed run is
  // near for its last fields). A plain loop, inlined into every read:
  // wire::read_varint_before here measured 2.5% more instructions on *small*.
  std::uint64_t res = 0;
  for (std::size_t i = 0; i < left; ++i) {
    const std::uint64_t b = p[i];
    res |= (b & 0x7f) << (7 * i);
    if (b < 0x80) {
      v = res;
      r.cur += i + 1;
      return true;
    }
  }
  return detail::read_varint_slow<wire::varint_rules::lenient>(r, v);
}

/// Reads a tag; fails on field number 0 or past 2^29-1 and on wire types 6 and 7.
REFWIRE_ALWAYS_INLINE bool read_tag(reader& r, std::uint64_t& field, std::uint32_t& wt) {
  const std::byte* at = r.cur;
  std::uint64_t tag;
  if (!read_varint(r, tag)) [[unlikely]] return false;
  field = tag >> 3;
  wt = static_cast<std::uint32_t>(tag & 7);
  if (field == 0 || field > max_field_number || wt > 5) [[unlikely]] return fail_tag(r, at, field, wt);
  return true;
}

/// Reads a length and checks it against the bytes left in the message.
REFWIRE_ALWAYS_INLINE bool read_length(reader& r, std::uint64_t& n, std::string_view what) {
  if (!read_varint(r, n)) [[unlikely]] return false;
  if (n > r.left()) [[unlikely]] return fail_truncated(r, what, static_cast<std::size_t>(n));
  return true;
}

/// Narrows the reader to the next n bytes (a length just read); restores the
/// outer end on scope exit.
struct sub_message {
  reader& r;
  const std::byte* outer_end;
  sub_message(reader& rd, std::size_t n) noexcept : r(rd), outer_end(rd.end) { r.end = r.cur + n; }
  ~sub_message() { r.end = outer_end; }
  sub_message(const sub_message&) = delete;
  sub_message& operator=(const sub_message&) = delete;
};

/// The general tag loop over the rest of the current message: each field goes
/// to on_field(field, wire type, its tag's position), which returns 1 (read),
/// 0 (not one of its fields: skipped here) or -1 (failed, recorded).
template <class OnField>
REFWIRE_ALWAYS_INLINE bool for_each_tag(reader& r, OnField&& on_field) {
  while (r.cur != r.end) {
    const std::byte* at = r.cur;
    std::uint64_t f;
    std::uint32_t t;
    if (!read_tag(r, f, t)) [[unlikely]] return false;
    const int got = on_field(f, t, at);
    if (got < 0) [[unlikely]] return false;
    if (got == 0 && !skip_field(r, t, f, at)) [[unlikely]] return false;
  }
  return true;
}

// ---------------------------------------------------------- scalar payloads

/// True when the wire integer i (of B's signedness) is a value of B.
template <class B, class I>
constexpr bool fits(I i) noexcept {
  if constexpr (std::is_signed_v<I>) {
    return i >= static_cast<I>(std::numeric_limits<B>::min()) && i <= static_cast<I>(std::numeric_limits<B>::max());
  } else {
    return i <= static_cast<I>(std::numeric_limits<B>::max());
  }
}

/// Decodes a scalar's bits (varint or fixed, already read) into v; false
/// (v unchanged) when the value is out of v's range.
template <class T, int_encoding E>
REFWIRE_ALWAYS_INLINE bool scalar_try_bits(std::uint64_t bits, T& v) noexcept {
  using B = scalar_base_t<T>;
  if constexpr (is_bool_v<B>) {
    v = static_cast<T>(bits != 0);
  } else if constexpr (is_float_v<B>) {
    if constexpr (sizeof(B) == 4) v = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    else v = std::bit_cast<double>(bits);
  } else {
    using I = wire_int_t<B>;
    using U = std::make_unsigned_t<I>;
    I i;
    if constexpr (E == int_encoding::zigzag) {
      const U u = static_cast<U>(bits);
      i = static_cast<I>((u >> 1) ^ (U{0} - (u & 1)));
    } else {
      i = static_cast<I>(static_cast<U>(bits));  // protobuf truncates a 64-bit varint to 32 bits
    }
    if constexpr (!std::is_same_v<I, B>) {
      if (!fits<B>(i)) [[unlikely]] return false;
    }
    v = static_cast<T>(static_cast<B>(i));
  }
  return true;
}

/// Decodes a scalar's bits (varint or fixed, already read) into v, checking the range.
template <class T, int_encoding E>
REFWIRE_ALWAYS_INLINE bool scalar_from_bits(reader& r, const std::byte* at, std::uint64_t bits, T& v) {
  using B = scalar_base_t<T>;
  if constexpr (is_bool_v<B> || is_float_v<B>) {
    return scalar_try_bits<T, E>(bits, v);
  } else {
    if (!scalar_try_bits<T, E>(bits, v)) [[unlikely]] return fail_range(r, at, scalar_name<B>(), bits);
    return true;
  }
}

/// A scalar's payload (its wire type already checked).
template <class T, int_encoding E>
REFWIRE_ALWAYS_INLINE bool read_scalar(reader& r, T& v) {
  constexpr wire_type wt = scalar_wire<T, E>();
  const std::byte* at = r.cur;
  std::uint64_t bits;
  if constexpr (wt == w_varint) {
    if (!read_varint(r, bits)) [[unlikely]] return false;
  } else if constexpr (wt == w_i32) {
    if (r.left() < 4) [[unlikely]] return fail_truncated(r, "fixed32", 4);
    bits = wire::load_le<std::uint32_t>(r.cur);
    r.cur += 4;
  } else {
    if (r.left() < 8) [[unlikely]] return fail_truncated(r, "fixed64", 8);
    bits = wire::load_le<std::uint64_t>(r.cur);
    r.cur += 8;
  }
  return scalar_from_bits<T, E>(r, at, bits, v);
}

}  // namespace refwire::detail::pb
