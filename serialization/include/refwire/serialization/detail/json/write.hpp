#pragma once
// The JSON encoder. Machinery for json.hpp; conventions in docs/json-format.md.

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/describe/enumerators.hpp>
#include <boost/mp11/algorithm.hpp>

#include <refwire/serialization/detail/core/encode_failure.hpp>
#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/detail/core/text_bits.hpp>
#include <refwire/serialization/detail/wire/itoa.hpp>
#include <refwire/serialization/detail/wire/output.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/options.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire::detail::json {

/// Stages output in a stack buffer and appends it to the destination in
/// blocks; nothing is zero-filled.
class writer {
 public:
  static constexpr std::size_t stage_size = 8192;
  /// Longest single reservation (a chunk of an escaped string, a number).
  static constexpr std::size_t max_reserve = 7000;

  writer(std::vector<std::byte>& out, bool indent) noexcept : pretty(indent), bytes_(&out) {}
  writer(std::string& out, bool indent) noexcept : pretty(indent), text_(&out) {}
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;

  /// Room for n <= max_reserve bytes at the returned pointer; commit(end) after writing.
  char* reserve(std::size_t n) {
    if (static_cast<std::size_t>(lim_ - pos_) < n) [[unlikely]] flush();
    return pos_;
  }
  void commit(char* end) noexcept { pos_ = end; }

  void put(char c) {
    if (pos_ == lim_) [[unlikely]] flush();
    *pos_++ = c;
  }
  template <std::size_t N>
  void put_fixed(const std::array<char, N>& a) {
    char* p = reserve(N);
    std::memcpy(p, a.data(), N);
    pos_ = p + N;
  }
  /// `true` / `false` (constant-size copies, no call to memcpy).
  void put_literal(bool b) {
    char* p = reserve(5);
    if (b) {
      std::memcpy(p, "true", 4);
      pos_ = p + 4;
    } else {
      std::memcpy(p, "false", 5);
      pos_ = p + 5;
    }
  }
  void put_null() {
    char* p = reserve(4);
    std::memcpy(p, "null", 4);
    pos_ = p + 4;
  }
  void put(std::string_view s) {
    if (s.size() <= static_cast<std::size_t>(lim_ - pos_)) {
      std::memcpy(pos_, s.data(), s.size());
      pos_ += s.size();
      return;
    }
    put_slow(s);
  }

  /// A field's key from quoted_key (`,"name":`), the comma skipped when first.
  template <std::size_t N>
  void key(const std::array<char, N>& a, bool& first) {
    if (pretty) [[unlikely]] {
      pretty_key(std::string_view(a.data() + 1, N - 2), first);
      return;
    }
    char* p = reserve(N);
    if (first) [[unlikely]] {  // constant sizes: both copies are inlined
      first = false;
      std::memcpy(p, a.data() + 1, N - 1);
      pos_ = p + N - 1;
    } else {
      std::memcpy(p, a.data(), N);
      pos_ = p + N;
    }
  }

  /// Before an element or a field: a comma unless first; pretty: a new line and the indentation.
  void item(bool& first) {
    if (!first) put(',');
    first = false;
    if (pretty) [[unlikely]] newline();
  }
  /// Closes an object or an array; pretty puts a non-empty one's bracket on its own line.
  void close(bool empty, char bracket) {
    --level;
    if (pretty && !empty) [[unlikely]] newline();
    put(bracket);
  }
  void open(char bracket) {
    put(bracket);
    ++level;
  }
  void colon() {
    if (pretty) [[unlikely]] {
      char* p = reserve(2);
      p[0] = ':';
      p[1] = ' ';
      pos_ = p + 2;
    } else {
      put(':');
    }
  }

  void flush();
  /// Pretty form of key(): the separator, a new line, the indentation, `"name": `.
  void pretty_key(std::string_view quoted, bool& first);

  const bool pretty;
  std::uint32_t level = 0;

