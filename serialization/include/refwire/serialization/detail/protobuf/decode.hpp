#pragma once
// The protobuf format's encoder and decoder. Machinery for protobuf.hpp.
// Mapping: docs/protobuf-format.md.
//
// Encoding streams fields through a staged writer in one pass: a nested
// message (or wrapper, map entry, packed varint run) reserves one length byte,
// writes its body and patches the byte, moving the body forward only when it
// is 128 bytes or longer. Decoding parses tags in a loop and
// dispatches on the field number; every length is checked against the bytes
// left (of the enclosing message) before anything is allocated.

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include <refwire/serialization/detail/core/codec.hpp>
#include <refwire/serialization/detail/core/decode_context.hpp>
#include <refwire/serialization/detail/core/encode_failure.hpp>
#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/detail/wire/endian.hpp>
#include <refwire/serialization/detail/wire/output.hpp>
#include <refwire/serialization/detail/wire/time.hpp>
#include <refwire/serialization/detail/wire/utf8.hpp>
#include <refwire/serialization/detail/wire/varint.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/options.hpp>
#include <refwire/serialization/reflect.hpp>

#if defined(__GNUC__) || defined(__clang__)
#define REFWIRE_PB_INLINE [[gnu::always_inline]] inline
#else
#define REFWIRE_PB_INLINE inline
#endif

namespace refwire::detail::pb {

/// Stages writes on the stack and appends them to the output in blocks
/// (nothing is zero-filled); large byte runs go straight to the output. The
/// cursor is not a member: the encode functions take it and return it
/// advanced (std::byte stores may alias the writer, so a member would be
/// stored and loaded again around every write); the writer holds the stage,
/// the output and the slow paths. Lengths are back-patched: a nested message
/// reserves one length byte (offset, then the cursor moves past it), writes
/// its body and patches the byte (close); a body of 128 bytes or more is
/// moved forward by the extra length bytes, within the stage or, when the
/// reserved byte was already flushed, within the output.
class writer {
 public:
  static constexpr std::size_t stage_size = 4096;

  explicit writer(std::vector<std::byte>& out) noexcept : out_(out), base_(out.size()) {}
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;

  /// The first cursor of an encoding.
  std::byte* start() noexcept { return stage_; }

  static constexpr std::size_t varint_size_(std::uint64_t v) noexcept {
    return static_cast<std::size_t>((std::bit_width(v | 1) * 9 + 64) / 64);
  }

  /// A cursor with at least n (<= stage_size) free bytes after it: p, or
  /// the start of the stage once flushed.
  REFWIRE_PB_INLINE std::byte* ensure(std::byte* p, std::size_t n) {
    if (static_cast<std::size_t>(lim_ - p) < n) [[unlikely]] return flush(p);
    return p;
  }
  /// Exactly the varint's bytes: for lengths patched in front of a body.
  REFWIRE_PB_INLINE static std::byte* store_varint(std::byte* p, std::uint64_t v) noexcept {
    while (v >= 0x80) {
      *p++ = static_cast<std::byte>(v | 0x80);
      v >>= 7;
    }
    *p++ = static_cast<std::byte>(v);
    return p;
  }
  /// A varint at p, which has room for 10 bytes (the bytes after the varint
  /// may be overwritten): one to three bytes stored one by one; four or five
  /// (32-bit values) with the low 28 bits spread into a 32-bit word; longer
  /// ones built in a 64-bit word (the 7-bit groups spread into bytes in three
  /// steps, the continuation bits from the length) and stored at once.
  REFWIRE_PB_INLINE static std::byte* store_varint_wide(std::byte* p, std::uint64_t v) noexcept {
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
        detail::wire::store_le(p, y | 0x00808080U);
        return p + 4;
      }
      detail::wire::store_le(p, y | 0x80808080U);
      p[4] = static_cast<std::byte>(v >> 28);
      return p + 5;
    }
    std::uint64_t x = v & 0x00ffffffffffffffULL;
    x = (x & 0x000000000fffffffULL) | ((x & 0x00fffffff0000000ULL) << 4);
    x = (x & 0x00003fff00003fffULL) | ((x & 0x0fffc0000fffc000ULL) << 2);
    x = (x & 0x007f007f007f007fULL) | ((x & 0x3f803f803f803f80ULL) << 1);
    if (v < (std::uint64_t{1} << 56)) {
      const std::size_t n = varint_size_(v);  // 6 to 8
      detail::wire::store_le(p, x | (0x8080808080808080ULL >> (72 - 8 * n)));
      return p + n;
    }
    detail::wire::store_le(p, x | 0x8080808080808080ULL);
    const std::uint64_t top = v >> 56;  // bits 56..63: bit 7 is the continuation bit of a 10th byte
    p[8] = static_cast<std::byte>(top);
    p[9] = std::byte{1};
    return p + 9 + (top >> 7);
  }
  /// A compile-time tag at p: one or a few constant byte stores.
  template <std::uint32_t Tag>
  REFWIRE_PB_INLINE static std::byte* store_tag(std::byte* p) noexcept {
    if constexpr (Tag < 0x80) {
      *p = static_cast<std::byte>(Tag);
      return p + 1;
    } else if constexpr (Tag < 0x4000) {
      p[0] = static_cast<std::byte>((Tag & 0x7f) | 0x80);
      p[1] = static_cast<std::byte>(Tag >> 7);
      return p + 2;
    } else {
      return store_varint(p, Tag);  // exactly its bytes: callers ensure 5
    }
  }
  /// A one-byte length n <= 64 and n bytes from p, at d with 65 bytes of
  /// room, in a few fixed-size copies (some overlapping, some past the n
  /// bytes in the stage, where what follows overwrites them). `padded`: p's
  /// buffer holds at least 16 bytes (a std::string's holds capacity() + 1 >= 16).
  REFWIRE_PB_INLINE static std::byte* store_short_bytes(std::byte* d, const void* p, std::size_t n,
                                                        bool padded) noexcept {
    const auto* s = static_cast<const std::byte*>(p);
    *d++ = static_cast<std::byte>(n);
    if (n > 32) {
      std::memcpy(d, s, 32);
      std::memcpy(d + n - 32, s + n - 32, 32);
    } else if (n >= 16) {
      std::memcpy(d, s, 16);
      std::memcpy(d + n - 16, s + n - 16, 16);
    } else if (padded) {
      std::memcpy(d, s, 16);
    } else if (n >= 8) {
      std::memcpy(d, s, 8);
      std::memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
      std::memcpy(d, s, 4);
      std::memcpy(d + n - 4, s + n - 4, 4);
    } else if (n != 0) {
      d[0] = s[0];
      d[n / 2] = s[n / 2];
      d[n - 1] = s[n - 1];
    }
    return d + n;
  }
  /// n bytes from s at p (no room ensured).
  REFWIRE_PB_INLINE std::byte* put_bytes(std::byte* p, const void* s, std::size_t n) {
    if (n <= static_cast<std::size_t>(lim_ - p)) [[likely]] {
      if (n != 0) std::memcpy(p, s, n);
      return p + n;
    }
    return put_bytes_slow(p, s, n);
  }

  [[gnu::noinline]] std::byte* put_bytes_slow(std::byte* p, const void* s, std::size_t n) {
    p = flush(p);
    if (n < stage_size / 2) {
      std::memcpy(p, s, n);
      return p + n;
    }
    detail::wire::append_bytes(out_, static_cast<const std::byte*>(s), n);
    base_ = out_.size();
    return p;
  }
  /// The last flush of an encoding, whose cursor is p: an inline copy when
  /// the output has room (an assign into a cleared reused buffer, the usual
  /// case, takes a few instructions less than an insert).
  REFWIRE_PB_INLINE void finish(std::byte* p) {
    const auto n = static_cast<std::size_t>(p - stage_);
    if (out_.empty() && out_.capacity() >= n) [[likely]] {
      out_.assign(stage_, p);  // no reallocation: a copy
    } else if (out_.capacity() - out_.size() >= n) {
      out_.insert(out_.end(), stage_, p);
    } else {
      flush(p);
    }
  }
  /// Appends the stage up to p to the output; returns the cursor to go on with.
  [[gnu::noinline]] std::byte* flush(std::byte* p) {
    detail::wire::append_bytes(out_, stage_, static_cast<std::size_t>(p - stage_));
    base_ = out_.size();
    return stage_;
  }

  /// The output offset of the cursor p: open a nested message by taking the
  /// offset of its reserved length byte (the caller has ensured room), for close.
  REFWIRE_PB_INLINE std::size_t offset(const std::byte* p) const noexcept {
    return base_ + static_cast<std::size_t>(p - stage_);
  }
  /// Writes the length of everything written since the one byte reserved at
  /// offset at, up to the cursor p; returns the cursor.
  REFWIRE_PB_INLINE std::byte* close(std::byte* p, std::size_t at) {
    const std::size_t n = offset(p) - at - 1;
    if (at >= base_ && n < 0x80) [[likely]] {
      stage_[at - base_] = static_cast<std::byte>(n);
      return p;
    }
    return close_slow(p, at, n);
  }
  /// Closes a message of a run that reserved k (1 or 2) bytes at offset at,
  /// the previous one's length size; sets k for the next one.
  REFWIRE_PB_INLINE std::byte* close_run(std::byte* p, std::size_t at, std::size_t& k) {
    const std::size_t n = offset(p) - at - k;
    if (at >= base_) [[likely]] {
      std::byte* b = stage_ + (at - base_);
      if (k == 1 && n < 0x80) {
        *b = static_cast<std::byte>(n);
        return p;
      }
      if (k == 2 && n >= 0x80 && n < 0x4000) {
        b[0] = static_cast<std::byte>(n | 0x80);
        b[1] = static_cast<std::byte>(n >> 7);
        return p;
      }
    }
    const std::size_t need = varint_size_(n);
    p = close_resize(p, at, k, n);
    k = need > 1 ? 2 : 1;
    return p;
  }
  [[gnu::noinline]] std::byte* close_resize(std::byte* p, std::size_t at, std::size_t k, std::size_t n) {
    const std::size_t need = varint_size_(n);
    if (need <= k) {  // shrink (k == 2, n < 128)
      const std::size_t less = k - need;
      if (at >= base_) {
        std::byte* b = stage_ + (at - base_);
        std::memmove(b + need, b + k, n);
        p -= less;
      } else {
        const auto first = out_.begin() + static_cast<std::ptrdiff_t>(at + need);
        out_.erase(first, first + static_cast<std::ptrdiff_t>(less));
        base_ = out_.size();
      }
      store_varint(at >= base_ ? stage_ + (at - base_) : out_.data() + at, n);
      return p;
    }
    if (k == 1) return close_slow(p, at, n);
    // k == 2 and a longer length: grow by the difference, as close_slow does.
    const std::size_t extra = need - k;
    if (at >= base_) {
      if (extra <= static_cast<std::size_t>(lim_ - p)) {
        std::byte* b = stage_ + (at - base_);
        std::memmove(b + need, b + k, n);
        store_varint(b, n);
        return p + extra;
      }
      p = flush(p);
    }
    out_.insert(out_.begin() + static_cast<std::ptrdiff_t>(at + k), extra, std::byte{});
    base_ = out_.size();
    store_varint(out_.data() + at, n);
    return p;
  }
  [[gnu::noinline]] std::byte* close_slow(std::byte* p, std::size_t at, std::size_t n) {
    const std::size_t extra = varint_size_(n) - 1;
    if (at >= base_) {
      if (extra <= static_cast<std::size_t>(lim_ - p)) {
        std::byte* b = stage_ + (at - base_);
        std::memmove(b + 1 + extra, b + 1, n);
        store_varint(b, n);
        return p + extra;
      }
      p = flush(p);
    }
    // The reserved byte is in the output; the body runs on into the stage.
    if (extra != 0) {
      out_.insert(out_.begin() + static_cast<std::ptrdiff_t>(at + 1), extra, std::byte{});
      base_ = out_.size();
    }
    store_varint(out_.data() + at, n);
    return p;
  }

 private:
  std::vector<std::byte>& out_;
  std::byte stage_[stage_size];
  std::byte* const lim_ = stage_ + stage_size;
  std::size_t base_;  // out_.size(): the output offset of stage_[0]
};


