#pragma once
// The binary format's decoder: one read branch per shape over a byte_reader
// (detail/core/decode_context.hpp: the cursor, the budgets, the failure
// record). Every length is checked against the bytes left before anything
// is allocated. Layout: docs/binary-format.md.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include <refwire/serialization/detail/binary/size.hpp>
#include <refwire/serialization/detail/core/codec.hpp>
#include <refwire/serialization/detail/core/decode_context.hpp>
#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/detail/core/text_bits.hpp>
#include <refwire/serialization/detail/wire/endian.hpp>
#include <refwire/serialization/detail/wire/time.hpp>
#include <refwire/serialization/detail/wire/utf8.hpp>
#include <refwire/serialization/detail/wire/varint.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/options.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire::detail::bin {

/// The binary decoder's reader: a byte range with the shared budgets and failure record.
using reader = byte_reader;

// Out of line (src/binary.cpp); each failure returns false.
/// An invalid bool or tag byte: "invalid <what> byte 0x.. (expected 0 or 1)".
bool fail_byte(reader& r, errc code, std::string_view what, unsigned value);
/// A std::string field, every case (compiled once).
bool read_string_slow(reader& r, std::string& v);

/// A varint (minimal encodings only): one byte inline, the rest out of line.
inline bool read_varint(reader& r, std::uint64_t& v) {
  if (r.cur != r.end && static_cast<std::uint8_t>(*r.cur) < 0x80) [[likely]] {
    v = static_cast<std::uint8_t>(*r.cur++);
    return true;
  }
  return read_varint_slow<wire::varint_rules::strict>(r, v);
}

/// Reads an element count and checks it against the input left (at least
/// min_each bytes per element), the element budget and the allocation budget.
template <class E>
inline bool read_count(reader& r, std::uint64_t& n, std::string_view what, std::size_t node_bytes) {
  if (!read_varint(r, n)) [[unlikely]] return false;
  constexpr std::size_t min_each = min_size<E>();
  if constexpr (min_each > 0) {
    if (n > r.left() / min_each) [[unlikely]] return fail_count(r, what, n, min_each);
  }
  if (n > r.elements_left) [[unlikely]] return fail_elements(r, n);
  r.elements_left -= n;
  if (n > r.alloc_left / node_bytes) [[unlikely]] return fail_alloc(r, n * node_bytes);
  r.alloc_left -= n * node_bytes;
  return true;
}

/// A count of nanoseconds (just read: the 8 bytes before the cursor) as a D;
/// a count D cannot hold exactly is reported at its first byte.
template <class D>
bool from_nanoseconds(reader& r, std::int64_t ns, D& out) {
  const wire::ns_conversion c = wire::from_nanoseconds(ns, out);
  if (c == wire::ns_conversion::ok) [[likely]] return true;
  r.cur -= 8;
  return fail_duration_at(r, r.offset(), ns, c, wire::ns_per_tick<D>());
}

template <class T>
bool read(reader& r, T& v);

/// Where a value began, to report a failure there after reading it: the
/// read may have taken a run from r.source and moved the range on.
struct mark {
  const std::byte* cur;
  std::size_t base;
  std::size_t offset;
};
inline mark mark_of(const reader& r) noexcept { return {r.cur, r.base, r.offset()}; }
/// Records a failure at m (with the cursor back there while the range is the same).
inline bool fail_at(reader& r, const mark& m, errc code, std::string reason) {
  if (r.base == m.base) {
    r.cur = m.cur;
    return fail(r, code, std::move(reason));
  }
  return record_failure(r, code, m.offset, std::move(reason));
}