 private:
  void newline();
  void put_slow(std::string_view s);

  std::vector<std::byte>* bytes_ = nullptr;
  std::string* text_ = nullptr;
  char stage_[stage_size];
  char* pos_ = stage_;
  char* const lim_ = stage_ + stage_size;
};

// Compiled once (src/json/write.cpp).
void write_string(writer& w, std::string_view s);  ///< quoted, escaped; throws on invalid UTF-8
void write_double(writer& w, double v);              ///< shortest round trip; throws on NaN / infinity
void write_float(writer& w, float v);
void write_base64(writer& w, const std::byte* p, std::size_t n);
void write_timestamp(writer& w, std::int64_t ns);   ///< "2026-12-01T09:47:29.123456789Z"
void write_uuid(writer& w, const uuid& id);

template <class T>
void write_integer(writer& w, T v) {
  char* p = w.reserve(24);
  if constexpr (is_integer_v<T> && sizeof(T) <= 8) {
    w.commit(wire::format_integer(p, v));
  } else {
    w.commit(std::to_chars(p, p + 24, v).ptr);
  }
}

/// A field's key as it is written: `"name"`, checked to need no escaping.
template <std::size_t N>
struct key_chars {
  std::array<char, N + 2> chars{};
};

constexpr bool plain_key(std::string_view name) {
  for (char c : name) {
    if (c == '"' || c == '\\' || (static_cast<unsigned char>(c) < 0x20)) return false;
  }
  return true;
}

/// `,"name":` (the comma is skipped for the first field).
template <class F>
constexpr auto quoted_key() {
  static_assert(plain_key(F::name), "refwire: a JSON field name must not contain '\"', '\\' or control characters");
  std::array<char, F::name.size() + 4> a{};
  a[0] = ',';
  a[1] = '"';
  for (std::size_t i = 0; i < F::name.size(); ++i) a[i + 2] = F::name[i];
  a[F::name.size() + 2] = '"';
  a[F::name.size() + 3] = ':';
  return a;
}

template <class F>
inline constexpr auto quoted_key_v = quoted_key<F>();

/// quoted_key_v, with `{` in place of the comma for a record's first field.
template <class F, bool first>
inline constexpr auto opening_key_v = [] {
  auto a = quoted_key_v<F>;
  if (first) a[0] = '{';
  return a;
}();

/// A described enum's name for v, or nullptr.
template <class E>
const char* enum_name(E v) noexcept {
  const char* name = nullptr;
  boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) {
    if (name == nullptr && d.value == v) name = d.name;
  });
  return name;
}

/// A described enum's names, quoted, each in a fixed-size slot so that
/// writing one is a constant-size copy.
template <class E>
struct enum_table {
  using list = boost::describe::describe_enumerators<E>;
  static constexpr std::size_t n = boost::mp11::mp_size<list>::value;
  static constexpr std::size_t longest = [] {
    std::size_t m = 0;
    boost::mp11::mp_for_each<list>([&](auto d) {
      const std::size_t len = std::char_traits<char>::length(d.name);
      m = len > m ? len : m;
    });
    return m;
  }();
  static constexpr std::size_t slot = (longest + 2 + 15) / 16 * 16;
  static constexpr auto values = [] {
    std::array<E, n> a{};
    std::size_t i = 0;
    boost::mp11::mp_for_each<list>([&](auto d) { a[i++] = d.value; });
    return a;
  }();
  static constexpr auto lengths = [] {
    std::array<std::size_t, n> a{};
    std::size_t i = 0;
    boost::mp11::mp_for_each<list>([&](auto d) { a[i++] = std::char_traits<char>::length(d.name) + 2; });
    return a;
  }();
  static constexpr auto slots = [] {
    std::array<char, n * slot + 1> a{};
    std::size_t i = 0;
    boost::mp11::mp_for_each<list>([&](auto d) {
      char* p = a.data() + i * slot;
      p[0] = '"';
      const std::size_t len = std::char_traits<char>::length(d.name);
      for (std::size_t k = 0; k < len; ++k) p[k + 1] = d.name[k];
      p[len + 1] = '"';
      ++i;
    });
    return a;
  }();
};