// ------------------------------------------------------------ wire basics

/// Protobuf wire types.
enum wire : std::uint32_t { w_varint = 0, w_i64 = 1, w_len = 2, w_sgroup = 3, w_egroup = 4, w_i32 = 5 };

inline constexpr std::uint32_t max_field_number = (1U << 29) - 1;

/// What a C++ type is to protobuf (after codec<T> is applied).
enum class cat : std::uint8_t { scalar, string, blob, uuid, message, optional, repeated, map, codec };

template <class T>
constexpr cat category() {
  if constexpr (has_codec<T>) return cat::codec;
  else if constexpr (is_bool_v<T> || is_integer_v<T> || is_float_v<T> || std::is_enum_v<T>) return cat::scalar;
  else if constexpr (is_string_v<T>) return cat::string;
  else if constexpr (is_blob_v<T>) return cat::blob;
  else if constexpr (is_uuid_v<T>) return cat::uuid;
  else if constexpr (is_timestamp<T>::value || is_duration<T>::value) return cat::message;
  else if constexpr (is_optional<T>::value || is_unique_ptr<T>::value) return cat::optional;
  else if constexpr (is_sequence<T>::value || is_set<T>::value || is_std_array<T>::value || std::is_array_v<T>)
    return cat::repeated;
  else if constexpr (is_map<T>::value) return cat::map;
  else if constexpr (is_variant<T>::value || is_tuple<T>::value || record<T>) return cat::message;
  else {
    static_assert(dependent_false<T>,
                  "refwire: this type is not serializable: describe it with BOOST_DESCRIBE_STRUCT, "
                  "make it an aggregate, or specialize refwire::codec<T>");
    return cat::scalar;
  }
}

/// A type that is one protobuf value: a scalar, string, bytes or a message.
/// Anything else (optional, repeated, map) inside a context that needs one
/// value (a repeated element, a map value, a oneof alternative) is wrapped in
/// a message whose field 1 holds it.
template <class T>
constexpr bool singular() {
  constexpr cat c = category<T>();
  if constexpr (c == cat::codec) return singular<typename codec<T>::wire>();
  else return c == cat::scalar || c == cat::string || c == cat::blob || c == cat::uuid || c == cat::message;
}

template <class T> struct repeated_elem { using type = typename T::value_type; };
template <class T, std::size_t N> struct repeated_elem<T[N]> { using type = T; };
template <class T> using repeated_elem_t = typename repeated_elem<T>::type;

/// The integer type on the wire for an integer (or enum's underlying) type:
/// int32 / uint32 / int64 / uint64.
template <class T>
using wire_int_t = std::conditional_t<sizeof(T) <= 4, std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>,
                                      std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;

template <class T> struct scalar_base { using type = T; };
template <class T>
  requires std::is_enum_v<T>
struct scalar_base<T> { using type = std::underlying_type_t<T>; };
/// bool, an integer or a float: what a scalar (or an enum) is read and written as.
template <class T> using scalar_base_t = typename scalar_base<T>::type;

/// The wire type of a scalar under an encoding.
template <class T, int_encoding E>
constexpr wire scalar_wire() {
  using B = scalar_base_t<T>;
  if constexpr (is_bool_v<B>) return w_varint;
  else if constexpr (is_float_v<B>) return sizeof(B) == 4 ? w_i32 : w_i64;
  else if constexpr (E == int_encoding::fixed) return sizeof(B) <= 4 ? w_i32 : w_i64;
  else {
    static_assert(E != int_encoding::zigzag || std::is_signed_v<B>,
                  "refwire: int_encoding::zigzag (sint32/sint64) needs a signed integer field");
    return w_varint;
  }
}

/// The wire type of a singular value.
template <class T, int_encoding E>
constexpr wire value_wire() {
  constexpr cat c = category<T>();
  if constexpr (c == cat::codec) return value_wire<typename codec<T>::wire, E>();
  else if constexpr (c == cat::scalar) return scalar_wire<T, E>();
  else return w_len;
}

/// A repeated element written packed: scalars, and codec types whose
/// surrogate is a scalar.
template <class T>
constexpr bool packable() {
  if constexpr (has_codec<T>) return packable<typename codec<T>::wire>();
  else return category<T>() == cat::scalar;
}

/// The scalar a packable element is written as (through its codec, if any).
template <class T> struct scalar_of { using type = T; };
template <class T>
  requires has_codec<T>
struct scalar_of<T> { using type = typename scalar_of<typename codec<T>::wire>::type; };
template <class T> using scalar_of_t = typename scalar_of<T>::type;

template <class T>
REFWIRE_PB_INLINE scalar_of_t<T> as_scalar(const T& v) {
  if constexpr (has_codec<T>) return as_scalar(codec<T>::to_wire(v));
  else return v;
}

template <std::uint32_t N, wire W>
inline constexpr std::uint32_t tag_v = (N << 3) | W;

constexpr std::size_t varint_size(std::uint64_t v) noexcept {
  return static_cast<std::size_t>((std::bit_width(v | 1) * 9 + 64) / 64);
}

// ------------------------------------------------------------ field numbers

/// A record field's protobuf number: its attribute's `.number`, else position + 1.
template <class F>
constexpr std::uint32_t number_of() {
  if constexpr (F::attr.number != 0) {
    return F::attr.number;
  } else {
    return static_cast<std::uint32_t>(F::index + 1);
  }
}

template <record T>
constexpr bool numbers_valid() {
  bool ok = true;
  std::array<std::uint32_t, boost::mp11::mp_size<walked_fields_t<T>>::value + 1> seen{};
  std::size_t n = 0;
  boost::mp11::mp_for_each<walked_fields_t<T>>([&](auto f) {
    const std::uint32_t num = number_of<decltype(f)>();
    if (num == 0 || num > max_field_number || (num >= 19000 && num <= 19999)) ok = false;
    for (std::size_t i = 0; i < n; ++i) ok = ok && seen[i] != num;
    seen[n++] = num;
  });
  return ok;
}

template <record T>
constexpr void check_numbers() {
  static_assert(numbers_valid<T>(),
                "refwire: protobuf field numbers of this type must be unique, in 1..2^29-1 and outside the "
                "reserved range 19000..19999");
}

