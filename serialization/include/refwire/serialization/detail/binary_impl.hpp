#pragma once
// The binary format's encoder and decoder. Machinery for binary.hpp.
// Layout: docs/binary-format.md.

#include <array>
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

#include <refwire/serialization/error.hpp>
#include <refwire/serialization/options.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire::detail::bin {

// ------------------------------------------------------------------ helpers

/// Appends n bytes to out without zero-filling first (compiled once, in src/).
void append_bytes(std::vector<std::byte>& out, const std::byte* p, std::size_t n);

/// The name of an integer or floating-point type in truncation messages
/// (enums are read, and so reported, as their underlying type).
template <class T>
constexpr std::string_view scalar_name() {
  static_assert(is_integer_v<T> || is_float_v<T>);
  if constexpr (std::is_same_v<T, char>) return "char";
  else if constexpr (is_float_v<T>) return sizeof(T) == 4 ? "f32" : "f64";
  else if constexpr (std::is_signed_v<T>) {
    return sizeof(T) == 1 ? "i8" : sizeof(T) == 2 ? "i16" : sizeof(T) == 4 ? "i32" : "i64";
  } else {
    return sizeof(T) == 1 ? "u8" : sizeof(T) == 2 ? "u16" : sizeof(T) == 4 ? "u32" : "u64";
  }
}

template <class T>
inline void store_le(std::byte* p, T v) noexcept {
  if constexpr (std::endian::native == std::endian::little || sizeof(T) == 1) {
    std::memcpy(p, &v, sizeof(T));
  } else {
    std::byte tmp[sizeof(T)];
    std::memcpy(tmp, &v, sizeof(T));
    for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = tmp[sizeof(T) - 1 - i];
  }
}

template <class T>
inline T load_le(const std::byte* p) noexcept {
  T v;
  if constexpr (std::endian::native == std::endian::little || sizeof(T) == 1) {
    std::memcpy(&v, p, sizeof(T));
  } else {
    std::byte tmp[sizeof(T)];
    for (std::size_t i = 0; i < sizeof(T); ++i) tmp[i] = p[sizeof(T) - 1 - i];
    std::memcpy(&v, tmp, sizeof(T));
  }
  return v;
}

/// A contiguous run of T is its memory image on the wire: one memcpy.
template <class T>
inline constexpr bool memcpy_ok = is_raw_scalar_v<T> && std::endian::native == std::endian::little;

/// A std::vector of memcpy_ok values.
template <class T> inline constexpr bool is_raw_vector = false;
template <class E, class A> inline constexpr bool is_raw_vector<std::vector<E, A>> = memcpy_ok<E>;

/// The fewest bytes any value of T encodes to (0 for empty records).
template <class T>
constexpr std::size_t min_size() {
  if constexpr (has_codec<T>) return min_size<typename codec<T>::wire>();
  else if constexpr (is_bool_v<T>) return 1;
  else if constexpr (is_raw_scalar_v<T>) return sizeof(T);
  else if constexpr (is_uuid_v<T>) return 16;
  else if constexpr (is_timestamp<T>::value || is_duration<T>::value) return 8;
  else if constexpr (std::is_array_v<T> || is_std_array<T>::value) {
    return fixed_extent<T> * min_size<typename element_of<T>::type>();
  } else if constexpr (is_tuple<T>::value) {
    return []<template <class...> class L, class... Ts>(std::type_identity<L<Ts...>>) {
      return (std::size_t{0} + ... + min_size<Ts>());
    }(std::type_identity<T>{});
  } else if constexpr (record<T>) {
    std::size_t n = 0;
    for_each_field_type<T>([&](auto f) { n += min_size<typename decltype(f)::type>(); });
    return n;
  } else {
    return 1;  // a length, tag or index prefix
  }
}

