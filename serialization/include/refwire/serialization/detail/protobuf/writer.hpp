#pragma once
// The protobuf encoder's staging writer, and the stores that write at its
// cursor: compile-time tags, short byte runs, scalar payloads. The cursor is
// not a member of the writer, on purpose: see the writer's comment.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include <refwire/serialization/detail/protobuf/classify.hpp>
#include <refwire/serialization/detail/wire/config.hpp>
#include <refwire/serialization/detail/wire/endian.hpp>
#include <refwire/serialization/detail/wire/output.hpp>
#include <refwire/serialization/detail/wire/varint.hpp>

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

  /// A cursor with at least n (<= stage_size) free bytes after it: p, or
  /// the start of the stage once flushed.
  REFWIRE_ALWAYS_INLINE std::byte* ensure(std::byte* p, std::size_t n) {
    if (static_cast<std::size_t>(lim_ - p) < n) [[unlikely]] return flush(p);
    return p;
  }
  /// n bytes from s at p (no room ensured).
  REFWIRE_ALWAYS_INLINE std::byte* put_bytes(std::byte* p, const void* s, std::size_t n) {
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
    wire::append_bytes(out_, static_cast<const std::byte*>(s), n);
    base_ = out_.size();
    return p;
  }
  /// The last flush of an encoding, whose cursor is p: an inline copy when
  /// the output has room (an assign into a cleared reused buffer, the usual
  /// case, takes a few instructions less than an insert).
  REFWIRE_ALWAYS_INLINE void finish(std::byte* p) {
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
    wire::append_bytes(out_, stage_, static_cast<std::size_t>(p - stage_));
    base_ = out_.size();
    return stage_;
  }

  /// The output offset of the cursor p: open a nested message by taking the
  /// offset of its reserved length byte (the caller has ensured room), for close.
  REFWIRE_ALWAYS_INLINE std::size_t offset(const std::byte* p) const noexcept {
    return base_ + static_cast<std::size_t>(p - stage_);
  }
  /// Writes the length of everything written since the one byte reserved at
  /// offset at, up to the cursor p; returns the cursor.
  REFWIRE_ALWAYS_INLINE std::byte* close(std::byte* p, std::size_t at) {
    const std::size_t n = offset(p) - at - 1;
    if (at >= base_ && n < 0x80) [[likely]] {
      stage_[at - base_] = static_cast<std::byte>(n);
      return p;
    }
    return close_slow(p, at, n);
  }
  /// Closes a message of a run that reserved k (1 or 2) bytes at offset at,
  /// the previous one's length size; sets k for the next one.
  REFWIRE_ALWAYS_INLINE std::byte* close_run(std::byte* p, std::size_t at, std::size_t& k) {
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
    const std::size_t need = wire::varint_size(n);
    p = close_resize(p, at, k, n);
    k = need > 1 ? 2 : 1;
    return p;
  }
  [[gnu::noinline]] std::byte* close_resize(std::byte* p, std::size_t at, std::size_t k, std::size_t n) {
    const std::size_t need = wire::varint_size(n);
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
      wire::store_varint(at >= base_ ? stage_ + (at - base_) : out_.data() + at, n);
      return p;
    }
    if (k == 1) return close_slow(p, at, n);
    // k == 2 and a longer length: grow by the difference, as close_slow does.
    const std::size_t extra = need - k;
    if (at >= base_) {
      if (extra <= static_cast<std::size_t>(lim_ - p)) {
        std::byte* b = stage_ + (at - base_);
        std::memmove(b + need, b + k, n);
        wire::store_varint(b, n);
        return p + extra;
      }
      p = flush(p);
    }
    out_.insert(out_.begin() + static_cast<std::ptrdiff_t>(at + k), extra, std::byte{});
    base_ = out_.size();
    wire::store_varint(out_.data() + at, n);
    return p;
  }
  [[gnu::noinline]] std::byte* close_slow(std::byte* p, std::size_t at, std::size_t n) {
    const std::size_t extra = wire::varint_size(n) - 1;
    if (at >= base_) {
      if (extra <= static_cast<std::size_t>(lim_ - p)) {
        std::byte* b = stage_ + (at - base_);
        std::memmove(b + 1 + extra, b + 1, n);
        wire::store_varint(b, n);
        return p + extra;
      }
      p = flush(p);
    }
    // The reserved byte is in the output; the body runs on into the stage.
    if (extra != 0) {
      out_.insert(out_.begin() + static_cast<std::ptrdiff_t>(at + 1), extra, std::byte{});
      base_ = out_.size();
    }
    wire::store_varint(out_.data() + at, n);
    return p;
  }

 private:
  std::vector<std::byte>& out_;
  std::byte stage_[stage_size];
  std::byte* const lim_ = stage_ + stage_size;
  std::size_t base_;  // out_.size(): the output offset of stage_[0]
};

// ------------------------------------------------------------------ stores

/// A compile-time tag at p: one or a few constant byte stores.
template <std::uint32_t Tag>
REFWIRE_ALWAYS_INLINE std::byte* store_tag(std::byte* p) noexcept {
  if constexpr (Tag < 0x80) {
    *p = static_cast<std::byte>(Tag);
    return p + 1;
  } else if constexpr (Tag < 0x4000) {
    p[0] = static_cast<std::byte>((Tag & 0x7f) | 0x80);
    p[1] = static_cast<std::byte>(Tag >> 7);
    return p + 2;
  } else {
    return wire::store_varint(p, Tag);  // exactly its bytes: callers ensure 5
  }
}

/// A one-byte length n <= 64 and n bytes from p, at d with 65 bytes of
/// room, in a few fixed-size copies (some overlapping, some past the n
/// bytes in the stage, where what follows overwrites them). `padded`: p's
/// buffer holds at least 16 bytes (a std::string's holds capacity() + 1 >= 16).
REFWIRE_ALWAYS_INLINE std::byte* store_short_bytes(std::byte* d, const void* p, std::size_t n, bool padded) noexcept {
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

// ---------------------------------------------------------- scalar payloads

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
REFWIRE_ALWAYS_INLINE std::byte* store_scalar(std::byte* p, T v) noexcept {
  constexpr wire_type wt = scalar_wire<T, E>();
  const std::uint64_t bits = scalar_bits<T, E>(v);
  if constexpr (wt == w_varint) {
    return wire::store_varint_wide(p, bits);
  } else if constexpr (wt == w_i32) {
    wire::store_le(p, static_cast<std::uint32_t>(bits));
    return p + 4;
  } else {
    wire::store_le(p, bits);
    return p + 8;
  }
}

template <class T, int_encoding E>
REFWIRE_ALWAYS_INLINE std::byte* put_scalar(writer& w, std::byte* p, T v) {
  return store_scalar<T, E>(w.ensure(p, 10), v);
}

template <class T, int_encoding E>
constexpr std::size_t scalar_size(T v) noexcept {
  constexpr wire_type wt = scalar_wire<T, E>();
  if constexpr (wt == w_varint) {
    using B = scalar_base_t<T>;
    if constexpr (is_bool_v<B>) return 1;
    else return wire::varint_size(scalar_bits<T, E>(v));
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

}  // namespace refwire::detail::pb