// ---------------------------------------------------------- scalar encoding

/// The varint (or fixed) image of a scalar under an encoding.
template <class T, int_encoding E>
constexpr std::uint64_t scalar_bits(T v) noexcept {
  using B = scalar_base_t<T>;
  const B b = static_cast<B>(v);
  if constexpr (is_bool_v<B>) {
    return b ? 1 : 0;
  } else if constexpr (is_float_v<B>) {
    if constexpr (sizeof(B) == 4) return std::bit_cast<std::uint32_t>(b);
    else return std::bit_cast<std::uint64_t>(b);
  } else {
    using I = wire_int_t<B>;
    const I i = static_cast<I>(b);
    if constexpr (E == int_encoding::zigzag) {
      using U = std::make_unsigned_t<I>;
      return static_cast<U>((static_cast<U>(i) << 1) ^ static_cast<U>(i >> (sizeof(I) * 8 - 1)));
    } else if constexpr (E == int_encoding::fixed) {
      return static_cast<std::make_unsigned_t<I>>(i);
    } else if constexpr (std::is_signed_v<I>) {
      return static_cast<std::uint64_t>(static_cast<std::int64_t>(i));  // int32: sign-extended, as protobuf
    } else {
      return static_cast<std::uint64_t>(i);
    }
  }
}

/// A scalar's payload at p, which has room for 10 bytes.
template <class T, int_encoding E>
REFWIRE_PB_INLINE std::byte* store_scalar(std::byte* p, T v) noexcept {
  constexpr wire wt = scalar_wire<T, E>();
  const std::uint64_t bits = scalar_bits<T, E>(v);
  if constexpr (wt == w_varint) {
    return writer::store_varint_wide(p, bits);
  } else if constexpr (wt == w_i32) {
    detail::wire::store_le(p, static_cast<std::uint32_t>(bits));
    return p + 4;
  } else {
    detail::wire::store_le(p, bits);
    return p + 8;
  }
}

template <class T, int_encoding E>
REFWIRE_PB_INLINE std::byte* put_scalar(writer& w, std::byte* p, T v) {
  return store_scalar<T, E>(w.ensure(p, 10), v);
}

template <class T, int_encoding E>
constexpr std::size_t scalar_size(T v) noexcept {
  constexpr wire wt = scalar_wire<T, E>();
  if constexpr (wt == w_varint) {
    using B = scalar_base_t<T>;
    if constexpr (is_bool_v<B>) return 1;
    else return varint_size(scalar_bits<T, E>(v));
  } else if constexpr (wt == w_i32) {
    return 4;
  } else {
    return 8;
  }
}

template <class T>
constexpr bool scalar_is_zero(T v) noexcept {
  return scalar_bits<T, int_encoding::varint>(v) == 0;  // floats: the bits (-0.0 and NaN are written)
}

// ------------------------------------------------------------ time values

/// seconds and nanos of a google.protobuf.Timestamp (nanos in [0, 1e9)) or
/// Duration (nanos with the sign of seconds).
struct seconds_nanos {
  std::int64_t seconds = 0;
  std::int32_t nanos = 0;
};

template <class T>
seconds_nanos split_time(const T& v) {
  constexpr std::int64_t giga = 1'000'000'000;
  if constexpr (is_timestamp<T>::value) {
    const std::int64_t ns = checked_nanoseconds(v.time_since_epoch());
    std::int64_t s = ns / giga;
    std::int64_t n = ns % giga;
    if (n < 0) {
      n += giga;
      --s;
    }
    return {s, static_cast<std::int32_t>(n)};
  } else {
    const std::int64_t ns = checked_nanoseconds(v);
    return {ns / giga, static_cast<std::int32_t>(ns % giga)};
  }
}

// ------------------------------------------------------------------ encode

/// An encode failure: protobuf's string fields must hold UTF-8 (the text is quoted, shortened).
[[noreturn]] void throw_invalid_utf8(std::string_view text);
/// Validates UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
bool utf8_valid_slow(const char* p, std::size_t n) noexcept;
/// UTF-8 check with an inline ASCII fast path (8 bytes at a time).
REFWIRE_PB_INLINE bool utf8_valid(const char* p, std::size_t n) noexcept {
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

/// UTF-8 check for the encoder: up to 64 bytes are tested for ASCII in a
/// few word loads (some overlapping), all inside [p, p + n); longer text
/// goes to utf8_valid.
REFWIRE_PB_INLINE bool text_valid(const char* p, std::size_t n) noexcept {
  if (n > 64) return utf8_valid(p, n);
  const auto word = [p](std::size_t at) {
    std::uint64_t x;
    std::memcpy(&x, p + at, 8);
    return x;
  };
  std::uint64_t any;
  if (n >= 8) {
    any = word(0) | word(n - 8);
    if (n > 16) any |= word(8) | word(n - 16);
    if (n > 32) any |= word(16) | word(24) | word(n - 32) | word(n - 24);
  } else if (n >= 4) {
    std::uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    any = a | b;
  } else if (n != 0) {
    any = static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[n / 2]) |
          static_cast<unsigned char>(p[n - 1]);
  } else {
    return true;
  }
  if ((any & 0x8080808080808080ULL) == 0) [[likely]] return true;
  return utf8_valid_slow(p, n);
}

template <class T> std::byte* put_body(writer& w, std::byte* p, const T& v);
template <std::uint32_t N, int_encoding E, class T>
REFWIRE_PB_INLINE std::byte* put_field(writer& w, std::byte* p, const T& v);

/// The most bytes a field of type T takes (tag included) when it is written
/// with stores alone, bounded at compile time: scalars and uuids; else 0.
template <class T>
constexpr std::size_t fixed_room() {
  if constexpr (has_codec<T>) return 0;
  else if constexpr (category<T>() == cat::scalar) return 5 + 10;
  else if constexpr (category<T>() == cat::uuid) return 5 + 17;
  else return 0;
}

/// proto3 leaves out a zero scalar and a nil uuid.
template <class T>
constexpr bool fixed_is_default(const T& v) noexcept {
  if constexpr (category<T>() == cat::scalar) return scalar_is_zero(v);
  else return v.is_nil();
}

/// Field N holding a scalar or uuid v, at p with fixed_room<T>() bytes of room.
template <std::uint32_t N, int_encoding E, class T>
REFWIRE_PB_INLINE std::byte* store_elem(std::byte* p, const T& v) noexcept {
  if constexpr (category<T>() == cat::scalar) {
    return store_scalar<T, E>(writer::store_tag<tag_v<N, value_wire<T, E>()>>(p), v);
  } else {
    return writer::store_short_bytes(writer::store_tag<tag_v<N, w_len>>(p), v.bytes.data(), 16, true);
  }
}

/// Field N holding a string or bytes (the caller has decided to write it).
template <std::uint32_t N, class T>
REFWIRE_PB_INLINE std::byte* put_text(writer& w, std::byte* p, const T& v) {
  const std::size_t n = v.size();
  if constexpr (is_string_v<T>) {
    if (!text_valid(v.data(), n)) [[unlikely]] throw_invalid_utf8(v);
  }
  p = writer::store_tag<tag_v<N, w_len>>(w.ensure(p, 5 + 65));
  if (n <= 64) [[likely]] {
    bool padded = false;
    if constexpr (is_string_v<T>) padded = v.capacity() >= 15;
    return writer::store_short_bytes(p, v.data(), n, padded);
  }
  return w.put_bytes(writer::store_varint_wide(p, n), v.data(), n);
}

/// A value that is not singular, as the body of its wrapper message (field 1).
template <class X, int_encoding E>
struct wrapped {
  const X& x;
};

/// One occurrence of field N holding v, always written (repeated elements,
/// map keys and values, oneof alternatives, present optionals).
template <std::uint32_t N, int_encoding E, class T>
REFWIRE_PB_INLINE std::byte* put_elem(writer& w, std::byte* p, const T& v) {
  if constexpr (has_codec<T>) {
    return put_elem<N, E>(w, p, codec<T>::to_wire(v));
  } else if constexpr (fixed_room<T>() != 0) {
    return store_elem<N, E>(w.ensure(p, fixed_room<T>()), v);
  } else if constexpr (category<T>() == cat::string || category<T>() == cat::blob) {
    return put_text<N>(w, p, v);
  } else {
    p = writer::store_tag<tag_v<N, w_len>>(w.ensure(p, 6));
    const std::size_t at = w.offset(p);
    if constexpr (category<T>() == cat::message) {
      p = put_body(w, p + 1, v);
    } else {
      p = put_field<1, E>(w, p + 1, v);
    }
    return w.close(p, at);
  }
}

template <class T>
inline std::size_t container_size(const T& v) {
  if constexpr (std::is_array_v<T>) {
    return std::extent_v<T>;
  } else {
    return v.size();
  }
}

template <class T, int_encoding E>
inline constexpr bool packed_memcpy =
    memcpy_ok<T> && (is_float_v<T> || (E == int_encoding::fixed && (sizeof(T) == 4 || sizeof(T) == 8)));