/// The exact encoded size of T when every value of T encodes to the same
/// number of bytes with no length or tag (0 otherwise). Codecs are left out:
/// their to_wire / from_wire may do anything.
template <class T>
constexpr std::size_t fixed_size() {
  if constexpr (has_codec<T>) return 0;
  else if constexpr (is_bool_v<T>) return 1;
  else if constexpr (std::is_enum_v<T> && !is_raw_scalar_v<T>) return 1;  // an enum over bool
  else if constexpr (is_raw_scalar_v<T>) return sizeof(T);
  else if constexpr (is_uuid_v<T>) return 16;
  else if constexpr (is_timestamp<T>::value || is_duration<T>::value) return 8;
  else if constexpr (std::is_array_v<T> || is_std_array<T>::value) {
    using E = typename element_of<T>::type;
    if constexpr (memcpy_ok<E>) return sizeof(E) * fixed_extent<T>;
    else return 0;
  } else {
    return 0;
  }
}

/// A run of consecutive fixed-size fields is checked once (bounds on decode,
/// stage room on encode), as a whole, up to this many bytes.
inline constexpr std::size_t max_run_bytes = 512;

/// For a field list L: how many consecutive fixed-size fields start at field I
/// (0 when field I is not fixed-size), and how many bytes they take.
template <class L>
struct field_runs;

template <template <class...> class L, class... Fs>
struct field_runs<L<Fs...>> {
  static constexpr std::size_t count = sizeof...(Fs);
  static constexpr std::array<std::size_t, count> sizes{fixed_size<typename Fs::type>()...};

  static constexpr std::size_t length(std::size_t i) {
    std::size_t n = 0;
    std::size_t bytes = 0;
    while (i + n < count && sizes[i + n] != 0 && sizes[i + n] <= max_run_bytes - bytes) {
      bytes += sizes[i + n];
      ++n;
    }
    return n;
  }
  static constexpr std::size_t bytes(std::size_t i, std::size_t n) {
    std::size_t b = 0;
    for (std::size_t k = 0; k < n; ++k) b += sizes[i + k];
    return b;
  }
};

// ------------------------------------------------------------------- writer

/// Stages small writes on the stack and appends them to the output in blocks;
/// large byte runs go straight to the output. Nothing is zero-filled.
class writer {
 public:
  static constexpr std::size_t stage_size = 2048;

  explicit writer(std::vector<std::byte>& out) noexcept : out_(out) {}
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;

  template <class T>
  void put(T v) {
    if (static_cast<std::size_t>(lim_ - pos_) < sizeof(T)) flush();
    store_le(pos_, v);
    pos_ += sizeof(T);
  }

  void put_varint(std::uint64_t v) {
    if (lim_ - pos_ < 10) flush();
    while (v >= 0x80) {
      *pos_++ = static_cast<std::byte>(v | 0x80);
      v >>= 7;
    }
    *pos_++ = static_cast<std::byte>(v);
  }

  /// Makes room for n <= stage_size / 2 bytes: the unchecked puts that follow may use them.
  void reserve(std::size_t n) {
    if (static_cast<std::size_t>(lim_ - pos_) < n) flush();
  }

  /// Like put, after a reserve that covers it.
  template <class T>
  void put_unchecked(T v) noexcept {
    store_le(pos_, v);
    pos_ += sizeof(T);
  }

  /// Like put_bytes of a size known at compile time, after a reserve that covers it.
  template <std::size_t N>
  void put_bytes_unchecked(const void* p) noexcept {
    std::memcpy(pos_, p, N);
    pos_ += N;
  }

  /// A string: its varint length then its bytes.
  void put_string(const std::string& v) {
    const std::size_t n = v.size();
    if (n < 0x80 && static_cast<std::size_t>(lim_ - pos_) > 0x80) [[likely]] {
      *pos_++ = static_cast<std::byte>(n);
      if (n < 16 && v.capacity() >= 15) {
        // The string's buffer holds capacity() + 1 >= 16 bytes: copy 16 (two
        // instructions, no memcpy call). Only n of them are kept, the rest of
        // the stage is overwritten by what follows or never flushed.
        std::memcpy(pos_, v.data(), 16);
      } else if (n >= 16 && n <= 32) {
        // Two overlapping 16-byte copies, both inside the string.
        std::memcpy(pos_, v.data(), 16);
        std::memcpy(pos_ + n - 16, v.data() + n - 16, 16);
      } else {
        std::memcpy(pos_, v.data(), n);
      }
      pos_ += n;
      return;
    }
    put_varint(n);
    put_bytes(v.data(), n);
  }