/// A large run of `bytes` bytes (n elements) that goes past the reader's
/// range, read straight into v's storage from r.source (r.can_stream said
/// it may). v is a std::vector<std::byte>, a std::string or a vector of
/// arithmetic values.
template <class T>
[[gnu::noinline]] bool read_streamed(reader& r, T& v, std::uint64_t n, std::uint64_t bytes) {
  constexpr bool counted = !std::is_same_v<T, std::string> && !std::is_same_v<T, std::vector<std::byte>>;
  if (counted && n > r.elements_left) return fail_elements(r, n);
  if (!charge(r, bytes)) return false;
  if (!r.source->accept(r, static_cast<std::size_t>(bytes))) return false;
  if constexpr (counted) r.elements_left -= n;
  if constexpr (std::is_same_v<T, std::vector<std::byte>>) {
    return r.source->fill_vector(r, v, static_cast<std::size_t>(n));
  } else {
    v.clear();
    v.resize(static_cast<std::size_t>(n));
    return r.source->fill(r, reinterpret_cast<std::byte*>(v.data()), static_cast<std::size_t>(bytes));
  }
}

/// A std::string_view or std::span<const std::byte> (deserialize_view only):
/// the bytes stay in the input and the view points at them, bounds-checked as
/// a copy is; nothing is allocated, so the allocation budget is not charged.
template <class T>
bool read_view(reader& r, T& v) {
  std::uint64_t n;
  if (!read_varint(r, n)) [[unlikely]] return false;
  if (n > r.left()) [[unlikely]] return fail_truncated(r, is_string_view_v<T> ? "string" : "bytes", n);
  if constexpr (is_string_view_v<T>) {
    v = T(reinterpret_cast<const char*>(r.cur), static_cast<std::size_t>(n));
  } else {
    v = T(r.cur, static_cast<std::size_t>(n));
  }
  r.cur += n;
  return true;
}

template <class T>
inline bool read_scalar(reader& r, T& v) {
  // The failure paths return a literal false (not fail_*'s result, which the
  // compiler cannot see through): a caller's `if (!read_scalar(r, u)) return
  // false; use(u);` is then visibly never reading an unset u, and g++ -O1 and
  // above stays quiet under -Wmaybe-uninitialized in users' builds.
  if (r.left() < sizeof(T)) [[unlikely]] {
    (void)fail_truncated(r, scalar_name<T>(), sizeof(T));
    return false;
  }
  v = wire::load_le<T>(r.cur);
  r.cur += sizeof(T);
  return true;
}

inline bool read_flag(reader& r, bool& out, errc bad, std::string_view what) {
  if (r.cur == r.end) [[unlikely]] {  // literal false: see read_scalar
    (void)fail_truncated(r, what, 1);
    return false;
  }
  const auto b = static_cast<std::uint8_t>(*r.cur);
  if (b > 1) [[unlikely]] {
    (void)fail_byte(r, bad, what, b);
    return false;
  }
  ++r.cur;
  out = b != 0;
  return true;
}

template <class T>
bool read_elements(reader& r, T& c) {
  std::size_t i = 0;
  for (auto& e : c) {
    if (!read(r, e)) [[unlikely]] {
      push_index(r, i);
      return false;
    }
    ++i;
  }
  return true;
}

/// Reads a fixed_size<T>() != 0 value from p, once its bytes are known to be
/// there: the same checks and failures as read, without the bounds check.
/// r.cur is only set (to p) when the value is rejected.
template <class T>
inline bool read_fixed(reader& r, const std::byte* p, T& v) {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::boolean || (s == shape::enumeration && !is_raw_scalar_v<T>)) {
    const auto b = static_cast<std::uint8_t>(*p);
    if (b > 1) [[unlikely]] {
      r.cur = p;
      return fail_byte(r, errc::invalid_bool, "bool", b);
    }
    v = static_cast<T>(b != 0);
    return true;
  } else if constexpr (s == shape::enumeration) {
    v = static_cast<T>(wire::load_le<std::underlying_type_t<T>>(p));
    return true;
  } else if constexpr (s == shape::integer || s == shape::floating) {
    v = wire::load_le<T>(p);
    return true;
  } else if constexpr (s == shape::uuid) {
    std::memcpy(v.bytes.data(), p, 16);
    return true;
  } else if constexpr (s == shape::timestamp || s == shape::duration) {
    const auto ns = wire::load_le<std::int64_t>(p);
    bool ok;
    const std::byte* const saved = r.cur;
    r.cur = p + 8;  // from_nanoseconds reports a rejected value at r.cur - 8
    if constexpr (is_timestamp<T>::value) {
      typename T::duration d;
      ok = from_nanoseconds(r, ns, d);
      if (ok) v = T(d);
    } else {
      ok = from_nanoseconds(r, ns, v);
    }
    if (ok) r.cur = saved;
    return ok;
  } else {
    static_assert(s == shape::fixed_array);
    std::memcpy(std::data(v), p, fixed_size<T>());
    return true;
  }
}