/// The longest varint of a scalar under an encoding.
template <class S, int_encoding E>
constexpr std::size_t max_varint_bytes() {
  using I = wire_int_t<scalar_base_t<S>>;
  return sizeof(I) <= 4 && (E == int_encoding::zigzag || std::is_unsigned_v<I>) ? 5 : 10;
}

/// Packed varints: the run's length is back-patched when the run fits the stage.
template <class El, int_encoding E>
inline constexpr bool packed_varints = scalar_wire<El, E>() == w_varint && !is_bool_v<scalar_base_t<El>>;

template <int_encoding E, class C>
inline std::size_t packed_payload_size(const C& v) {
  using R = repeated_elem_t<C>;
  using El = scalar_of_t<R>;
  constexpr wire wt = scalar_wire<El, E>();
  if constexpr (wt == w_i32) {
    return container_size(v) * 4;
  } else if constexpr (wt == w_i64) {
    return container_size(v) * 8;
  } else if constexpr (is_bool_v<scalar_base_t<El>>) {
    return container_size(v);
  } else {
    std::size_t n = 0;
    for (const auto& e : v) n += scalar_size<El, E>(as_scalar<R>(e));
    return n;
  }
}

/// Field N holding v, under proto3's rules: zero scalars, empty strings and
/// empty containers are not written; messages always are.
template <std::uint32_t N, int_encoding E, class T>
REFWIRE_PB_INLINE std::byte* put_field(writer& w, std::byte* p, const T& v) {
  constexpr cat c = category<T>();
  if constexpr (c == cat::codec) {
    return put_field<N, E>(w, p, codec<T>::to_wire(v));
  } else if constexpr (c == cat::scalar || c == cat::uuid) {
    return fixed_is_default(v) ? p : put_elem<N, E>(w, p, v);
  } else if constexpr (c == cat::string || c == cat::blob) {
    return v.empty() ? p : put_elem<N, E>(w, p, v);
  } else if constexpr (c == cat::message) {
    return put_elem<N, E>(w, p, v);
  } else if constexpr (c == cat::optional) {
    return v ? put_elem<N, E>(w, p, *v) : p;
  } else if constexpr (c == cat::repeated) {
    using El = repeated_elem_t<T>;
    const std::size_t count = container_size(v);
    if (count == 0) return p;
    if constexpr (packable<El>()) {
      using S = scalar_of_t<El>;
      p = writer::store_tag<tag_v<N, w_len>>(w.ensure(p, 15));
      if constexpr (packed_varints<S, E>) {
        constexpr std::size_t most = max_varint_bytes<S, E>();
        // The whole run, its length patched after, when the longest run
        // fits the stage; else sized first.
        if (count <= (writer::stage_size - 32) / most) {
          p = w.ensure(p, count * most + 11);  // store_varint_wide may write 10 bytes at the last element
          const std::size_t at = w.offset(p);
          ++p;
          for (const auto& e : v) p = writer::store_varint_wide(p, scalar_bits<S, E>(as_scalar<El>(e)));
          return w.close(p, at);
        }
        p = writer::store_varint_wide(p, packed_payload_size<E>(v));
        for (const auto& e : v) p = put_scalar<S, E>(w, p, as_scalar<El>(e));
        return p;
      } else {
        p = writer::store_varint_wide(p, packed_payload_size<E>(v));
        if constexpr (packed_memcpy<El, E> && (is_vector<T>::value || is_std_array<T>::value || std::is_array_v<T>)) {
          return w.put_bytes(p, std::data(v), count * sizeof(El));
        } else {
          for (const auto& e : v) p = put_scalar<S, E>(w, p, as_scalar<El>(e));
          return p;
        }
      }
    } else if constexpr (category<El>() == cat::message) {
      // A run of messages: each reserves as many length bytes as the previous one needed.
      std::size_t k = 1;
      for (const auto& e : v) {
        p = writer::store_tag<tag_v<N, w_len>>(w.ensure(p, 7));
        const std::size_t at = w.offset(p);
        p = put_body(w, p + k, static_cast<const El&>(e));
        p = w.close_run(p, at, k);
      }
      return p;
    } else {
      for (const auto& e : v) p = put_elem<N, E>(w, p, static_cast<const El&>(e));
      return p;
    }
  } else if constexpr (c == cat::map) {
    using K = typename T::key_type;
    static_assert(is_integer_v<K> || is_bool_v<K> || is_string_v<K>,
                  "refwire: protobuf map keys must be integers, bool or std::string (protobuf's rule); "
                  "use a vector of pairs (a repeated message) for other keys");
    for (const auto& [key, value] : v) {
      p = writer::store_tag<tag_v<N, w_len>>(w.ensure(p, 15));
      const std::size_t at = w.offset(p);
      p = put_elem<1, E>(w, p + 1, key);
      p = put_elem<2, E>(w, p, value);
      p = w.close(p, at);
    }
    return p;
  }
}

/// For each of a record's fields, the room to check before it: the sum of
/// fixed_room over the run of consecutive fixed-room fields it starts (runs
/// of at most 512 bytes), 0 inside a run and for other fields (which check
/// their own).
template <class... Fs>
constexpr std::array<std::size_t, sizeof...(Fs)> run_rooms() {
  const std::array<std::size_t, sizeof...(Fs)> room{fixed_room<typename Fs::type>()...};
  std::array<std::size_t, sizeof...(Fs)> run{};
  std::size_t start = 0;
  for (std::size_t i = 0; i < room.size(); ++i) {
    if (room[i] == 0) continue;
    if (i == 0 || room[i - 1] == 0 || run[start] + room[i] > 512) start = i;
    run[start] += room[i];
  }
  return run;
}

/// Field N of a record: a fixed-room field after its run's room check (Room,
/// when it starts the run), any other through put_field.
template <std::uint32_t N, int_encoding E, std::size_t Room, class T>
REFWIRE_PB_INLINE std::byte* put_member(writer& w, std::byte* p, const T& v) {
  if constexpr (fixed_room<T>() == 0) {
    return put_field<N, E>(w, p, v);
  } else {
    if constexpr (Room != 0) p = w.ensure(p, Room);
    return fixed_is_default(v) ? p : store_elem<N, E>(p, v);
  }
}

/// A record's fields, in a fold of calls that keeps the cursor local (a
/// lambda capturing it by reference, as for_each_field takes, would keep it
/// in memory when not inlined).
template <class T, class... Fs, std::size_t... I>
REFWIRE_PB_INLINE std::byte* put_fields(writer& w, std::byte* p, const T& v, boost::mp11::mp_list<Fs...>,
                                        std::index_sequence<I...>) {
  [[maybe_unused]] static constexpr std::array<std::size_t, sizeof...(Fs)> rooms = run_rooms<Fs...>();
  ((p = put_member<number_of<Fs>(), Fs::attr.encoding, rooms[I]>(w, p, Fs::get(v))), ...);
  return p;
}

/// The fields of a message-like value (record, tuple, variant, timestamp,
/// duration), from the cursor p; returns the cursor after them. Inlined
/// into the top-level encode; nested messages go through put_body.
template <class T>
REFWIRE_PB_INLINE std::byte* put_message(writer& w, std::byte* p, const T& v) {
  if constexpr (is_timestamp<T>::value || is_duration<T>::value) {
    const seconds_nanos sn = split_time(v);
    p = put_field<1, int_encoding::varint>(w, p, sn.seconds);
    return put_field<2, int_encoding::varint>(w, p, sn.nanos);
  } else if constexpr (is_variant<T>::value) {
    return boost::mp11::mp_with_index<std::variant_size_v<T>>(v.index(), [&](auto I) {
      return put_elem<static_cast<std::uint32_t>(I + 1), int_encoding::varint>(w, p, *std::get_if<I>(&v));
    });
  } else if constexpr (is_tuple<T>::value) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((p = put_field<static_cast<std::uint32_t>(I + 1), int_encoding::varint>(w, p, std::get<I>(v))), ...);
    }(std::make_index_sequence<std::tuple_size_v<T>>{});
    return p;
  } else {
    check_numbers<T>();
    static_assert(attribute_names_valid<T>(),
                  "refwire: REFWIRE_ATTRIBUTES names a member that this type does not describe");
    using Fs = walked_fields_t<T>;
    return put_fields(w, p, v, Fs{}, std::make_index_sequence<boost::mp11::mp_size<Fs>::value>{});
  }
}

template <class T>
std::byte* put_body(writer& w, std::byte* p, const T& v) {
  return put_message(w, p, v);
}

/// A top-level value: a record, tuple or variant is the message; anything
/// else (timestamps and durations included) is field 1 of a wrapper message.
template <class T>
REFWIRE_PB_INLINE std::byte* encode(writer& w, std::byte* p, const T& v);

/// Appends v's encoding to out.
template <class T>
void encode_into(std::vector<std::byte>& out, const T& v) {
  const std::size_t old = out.size();
  try {
    writer w(out);
    w.finish(encode(w, w.start(), v));
  } catch (encode_failure& f) {
    out.resize(old);  // no partial encoding is left behind
    throw_encode_error(f);
  } catch (...) {
    out.resize(old);
    throw;
  }
}

