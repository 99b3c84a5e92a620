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
#include <optional>
#include <ratio>
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
#include <refwire/serialization/json_value.hpp>
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

  writer(std::vector<std::byte>& out, bool pretty_form) noexcept : pretty(pretty_form), fast(!pretty_form), bytes_(&out) {}
  writer(std::string& out, bool pretty_form) noexcept : pretty(pretty_form), fast(!pretty_form), text_(&out) {}
  /// With the JSON members of encode_options.
  writer(std::vector<std::byte>& out, const encode_options& o) noexcept : writer(out, o.pretty) { configure(o); }
  writer(std::string& out, const encode_options& o) noexcept : writer(out, o.pretty) { configure(o); }
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
  /// A key from a name known to need no escaping, compact or pretty.
  void name_key(std::string_view name, bool& first);
  /// A new line and the indentation of the current level.
  void newline();

  const bool pretty;
  /// Neither pretty nor any option that changes how records are written:
  /// records take the compact path with keys fixed at compile time.
  bool fast;
  /// Any record option (omit_null, omit_defaults, a naming policy) is set.
  bool custom = false;
  bool omit_null = false;
  bool omit_defaults = false;
  std::uint32_t level = 0;
  std::uint32_t indent = 2;
  std::uint32_t short_array_width = 0;
  refwire::naming names = refwire::naming::as_declared;
  /// The variant form in effect (a field's type attribute, else the call's).
  refwire::variant_form variants = refwire::variant_form::by_index;
  std::string_view variant_tag = "type";
  /// The call's variant form and tag (encode_options).
  refwire::variant_form call_variants = refwire::variant_form::by_index;
  std::string_view call_tag = "type";
  /// encode_options::timestamps.
  timestamp_format timestamps = timestamp_format::rfc3339;

 private:
  void configure(const encode_options& o) noexcept {
    indent = o.indent;
    short_array_width = o.short_array_width;
    omit_null = o.omit_null;
    omit_defaults = o.omit_defaults;
    names = o.naming;
    variants = call_variants = o.variants;
    variant_tag = call_tag = o.variant_tag;
    timestamps = o.timestamps;
    custom = omit_null || omit_defaults || names != refwire::naming::as_declared;
    fast = !pretty && !custom;
  }
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
/// ns as a number of w.timestamps' unit (an epoch_* form): 1796118449.123456789.
void write_epoch(writer& w, std::int64_t ns);
void write_uuid(writer& w, const uuid& id);
/// The text verbatim after checking it is JSON (else an encode failure); empty text is null.
void write_raw_json(writer& w, const raw_json& v);
void write_json_value(writer& w, const json_value& v);

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