/// Reads field F of a record, with the usual bounds checks.
template <class F, class T>
inline bool read_field(reader& r, T& v) {
  auto& member = F::get(v);
  static_assert(!std::is_const_v<std::remove_reference_t<decltype(member)>>,
                "refwire: a const member cannot be decoded");
  if (!read(r, member)) [[unlikely]] {
    push_field(r, F::name, F::index);
    return false;
  }
  return true;
}

/// Reads fixed-size field F of a record from p (its bytes are there).
template <class F, class T>
inline bool read_fixed_field(reader& r, const std::byte* p, T& v) {
  auto& member = F::get(v);
  static_assert(!std::is_const_v<std::remove_reference_t<decltype(member)>>,
                "refwire: a const member cannot be decoded");
  if (!read_fixed(r, p, member)) [[unlikely]] {
    push_field(r, F::name, F::index);
    return false;
  }
  return true;
}

/// Reads the fields of a record from field I on. A run of fixed-size fields
/// is bounds-checked once; when the input is shorter than the whole run, its
/// fields are read one by one, so a failure is reported exactly as without
/// the run.
template <class L, std::size_t I, class T>
inline bool read_fields(reader& r, T& v) {
  using runs = field_runs<L>;
  if constexpr (I == runs::count) {
    return true;
  } else {
    constexpr std::size_t n = runs::length(I);
    if constexpr (n < 2) {
      if (!read_field<boost::mp11::mp_at_c<L, I>>(r, v)) [[unlikely]] return false;
      return read_fields<L, I + 1>(r, v);
    } else {
      const bool ok = [&]<std::size_t... J>(std::index_sequence<J...>) {
        constexpr std::size_t bytes = runs::bytes(I, n);
        if (r.left() >= bytes) [[likely]] {
          // One load of the cursor, each field at its constant offset, one store.
          const std::byte* const p = r.cur;
          if (!(read_fixed_field<boost::mp11::mp_at_c<L, I + J>>(r, p + runs::bytes(I, J), v) && ...))
            [[unlikely]] return false;
          r.cur = p + bytes;
          return true;
        }
        return (read_field<boost::mp11::mp_at_c<L, I + J>>(r, v) && ...);
      }(std::make_index_sequence<n>{});
      if (!ok) [[unlikely]] return false;
      return read_fields<L, I + n>(r, v);
    }
  }
}

template <class T>
bool read_record(reader& r, T& v) {
  return read_fields<walked_fields_t<T>, 0>(r, v);
}