  void put_bytes(const void* p, std::size_t n) {
    if (n <= static_cast<std::size_t>(lim_ - pos_)) {
      if (n != 0) std::memcpy(pos_, p, n);
      pos_ += n;
      return;
    }
    flush();
    if (n < stage_size / 2) {
      std::memcpy(pos_, p, n);
      pos_ += n;
    } else {
      append_bytes(out_, static_cast<const std::byte*>(p), n);
    }
  }

  void flush() {
    const auto n = static_cast<std::size_t>(pos_ - stage_);
    if (out_.capacity() - out_.size() >= n) {
      out_.insert(out_.end(), stage_, pos_);  // no reallocation: a memmove
    } else {
      append_bytes(out_, stage_, n);
    }
    pos_ = stage_;
  }

 private:
  std::vector<std::byte>& out_;
  std::byte stage_[stage_size];
  std::byte* pos_ = stage_;
  std::byte* const lim_ = stage_ + stage_size;
};

[[noreturn]] void throw_duration_range(long long count, long long num, long long den);

template <class D>
std::int64_t to_nanoseconds(D d) {
  using ns = std::chrono::nanoseconds;
  static_assert(std::ratio_greater_equal_v<typename D::period, std::nano>,
                "refwire: durations finer than nanoseconds are not supported");
  if constexpr (std::is_same_v<D, ns>) {
    return d.count();
  } else if constexpr (std::is_floating_point_v<typename D::rep>) {
    const auto c = std::chrono::duration<long double, std::nano>(d).count();
    if (!(c >= -9223372036854775808.0L && c < 9223372036854775807.5L)) {
      throw_duration_range(static_cast<long long>(d.count()), D::period::num, D::period::den);
    }
    return static_cast<std::int64_t>(std::llround(c));  // nearest: 0.3 ms is 300000 ns, not 299999
  } else {
    using factor = std::ratio_divide<typename D::period, std::nano>;
    static_assert(factor::den == 1);
    constexpr auto k = static_cast<std::int64_t>(factor::num);
    const auto c = static_cast<std::int64_t>(d.count());
    if (c > std::numeric_limits<std::int64_t>::max() / k || c < std::numeric_limits<std::int64_t>::min() / k) {
      throw_duration_range(static_cast<long long>(c), D::period::num, D::period::den);
    }
    return c * k;
  }
}

template <class T>
void write(writer& w, const T& v);

/// Writes a fixed_size<T>() != 0 value after a reserve that covers it.
template <class T>
inline void write_fixed(writer& w, const T& v) {
  if constexpr (is_bool_v<T>) {
    w.put_unchecked(static_cast<std::uint8_t>(v ? 1 : 0));
  } else if constexpr (std::is_enum_v<T> && !is_raw_scalar_v<T>) {  // an enum over bool
    w.put_unchecked(static_cast<std::uint8_t>(static_cast<bool>(v) ? 1 : 0));
  } else if constexpr (std::is_enum_v<T>) {
    w.put_unchecked(static_cast<std::underlying_type_t<T>>(v));
  } else if constexpr (is_raw_scalar_v<T>) {
    w.put_unchecked(v);
  } else if constexpr (is_uuid_v<T>) {
    w.put_bytes_unchecked<16>(v.bytes.data());
  } else if constexpr (is_timestamp<T>::value) {
    w.put_unchecked(to_nanoseconds(v.time_since_epoch()));
  } else if constexpr (is_duration<T>::value) {
    w.put_unchecked(to_nanoseconds(v));
  } else {
    static_assert(std::is_array_v<T> || is_std_array<T>::value);
    w.put_bytes_unchecked<fixed_size<T>()>(std::data(v));
  }
}