template <class T>
REFWIRE_PB_INLINE std::byte* encode(writer& w, std::byte* p, const T& v) {
  if constexpr (has_codec<T>) {
    return encode(w, p, codec<T>::to_wire(v));
  } else if constexpr (category<T>() == cat::message && !is_timestamp<T>::value && !is_duration<T>::value) {
    return put_message(w, p, v);
  } else {
    return put_field<1, int_encoding::varint>(w, p, v);
  }
}

// ------------------------------------------------------------------ reader

/// The binary reader's cursor, budgets and failure record, plus protobuf's
/// unknown-field switch. `end` is the end of the message being parsed.
struct reader : byte_reader {
  bool reject_unknown;
  /// The end of the whole input: a varint near the end of a nested message
  /// may be loaded past it (within the input), then checked against end.
  const std::byte* input_end;
  reader(std::span<const std::byte> in, const decode_options& o) noexcept
      : byte_reader(in, o), reject_unknown(o.reject_unknown_fields), input_end(in.data() + in.size()) {}
};


// Out-of-line paths (src/protobuf.cpp); each failure returns false.
bool read_varint_slow(reader& r, std::uint64_t& v);
bool fail_at(reader& r, const std::byte* at, errc code, std::string reason);
bool fail_wire(reader& r, const std::byte* at, std::uint64_t field, std::uint32_t got, std::uint32_t expected);
bool fail_range(reader& r, const std::byte* at, std::string_view type, std::uint64_t bits);
bool fail_utf8(reader& r, const std::byte* at);
bool skip_field(reader& r, std::uint32_t wt, std::uint64_t field, const std::byte* at);
bool fail_tag(reader& r, const std::byte* at, std::uint64_t field, std::uint32_t wt);
bool fail_array(reader& r, const std::byte* at, std::size_t extent);
/// How many length-delimited occurrences of one tag follow each other from p
/// (p is just after the first tag, whose bytes are [tag, tag + tag_len)).
std::size_t count_run(const std::byte* p, const std::byte* end, const std::byte* tag, std::size_t tag_len) noexcept;

/// The varint at p, which has ten readable bytes (no bounds checks): its
/// length (1 to 10) with its value in v, or 0 when it is longer than ten
/// bytes or exceeds 64 bits. Each byte is added whole and the previous
/// byte's continuation bit subtracted.
REFWIRE_PB_INLINE std::size_t varint10(const std::uint8_t* p, std::uint64_t& v) noexcept {
  std::uint64_t res = p[0];
  if (res < 0x80) {
    v = res;
    return 1;
  }
  std::uint64_t b;
#define REFWIRE_PB_VARINT_STEP(i)                  \
  b = p[i];                                        \
  res += (b - 1) << (7 * (i));                     \
  if (b < 0x80) {                                  \
    v = res;                                       \
    return (i) + 1;                                \
  }
  REFWIRE_PB_VARINT_STEP(1)
  REFWIRE_PB_VARINT_STEP(2)
  REFWIRE_PB_VARINT_STEP(3)
  REFWIRE_PB_VARINT_STEP(4)
  REFWIRE_PB_VARINT_STEP(5)
  REFWIRE_PB_VARINT_STEP(6)
  REFWIRE_PB_VARINT_STEP(7)
  REFWIRE_PB_VARINT_STEP(8)
#undef REFWIRE_PB_VARINT_STEP
  b = p[9];
  if (b <= 1) {
    v = res + ((b - 1) << 63);
    return 10;
  }
  return 0;
}