template <class T>
inline constexpr bool described_enum_v = false;
template <class T>
  requires std::is_enum_v<T>
inline constexpr bool described_enum_v<T> = boost::describe::has_describe_enumerators<T>::value;

/// Map keys written as JSON object keys: strings, described enums, integers.
template <class K>
inline constexpr bool object_key_v = is_string_v<K> || described_enum_v<K> || (is_integer_v<K> && !has_codec<K>);

/// A record with no fields (std::monostate included): `{}` needs no names.
template <class T>
constexpr bool fieldless_aggregate() {
  if constexpr (aggregate_record<T>) {
    return field_count<T> == 0;
  } else {
    return false;
  }
}

/// A C array of arrays (int[2][3]) has no shape of its own (shape_of says
/// none); JSON writes and reads it as nested arrays.
template <class T>
inline constexpr bool nested_c_array_v = std::rank_v<T> > 1;

template <class T>
void write(writer& w, const T& v);

/// The element type a sequence, set or array is written as.
template <class T>
struct element_of_range {
  using type = typename T::value_type;
};
template <class T, std::size_t N>
struct element_of_range<T[N]> {
  using type = T;
};

template <class K>
void write_key(writer& w, const K& key) {
  if constexpr (is_string_v<K>) {
    write_string(w, key);
  } else if constexpr (described_enum_v<K>) {
    const char* name = enum_name(key);
    if (name == nullptr) {
      w.put('"');
      write_integer(w, static_cast<std::underlying_type_t<K>>(key));
      w.put('"');
    } else {
      write_string(w, name);
    }
  } else {
    w.put('"');
    write_integer(w, key);
    w.put('"');
  }
}

/// Integers and floating-point elements in compact form: one reservation per block.
template <class E>
inline constexpr bool plain_number_v = (is_integer_v<E> || is_float_v<E>) && !has_codec<E>;

template <class T>
bool all_finite(const T& v) {
  if constexpr (is_float_v<typename element_of_range<T>::type>) {
    for (const auto& e : v) {
      if (!std::isfinite(e)) [[unlikely]] return false;
    }
  }
  return true;
}

/// A plain number's text at p (room for `each` bytes).
template <std::size_t each, class E>
REFWIRE_ALWAYS_INLINE char* format_number(char* p, E x) noexcept {
  if constexpr (is_integer_v<E> && sizeof(E) <= 8) {
    return wire::format_integer(p, x);
  } else {
    return std::to_chars(p, p + each, x).ptr;
  }
}

template <class T>
void write_sequence(writer& w, const T& v) {
  using E = typename element_of_range<T>::type;
  if constexpr (plain_number_v<E> && !std::is_same_v<T, std::vector<bool>>) {
    if (!w.pretty && all_finite(v)) {  // else the slow path names the bad element
      {
        constexpr std::size_t each = is_float_v<E> ? 32 : 22;
        constexpr std::size_t block = 128;
        auto it = std::begin(v);
        const auto end = std::end(v);
        char* p = w.reserve(each + 2);
        *p++ = '[';
        if (it != end) {
          p = format_number<each>(p, *it);
          ++it;
        }
        w.commit(p);
        while (it != end) {
          p = w.reserve(each * block);
          if constexpr (std::random_access_iterator<decltype(it)>) {  // one bound per block
            const auto left = static_cast<std::size_t>(end - it);
            const auto stop = it + static_cast<std::ptrdiff_t>(left < block ? left : block);
            for (; it != stop; ++it) {
              *p++ = ',';
              p = format_number<each>(p, *it);
            }
          } else {
            for (std::size_t k = 0; k < block && it != end; ++k, ++it) {
              *p++ = ',';
              p = format_number<each>(p, *it);
            }
          }
          w.commit(p);
        }
        w.put(']');
        return;
      }
    }
  }
  w.open('[');
  bool first = true;
  std::size_t i = 0;
  for (const auto& e : v) {
    w.item(first);
    encode_within([&] { write(w, static_cast<const E&>(e)); }, [i](encode_failure& f) { push_index(f, i); });
    ++i;
  }
  w.close(first, ']');
}

