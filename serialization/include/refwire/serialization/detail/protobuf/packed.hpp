#pragma once
// Packed repeated scalars, both ways. Encoding: one length then the payloads
// (a run of varints is written whole and its length patched after when it
// fits the stage; floats, doubles and fixed integers of a contiguous
// container are one memcpy). Decoding: short varint runs onto the stack with
// words of same-length varints decoded at once (SWAR), longer ones into the
// vector without bounds checks while ten bytes are left, fixed-width runs as
// one memcpy; every count is checked against the budgets first.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <refwire/serialization/detail/core/codec.hpp>
#include <refwire/serialization/detail/core/decode_context.hpp>
#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/detail/protobuf/classify.hpp>
#include <refwire/serialization/detail/protobuf/reader.hpp>
#include <refwire/serialization/detail/protobuf/writer.hpp>
#include <refwire/serialization/detail/wire/config.hpp>
#include <refwire/serialization/detail/wire/varint.hpp>

namespace refwire::detail::pb {

// ------------------------------------------------------------------ encode

/// A packable element as its scalar (through its codec, if any).
template <class T>
REFWIRE_ALWAYS_INLINE scalar_of_t<T> as_scalar(const T& v) {
  if constexpr (has_codec<T>) return as_scalar(codec<T>::to_wire(v));
  else return v;
}

/// A run whose payload is the elements' memory image: floats, doubles and
/// fixed-width 32- and 64-bit integers.
template <class T, int_encoding E>
inline constexpr bool packed_memcpy =
    memcpy_ok<T> && (is_float_v<T> || (E == int_encoding::fixed && (sizeof(T) == 4 || sizeof(T) == 8)));

/// The longest varint of a scalar under an encoding.
template <class S, int_encoding E>
constexpr std::size_t longest_varint() {
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
  constexpr wire_type wt = scalar_wire<El, E>();
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

/// Field N holding the packed run v of count (> 0) elements.
template <std::uint32_t N, int_encoding E, class T>
REFWIRE_ALWAYS_INLINE std::byte* put_packed(writer& w, std::byte* p, const T& v, std::size_t count) {
  using El = repeated_elem_t<T>;
  using S = scalar_of_t<El>;
  p = store_tag<tag_v<N, w_len>>(w.ensure(p, 15));
  if constexpr (packed_varints<S, E>) {
    constexpr std::size_t most = longest_varint<S, E>();
    // The whole run, its length patched after, when the longest run
    // fits the stage; else sized first.
    if (count <= (writer::stage_size - 32) / most) {
      p = w.ensure(p, count * most + 11);  // store_varint_wide may write 10 bytes at the last element
      const std::size_t at = w.offset(p);
      ++p;
      for (const auto& e : v) p = wire::store_varint_wide(p, scalar_bits<S, E>(as_scalar<El>(e)));
      return w.close(p, at);
    }
    p = wire::store_varint_wide(p, packed_payload_size<E>(v));
    for (const auto& e : v) p = put_scalar<S, E>(w, p, as_scalar<El>(e));
    return p;
  } else {
    p = wire::store_varint_wide(p, packed_payload_size<E>(v));
    if constexpr (packed_memcpy<El, E> && (is_vector<T>::value || shape_of<T>() == shape::fixed_array)) {
      return w.put_bytes(p, std::data(v), count * sizeof(El));
    } else {
      for (const auto& e : v) p = put_scalar<S, E>(w, p, as_scalar<El>(e));
      return p;
    }
  }
}

// ------------------------------------------------------------------ decode

/// Packed varints of one length L (1 to 3 bytes), a word at a time: the
/// values of a packed run are often of one size. While the eight bytes at p
/// (readable up to limit) begin with varints of L bytes only, as many as fit
/// in the word (8, 4 or 2, all before q) are decoded into out + k at once;
/// stops at anything else (the caller reads it one varint at a time).
template <std::size_t L, class S, int_encoding E>
REFWIRE_ALWAYS_INLINE void same_length_varints(const std::uint8_t*& p, const std::uint8_t* q,
                                               const std::uint8_t* limit, S* out, std::size_t& k) noexcept {
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
REFWIRE_ALWAYS_INLINE P* opaque(P* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  asm("" : "+r"(p));
#endif
  return p;
}

/// A packed run of the repeated field v (its length-delimited tag at `at`
/// read), appended to v; `count` is the number of elements an array already holds.
template <int_encoding E, class C>
inline bool read_packed(reader& r, C& v, const std::byte* at, std::uint32_t& count) {
  using El = repeated_elem_t<C>;
  using S = scalar_of_t<El>;
  constexpr wire_type wt = scalar_wire<S, E>();
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
        const std::size_t len = wire::read_varint_before(p, q, limit, bits);
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
  if constexpr (shape_of<C>() == shape::fixed_array) {
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
        const std::size_t len = wire::read_varint10(p, bits);
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
        if (!from_wire(r, offset_of(r, eat), std::move(s), e)) [[unlikely]] return false;
      } else {
        e = s;
      }
      if constexpr (shape_of<C>() == shape::fixed_array) {
        v[count++] = e;
      } else if constexpr (shape_of<C>() == shape::set && is_multi_v<C>) {
        v.insert(e);
      } else if constexpr (shape_of<C>() == shape::set) {
        if (!v.insert(e).second) [[unlikely]] return fail_at(r, at, errc::duplicate_key, "duplicate set element");
      } else {
        v.push_back(e);
      }
    }
    return true;
  }
}

}  // namespace refwire::detail::pb