/// As varint10, for a varint that must end by end (the bytes up to limit,
/// at or past end, are readable): 0 also when it does not end before end.
REFWIRE_PB_INLINE std::size_t varint_before(const std::uint8_t* p, const std::uint8_t* end, const std::uint8_t* limit,
                                            std::uint64_t& v) noexcept {
  if (limit - p >= 10) {
    const std::size_t len = varint10(p, v);
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

REFWIRE_PB_INLINE bool read_varint(reader& r, std::uint64_t& v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(r.cur);
  const std::size_t left = r.left();
  if (left != 0 && p[0] < 0x80) [[likely]] {
    v = p[0];
    r.cur += 1;
    return true;
  }
  if (static_cast<std::size_t>(r.input_end - r.cur) >= 10) [[likely]] {
    const std::size_t len = varint10(p, v);
    if (len != 0 && len <= left) [[likely]] {
      r.cur += len;
      return true;
    }
    return read_varint_slow(r, v);  // reports it within end
  }
  // Bounded by the bytes left (the end of a nested message or packed run is
  // near for its last fields); errors are reported out of line.
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
  return read_varint_slow(r, v);
}

/// Reads a tag; fails on field number 0 or past 2^29-1 and on wire types 6 and 7.
REFWIRE_PB_INLINE bool read_tag(reader& r, std::uint64_t& field, std::uint32_t& wt) {
  const std::byte* at = r.cur;
  std::uint64_t tag;
  if (!read_varint(r, tag)) [[unlikely]] return false;
  field = tag >> 3;
  wt = static_cast<std::uint32_t>(tag & 7);
  if (field == 0 || field > max_field_number || wt > 5) [[unlikely]] return fail_tag(r, at, field, wt);
  return true;
}

/// Reads a length and narrows the reader to it; restores the outer end on scope exit.
struct sub_message {
  reader& r;
  const std::byte* outer_end;
  sub_message(reader& rd, std::size_t n) noexcept : r(rd), outer_end(rd.end) { r.end = r.cur + n; }
  ~sub_message() { r.end = outer_end; }
  sub_message(const sub_message&) = delete;
  sub_message& operator=(const sub_message&) = delete;
};

/// The general tag loop over the rest of the current message: each field goes
/// to on_field(field, wire type, its tag's offset), which returns 1 (read),
/// 0 (not one of its fields: skipped here) or -1 (failed, recorded).
template <class OnField>
REFWIRE_PB_INLINE bool read_fields(reader& r, OnField&& on_field) {
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

REFWIRE_PB_INLINE bool read_length(reader& r, std::uint64_t& n, std::string_view what) {
  if (!read_varint(r, n)) [[unlikely]] return false;
  if (n > r.left()) [[unlikely]] return fail_truncated(r, what, static_cast<std::size_t>(n));
  return true;
}

template <class T>
inline void reset(T& v);

template <class Tuple, std::size_t... I>
inline void reset_tuple(Tuple& t, std::index_sequence<I...>) {
  (reset(std::get<I>(t)), ...);
}

/// Proto3's zero value: 0, false, empty, absent, alternative 0 (itself zero);
/// not the C++ default member initializers. Skipped fields are left alone.
template <class T>
inline void reset(T& v) {
  constexpr cat c = category<T>();
  if constexpr (c == cat::codec || c == cat::scalar || c == cat::uuid || is_timestamp<T>::value ||
                is_duration<T>::value) {
    v = T{};
  } else if constexpr (c == cat::string || c == cat::blob || c == cat::map || is_sequence<T>::value ||
                       is_set<T>::value) {
    v.clear();
  } else if constexpr (c == cat::optional) {
    v.reset();
  } else if constexpr (c == cat::repeated) {  // fixed-size arrays
    for (auto& e : v) reset(e);
  } else if constexpr (is_variant<T>::value) {
    if (v.index() != 0) v.template emplace<0>();
    reset(*std::get_if<0>(&v));
  } else if constexpr (is_tuple<T>::value) {
    reset_tuple(v, std::make_index_sequence<std::tuple_size_v<T>>{});
  } else {
    for_each_field(v, [](auto, auto& member) { reset(member); });
  }
}

template <class T> bool read_body(reader& r, T& v);
template <int_encoding E, class T>
REFWIRE_PB_INLINE bool read_field(reader& r, std::uint32_t wt, T& v, std::uint64_t field, const std::byte* at,
                                  std::uint32_t& count);

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
REFWIRE_PB_INLINE bool scalar_try_bits(std::uint64_t bits, T& v) noexcept {
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
REFWIRE_PB_INLINE bool scalar_from_bits(reader& r, const std::byte* at, std::uint64_t bits, T& v) {
  using B = scalar_base_t<T>;
  if constexpr (is_bool_v<B> || is_float_v<B>) {
    return scalar_try_bits<T, E>(bits, v);
  } else {
    if (!scalar_try_bits<T, E>(bits, v)) [[unlikely]] return fail_range(r, at, scalar_name<B>(), bits);
    return true;
  }
}

template <class T, int_encoding E>
REFWIRE_PB_INLINE bool read_scalar(reader& r, T& v) {
  constexpr wire wt = scalar_wire<T, E>();
  const std::byte* at = r.cur;
  std::uint64_t bits;
  if constexpr (wt == w_varint) {
    if (!read_varint(r, bits)) [[unlikely]] return false;
  } else if constexpr (wt == w_i32) {
    if (r.left() < 4) [[unlikely]] return fail_truncated(r, "fixed32", 4);
    bits = detail::wire::load_le<std::uint32_t>(r.cur);
    r.cur += 4;
  } else {
    if (r.left() < 8) [[unlikely]] return fail_truncated(r, "fixed64", 8);
    bits = detail::wire::load_le<std::uint64_t>(r.cur);
    r.cur += 8;
  }
  return scalar_from_bits<T, E>(r, at, bits, v);
}

/// A decoded string's UTF-8 check: all ASCII is found with a few (possibly
/// overlapping) loads, without a byte loop; anything else is validated whole.
REFWIRE_PB_INLINE bool utf8_valid_read(const char* p, std::size_t n) noexcept {
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
  } else if (n >= 4) {
    std::uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    if (((a | b) & 0x80808080U) == 0) [[likely]] return true;
  } else if (n == 0 || ((static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[n / 2]) |
                         static_cast<unsigned char>(p[n - 1])) & 0x80U) == 0) {
    return true;  // p[0], p[n / 2] and p[n - 1] are every byte of n <= 3
  }
  return utf8_valid_slow(p, n);
}

template <class T>
bool time_from(reader& r, const std::byte* at, seconds_nanos sn, T& v);

/// A singular value's payload, its wire type already checked; messages merge into v.
template <int_encoding E, class T>
REFWIRE_PB_INLINE bool read_value(reader& r, T& v) {
  constexpr cat c = category<T>();
  if constexpr (c == cat::scalar) {
    return read_scalar<T, E>(r, v);
  } else if constexpr (c == cat::string || c == cat::blob) {
    const std::byte* at = r.cur;
    std::uint64_t n;
    if (!read_length(r, n, c == cat::string ? "string" : "bytes")) [[unlikely]] return false;
    if (!charge(r, n)) [[unlikely]] return false;
    if constexpr (c == cat::string) {
      if (!utf8_valid_read(reinterpret_cast<const char*>(r.cur), static_cast<std::size_t>(n))) [[unlikely]]
        return fail_utf8(r, at);
      if (v.empty()) {
        // Constructed in place: one copy (a temporary moved in copies a
        // short string twice; assign goes through the general replace).
        T* const s = std::addressof(v);
        s->~T();
        try {
          ::new (static_cast<void*>(s)) T(reinterpret_cast<const char*>(r.cur), static_cast<std::size_t>(n));
        } catch (...) {
          ::new (static_cast<void*>(s)) T();
          throw;
        }
      } else {
        v.assign(reinterpret_cast<const char*>(r.cur), static_cast<std::size_t>(n));
      }
    } else {
      v.assign(r.cur, r.cur + n);
    }
    r.cur += n;
    return true;
  } else if constexpr (c == cat::uuid) {
    const std::byte* at = r.cur;
    std::uint64_t n;
    if (!read_length(r, n, "uuid")) [[unlikely]] return false;
    if (n == 0) {
      v = uuid{};
      return true;
    }
    if (n != 16) [[unlikely]]
      return fail_at(r, at, errc::invalid_value, "a uuid needs 16 bytes (or none), got " + std::to_string(n));
    std::memcpy(v.bytes.data(), r.cur, 16);
    r.cur += 16;
    return true;
  } else {
    std::uint64_t n;
    if (!read_length(r, n, "message")) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope depth(r);
    sub_message sub(r, static_cast<std::size_t>(n));
    return read_body(r, v);
  }
}

/// One occurrence of a value that is always written (repeated element, map
/// key / value, oneof alternative, optional content): checks the wire type;
/// a non-singular value is its wrapper message.
template <int_encoding E, class T>
REFWIRE_PB_INLINE bool read_elem(reader& r, std::uint32_t wt, T& v, std::uint64_t field, const std::byte* at) {
  if constexpr (has_codec<T>) {
    using U = typename codec<T>::wire;
    U tmp{};
    reset(tmp);
    if (!read_elem<E>(r, wt, tmp, field, at)) [[unlikely]] return false;
    try {
      v = codec<T>::from_wire(std::move(tmp));
    } catch (const std::exception& e) {
      return fail_at(r, at, errc::invalid_value, e.what());
    }
    return true;
  } else if constexpr (singular<T>()) {
    constexpr wire expected = value_wire<T, E>();
    if (wt != expected) [[unlikely]] return fail_wire(r, at, field, wt, expected);
    return read_value<E>(r, v);
  } else {
    if (wt != w_len) [[unlikely]] return fail_wire(r, at, field, wt, w_len);
    std::uint64_t n;
    if (!read_length(r, n, "message")) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope depth(r);
    sub_message sub(r, static_cast<std::size_t>(n));
    std::uint32_t count = 0;
    return read_fields(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* tat) {
      if (f != 1) return 0;
      return read_field<E>(r, t, v, f, tat, count) ? 1 : -1;
    });
  }
}

template <class M, class K>
inline void push_map_key(reader& r, const K& key) {
  if constexpr (is_string_v<K>) push_key(r, std::string_view(key));
  else if constexpr (std::is_signed_v<K>) push_key(r, static_cast<long long>(key));
  else push_key(r, static_cast<unsigned long long>(key));
}

/// Packed varints of one length L (1 to 3 bytes), a word at a time: the
/// values of a packed run are often of one size. While the eight bytes at p
/// (readable up to limit) begin with varints of L bytes only, as many as fit
/// in the word (8, 4 or 2, all before q) are decoded into out + k at once;
/// stops at anything else (the caller reads it one varint at a time).
template <std::size_t L, class S, int_encoding E>
REFWIRE_PB_INLINE void same_length_varints(const std::uint8_t*& p, const std::uint8_t* q, const std::uint8_t* limit,
                                           S* out, std::size_t& k) noexcept {
  constexpr std::size_t per = L == 3 ? 2 : 8 / L;  // varints a word
  constexpr std::size_t span = per * L;            // their bytes
  constexpr std::uint64_t high = span == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * span)) - 1;
  constexpr std::uint64_t mask = 0x8080808080808080ULL & high;  // the continuation bits
  constexpr std::uint64_t pattern = [] {                         // set on all but each varint's last byte
    std::uint64_t m = 0;
    for (std::size_t i = 0; i < per; ++i)
      for (std::size_t j = 0; j + 1 < L; ++j) m |= std::uint64_t{0x80} << (8 * (i * L + j));
    return m;
  }();
  while (static_cast<std::size_t>(q - p) >= span && limit - p >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    if constexpr (std::endian::native != std::endian::little) w = __builtin_bswap64(w);
    if ((w & mask) != pattern) return;
    for (std::size_t i = 0; i < per; ++i) {
      const std::uint64_t y = w >> (8 * L * i);
      std::uint64_t v = 0;
      for (std::size_t j = 0; j < L; ++j) v |= (y >> j) & (std::uint64_t{0x7f} << (7 * j));
      if (!scalar_try_bits<S, E>(v, out[k + i])) [[unlikely]] return;
    }
    k += per;
    p += span;
  }
}

/// p, with what it points to hidden from the optimizer: g++ copies a range
/// it knows to be within a small stack array with `rep movsq`, whose start-up
/// cost (tens of cycles on current x86) exceeds a memcpy call's for the tens
/// of bytes of a short packed run.
template <class P>
REFWIRE_PB_INLINE P* opaque(P* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  asm("" : "+r"(p));
#endif
  return p;
}