/// Writes the fields of a record from field I on; a run of fixed-size fields
/// makes room once.
template <class L, std::size_t I, class T>
inline void write_fields(writer& w, const T& v) {
  using runs = field_runs<L>;
  if constexpr (I < runs::count) {
    constexpr std::size_t n = runs::length(I);
    if constexpr (n == 0) {
      write(w, boost::mp11::mp_at_c<L, I>::get(v));
      write_fields<L, I + 1>(w, v);
    } else {
      w.reserve(runs::bytes(I, n));
      [&]<std::size_t... J>(std::index_sequence<J...>) {
        (write_fixed(w, boost::mp11::mp_at_c<L, I + J>::get(v)), ...);
      }(std::make_index_sequence<n>{});
      write_fields<L, I + n>(w, v);
    }
  }
}

template <class Tuple, std::size_t... I>
void write_tuple(writer& w, const Tuple& t, std::index_sequence<I...>) {
  (write(w, std::get<I>(t)), ...);
}

template <class T>
void write(writer& w, const T& v) {
  if constexpr (has_codec<T>) {
    write(w, codec<T>::to_wire(v));
  } else if constexpr (is_bool_v<T>) {
    w.put(static_cast<std::uint8_t>(v ? 1 : 0));
  } else if constexpr (std::is_enum_v<T> && !is_raw_scalar_v<T>) {  // an enum over bool
    write(w, static_cast<bool>(v));
  } else if constexpr (is_raw_scalar_v<T>) {
    if constexpr (std::is_enum_v<T>) {
      w.put(static_cast<std::underlying_type_t<T>>(v));
    } else {
      w.put(v);
    }
  } else if constexpr (is_string_v<T>) {
    w.put_string(v);
  } else if constexpr (is_blob_v<T>) {
    w.put_varint(v.size());
    w.put_bytes(v.data(), v.size());
  } else if constexpr (is_uuid_v<T>) {
    w.put_bytes(v.bytes.data(), 16);
  } else if constexpr (is_timestamp<T>::value) {
    w.put(to_nanoseconds(v.time_since_epoch()));
  } else if constexpr (is_duration<T>::value) {
    w.put(to_nanoseconds(v));
  } else if constexpr (is_optional<T>::value || is_unique_ptr<T>::value) {
    if (v) {
      w.put(std::uint8_t{1});
      write(w, *v);
    } else {
      w.put(std::uint8_t{0});
    }
  } else if constexpr (is_raw_vector<T>) {
    w.put_varint(v.size());
    w.put_bytes(v.data(), v.size() * sizeof(typename T::value_type));
  } else if constexpr (is_sequence<T>::value || is_set<T>::value) {
    w.put_varint(v.size());
    for (const auto& e : v) write(w, static_cast<const typename T::value_type&>(e));
  } else if constexpr (is_map<T>::value) {
    w.put_varint(v.size());
    for (const auto& [key, value] : v) {
      write(w, key);
      write(w, value);
    }
  } else if constexpr (std::is_array_v<T> || is_std_array<T>::value) {
    using E = typename element_of<T>::type;
    if constexpr (memcpy_ok<E>) {
      w.put_bytes(std::data(v), sizeof(E) * fixed_extent<T>);
    } else {
      for (const auto& e : v) write(w, e);
    }
  } else if constexpr (is_variant<T>::value) {
    w.put_varint(v.index());
    std::visit([&](const auto& alt) { write(w, alt); }, v);
  } else if constexpr (is_tuple<T>::value) {
    write_tuple(w, v, std::make_index_sequence<std::tuple_size_v<T>>{});
  } else if constexpr (record<T>) {
    static_assert(attribute_names_valid<T>(),
                  "refwire: REFWIRE_ATTRIBUTES names a member that this type does not describe");
    write_fields<walked_fields_t<T>, 0>(w, v);
  } else {
    static_assert(dependent_false<T>,
                  "refwire: this type is not serializable: describe it with BOOST_DESCRIBE_STRUCT, "
                  "make it an aggregate, or specialize refwire::codec<T>");
  }
}