template <class T>
bool read(reader& r, T& v) {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::codec) {
    return read_through_codec(r, v, [&](auto& w) { return read(r, w); });
  } else if constexpr (s == shape::boolean) {
    return read_flag(r, v, errc::invalid_bool, "bool");
  } else if constexpr (s == shape::enumeration && !is_raw_scalar_v<T>) {  // an enum over bool
    bool b;
    if (!read_flag(r, b, errc::invalid_bool, "bool")) [[unlikely]] return false;
    v = static_cast<T>(b);
    return true;
  } else if constexpr (s == shape::enumeration) {
    std::underlying_type_t<T> u;
    if (!read_scalar(r, u)) [[unlikely]] return false;
    v = static_cast<T>(u);
    return true;
  } else if constexpr (s == shape::integer || s == shape::floating) {
    return read_scalar(r, v);
  } else if constexpr (is_input_view<T>::value) {
    return read_view(r, v);
  } else if constexpr (s == shape::string) {
    // The common case inline: a one-byte length, the bytes all there, within
    // the allocation budget. Anything else takes the out-of-line path.
    if (r.cur != r.end) [[likely]] {
      const auto n = static_cast<std::uint8_t>(*r.cur);
      if (n < 0x80 && n < static_cast<std::size_t>(r.end - r.cur) && n <= r.alloc_left) [[likely]] {
        r.alloc_left -= n;
        const std::byte* p = r.cur + 1;
        r.cur = p + n;
        v.assign(reinterpret_cast<const char*>(p), n);
        return true;
      }
    }
    return read_string_slow(r, v);
  } else if constexpr (s == shape::text) {
    // A std::string's layout; a path must be UTF-8 (reported where its length starts).
    const mark at = mark_of(r);
    std::string text;
    if (!read(r, text)) [[unlikely]] return false;
    assign_text(v, text);
    if constexpr (is_path_v<T>) {
      if (!wire::utf8_valid(text.data(), text.size())) [[unlikely]] {
        return fail_at(r, at, errc::invalid_utf8, "path is not valid UTF-8");
      }
      // One value, one encoding: the writer's generic form ("a//b" is written "a/b").
      if (text_of(v) != text) [[unlikely]] {
        return fail_at(r, at, errc::invalid_value, path_not_generic_reason(text, text_of(v)));
      }
    }
    return true;
  } else if constexpr (s == shape::bitset) {
    constexpr std::size_t bytes = bitset_bytes<bitset_size<T>>;
    if (r.left() < bytes) [[unlikely]] return fail_truncated(r, "bitset", bytes);
    if (!bitset_from_bytes(r.cur, v)) [[unlikely]] {
      r.cur += bytes - 1;  // the last byte, which holds the padding bits
      return fail(r, errc::invalid_value, bitset_padding_reason(bitset_size<T>));
    }
    r.cur += bytes;
    return true;
  } else if constexpr (s == shape::blob) {
    std::uint64_t n;
    if (!read_varint(r, n)) [[unlikely]] return false;
    if (n > r.left()) [[unlikely]] {
      if constexpr (std::is_same_v<T, std::vector<std::byte>>) {
        if (r.can_stream(n)) return read_streamed(r, v, n, n);
      }
      return fail_truncated(r, "bytes", n);
    }
    if (!charge(r, n)) [[unlikely]] return false;
    v.assign(r.cur, r.cur + n);
    r.cur += n;
    return true;
  } else if constexpr (s == shape::uuid) {
    if (r.left() < 16) [[unlikely]] return fail_truncated(r, "uuid", 16);
    std::memcpy(v.bytes.data(), r.cur, 16);
    r.cur += 16;
    return true;
  } else if constexpr (s == shape::timestamp || s == shape::duration) {
    std::int64_t ns;
    if (r.left() < 8) [[unlikely]] return fail_truncated(r, is_duration<T>::value ? "duration" : "timestamp", 8);
    ns = wire::load_le<std::int64_t>(r.cur);
    r.cur += 8;
    if constexpr (is_timestamp<T>::value) {
      typename T::duration d;
      if (!from_nanoseconds(r, ns, d)) [[unlikely]] return false;
      v = T(d);
      return true;
    } else {
      return from_nanoseconds(r, ns, v);
    }
  } else if constexpr (s == shape::optional || s == shape::pointer) {
    bool present;
    if (!read_flag(r, present, errc::invalid_tag, is_optional<T>::value ? "optional tag" : "pointer tag"))
      [[unlikely]] return false;
    if (!present) {
      v.reset();
      return true;
    }
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    if (!emplace_present(r, v)) [[unlikely]] return false;
    return read(r, *v);
  } else if constexpr (is_raw_vector<T>) {
    using E = typename T::value_type;
    std::uint64_t n;
    if (!read_varint(r, n)) [[unlikely]] return false;
    if (n > r.left() / sizeof(E)) [[unlikely]] {
      if (n <= (std::uint64_t{1} << 60) / sizeof(E) && r.can_stream(n * sizeof(E)))
        return read_streamed(r, v, n, n * sizeof(E));
      return fail_count(r, "vector", n, sizeof(E));
    }
    if (n > r.elements_left) [[unlikely]] return fail_elements(r, n);
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(E);
    if (!charge(r, bytes)) [[unlikely]] return false;
    r.elements_left -= n;
    v.clear();
    if (n >= 2) {
      // One allocation and one memmove, no zero-fill: for a trivially copyable
      // E, libstdc++ and libc++ copy a pointer range of two or more elements
      // with memmove, so the (possibly unaligned) pointer is never used to load
      // an E. A single element goes through memcpy below instead.
      const E* first = reinterpret_cast<const E*>(r.cur);
      v.assign(first, first + n);
    } else if (n == 1) {
      v.resize(1);
      std::memcpy(v.data(), r.cur, sizeof(E));
    }
    r.cur += bytes;
    return true;
  } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
    std::uint64_t n;
    if (!read_count<bool>(r, n, "vector", 1)) [[unlikely]] return false;
    v.resize(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < n; ++i) {
      bool b;
      if (!read_flag(r, b, errc::invalid_bool, "bool")) [[unlikely]] {
        push_index(r, i);
        return false;
      }
      v[i] = b;
    }
    return true;
  } else if constexpr (s == shape::sequence) {
    using E = typename T::value_type;
    std::uint64_t n;
    constexpr std::size_t node = is_vector<T>::value ? sizeof(E) : sizeof(E) + 2 * sizeof(void*);
    if (!read_count<E>(r, n, "vector", node)) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    v.resize(static_cast<std::size_t>(n));
    return read_elements(r, v);
  } else if constexpr (s == shape::set && is_multi_v<T>) {  // a multiset: duplicates kept
    using K = typename T::key_type;
    std::uint64_t n;
    if (!read_count<K>(r, n, "set", sizeof(K) + 4 * sizeof(void*))) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    v.clear();
    for (std::size_t i = 0; i < n; ++i) {
      K key{};
      if (!read(r, key)) [[unlikely]] {
        push_index(r, i);
        return false;
      }
      v.emplace_hint(v.end(), std::move(key));
    }
    return true;
  } else if constexpr (s == shape::set) {
    using K = typename T::key_type;
    std::uint64_t n;
    if (!read_count<K>(r, n, "set", sizeof(K) + 4 * sizeof(void*))) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    v.clear();
    for (std::size_t i = 0; i < n; ++i) {
      const mark at = mark_of(r);
      K key{};
      if (!read(r, key)) [[unlikely]] {
        push_index(r, i);
        return false;
      }
      const std::size_t before = v.size();
      v.emplace_hint(v.end(), std::move(key));
      if (v.size() == before) [[unlikely]] {
        fail_at(r, at, errc::duplicate_key, "duplicate set element");
        push_index(r, i);
        return false;
      }
    }
    return true;
  } else if constexpr (s == shape::map) {
    using K = typename T::key_type;
    using M = typename T::mapped_type;
    std::uint64_t n;
    if (!read_count<std::pair<K, M>>(r, n, "map", sizeof(std::pair<K, M>) + 4 * sizeof(void*)))
      [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    v.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (is_multi_v<T>) {  // a multimap: duplicate keys kept, in order
        std::pair<K, M> entry{};
        if (!read(r, entry.first)) [[unlikely]] {
          push_index(r, i);
          return false;
        }
        if (!read(r, entry.second)) [[unlikely]] {
          push_map_key(r, entry.first, i);
          return false;
        }
        v.emplace_hint(v.end(), std::move(entry));
      } else {
        const mark at = mark_of(r);
        K key{};
        if (!read(r, key)) [[unlikely]] {
          push_index(r, i);
          return false;
        }
        const std::size_t before = v.size();
        auto it = v.try_emplace(v.end(), std::move(key));
        if (v.size() == before) [[unlikely]] {
          fail_at(r, at, errc::duplicate_key, "duplicate map key");
          push_map_key(r, it->first, i);
          return false;
        }
        if (!read(r, it->second)) [[unlikely]] {
          push_map_key(r, it->first, i);
          return false;
        }
      }
    }
    return true;
  } else if constexpr (s == shape::fixed_array) {
    using E = typename element_of<T>::type;
    if constexpr (memcpy_ok<E>) {
      constexpr std::size_t bytes = sizeof(E) * fixed_extent<T>;
      if (r.left() < bytes) [[unlikely]] return fail_truncated(r, "array", bytes);
      std::memcpy(std::data(v), r.cur, bytes);
      r.cur += bytes;
      return true;
    } else {
      return read_elements(r, v);
    }
  } else if constexpr (s == shape::variant) {
    std::uint64_t index;
    const std::byte* at = r.cur;
    if (!read_varint(r, index)) [[unlikely]] return false;
    constexpr std::size_t count = std::variant_size_v<T>;
    if (index >= count) [[unlikely]] {
      r.cur = at;
      return fail(r, errc::invalid_variant,
                  "variant index " + std::to_string(index) + " out of range (" + std::to_string(count) +
                      " alternatives)");
    }
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    return boost::mp11::mp_with_index<count>(static_cast<std::size_t>(index), [&](auto I) {
      if (v.index() != I) v.template emplace<I>();
      if (!read(r, *std::get_if<I>(&v))) [[unlikely]] {
        push_index(r, I);
        return false;
      }
      return true;
    });
  } else if constexpr (s == shape::tuple) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      std::size_t failed = 0;
      const bool ok = ((read(r, std::get<I>(v)) || (failed = I, false)) && ...);
      if (!ok) [[unlikely]] push_index(r, failed);
      return ok;
    }(std::make_index_sequence<std::tuple_size_v<T>>{});
  } else if constexpr (s == shape::record) {
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    return read_record(r, v);
  } else {
    static_assert(dependent_false<T>,
                  "refwire: this type is not serializable: describe it with BOOST_DESCRIBE_STRUCT, "
                  "make it an aggregate, or specialize refwire::codec<T>");
    return false;
  }
}