template <int_encoding E, class C>
inline bool read_packed(reader& r, C& v, const std::byte* at, std::uint32_t& count) {
  using El = repeated_elem_t<C>;
  using S = scalar_of_t<El>;
  constexpr wire wt = scalar_wire<S, E>();
  std::uint64_t n;
  if (!read_length(r, n, "packed field")) [[unlikely]] return false;
  const std::byte* const stop = r.cur + n;
  if constexpr (wt == w_varint && is_vector<C>::value && !has_codec<El> && !std::is_same_v<C, std::vector<bool>>) {
    // A short run: decoded onto the stack in one pass, then appended with
    // one allocation. Its element count is known only at the end, so any
    // bad varint or value falls through to the general path below, which
    // checks the limits first and reports the same error as ever.
    constexpr std::size_t short_run = 128;
    if (n <= short_run) {
      S buf[short_run];
      std::size_t k = 0;
      const auto* p = reinterpret_cast<const std::uint8_t*>(r.cur);
      const auto* const q = reinterpret_cast<const std::uint8_t*>(stop);
      const auto* const limit = reinterpret_cast<const std::uint8_t*>(r.input_end);
      while (p != q) {
        std::uint64_t bits;
        const std::size_t len = varint_before(p, q, limit, bits);
        if (len == 0 || !scalar_try_bits<S, E>(bits, buf[k])) [[unlikely]] break;
        ++k;
        p += len;
        // Then any more of the same length, a word at a time.
        if (len == 1) same_length_varints<1, S, E>(p, q, limit, buf, k);
        else if (len == 2) same_length_varints<2, S, E>(p, q, limit, buf, k);
        else if (len == 3) same_length_varints<3, S, E>(p, q, limit, buf, k);
      }
      if (p == q) [[likely]] {
        // k is the number of bytes without a continuation bit, as counted below.
        if (k > r.elements_left) [[unlikely]] return fail_elements(r, k);
        if (k > r.alloc_left / sizeof(El)) [[unlikely]] return fail_alloc(r, k * sizeof(El));
        r.elements_left -= k;
        r.alloc_left -= k * sizeof(El);
        const S* const src = opaque(buf);
        v.insert(v.end(), src, src + k);
        r.cur = stop;
        return true;
      }
    }
  }
  std::uint64_t elems;
  if constexpr (wt == w_varint) {
    elems = 0;  // the bytes without a continuation bit, 8 at a time
    const std::byte* p = r.cur;
    for (; stop - p >= 8; p += 8) {
      std::uint64_t chunk;
      std::memcpy(&chunk, p, 8);
      const std::uint64_t ends = (~chunk >> 7) & 0x0101010101010101ULL;  // 1 per byte < 0x80
      elems += (ends * 0x0101010101010101ULL) >> 56;
    }
    for (; p != stop; ++p) elems += static_cast<std::uint8_t>(*p) < 0x80 ? 1 : 0;
  } else {
    constexpr std::size_t width = wt == w_i32 ? 4 : 8;
    if (n % width != 0) [[unlikely]]
      return fail_at(r, at, errc::invalid_value,
                     "packed length " + std::to_string(n) + " is not a multiple of " + std::to_string(width));
    elems = n / width;
  }
  if (elems > r.elements_left) [[unlikely]] return fail_elements(r, elems);
  r.elements_left -= elems;
  if constexpr (std::is_array_v<C> || is_std_array<C>::value) {
    constexpr std::size_t extent = fixed_extent<C>;
    if (elems > extent - count) [[unlikely]] return fail_array(r, at, extent);
  } else {
    if (elems > r.alloc_left / sizeof(El)) [[unlikely]] return fail_alloc(r, elems * sizeof(El));
    r.alloc_left -= elems * sizeof(El);
  }
  if constexpr (packed_memcpy<El, E> && is_vector<C>::value) {
    if (elems >= 2) {
      // One allocation and one memmove: for a trivially copyable El, libstdc++
      // and libc++ copy a pointer range of two or more elements with memmove,
      // so the (possibly unaligned) pointer is never used to load an El.
      const El* first = reinterpret_cast<const El*>(r.cur);
      v.insert(v.end(), first, first + elems);
    } else if (elems == 1) {
      v.emplace_back();
      std::memcpy(&v.back(), r.cur, sizeof(El));
    }
    r.cur = stop;
    return true;
  } else if constexpr (is_vector<C>::value && !has_codec<El> && !std::is_same_v<C, std::vector<bool>>) {
    // Room for every element (each varint ends in exactly one byte < 0x80),
    // written through a pointer; a failure drops the unwritten ones.
    sub_message sub(r, static_cast<std::size_t>(n));
    const std::size_t old = v.size();
    v.resize(old + static_cast<std::size_t>(elems));
    El* out = v.data() + old;
    if constexpr (wt == w_varint) {
      // A local cursor, without bounds checks while ten bytes are left; a
      // varint that is too long or out of range stops it, and the checked
      // loop below reads that varint again and reports it.
      const auto* p = reinterpret_cast<const std::uint8_t*>(r.cur);
      const auto* const safe = reinterpret_cast<const std::uint8_t*>(stop);
      while (safe - p >= 10) {
        std::uint64_t bits;
        const std::size_t len = varint10(p, bits);
        if (len == 0 || !scalar_try_bits<S, E>(bits, *out)) [[unlikely]] break;
        ++out;
        p += len;
      }
      r.cur = reinterpret_cast<const std::byte*>(p);
    }
    while (r.cur != r.end) {
      S s{};
      if (!read_scalar<S, E>(r, s)) [[unlikely]] {
        v.resize(static_cast<std::size_t>(out - v.data()));
        return false;
      }
      *out++ = s;
    }
    return true;
  } else {
    sub_message sub(r, static_cast<std::size_t>(n));
    if constexpr (is_vector<C>::value) v.reserve(v.size() + static_cast<std::size_t>(elems));
    while (r.cur != r.end) {
      const std::byte* eat = r.cur;
      S s{};
      if (!read_scalar<S, E>(r, s)) [[unlikely]] return false;
      El e;
      if constexpr (has_codec<El>) {
        try {
          e = codec<El>::from_wire(std::move(s));
        } catch (const std::exception& ex) {
          return fail_at(r, eat, errc::invalid_value, ex.what());
        }
      } else {
        e = s;
      }
      if constexpr (std::is_array_v<C> || is_std_array<C>::value) {
        v[count++] = e;
      } else if constexpr (is_set<C>::value) {
        if (!v.insert(e).second) [[unlikely]] return fail_at(r, at, errc::duplicate_key, "duplicate set element");
      } else {
        v.push_back(e);
      }
    }
    return true;
  }
}

/// One occurrence of field `field` (wire type wt, tag at `at`) for the value v
/// in field context: scalars and strings replace, messages merge, repeated
/// fields append, map entries insert or replace. `count` is the number of
/// elements an array already holds.
template <int_encoding E, class T>
REFWIRE_PB_INLINE bool read_field(reader& r, std::uint32_t wt, T& v, std::uint64_t field, const std::byte* at,
                                  std::uint32_t& count) {
  constexpr cat c = category<T>();
  if constexpr (c == cat::codec || singular<T>()) {
    return read_elem<E>(r, wt, v, field, at);
  } else if constexpr (c == cat::optional) {
    if constexpr (is_optional<T>::value) {
      if (!v) {
        v.emplace();
        reset(*v);
      }
    } else {
      using P = typename T::element_type;
      if (!v) {
        if (!charge(r, sizeof(P))) [[unlikely]] return false;
        v = std::make_unique<P>();
        reset(*v);
      }
    }
    return read_elem<E>(r, wt, *v, field, at);
  } else if constexpr (c == cat::repeated) {
    using El = repeated_elem_t<T>;
    if constexpr (packable<El>()) {
      if (wt == w_len) return read_packed<E>(r, v, at, count);
    }
    if constexpr (singular<El>()) {
      if (wt != value_wire<El, E>()) [[unlikely]] return fail_wire(r, at, field, wt, value_wire<El, E>());
    } else {
      if (wt != w_len) [[unlikely]] return fail_wire(r, at, field, wt, w_len);
    }
    if (r.elements_left == 0) [[unlikely]] return fail_elements(r, 1);
    --r.elements_left;
    if constexpr (std::is_array_v<T> || is_std_array<T>::value) {
      if (count >= fixed_extent<T>) [[unlikely]] return fail_array(r, at, fixed_extent<T>);
      if (!read_elem<E>(r, wt, v[count], field, at)) [[unlikely]] {
        push_index(r, count);
        return false;
      }
      ++count;
      return true;
    } else {
      if (!charge(r, sizeof(El))) [[unlikely]] return false;
      if constexpr (is_set<T>::value) {
        El e{};
        reset(e);
        if (!read_elem<E>(r, wt, e, field, at)) [[unlikely]] return false;
        if (!v.insert(std::move(e)).second) [[unlikely]]
          return fail_at(r, at, errc::duplicate_key, "duplicate set element");
        return true;
      } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
        bool b = false;
        if (!read_elem<E>(r, wt, b, field, at)) [[unlikely]] return false;
        v.push_back(b);
        return true;
      } else {
        if constexpr (is_vector<T>::value) {
          if (v.empty() && wt == w_len) {
            // Reserve for the run of this field's elements that follows (one
            // scan of their lengths), within half the allocation budget.
            const std::size_t run = count_run(r.cur, r.end, at, static_cast<std::size_t>(r.cur - at));
            const std::uint64_t cap = std::min<std::uint64_t>({run, r.elements_left + 1, r.alloc_left / 2 / sizeof(El)});
            if (cap > 1) v.reserve(static_cast<std::size_t>(cap));
          }
        }
        El& e = v.emplace_back();
        reset(e);
        if (!read_elem<E>(r, wt, e, field, at)) [[unlikely]] {
          push_index(r, v.size() - 1);
          return false;
        }
        return true;
      }
    }
  } else if constexpr (c == cat::map) {
    using K = typename T::key_type;
    using M = typename T::mapped_type;
    static_assert(is_integer_v<K> || is_bool_v<K> || is_string_v<K>,
                  "refwire: protobuf map keys must be integers, bool or std::string (protobuf's rule); "
                  "use a vector of pairs (a repeated message) for other keys");
    if (wt != w_len) [[unlikely]] return fail_wire(r, at, field, wt, w_len);
    std::uint64_t n;
    if (!read_length(r, n, "map entry")) [[unlikely]] return false;
    if (r.elements_left == 0) [[unlikely]] return fail_elements(r, 1);
    --r.elements_left;
    if (!charge(r, sizeof(std::pair<K, M>) + 4 * sizeof(void*))) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope depth(r);
    sub_message sub(r, static_cast<std::size_t>(n));
    K key{};
    M value{};
    reset(value);
    bool have_key = false;
    const bool ok = read_fields(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* tat) {
      if (f == 1) {
        if (!read_elem<E>(r, t, key, f, tat)) [[unlikely]] return -1;
        have_key = true;
        return 1;
      }
      if (f == 2) {
        if (!read_elem<E>(r, t, value, f, tat)) [[unlikely]] {
          if (have_key) push_map_key<T>(r, key);
          return -1;
        }
        return 1;
      }
      return 0;
    });
    if (!ok) [[unlikely]] return false;
    v.insert_or_assign(std::move(key), std::move(value));  // protobuf: the last entry for a key wins
    return true;
  }
}