/// A duration as the count of its own period (a std::chrono::milliseconds of
/// 1500 is 1500): an integer, or a JSON number for a floating-point rep.
template <class D>
void write_duration(writer& w, D d) {
  using R = typename D::rep;
  static_assert(std::ratio_greater_equal_v<typename D::period, std::nano>,
                "refwire: durations finer than nanoseconds are not supported");
  if constexpr (is_integer_v<R>) {
    write_integer(w, d.count());
  } else if constexpr (std::is_same_v<R, float>) {
    write_float(w, d.count());
  } else {
    write_double(w, static_cast<double>(d.count()));
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

/// Pretty: the array of numbers v on one line (`[1, 2, 3]`) when the
/// indentation and that line fit in w.short_array_width columns; false (nothing
/// written) otherwise, or when an element is not finite.
template <class T>
bool write_short_array(writer& w, const T& v) {
  using E = typename element_of_range<T>::type;
  constexpr std::size_t each = is_float_v<E> ? 32 : 22;
  const std::size_t width = w.short_array_width;
  const std::size_t indentation = static_cast<std::size_t>(w.indent) * w.level;
  if (indentation + 2 > width) return false;
  std::size_t length = indentation + 2;  // the brackets
  std::size_t count = 0;
  char buf[each];
  for (const auto& e : v) {
    if constexpr (is_float_v<E>) {
      if (!std::isfinite(e)) return false;
    }
    length += static_cast<std::size_t>(format_number<each>(buf, static_cast<E>(e)) - buf) + (count == 0 ? 0 : 2);
    ++count;
    if (length > width) return false;
  }
  w.put('[');
  bool first = true;
  for (const auto& e : v) {
    if (!first) w.put(std::string_view(", "));
    first = false;
    char* p = w.reserve(each);
    w.commit(format_number<each>(p, static_cast<E>(e)));
  }
  w.put(']');
  return true;
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
  if constexpr (plain_number_v<E> && !std::is_same_v<T, std::vector<bool>>) {
    if (w.pretty && w.short_array_width != 0 && write_short_array(w, v)) return;
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

/// True when T holds a std::variant not inside another record (through
/// optionals, pointers, sequences, sets, arrays and map values): the values a
/// record's type_attr::variants applies to.
template <class T>
constexpr bool reaches_variant() {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::variant) {
    return true;
  } else if constexpr (s == shape::optional || s == shape::sequence) {
    return reaches_variant<typename T::value_type>();
  } else if constexpr (s == shape::pointer) {
    return reaches_variant<typename T::element_type>();
  } else if constexpr (s == shape::fixed_array) {
    return reaches_variant<typename element_of<T>::type>();
  } else if constexpr (s == shape::map) {
    return reaches_variant<typename T::mapped_type>();
  } else {
    return false;
  }
}

/// The variants T holds in the sense of reaches_variant, as an mp_list.
template <class T>
constexpr auto variants_in_f() {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::variant) {
    return boost::mp11::mp_list<T>{};
  } else if constexpr (s == shape::optional || s == shape::sequence) {
    return variants_in_f<typename T::value_type>();
  } else if constexpr (s == shape::pointer) {
    return variants_in_f<typename T::element_type>();
  } else if constexpr (s == shape::fixed_array) {
    return variants_in_f<typename element_of<T>::type>();
  } else if constexpr (s == shape::map) {
    return variants_in_f<typename T::mapped_type>();
  } else {
    return boost::mp11::mp_list<>{};
  }
}

/// A record an internally tagged variant can hold: described, or fieldless (std::monostate).
template <class A>
constexpr bool taggable_alternative() {
  if constexpr (shape_of<A>() == shape::record) {
    return described_record<A> || fieldless_aggregate<A>();
  } else {
    return false;
  }
}

/// The type-level form of the variant fields of Owner (none: the call's).
template <class Owner>
inline constexpr std::optional<variant_form> type_variant_form = type_attributes_of<Owner>().variants;

template <class Alternative>
struct internally_tagged_alternative_not_a_struct {
  static_assert(dependent_false<Alternative>,
                "refwire: variant_form::internally_tagged needs every alternative to be a described struct "
                "(the alternative is the template argument of internally_tagged_alternative_not_a_struct); "
                "use variant_form::by_name or by_index for this variant");
  static constexpr bool ok = true;
};

template <fixed_string Name>
struct field_clashes_with_variant_tag {
  static_assert(false_v<Name>,
                "refwire: a field of an internally tagged variant's alternative has the tag's name (the name is "
                "the template argument of field_clashes_with_variant_tag); rename the field or choose another "
                "type_attr::variant_tag");
  static constexpr bool ok = true;
};

template <class A>
constexpr auto own_names_of() {
  return []<class... Fs>(boost::mp11::mp_list<Fs...>) {
    return std::array<std::string_view, sizeof...(Fs)>{Fs::name...};
  }(walked_fields_t<A>{});
}

template <class A, auto Tag>
constexpr std::size_t tag_clash_index() {
  if constexpr (described_record<A>) {
    constexpr auto names = own_names_of<A>();
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == Tag()) return i;
    }
  }
  return no_index;
}

template <class A, auto Tag>
constexpr bool check_tagged_alternative() {
  if constexpr (!taggable_alternative<A>()) {
    return internally_tagged_alternative_not_a_struct<A>::ok;
  } else if constexpr (tag_clash_index<A, Tag>() != no_index) {
    return field_clashes_with_variant_tag<fixed_at<own_names_of<A>, tag_clash_index<A, Tag>()>>::ok;
  } else {
    return true;
  }
}

/// The tag of Owner's type attribute, as a callable template argument.
template <class Owner>
struct owner_tag {
  static constexpr std::string_view get() { return type_attributes_of<Owner>().variant_tag; }
};