/// The path segment of an object key (a map with object_key_v keys): the
/// string quoted, an integer or a described enum as its number.
template <class K>
void push_object_key(encode_failure& f, const K& key) {
  if constexpr (is_string_v<K>) {
    push_key(f, std::string_view(key));
  } else if constexpr (is_integer_v<K> && !std::is_signed_v<K>) {
    push_key(f, static_cast<unsigned long long>(key));
  } else {
    push_key(f, static_cast<long long>(key));
  }
}

/// Writes field F of record v; an encode failure inside it adds the field's name to the path.
template <class F, class T>
REFWIRE_ALWAYS_INLINE void write_field(writer& w, const T& v) {
  encode_within([&] { write(w, F::get(v)); }, [](encode_failure& f) { push_field(f, F::name, F::index); });
}

/// A record's fields in compact form: the brace comes with the first key
/// (`{"id":`), and every other key has its comma, all known at compile time.
template <class T, class F0, class... Fs>
void write_compact_fields(writer& w, const T& v, boost::mp11::mp_list<F0, Fs...>) {
  w.put_fixed(opening_key_v<F0, true>);
  write_field<F0>(w, v);
  ((w.put_fixed(opening_key_v<Fs, false>), write_field<Fs>(w, v)), ...);
  w.put('}');
}

/// A record's fields in pretty form, each key on its own line.
template <class T, class... Fs>
void write_pretty_fields(writer& w, const T& v, boost::mp11::mp_list<Fs...>) {
  w.open('{');
  bool first = true;
  ((w.key(quoted_key_v<Fs>, first), write_field<Fs>(w, v)), ...);
  w.close(first, '}');
}

/// A described record: an object of its walked fields (base fields first).
template <class T>
void write_record(writer& w, const T& v) {
  using fields = walked_fields_t<T>;
  if constexpr (boost::mp11::mp_size<fields>::value != 0) {
    if (!w.pretty) {
      write_compact_fields(w, v, fields{});
      return;
    }
  }
  write_pretty_fields(w, v, fields{});
}