template <class T> struct time_duration { using type = T; };
template <class C, class D> struct time_duration<std::chrono::time_point<C, D>> { using type = D; };

template <class T>
bool time_from(reader& r, const std::byte* at, seconds_nanos sn, T& v) {
  constexpr std::int64_t giga = 1'000'000'000;
  std::int64_t ns;
  if (sn.nanos <= -giga || sn.nanos >= giga || __builtin_mul_overflow(sn.seconds, giga, &ns) ||
      __builtin_add_overflow(ns, std::int64_t{sn.nanos}, &ns)) [[unlikely]] {
    return fail_at(r, at, errc::invalid_value,
                   std::to_string(sn.seconds) + " s + " + std::to_string(sn.nanos) +
                       " ns does not fit in int64 nanoseconds");
  }
  using D = typename time_duration<T>::type;
  D d;
  if (detail::wire::from_nanoseconds(ns, d) != detail::wire::ns_conversion::ok) [[unlikely]] {
    return fail_at(r, at, errc::invalid_value,
                   std::to_string(ns) + " ns is not a whole number of the field's duration unit that its "
                                        "representation can hold");
  }
  if constexpr (is_timestamp<T>::value) v = T(d);
  else v = d;
  return true;
}

/// The wire type field N of type T is written with (0: none known up front,
/// e.g. through a codec).
template <class T, int_encoding E>
constexpr std::uint32_t field_wire() {
  constexpr cat c = category<T>();
  if constexpr (c == cat::codec) {
    return 8;
  } else if constexpr (singular<T>()) {
    return value_wire<T, E>();
  } else if constexpr (c == cat::optional) {
    using P = std::remove_cvref_t<decltype(*std::declval<T&>())>;
    if constexpr (has_codec<P>) return 8;
    else if constexpr (singular<P>()) return value_wire<P, E>();
    else return w_len;
  } else {
    return w_len;  // packed scalars, strings, messages, wrappers, map entries
  }
}

/// The tag of field N of type T when known and at most two bytes, else 0.
template <class T, int_encoding E, std::uint32_t N>
constexpr std::uint32_t expected_tag() {
  constexpr std::uint32_t wt = field_wire<T, E>();
  if constexpr (wt > 5 || N >= (1U << 11)) return 0;
  else return tag_v<N, static_cast<wire>(wt)>;
}

/// True (and the tag consumed) when the next bytes are the tag Tag.
template <std::uint32_t Tag>
REFWIRE_PB_INLINE bool take_tag(reader& r) noexcept {
  const auto* p = reinterpret_cast<const std::uint8_t*>(r.cur);
  if constexpr (Tag < 0x80) {
    if (r.cur == r.end || p[0] != Tag) return false;
    r.cur += 1;
  } else {
    if (r.left() < 2 || p[0] != ((Tag & 0x7f) | 0x80) || p[1] != (Tag >> 7)) return false;
    r.cur += 2;
  }
  return true;
}

/// One field of read_in_order; Slot is its position among the walked fields.
template <class F, std::size_t Slot, class M>
REFWIRE_PB_INLINE bool read_next_in_order(reader& r, M& member, std::uint32_t* counts) {
  constexpr std::uint32_t tag = expected_tag<M, F::attr.encoding, number_of<F>()>();
  if constexpr (tag != 0) {
    constexpr bool many = category<M>() == cat::repeated || category<M>() == cat::map;
    do {
      const std::byte* at = r.cur;
      if (!take_tag<tag>(r)) break;
      if (!read_field<F::attr.encoding>(r, tag & 7, member, number_of<F>(), at, counts[Slot])) [[unlikely]] {
        push_field(r, F::name, F::index);
        return false;
      }
    } while (many);
  }
  return true;
}

/// Expands the walked fields into one read_next_in_order each (the reader,
/// value and counts stay function arguments, not captures of a closure).
template <class T, class... Fs, std::size_t... Slot>
REFWIRE_PB_INLINE bool read_all_in_order([[maybe_unused]] reader& r, [[maybe_unused]] T& v,
                                         [[maybe_unused]] std::uint32_t* counts, boost::mp11::mp_list<Fs...>,
                                         std::index_sequence<Slot...>) {
  return (read_next_in_order<Fs, Slot>(r, Fs::get(v), counts) && ...);
}

/// The fields of a record in declaration order, each tested against its
/// compile-time tag (proto3 omits zero fields, so a miss moves on to the next
/// field). Stops at the first field out of order; the general loop reads the
/// rest (and anything unknown).
template <class T>
REFWIRE_PB_INLINE bool read_in_order(reader& r, T& v, std::uint32_t* counts) {
  using Fs = walked_fields_t<T>;
  return read_all_in_order(r, v, counts, Fs{}, std::make_index_sequence<boost::mp11::mp_size<Fs>::value>{});
}

/// Parses the fields of a message-like value from r.cur to r.end, merging
/// into v (which the caller has reset, or which holds an earlier occurrence).
template <class T>
bool read_body(reader& r, T& v) {
  if constexpr (is_timestamp<T>::value || is_duration<T>::value) {
    const std::byte* start = r.cur;
    seconds_nanos sn = split_time(v);
    std::uint32_t count = 0;
    if (take_tag<tag_v<1, w_varint>>(r)) {
      if (!read_field<int_encoding::varint>(r, w_varint, sn.seconds, 1, start, count)) [[unlikely]] return false;
    }
    if (const std::byte* at = r.cur; take_tag<tag_v<2, w_varint>>(r)) {
      if (!read_field<int_encoding::varint>(r, w_varint, sn.nanos, 2, at, count)) [[unlikely]] return false;
    }
    const bool ok = read_fields(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* at) {
      if (f == 1) return read_field<int_encoding::varint>(r, t, sn.seconds, f, at, count) ? 1 : -1;
      if (f == 2) return read_field<int_encoding::varint>(r, t, sn.nanos, f, at, count) ? 1 : -1;
      return 0;
    });
    if (!ok) [[unlikely]] return false;
    return time_from(r, start, sn, v);
  } else if constexpr (is_variant<T>::value) {
    constexpr std::size_t alts = std::variant_size_v<T>;
    return read_fields(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* at) {
      if (f < 1 || f > alts) return 0;
      return boost::mp11::mp_with_index<alts>(static_cast<std::size_t>(f - 1), [&](auto I) {
        if (v.index() != I) {
          v.template emplace<I>();
          reset(*std::get_if<I>(&v));
        }
        if (!read_elem<int_encoding::varint>(r, t, *std::get_if<I>(&v), f, at)) [[unlikely]] {
          push_index(r, I);
          return -1;
        }
        return 1;
      });
    });
  } else if constexpr (is_tuple<T>::value) {
    constexpr std::size_t size = std::tuple_size_v<T>;
    std::array<std::uint32_t, size + 1> counts{};
    return read_fields(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* at) {
      if constexpr (size > 0) {
        if (f >= 1 && f <= size) {
          return boost::mp11::mp_with_index<size>(static_cast<std::size_t>(f - 1), [&](auto I) {
            if (!read_field<int_encoding::varint>(r, t, std::get<I>(v), f, at, counts[I])) [[unlikely]] {
              push_index(r, I);
              return -1;
            }
            return 1;
          });
        }
      }
      return 0;
    });
  } else {
    check_numbers<T>();
    std::array<std::uint32_t, boost::mp11::mp_size<walked_fields_t<T>>::value + 1> counts{};
    if (!read_in_order(r, v, counts.data())) [[unlikely]] return false;
    return read_fields(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* at) {
      int got = 0;  // not a field of T
      std::size_t slot = 0;
      detail::all_fields(v, [&](auto field, auto& member) {
        using F = decltype(field);
        const std::size_t my_slot = slot++;
        if (f != number_of<F>()) return true;
        got = read_field<F::attr.encoding>(r, t, member, f, at, counts[my_slot]) ? 1 : -1;
        if (got < 0) [[unlikely]] push_field(r, F::name, F::index);
        return false;
      });
      return got;
    });
  }
}

/// A top-level decode: the whole input is the message (see encode).
template <class T>
bool decode(reader& r, T& v) {
  if constexpr (has_codec<T>) {
    using U = typename codec<T>::wire;
    U tmp{};
    if (!decode(r, tmp)) return false;
    try {
      v = codec<T>::from_wire(std::move(tmp));
    } catch (const std::exception& e) {
      return fail_at(r, r.begin, errc::invalid_value, e.what());
    }
    return true;
  } else if constexpr (category<T>() == cat::message && !is_timestamp<T>::value && !is_duration<T>::value) {
    reset(v);
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope depth(r);
    return read_body(r, v);
  } else {
    reset(v);
    std::uint32_t count = 0;
    constexpr std::uint32_t tag = expected_tag<T, int_encoding::varint, 1>();
    if constexpr (tag != 0) {
      for (const std::byte* at = r.cur; take_tag<tag>(r); at = r.cur) {
        if (!read_field<int_encoding::varint>(r, tag & 7, v, 1, at, count)) [[unlikely]] return false;
      }
    }
    return read_fields(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* at) {
      if (f != 1) return 0;
      return read_field<int_encoding::varint>(r, t, v, f, at, count) ? 1 : -1;
    });
  }
}

}  // namespace refwire::detail::pb