// ------------------------------------------------------------------- reader

/// What a failed decode recorded; allocated only when a decode fails.
struct failure {
  errc code = errc::ok;
  std::size_t offset = 0;
  std::string reason;
  std::vector<std::string> path;  // innermost segment first
};

/// The cursor and the budgets of one decode; failures are recorded out of line.
struct reader {
  const std::byte* begin;
  const std::byte* cur;
  const std::byte* end;
  std::uint32_t depth_left;
  std::uint64_t elements_left;
  std::uint64_t alloc_left;
  std::unique_ptr<failure> failed;

  reader(std::span<const std::byte> in, const decode_options& o) noexcept
      : begin(in.data()), cur(in.data()), end(in.data() + in.size()),
        depth_left(o.max_depth), elements_left(o.max_elements), alloc_left(o.max_alloc_bytes) {}

  [[nodiscard]] std::size_t left() const noexcept { return static_cast<std::size_t>(end - cur); }
  [[nodiscard]] std::size_t offset() const noexcept { return static_cast<std::size_t>(cur - begin); }
};

// Out-of-line failure paths (src/binary.cpp); each returns false.
bool fail(reader& r, errc code, std::string reason);
bool fail_truncated(reader& r, std::string_view what, std::size_t need);
bool fail_count(reader& r, std::string_view what, std::uint64_t count, std::size_t min_each);
bool fail_elements(reader& r, std::uint64_t count);
bool fail_alloc(reader& r, std::uint64_t bytes);
bool fail_depth(reader& r);
bool fail_byte(reader& r, errc code, std::string_view what, unsigned value);
bool read_varint_slow(reader& r, std::uint64_t& v);
void push_field(reader& r, std::string_view name, std::size_t index);
void push_index(reader& r, std::size_t index);
void push_key(reader& r, std::string_view key);
void push_key(reader& r, long long key);
void push_key(reader& r, unsigned long long key);
refwire::error make_error(reader& r);
/// A std::string field, every case (compiled once).
bool read_string_slow(reader& r, std::string& v);

inline bool read_varint(reader& r, std::uint64_t& v) {
  if (r.cur != r.end && static_cast<std::uint8_t>(*r.cur) < 0x80) [[likely]] {
    v = static_cast<std::uint8_t>(*r.cur++);
    return true;
  }
  return read_varint_slow(r, v);
}