/// Compile-time checks of a field of Owner whose type attribute asks for
/// internally tagged variants: every alternative is a struct, none has a
/// field named like the tag.
template <class Owner, class FieldType>
constexpr bool check_field_variants() {
  if constexpr (type_variant_form<Owner> == variant_form::internally_tagged) {
    return []<class... Vs>(boost::mp11::mp_list<Vs...>) {
      return ([]<template <class...> class L, class... As>(std::type_identity<L<As...>>) {
        return (check_tagged_alternative<As, &owner_tag<Owner>::get>() && ...);
      }(std::type_identity<Vs>{}) && ...);
    }(decltype(variants_in_f<FieldType>()){});
  } else {
    return true;
  }
}

/// Runs f with w's variant form set for a field of Owner: Owner's type
/// attribute if it has one, else the call's.
template <class Owner, class FieldType, class W, class Fn>
REFWIRE_ALWAYS_INLINE auto with_field_variants(W& w, Fn&& f) {
  if constexpr (!reaches_variant<FieldType>()) {
    return f();
  } else {
    static_assert(check_field_variants<Owner, FieldType>());
    variant_form form = w.call_variants;
    std::string_view tag = w.call_tag;
    if constexpr (type_variant_form<Owner>.has_value()) {
      form = *type_variant_form<Owner>;
      tag = type_attributes_of<Owner>().variant_tag;
    }
    if (form == w.variants && tag.data() == w.variant_tag.data() && tag.size() == w.variant_tag.size()) [[likely]] {
      return f();
    }
    const variant_form saved = w.variants;
    const std::string_view saved_tag = w.variant_tag;
    w.variants = form;
    w.variant_tag = tag;
    struct restore {
      W& w;
      variant_form form;
      std::string_view tag;
      ~restore() {
        w.variants = form;
        w.variant_tag = tag;
      }
    } r{w, saved, saved_tag};
    return f();
  }
}

/// Writes field F of record v; an encode failure inside it adds the field's name to the path.
template <class F, class T>
REFWIRE_ALWAYS_INLINE void write_field(writer& w, const T& v) {
  encode_within([&] { with_field_variants<typename F::owner, typename F::type>(w, [&] { write(w, F::get(v)); }); },
                [](encode_failure& f) { push_field(f, F::name, F::index); });
}

/// Field F's key under each naming policy (a call's encode_options::naming).
template <class F>
inline constexpr auto call_names_v = []<std::size_t... P>(std::index_sequence<P...>) {
  return std::array<std::string_view, naming_count>{
      call_wire_name<typename F::owner, typename F::desc, static_cast<naming>(P)>()...};
}(std::make_index_sequence<naming_count>{});

/// The fields of T whose keys collide under each naming policy: {i, j} (j < i)
/// or {no_index, no_index}.
template <class T>
inline constexpr auto call_collisions_v = [] {
  using fields = walked_fields_t<T>;
  std::array<std::array<std::size_t, 2>, naming_count> out{};
  for (auto& o : out) o = {no_index, no_index};
  if constexpr (boost::mp11::mp_size<fields>::value != 0) {
    constexpr auto table = []<class... Fs>(boost::mp11::mp_list<Fs...>) {
      return std::array<std::array<std::string_view, naming_count>, sizeof...(Fs)>{call_names_v<Fs>...};
    }(fields{});
    for (std::size_t p = 0; p < naming_count; ++p) {
      for (std::size_t i = 0; i < table.size() && out[p][0] == no_index; ++i) {
        for (std::size_t j = 0; j < i; ++j) {
          if (table[i][p] == table[j][p]) {
            out[p] = {i, j};
            break;
          }
        }
      }
    }
  }
  return out;
}();

/// The member names of T's walked fields.
template <class T>
inline constexpr auto member_names_v = []<class... Fs>(boost::mp11::mp_list<Fs...>) {
  return std::array<std::string_view, sizeof...(Fs)>{Fs::member_name...};
}(walked_fields_t<T>{});

/// "naming::camel_case gives fields user_id and userId the same key \"userId\"" (for T, policy p).
std::string naming_collision_reason(naming p, std::string_view first, std::string_view second, std::string_view key);

/// Throws the encode failure of a collision of T's keys under w.names.
template <class T>
[[noreturn]] void throw_naming_collision(naming p) {
  const auto c = call_collisions_v<T>[static_cast<std::size_t>(p)];
  using fields = walked_fields_t<T>;
  const std::string_view key = boost::mp11::mp_with_index<boost::mp11::mp_size<fields>::value>(
      c[0], [&](auto I) { return call_names_v<boost::mp11::mp_at_c<fields, I>>[static_cast<std::size_t>(p)]; });
  throw_encode_failure(naming_collision_reason(p, member_names_v<T>[c[1]], member_names_v<T>[c[0]], key));
}