template <class T>
void write(writer& w, const T& v) {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::codec) {
    write(w, codec<T>::to_wire(v));
  } else if constexpr (s == shape::boolean) {
    w.put_literal(v);
  } else if constexpr (s == shape::enumeration) {
    using U = std::underlying_type_t<T>;
    if constexpr (described_enum_v<T>) {
      using table = enum_table<T>;
      for (std::size_t i = 0; i < table::n; ++i) {
        if (table::values[i] == v) {
          if constexpr (table::slot <= 64 && table::n > 0) {
            char* p = w.reserve(table::slot);
            std::memcpy(p, table::slots.data() + i * table::slot, table::slot);
            w.commit(p + table::lengths[i]);
          } else {
            w.put(std::string_view(table::slots.data() + i * table::slot, table::lengths[i]));
          }
          return;
        }
      }
    }
    write(w, static_cast<U>(v));
  } else if constexpr (s == shape::integer) {
    write_integer(w, v);
  } else if constexpr (s == shape::floating && std::is_same_v<T, double>) {
    write_double(w, v);
  } else if constexpr (s == shape::floating) {
    write_float(w, v);
  } else if constexpr (s == shape::string) {
    write_string(w, v);
  } else if constexpr (s == shape::blob) {
    write_base64(w, v.data(), v.size());
  } else if constexpr (s == shape::uuid) {
    write_uuid(w, v);
  } else if constexpr (s == shape::timestamp) {
    write_timestamp(w, checked_nanoseconds(v.time_since_epoch()));
  } else if constexpr (s == shape::duration) {
    write_integer(w, checked_nanoseconds(v));
  } else if constexpr (s == shape::optional || s == shape::pointer) {
    if (v) {
      write(w, *v);
    } else {
      w.put_null();
    }
  } else if constexpr (s == shape::sequence || s == shape::set || s == shape::fixed_array || nested_c_array_v<T>) {
    write_sequence(w, v);
  } else if constexpr (s == shape::text) {  // u8string, path (its generic form): a JSON string
    write_string(w, text_of(v));
  } else if constexpr (s == shape::bitset) {  // "0101...", most significant bit first
    write_string(w, v.to_string());
  } else if constexpr (s == shape::map && is_multi_v<T>) {  // a multimap: [[key, value], ...], duplicates kept
    bool first = true;
    w.open('[');
    std::size_t i = 0;
    for (const auto& entry : v) {
      w.item(first);
      w.open('[');
      bool first_of_pair = true;
      encode_within(
          [&] {
            w.item(first_of_pair);
            write(w, entry.first);
            w.item(first_of_pair);
            write(w, entry.second);
          },
          [i](encode_failure& f) { push_index(f, i); });
      w.close(false, ']');
      ++i;
    }
    w.close(first, ']');
  } else if constexpr (s == shape::map) {
    using K = typename T::key_type;
    bool first = true;
    if constexpr (object_key_v<K>) {
      w.open('{');
      for (const auto& entry : v) {  // not a structured binding: clang 14 cannot capture one
        w.item(first);
        write_key(w, entry.first);
        w.colon();
        encode_within([&] { write(w, entry.second); }, [&](encode_failure& f) { push_object_key(f, entry.first); });
      }
      w.close(first, '}');
    } else {
      w.open('[');
      std::size_t i = 0;
      for (const auto& entry : v) {
        w.item(first);
        w.open('[');
        bool first_of_pair = true;
        encode_within(
            [&] {
              w.item(first_of_pair);
              write(w, entry.first);
              w.item(first_of_pair);
              write(w, entry.second);
            },
            [i](encode_failure& f) { push_index(f, i); });
        w.close(false, ']');
        ++i;
      }
      w.close(first, ']');
    }
  } else if constexpr (s == shape::variant) {
    w.open('{');
    bool first = true;
    w.item(first);
    w.put('"');
    write_integer(w, v.index());
    w.put('"');
    w.colon();
    encode_within([&] { std::visit([&](const auto& alt) { write(w, alt); }, v); },
                  [&](encode_failure& f) { push_index(f, v.index()); });
    w.close(false, '}');
  } else if constexpr (s == shape::tuple) {
    w.open('[');
    bool first = true;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((w.item(first),
        encode_within([&] { write(w, std::get<I>(v)); }, [](encode_failure& f) { push_index(f, I); })),
       ...);
    }(std::make_index_sequence<std::tuple_size_v<T>>{});
    w.close(first, ']');
  } else if constexpr (s == shape::record) {
    if constexpr (fieldless_aggregate<T>()) {
      w.put(std::string_view("{}"));
    } else if constexpr (described_record<T>) {
      write_record(w, v);
    } else {
      static_assert(dependent_false<T>,
                    "refwire: this format needs field names: describe the type with BOOST_DESCRIBE_STRUCT");
    }
  } else {
    static_assert(dependent_false<T>,
                  "refwire: this type is not serializable: describe it with BOOST_DESCRIBE_STRUCT, "
                  "make it an aggregate, or specialize refwire::codec<T>");
  }
}

/// Appends the JSON text of v to out (a std::vector<std::byte> or a
/// std::string); an encode failure becomes refwire::encode_error.
template <class T, class Out>
void encode(const T& v, Out& out, bool pretty) {
  encode_entry([&] {
    writer w(out, pretty);
    write(w, v);
    w.flush();
  });
}

}  // namespace refwire::detail::json