/// Decodes a T from an input of which `in` is the beginning and `source`
/// holds the rest (source.pending() bytes): large blobs, strings and vectors
/// of arithmetic values that reach past `in` are read from the source
/// straight into out's storage. The value must span the whole input.
/// When the decode fails and !source.used(), nothing was read from the source.
template <class T>
error decode_streaming(std::span<const std::byte> in, T& out, const decode_options& options, blob_source& source) {
  reader r(in, options);
  r.source = &source;
  if (!read(r, out)) [[unlikely]] return make_error(r);
  if (r.cur != r.end || source.pending() != 0) [[unlikely]] {
    fail(r, errc::trailing_bytes, std::to_string(r.left() + source.pending()) + " trailing bytes after the value");
    return make_error(r);
  }
  return {};
}

/// Where the first large run of a T's encoding (a blob, a string, a vector
/// of arithmetic values) that reaches past `in` starts, when `in` is the
/// beginning of an input of `total` bytes: decodes a T from `in` until it
/// meets that run, then stops. True with `at` (the run's offset in the input)
/// and `size` (its bytes) set; false when the decode ends or fails before one.
/// A reader of the input as it arrives can then put the run where it wants
/// (replayed later with a source that hands it over).
template <class T>
bool find_streamed_run(std::span<const std::byte> in, std::size_t total, std::size_t& at, std::size_t& size) {
  class probe final : public blob_source {
   public:
    explicit probe(std::size_t pending) : blob_source(pending) {}
    bool found = false;
    std::size_t at = 0;
    std::size_t size = 0;
    bool accept(byte_reader& r, std::size_t n) override {
      found = true;
      at = r.offset();
      size = n;
      return false;  // the decode stops here; nothing recorded (nothing allocated for a message never read)
    }

   protected:
    bool read_exact(std::byte* /*dest*/, std::size_t /*n*/, std::string& why) override {
      why = "a probe reads nothing";
      return false;
    }
    std::byte* rest_buffer(std::size_t /*n*/) override { return nullptr; }
  };
  if (total < in.size()) return false;
  probe p(total - in.size());
  T scratch{};
  (void)decode_streaming(in, scratch, decode_options{}, p);
  if (!p.found) return false;
  at = p.at;
  size = p.size;
  return true;
}

}  // namespace refwire::detail::bin