/// A value-initialized T, once (omit_defaults compares with its fields).
template <class T>
const T& default_value() {
  static const T value{};
  return value;
}

/// Whether `a == b` compiles for T and what it holds (std::equality_comparable
/// alone accepts a vector or variant of types without ==). C arrays never.
template <class T>
constexpr bool deep_comparable() {
  if constexpr (std::is_array_v<T> || !std::equality_comparable<T>) {
    return false;
  } else {
    constexpr shape s = shape_of<T>();
    if constexpr (s == shape::optional || s == shape::sequence) {
      return deep_comparable<typename T::value_type>();
    } else if constexpr (s == shape::fixed_array) {
      return deep_comparable<typename element_of<T>::type>();
    } else if constexpr (s == shape::set) {
      return deep_comparable<typename T::key_type>();
    } else if constexpr (s == shape::map) {
      return deep_comparable<typename T::key_type>() && deep_comparable<typename T::mapped_type>();
    } else if constexpr (s == shape::variant || s == shape::tuple) {
      return []<template <class...> class L, class... As>(std::type_identity<L<As...>>) {
        return (deep_comparable<element_value_t<As>>() && ...);
      }(std::type_identity<T>{});
    } else {
      return true;
    }
  }
}

/// Whether field F of v is left out under w's omit options.
template <class F, class T>
bool omitted(const writer& w, const T& v) {
  using U = typename F::type;
  constexpr shape s = shape_of<U>();
  if constexpr (s == shape::optional || s == shape::pointer) {
    if (w.omit_null && !F::get(v)) return true;
  }
  if constexpr (std::is_default_constructible_v<T> && deep_comparable<U>()) {
    if (w.omit_defaults) return static_cast<bool>(F::get(v) == F::get(default_value<T>()));
  }
  return false;
}

/// A record's fields with the options of w (omit_null, omit_defaults, a
/// naming policy), compact or pretty; first tells whether a field was written yet.
template <class T, class... Fs>
void write_custom_members(writer& w, const T& v, bool& first, boost::mp11::mp_list<Fs...>) {
  const auto p = static_cast<std::size_t>(w.names);
  if constexpr (sizeof...(Fs) != 0) {
    if (call_collisions_v<T>[p][0] != no_index) [[unlikely]] throw_naming_collision<T>(w.names);
  }
  (void)p;
  ((omitted<Fs>(w, v) ? void() : (w.name_key(call_names_v<Fs>[p], first), write_field<Fs>(w, v))), ...);
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
    if (w.fast) [[likely]] {
      write_compact_fields(w, v, fields{});
      return;
    }
  }
  if (w.custom) [[unlikely]] {
    w.open('{');
    bool first = true;
    write_custom_members(w, v, first, fields{});
    w.close(first, '}');
    return;
  }
  write_pretty_fields(w, v, fields{});
}

/// The name of each alternative of the variant V (its REFWIRE_NAME, else its
/// canonical type_name), computed once.
template <class V>
const std::vector<std::string>& alternative_names() {
  static const std::vector<std::string> names = []<template <class...> class L, class... As>(
                                                    std::type_identity<L<As...>>) {
    std::vector<std::string> out;
    auto one = [&]<class A>(std::type_identity<A>) {
      if constexpr (has_type_name<A>) {
        out.emplace_back(refwire_type_name(static_cast<A**>(nullptr)));
      } else {
        out.push_back(type_name<A>());
      }
    };
    (one(std::type_identity<As>{}), ...);
    return out;
  }(std::type_identity<V>{});
  return names;
}

/// Index of the first alternative whose name an earlier one has, or no_index.
std::size_t repeated_name(const std::vector<std::string>& names) noexcept;
/// "variant alternatives 0 and 1 have the same name \"i32\"; ...".
std::string repeated_name_reason(const std::vector<std::string>& names, std::size_t i);
/// "variant_form::internally_tagged needs a described struct for every alternative; alternative 1 (i32) is not".
std::string not_taggable_reason(std::size_t index, std::string_view name);
/// "field \"type\" of alternative 0 (circle) has the name of the variant tag \"type\"".
std::string tag_clash_reason(std::string_view field, std::size_t index, std::string_view alternative,
                             std::string_view tag);