inline bool charge(reader& r, std::uint64_t bytes) {
  if (bytes > r.alloc_left) [[unlikely]] return fail_alloc(r, bytes);
  r.alloc_left -= bytes;
  return true;
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

struct depth_scope {
  reader& r;
  explicit depth_scope(reader& rd) noexcept : r(rd) { --r.depth_left; }
  ~depth_scope() { ++r.depth_left; }
  depth_scope(const depth_scope&) = delete;
  depth_scope& operator=(const depth_scope&) = delete;
};

template <class D>
bool from_nanoseconds(reader& r, std::int64_t ns, D& out) {
  const ns_conversion c = detail::from_nanoseconds(ns, out);
  if (c == ns_conversion::ok) [[likely]] return true;
  r.cur -= 8;
  if (c == ns_conversion::not_whole) {
    return fail(r, errc::invalid_value,
                std::to_string(ns) + " ns is not a whole number of the field's duration unit (" +
                    std::to_string(ns_per_tick<D>()) + " ns)");
  }
  return fail(r, errc::invalid_value, std::to_string(ns) + " ns does not fit the field's duration type");
}

template <class T>
bool read(reader& r, T& v);

template <class T>
inline bool read_scalar(reader& r, T& v) {
  if (r.left() < sizeof(T)) [[unlikely]] return fail_truncated(r, scalar_name<T>(), sizeof(T));
  v = load_le<T>(r.cur);
  r.cur += sizeof(T);
  return true;
}

inline bool read_flag(reader& r, bool& out, errc bad, std::string_view what) {
  if (r.cur == r.end) [[unlikely]] return fail_truncated(r, what, 1);
  const auto b = static_cast<std::uint8_t>(*r.cur);
  if (b > 1) [[unlikely]] return fail_byte(r, bad, what, b);
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

template <class Map, class K>
void push_map_key(reader& r, const K& key, std::size_t i) {
  if constexpr (is_string_v<K>) push_key(r, std::string_view(key));
  else if constexpr (is_integer_v<K> && std::is_signed_v<K>) push_key(r, static_cast<long long>(key));
  else if constexpr (is_integer_v<K>) push_key(r, static_cast<unsigned long long>(key));
  else push_index(r, i);
}

/// Reads a fixed_size<T>() != 0 value from p, once its bytes are known to be
/// there: the same checks and failures as read, without the bounds check.
/// r.cur is only set (to p) when the value is rejected.
template <class T>
inline bool read_fixed(reader& r, const std::byte* p, T& v) {
  if constexpr (is_bool_v<T> || (std::is_enum_v<T> && !is_raw_scalar_v<T>)) {
    const auto b = static_cast<std::uint8_t>(*p);
    if (b > 1) [[unlikely]] {
      r.cur = p;
      return fail_byte(r, errc::invalid_bool, "bool", b);
    }
    v = static_cast<T>(b != 0);
    return true;
  } else if constexpr (std::is_enum_v<T>) {
    v = static_cast<T>(load_le<std::underlying_type_t<T>>(p));
    return true;
  } else if constexpr (is_raw_scalar_v<T>) {
    v = load_le<T>(p);
    return true;
  } else if constexpr (is_uuid_v<T>) {
    std::memcpy(v.bytes.data(), p, 16);
    return true;
  } else if constexpr (is_timestamp<T>::value || is_duration<T>::value) {
    const auto ns = load_le<std::int64_t>(p);
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
    static_assert(std::is_array_v<T> || is_std_array<T>::value);
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
  static_assert(attribute_names_valid<T>(),
                "refwire: REFWIRE_ATTRIBUTES names a member that this type does not describe");
  return read_fields<walked_fields_t<T>, 0>(r, v);
}

template <class T>
bool read(reader& r, T& v) {
  if constexpr (has_codec<T>) {
    const std::byte* start = r.cur;
    typename codec<T>::wire w{};
    if (!read(r, w)) return false;
    try {
      v = codec<T>::from_wire(std::move(w));
    } catch (const std::exception& e) {
      r.cur = start;
      return fail(r, errc::invalid_value, e.what());
    }
    return true;
  } else if constexpr (is_bool_v<T>) {
    return read_flag(r, v, errc::invalid_bool, "bool");
  } else if constexpr (std::is_enum_v<T> && !is_raw_scalar_v<T>) {  // an enum over bool
    bool b;
    if (!read_flag(r, b, errc::invalid_bool, "bool")) [[unlikely]] return false;
    v = static_cast<T>(b);
    return true;
  } else if constexpr (std::is_enum_v<T>) {
    std::underlying_type_t<T> u;
    if (!read_scalar(r, u)) [[unlikely]] return false;
    v = static_cast<T>(u);
    return true;
  } else if constexpr (is_raw_scalar_v<T>) {
    return read_scalar(r, v);
  } else if constexpr (is_string_v<T>) {
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
  } else if constexpr (is_blob_v<T>) {
    std::uint64_t n;
    if (!read_varint(r, n)) [[unlikely]] return false;
    if (n > r.left()) [[unlikely]] return fail_truncated(r, "bytes", n);
    if (!charge(r, n)) [[unlikely]] return false;
    v.assign(r.cur, r.cur + n);
    r.cur += n;
    return true;
  } else if constexpr (is_uuid_v<T>) {
    if (r.left() < 16) [[unlikely]] return fail_truncated(r, "uuid", 16);
    std::memcpy(v.bytes.data(), r.cur, 16);
    r.cur += 16;
    return true;
  } else if constexpr (is_timestamp<T>::value || is_duration<T>::value) {
    std::int64_t ns;
    if (r.left() < 8) [[unlikely]] return fail_truncated(r, is_duration<T>::value ? "duration" : "timestamp", 8);
    ns = load_le<std::int64_t>(r.cur);
    r.cur += 8;
    if constexpr (is_timestamp<T>::value) {
      typename T::duration d;
      if (!from_nanoseconds(r, ns, d)) [[unlikely]] return false;
      v = T(d);
      return true;
    } else {
      return from_nanoseconds(r, ns, v);
    }
  } else if constexpr (is_optional<T>::value || is_unique_ptr<T>::value) {
    bool present;
    if (!read_flag(r, present, errc::invalid_tag, is_optional<T>::value ? "optional tag" : "pointer tag"))
      [[unlikely]] return false;
    if (!present) {
      v.reset();
      return true;
    }
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    if constexpr (is_optional<T>::value) {
      if (!v) v.emplace();
    } else {
      using E = typename T::element_type;
      if (!v) {
        if (!charge(r, sizeof(E))) [[unlikely]] return false;
        v = std::make_unique<E>();
      }
    }
    return read(r, *v);
  } else if constexpr (is_raw_vector<T>) {
    using E = typename T::value_type;
    std::uint64_t n;
    if (!read_varint(r, n)) [[unlikely]] return false;
    if (n > r.left() / sizeof(E)) [[unlikely]] return fail_count(r, "vector", n, sizeof(E));
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
  } else if constexpr (is_sequence<T>::value) {
    using E = typename T::value_type;
    std::uint64_t n;
    constexpr std::size_t node = is_vector<T>::value ? sizeof(E) : sizeof(E) + 2 * sizeof(void*);
    if (!read_count<E>(r, n, "vector", node)) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    v.resize(static_cast<std::size_t>(n));
    return read_elements(r, v);
  } else if constexpr (is_set<T>::value) {
    using K = typename T::key_type;
    std::uint64_t n;
    if (!read_count<K>(r, n, "set", sizeof(K) + 4 * sizeof(void*))) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    v.clear();
    for (std::size_t i = 0; i < n; ++i) {
      const std::byte* at = r.cur;
      K key{};
      if (!read(r, key)) [[unlikely]] {
        push_index(r, i);
        return false;
      }
      const std::size_t before = v.size();
      v.emplace_hint(v.end(), std::move(key));
      if (v.size() == before) [[unlikely]] {
        r.cur = at;
        fail(r, errc::duplicate_key, "duplicate set element");
        push_index(r, i);
        return false;
      }
    }
    return true;
  } else if constexpr (is_map<T>::value) {
    using K = typename T::key_type;
    using M = typename T::mapped_type;
    std::uint64_t n;
    if (!read_count<std::pair<K, M>>(r, n, "map", sizeof(std::pair<K, M>) + 4 * sizeof(void*)))
      [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    v.clear();
    for (std::size_t i = 0; i < n; ++i) {
      const std::byte* at = r.cur;
      K key{};
      if (!read(r, key)) [[unlikely]] {
        push_index(r, i);
        return false;
      }
      const std::size_t before = v.size();
      auto it = v.try_emplace(v.end(), std::move(key));
      if (v.size() == before) [[unlikely]] {
        r.cur = at;
        fail(r, errc::duplicate_key, "duplicate map key");
        push_map_key<T>(r, it->first, i);
        return false;
      }
      if (!read(r, it->second)) [[unlikely]] {
        push_map_key<T>(r, it->first, i);
        return false;
      }
    }
    return true;
  } else if constexpr (std::is_array_v<T> || is_std_array<T>::value) {
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
  } else if constexpr (is_variant<T>::value) {
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
  } else if constexpr (is_tuple<T>::value) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      std::size_t failed = 0;
      const bool ok = ((read(r, std::get<I>(v)) || (failed = I, false)) && ...);
      if (!ok) [[unlikely]] push_index(r, failed);
      return ok;
    }(std::make_index_sequence<std::tuple_size_v<T>>{});
  } else if constexpr (record<T>) {
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

}  // namespace refwire::detail::bin