/// The key of field i of record A under policy p, for tag clash checks.
template <class A>
constexpr std::string_view call_key_at(std::size_t i, naming p) {
  using fields = walked_fields_t<A>;
  if constexpr (boost::mp11::mp_size<fields>::value == 0) {
    return {};
  } else {
    return boost::mp11::mp_with_index<boost::mp11::mp_size<fields>::value>(
        i, [&](auto I) { return call_names_v<boost::mp11::mp_at_c<fields, I>>[static_cast<std::size_t>(p)]; });
  }
}

/// The index of A's field whose key under p is tag, or no_index.
template <class A>
std::size_t tag_clash(std::string_view tag, naming p) {
  constexpr std::size_t n = boost::mp11::mp_size<walked_fields_t<A>>::value;
  if constexpr (n != 0) {
    for (std::size_t i = 0; i < n; ++i) {
      if (call_key_at<A>(i, p) == tag) return i;
    }
  }
  return no_index;
}

/// A variant by name or internally tagged (w.variants is not by_index).
template <class V>
void write_variant_named(writer& w, const V& v) {
  const std::vector<std::string>& names = alternative_names<V>();
  const std::size_t index = v.index();
  if (const std::size_t twice = repeated_name(names); twice != no_index) [[unlikely]] {
    throw_encode_failure(repeated_name_reason(names, twice));
  }
  if (w.variants == variant_form::by_name) {
    w.open('{');
    bool first = true;
    w.item(first);
    write_string(w, names[index]);
    w.colon();
    encode_within([&] { std::visit([&](const auto& alt) { write(w, alt); }, v); },
                  [&](encode_failure& f) { push_key(f, std::string_view(names[index])); });
    w.close(false, '}');
    return;
  }
  std::visit(
      [&]<class A>(const A& alt) {
        if constexpr (!taggable_alternative<A>()) {
          throw_encode_failure(not_taggable_reason(index, names[index]));
        } else {
          const std::string_view tag = w.variant_tag;
          if constexpr (described_record<A>) {
            if (const std::size_t clash = tag_clash<A>(tag, w.names); clash != no_index) [[unlikely]] {
              throw_encode_failure(tag_clash_reason(call_key_at<A>(clash, w.names), index, names[index], tag));
            }
          }
          w.open('{');
          bool first = true;
          w.item(first);
          write_string(w, tag);
          w.colon();
          write_string(w, names[index]);
          if constexpr (described_record<A>) write_custom_members(w, alt, first, walked_fields_t<A>{});
          w.close(false, '}');
        }
      },
      v);
}

template <class T>
void write(writer& w, const T& v) {
  constexpr shape s = shape_of<T>();
  if constexpr (std::is_same_v<T, raw_json>) {
    write_raw_json(w, v);
  } else if constexpr (std::is_same_v<T, json_value>) {
    write_json_value(w, v);
  } else if constexpr (s == shape::codec) {
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
    const std::int64_t ns = checked_nanoseconds(v.time_since_epoch());
    if (w.timestamps == timestamp_format::rfc3339) [[likely]] {
      write_timestamp(w, ns);
    } else {
      write_epoch(w, ns);
    }
  } else if constexpr (s == shape::duration) {
    write_duration(w, v);
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
  } else if constexpr (s == shape::map) {
    using K = typename T::key_type;
    bool first = true;
    if constexpr (object_key_v<K> && !is_multi_v<T>) {  // a multimap is always pairs: duplicates kept
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
    if (w.variants != variant_form::by_index) [[unlikely]] {
      write_variant_named(w, v);
      return;
    }
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
void encode(const T& v, Out& out, bool pretty, timestamp_format timestamps = timestamp_format::rfc3339) {
  encode_entry([&] {
    writer w(out, pretty);
    w.timestamps = timestamps;
    write(w, v);
    w.flush();
  });
}

/// encode with the JSON members of encode_options (indent, omissions, naming, variants).
template <class T, class Out>
void encode(const T& v, Out& out, const encode_options& options) {
  encode_entry([&] {
    writer w(out, options);
    write(w, v);
    w.flush();
  });
}

}  // namespace refwire::detail::json
