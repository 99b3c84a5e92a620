#pragma once
// The JSON decoder: templates that walk the type and drive the reader's
// cursor (detail/json/cursor.hpp). Machinery for json.hpp; conventions in
// docs/json-format.md.

#include <array>
#include <bit>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <ratio>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/describe/enumerators.hpp>
#include <boost/mp11/algorithm.hpp>

#include <refwire/serialization/detail/core/codec.hpp>
#include <refwire/serialization/detail/core/decode_context.hpp>
#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/detail/core/text_bits.hpp>
#include <refwire/serialization/detail/wire/time.hpp>
#include <refwire/serialization/detail/json/cursor.hpp>
#include <refwire/serialization/detail/json/write.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/json_value.hpp>
#include <refwire/serialization/reflect.hpp>
#include <refwire/serialization/types.hpp>

namespace refwire::detail::json {

// Out-of-line failure helpers (src/json/read.cpp); each returns false.
bool fail_range(reader& r, std::string_view value, std::string_view type);
bool fail_float_range(reader& r, double value);
bool fail_count(reader& r, std::string_view what, std::size_t need, std::size_t got);
bool fail_unknown_field(reader& r, std::string_view key);
bool fail_duplicate_field(reader& r, std::string_view key);
bool fail_missing_field(reader& r, std::string_view name);
bool fail_text(reader& r, errc code, std::string_view what, std::string_view text);
/// invalid_value: "invalid RFC 3339 timestamp \"<text>\" (<why>)".
bool fail_timestamp(reader& r, std::string_view text, wire::rfc3339_status why);
/// A timestamp when decode_options::timestamps is an epoch unit: an RFC 3339
/// string, or a number of that unit (exact, from its text), into ns.
bool read_any_timestamp(reader& r, std::int64_t& ns);
/// Decodes standard, padded base64 strictly (no whitespace, no missing or
/// extra padding, zero unused bits). False on any deviation; why says which.
bool base64_decode(std::string_view text, std::vector<std::byte>& out, std::string& why);
/// Reads and discards the current value, checking that it is valid JSON (an
/// unknown field's value; nesting counts against max_depth). A failure inside
/// it names its path: "$.unknown[1]".
bool skip_value(reader& r);
/// Pushes the path segment of an object member that no field names: ".key"
/// for a key of letters, digits and '_', else "[\"key\"]".
void push_member(reader& r, std::string_view key);

/// A raw_json: the value checked as skip_value checks it, its exact text kept (src/json/value.cpp).
bool read_raw_json(reader& r, raw_json& v);
/// A json_value: every element and member counted against the budgets, a
/// duplicate key rejected (src/json/value.cpp).
bool read_json_value(reader& r, json_value& v);

/// One more element (of node_bytes of storage) against the element and allocation budgets.
inline bool count_element(reader& r, std::uint64_t node_bytes) {
  if (r.elements_left == 0) [[unlikely]] return fail_elements(r, 1);
  --r.elements_left;
  return charge(r, node_bytes);
}

template <class T>
bool read(reader& r, T& v);

/// a == b for short strings without a call to memcmp (loads stay inside both).
inline bool same_text(std::string_view a, std::string_view b) noexcept {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (n >= 8) {
    if (n > 16) return std::memcmp(x, y, n) == 0;
    std::uint64_t p, q, r, s;
    std::memcpy(&p, x, 8);
    std::memcpy(&q, y, 8);
    std::memcpy(&r, x + n - 8, 8);
    std::memcpy(&s, y + n - 8, 8);
    return ((p ^ q) | (r ^ s)) == 0;
  }
  if (n >= 4) {
    std::uint32_t p, q, r, s;
    std::memcpy(&p, x, 4);
    std::memcpy(&q, y, 4);
    std::memcpy(&r, x + n - 4, 4);
    std::memcpy(&s, y + n - 4, 4);
    return ((p ^ q) | (r ^ s)) == 0;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i] != y[i]) return false;
  }
  return true;
}

/// Index of key among names, trying hint first (keys usually come in declaration order).
inline std::size_t find_name(const std::string_view* names, std::size_t n, std::string_view key,
                             std::size_t hint) noexcept {
  if (hint < n && same_text(names[hint], key)) return hint;
  for (std::size_t i = 0; i < n; ++i) {
    if (same_text(names[i], key)) return i;
  }
  return n;
}

/// A field name as the raw bytes of its key, the name and the closing quote,
/// to compare with the input 16 bytes at a time (two masked words). ok is
/// false for names this cannot match (16 bytes or more, or a quote, a
/// backslash or a control character in them): those go through key_text.
struct raw_key {
  std::uint64_t w[2] = {0, 0};
  std::uint64_t m[2] = {0, 0};
  bool ok = false;
};

constexpr raw_key make_raw_key(std::string_view name) noexcept {
  raw_key k;
  if (name.size() > 15 || std::endian::native != std::endian::little) return k;
  for (const char c : name) {
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return k;
  }
  for (std::size_t i = 0; i <= name.size(); ++i) {
    const std::uint64_t c = i < name.size() ? static_cast<unsigned char>(name[i]) : std::uint64_t{'"'};
    k.w[i / 8] |= c << (8 * (i % 8));
    k.m[i / 8] |= std::uint64_t{0xFF} << (8 * (i % 8));
  }
  k.ok = true;
  return k;
}

/// Whether the key at raw (reader::next_field) is exactly k's name: its bytes
/// then the closing quote (no escapes, as the name has no backslash).
inline bool is_raw_key(const raw_key& k, const char* raw) noexcept {
  static_assert(key_slack >= 16);
  std::uint64_t a, b;
  std::memcpy(&a, raw, 8);
  std::memcpy(&b, raw + 8, 8);
  return k.ok && (((a ^ k.w[0]) & k.m[0]) | ((b ^ k.w[1]) & k.m[1])) == 0;
}

template <class T>
struct record_table {
  using fields = walked_fields_t<T>;
  static constexpr std::size_t size = boost::mp11::mp_size<fields>::value;
  static constexpr auto names = []<class... Fs>(boost::mp11::mp_list<Fs...>) {
    return std::array<std::string_view, sizeof...(Fs)>{Fs::name...};
  }(fields{});
  static constexpr auto keys = []<class... Fs>(boost::mp11::mp_list<Fs...>) {
    return std::array<raw_key, sizeof...(Fs)>{make_raw_key(Fs::name)...};
  }(fields{});
  /// names and keys under each naming policy (decode_options::naming).
  static constexpr auto call_names = [] {
    std::array<std::array<std::string_view, size>, naming_count> out{};
    if constexpr (size != 0) {
      constexpr auto each = []<class... Fs>(boost::mp11::mp_list<Fs...>) {
        return std::array<std::array<std::string_view, naming_count>, sizeof...(Fs)>{call_names_v<Fs>...};
      }(fields{});
      for (std::size_t p = 0; p < naming_count; ++p) {
        for (std::size_t i = 0; i < size; ++i) out[p][i] = each[i][p];
      }
    }
    return out;
  }();
  static constexpr auto call_keys = [] {
    std::array<std::array<raw_key, size>, naming_count> out{};
    for (std::size_t p = 0; p < naming_count; ++p) {
      for (std::size_t i = 0; i < size; ++i) out[p][i] = make_raw_key(call_names[p][i]);
    }
    return out;
  }();
};

/// invalid_value at the current object: two fields of a record get one key under decode_options::naming.
bool fail_naming_collision(reader& r, naming p, std::string_view first, std::string_view second,
                           std::string_view key);

/// A record's object. Tagged: the object of an internally tagged variant's
/// alternative, whose member `tag` names the alternative (checked already) and is skipped.
template <class T, bool Tagged = false>
bool read_record(reader& r, T& v, std::string_view tag = {}) {
  using table = record_table<T>;
  constexpr std::size_t n = table::size;
  const raw_key* keys = table::keys.data();
  const std::string_view* names = table::names.data();
  if (r.names != naming::as_declared) [[unlikely]] {
    const auto p = static_cast<std::size_t>(r.names);
    keys = table::call_keys[p].data();
    names = table::call_names[p].data();
    if constexpr (n != 0) {
      const auto c = call_collisions_v<T>[p];
      if (c[0] != no_index) [[unlikely]] {
        return fail_naming_collision(r, r.names, member_names_v<T>[c[1]], member_names_v<T>[c[0]], names[c[0]]);
      }
    }
  }
  if (!r.begin_object()) [[unlikely]] return false;
  std::array<bool, n == 0 ? 1 : n> seen{};
  std::size_t hint = 0;
  const char* raw = nullptr;
  int k;
  while ((k = r.next_field(raw)) == 1) {
    std::size_t i;
    if (hint < n && is_raw_key(keys[hint], raw)) [[likely]] {
      i = hint;
    } else {
      std::string_view key;
      if (!r.key_text(raw, key)) [[unlikely]] return false;
      i = find_name(names, n, key, hint);
      if (i == n) {
        if constexpr (Tagged) {
          if (key == tag) {
            if (!skip_value(r)) [[unlikely]] return false;
            continue;
          }
        }
        if (r.reject_unknown) [[unlikely]] return fail_unknown_field(r, key);
        if (!skip_value(r)) [[unlikely]] {
          push_member(r, key);
          return false;
        }
        continue;
      }
    }
    if (seen[i]) [[unlikely]] return fail_duplicate_field(r, names[i]);
    seen[i] = true;
    hint = i + 1;
    if constexpr (n > 0) {
      const bool ok = boost::mp11::mp_with_index<n>(i, [&](auto I) {
        using F = boost::mp11::mp_at_c<typename table::fields, I>;
        static_assert(!std::is_const_v<std::remove_reference_t<decltype(F::get(v))>>,
                      "refwire: a const member cannot be decoded");
        if (!with_field_variants<typename F::owner, typename F::type>(r, [&] { return read(r, F::get(v)); }))
            [[unlikely]] {
          push_field(r, names[I], F::index);
          return false;
        }
        return true;
      });
      if (!ok) [[unlikely]] return false;
    }
  }
  if (k < 0) [[unlikely]] return false;
  if (r.require_all) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!seen[i]) return fail_missing_field(r, names[i]);
    }
  }
  return true;
}

/// The alternative of V named `name`, or no_index.
template <class V>
std::size_t alternative_index(std::string_view name) {
  const std::vector<std::string>& names = alternative_names<V>();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return i;
  }
  return no_index;
}

/// invalid_variant: "unknown variant alternative \"x\" (expected circle or square)" at the current value.
bool fail_alternative(reader& r, std::size_t at, std::string_view what, std::string_view name,
                      const std::vector<std::string>& names);
/// invalid_variant at offset `at` with this reason.
bool fail_variant_at(reader& r, std::size_t at, std::string reason);
/// The end (one past the closing brace) of the object that opens at in[at]
/// (the object was read and found valid already).
std::size_t object_end(std::span<const std::byte> in, std::size_t at) noexcept;
/// Moves the failure of a nested reader (on the input from `at` on) into r, its offsets shifted by at.
bool adopt_failure(reader& r, reader& nested, std::size_t at);

/// A variant by name ({"circle": {...}}) or internally tagged ({"type": "circle", ...}).
template <class V>
bool read_variant_named(reader& r, V& v) {
  constexpr std::size_t count = std::variant_size_v<V>;
  const std::vector<std::string>& names = alternative_names<V>();
  if (const std::size_t twice = repeated_name(names); twice != no_index) [[unlikely]] {
    return fail(r, errc::invalid_variant, repeated_name_reason(names, twice));
  }
  if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
  depth_scope scope(r);
  if (r.variants == variant_form::by_name) {
    if (!r.begin_object()) [[unlikely]] return false;
    std::string_view key;
    int k = r.next_key(key);
    if (k < 0) [[unlikely]] return false;
    if (k == 0) [[unlikely]] return fail(r, errc::invalid_variant, "a variant is an object with one key, got {}");
    const std::size_t index = alternative_index<V>(key);
    if (index == no_index) [[unlikely]] return fail_alternative(r, r.offset(), "variant alternative", key, names);
    const bool ok = boost::mp11::mp_with_index<count>(index, [&](auto I) {
      if (v.index() != I) v.template emplace<I>();
      if (!read(r, *std::get_if<I>(&v))) [[unlikely]] {
        push_key(r, key);
        return false;
      }
      return true;
    });
    if (!ok) [[unlikely]] return false;
    k = r.next_key(key);
    if (k < 0) [[unlikely]] return false;
    if (k == 1) [[unlikely]] return fail(r, errc::invalid_variant, "a variant is an object with one key, got a second");
    return true;
  }
  // Internally tagged: find the tag anywhere in the object, then decode the
  // object again as the alternative it names.
  const std::string_view tag = r.variant_tag;
  const std::size_t at = r.offset();
  if (!r.begin_object()) [[unlikely]] return false;
  std::string_view key;
  std::string_view name;
  bool found = false;
  int k;
  while ((k = r.next_key(key)) == 1) {
    if (key == tag) {
      if (found) [[unlikely]] {
        fail(r, errc::duplicate_key, "duplicate variant tag " + quote_key(tag));
        push_member(r, key);
        return false;
      }
      value_kind kind;
      if (!r.kind(kind)) [[unlikely]] return false;
      if (kind != value_kind::string) [[unlikely]] {
        fail(r, errc::invalid_variant,
             "variant tag " + quote_key(tag) + " must be a string naming an alternative, got " +
                 std::string(kind_name(kind)));
        push_member(r, key);
        return false;
      }
      const std::size_t name_at = r.offset();
      if (!r.get_string(name)) [[unlikely]] return false;
      if (alternative_index<V>(name) == no_index) [[unlikely]] {
        fail_alternative(r, name_at, "variant tag", name, names);
        push_member(r, key);
        return false;
      }
      found = true;
    } else if (!skip_value(r)) [[unlikely]] {
      push_member(r, key);
      return false;
    }
  }
  if (k < 0) [[unlikely]] return false;
  if (!found) [[unlikely]] {
    std::string reason = "missing variant tag " + quote_key(tag) + " (one of";
    for (std::size_t i = 0; i < names.size(); ++i) reason += (i == 0 ? " " : ", ") + quote_key(names[i]);
    return fail_variant_at(r, at, reason + ")");
  }
  const std::size_t index = alternative_index<V>(name);
  const std::size_t end = object_end(r.input(), at);
  return boost::mp11::mp_with_index<count>(index, [&](auto I) {
    using A = std::variant_alternative_t<I, V>;
    if constexpr (!taggable_alternative<A>()) {
      return fail_variant_at(r, at, not_taggable_reason(I, names[I]));
    } else {
      if constexpr (described_record<A>) {
        if (const std::size_t clash = tag_clash<A>(tag, r.names); clash != no_index) [[unlikely]] {
          return fail_variant_at(r, at, tag_clash_reason(call_key_at<A>(clash, r.names), I, names[I], tag));
        }
      }
      decode_options o;
      o.max_depth = r.depth_left;
      o.max_elements = r.elements_left;
      o.max_alloc_bytes = r.alloc_left;
      o.reject_unknown_fields = r.reject_unknown;
      o.require_all_fields = r.require_all;
      o.naming = r.names;
      o.variants = r.call_variants;
      o.variant_tag = r.call_tag;
      o.timestamps = r.timestamps;
      if (v.index() != I) v.template emplace<I>();
      if constexpr (!described_record<A>) {
        return true;  // a fieldless alternative: nothing but the tag to read
      } else {
        reader nested(r.input().subspan(at, end - at), o);
        bool ok = nested.start(false);
        if (ok && nested.depth_left == 0) ok = fail_depth(nested);
        if (ok) {
          depth_scope inner(nested);
          ok = read_record<A, true>(nested, *std::get_if<I>(&v), tag);
        }
        ok = ok && nested.finish(nullptr);
        r.elements_left = nested.elements_left;
        r.alloc_left = nested.alloc_left;
        if (!ok) [[unlikely]] return adopt_failure(r, nested, at);
        return true;
      }
    }
  });
}

template <class T>
bool read_integer(reader& r, T& v, std::string_view type) {
  if constexpr (std::is_signed_v<T>) {
    std::int64_t x;
    if (!r.get_int(x)) [[unlikely]] return false;
    if (x < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        x > static_cast<std::int64_t>(std::numeric_limits<T>::max())) [[unlikely]] {
      (void)fail_range(r, std::to_string(x), type);
      return false;  // a literal false: callers' `if (!read_integer(r, u, ..)) return false; use(u);` stay quiet
    }
    v = static_cast<T>(x);
  } else {
    std::uint64_t x;
    if (!r.get_uint(x)) [[unlikely]] return false;
    if (x > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) [[unlikely]] {
      (void)fail_range(r, std::to_string(x), type);
      return false;  // a literal false: callers' `if (!read_integer(r, u, ..)) return false; use(u);` stay quiet
    }
    v = static_cast<T>(x);
  }
  return true;
}

template <class E>
bool enum_from_name(std::string_view name, E& out) noexcept {
  bool found = false;
  boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) {
    if (!found && name == d.name) {
      out = d.value;
      found = true;
    }
  });
  return found;
}

/// An integer map key: the decimal text of the number, nothing else.
template <class K>
bool parse_integer_key(std::string_view key, K& out) noexcept {
  if (key.empty()) return false;
  const auto res = std::from_chars(key.data(), key.data() + key.size(), out);
  return res.ec == std::errc() && res.ptr == key.data() + key.size();
}

// deserialize_view (out of line, src/json/read.cpp): a string that needs no
// unescaping as a view into the input; one with an escape is invalid_value
// at its first backslash.
/// The current value, a string, as a view into the input.
bool read_string_view(reader& r, std::string_view& v);
/// The key next_key just returned (its value is current) as a view into the input.
bool read_key_view(reader& r, std::string_view key, std::string_view& out);

template <class K>
bool read_object_key(reader& r, std::string_view key, K& out) {
  if constexpr (is_string_view_v<K>) {
    return read_key_view(r, key, out);
  } else if constexpr (is_string_v<K>) {
    if (!charge(r, key.size())) [[unlikely]] return false;
    out.assign(key);
    return true;
  } else if constexpr (std::is_enum_v<K>) {
    if (enum_from_name(key, out)) return true;
    std::underlying_type_t<K> u;
    if (parse_integer_key(key, u)) {
      out = static_cast<K>(u);
      return true;
    }
    return fail_text(r, errc::invalid_value, "enum name", key);
  } else {
    if (parse_integer_key(key, out)) return true;
    return fail_text(r, errc::invalid_value, "integer map key", key);
  }
}

template <class D>
bool duration_from_ns(reader& r, std::int64_t ns, D& out) {
  const wire::ns_conversion c = wire::from_nanoseconds(ns, out);
  if (c == wire::ns_conversion::ok) [[likely]] return true;
  return fail_duration_at(r, r.value_at, ns, c, wire::ns_per_tick<D>());
}

/// A std::vector of integers or floating-point numbers: one reader call for the whole array.
template <class T> inline constexpr bool number_vector_v = false;
template <class E, class A>
inline constexpr bool number_vector_v<std::vector<E, A>> = (is_integer_v<E> || is_float_v<E>) && !has_codec<E>;

template <class S, class T>
bool move_numbers(reader& r, S& scratch, T& v) {
  using E = typename T::value_type;
  const std::size_t n = scratch.size();
  if (n > r.elements_left) [[unlikely]] return fail_elements(r, n);
  r.elements_left -= n;
  if (!charge(r, n * sizeof(E))) [[unlikely]] return false;
  v.resize(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<E>(scratch[i]);
  return true;
}

template <class T>
bool read_number_vector(reader& r, T& v) {
  using E = typename T::value_type;
  if constexpr (is_float_v<E>) {
    auto& scratch = r.double_scratch();
    if (!r.get_doubles(scratch, std::is_same_v<E, float>)) [[unlikely]] return false;
    return move_numbers(r, scratch, v);
  } else if constexpr (std::is_signed_v<E>) {
    auto& scratch = r.int_scratch();
    if (!r.get_ints(scratch, std::numeric_limits<E>::min(), std::numeric_limits<E>::max(), scalar_name<E>().data()))
      [[unlikely]] return false;
    return move_numbers(r, scratch, v);
  } else {
    auto& scratch = r.uint_scratch();
    if (!r.get_uints(scratch, std::numeric_limits<E>::max(), scalar_name<E>().data())) [[unlikely]] return false;
    return move_numbers(r, scratch, v);
  }
}

template <class T>
bool read_elements(reader& r, T& v) {
  using E = typename T::value_type;
  if constexpr (number_vector_v<T>) {
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    return read_number_vector(r, v);
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    return r.get_strings(v);
  }
  constexpr std::size_t node = is_vector<T>::value ? sizeof(E) : sizeof(E) + 2 * sizeof(void*);
  if (!r.begin_array()) [[unlikely]] return false;
  if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
  depth_scope scope(r);
  v.clear();
  std::size_t i = 0;
  int k;
  while ((k = r.next_element()) == 1) {
    if (!count_element(r, node)) [[unlikely]] return false;
    if constexpr (std::is_same_v<T, std::vector<bool>>) {
      bool b;
      if (!r.get_bool(b)) [[unlikely]] {
        push_index(r, i);
        return false;
      }
      v.push_back(b);
    } else {
      if (!read(r, v.emplace_back())) [[unlikely]] {
        push_index(r, i);
        return false;
      }
    }
    ++i;
  }
  return k == 0;
}

template <class T>
bool read_fixed(reader& r, T& v) {
  constexpr std::size_t n = fixed_extent<T>;
  if (!r.begin_array()) [[unlikely]] return false;
  if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
  depth_scope scope(r);
  std::size_t i = 0;
  int k;
  while ((k = r.next_element()) == 1) {
    if (i == n) [[unlikely]] return fail_count(r, "array", n, n + 1);
    if (!read(r, v[i])) [[unlikely]] {
      push_index(r, i);
      return false;
    }
    ++i;
  }
  if (k < 0) [[unlikely]] return false;
  if (i != n) [[unlikely]] return fail_count(r, "array", n, i);
  return true;
}

template <class T>
bool read(reader& r, T& v) {
  constexpr shape s = shape_of<T>();
  if constexpr (std::is_same_v<T, raw_json>) {
    return read_raw_json(r, v);
  } else if constexpr (std::is_same_v<T, json_value>) {
    return read_json_value(r, v);
  } else if constexpr (s == shape::codec) {
    return read_through_codec(r, v, [&](auto& w) { return read(r, w); });
  } else if constexpr (s == shape::boolean) {
    return r.get_bool(v);
  } else if constexpr (s == shape::enumeration) {
    using U = std::underlying_type_t<T>;
    if constexpr (is_bool_v<U>) {
      bool b;
      if (!r.get_bool(b)) [[unlikely]] return false;
      v = static_cast<T>(b);
      return true;
    } else if constexpr (described_enum_v<T>) {
      value_kind kind;
      if (!r.kind(kind)) [[unlikely]] return false;
      if (kind == value_kind::string) {
        std::string_view name;
        if (!r.get_string(name)) [[unlikely]] return false;
        if (!enum_from_name(name, v)) [[unlikely]] {
          return fail_text(r, errc::invalid_value, "enum name", name);
        }
        return true;
      }
      if (kind != value_kind::number) [[unlikely]] return fail_expected(r, "enum name or number");
      U u;
      if (!read_integer(r, u, scalar_name<U>())) [[unlikely]] return false;
      v = static_cast<T>(u);
      return true;
    } else {
      U u;
      if (!read_integer(r, u, scalar_name<U>())) [[unlikely]] return false;
      v = static_cast<T>(u);
      return true;
    }
  } else if constexpr (s == shape::integer) {
    return read_integer(r, v, scalar_name<T>());
  } else if constexpr (s == shape::floating) {
    double d;
    if (!r.get_double(d)) [[unlikely]] return false;
    if constexpr (std::is_same_v<T, float>) {
      // Anything that rounds to a finite float: below FLT_MAX + half its ulp (2^103).
      constexpr double limit = static_cast<double>(std::numeric_limits<float>::max()) + 0x1p103;
      if (d >= limit || d <= -limit) [[unlikely]] return fail_float_range(r, d);
      v = static_cast<float>(d);
    } else {
      v = d;
    }
    return true;
  } else if constexpr (is_string_view_v<T>) {
    return read_string_view(r, v);
  } else if constexpr (is_byte_view_v<T>) {
    static_assert(dependent_false<T>, "refwire: a std::span<const std::byte> cannot be a view into JSON input");
    return false;  // not reached: deserialize_view<json> rejects the type first (detail/core/diagnose.hpp)
  } else if constexpr (s == shape::string) {
    std::string_view text;
    if (!r.get_string(text)) [[unlikely]] return false;
    if (!charge(r, text.size())) [[unlikely]] return false;
    v.assign(text);
    return true;
  } else if constexpr (s == shape::blob) {
    std::string_view text;
    if (!r.get_string(text)) [[unlikely]] return false;
    if (!charge(r, text.size() / 4 * 3)) [[unlikely]] return false;
    std::string why;
    if (!base64_decode(text, v, why)) [[unlikely]] return record_failure(r, errc::invalid_value, r.value_at, std::move(why));
    return true;
  } else if constexpr (s == shape::uuid) {
    std::string_view text;
    if (!r.get_string(text)) [[unlikely]] return false;
    const std::optional<uuid> id = uuid::parse(text);
    if (!id) [[unlikely]] return fail_text(r, errc::invalid_value, "uuid", text);
    v = *id;
    return true;
  } else if constexpr (s == shape::timestamp) {
    std::int64_t ns;
    if (r.timestamps != timestamp_format::rfc3339) [[unlikely]] {
      if (!read_any_timestamp(r, ns)) [[unlikely]] return false;
    } else {
      std::string_view text;
      if (!r.get_string(text)) [[unlikely]] return false;
      const wire::rfc3339_status why = wire::parse_rfc3339(text, ns);
      if (why != wire::rfc3339_status::ok) [[unlikely]] return fail_timestamp(r, text, why);
    }
    typename T::duration d;
    if (!duration_from_ns(r, ns, d)) [[unlikely]] return false;
    v = T(d);
    return true;
  } else if constexpr (s == shape::duration) {
    // The count of the duration's own period.
    using Rep = typename T::rep;
    static_assert(std::ratio_greater_equal_v<typename T::period, std::nano>,
                  "refwire: durations finer than nanoseconds are not supported");
    if constexpr (is_integer_v<Rep> || is_float_v<Rep>) {
      Rep c;
      if (!read(r, c)) [[unlikely]] return false;
      v = T(c);
    } else {
      double c;
      if (!r.get_double(c)) [[unlikely]] return false;
      v = T(static_cast<Rep>(c));
    }
    return true;
  } else if constexpr (s == shape::optional || s == shape::pointer) {
    const int null = r.is_null();
    if (null < 0) [[unlikely]] return false;
    if (null == 1) {
      v.reset();
      return true;
    }
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    if (!emplace_present(r, v)) [[unlikely]] return false;
    return read(r, *v);
  } else if constexpr (s == shape::sequence) {
    return read_elements(r, v);
  } else if constexpr (s == shape::fixed_array || nested_c_array_v<T>) {
    return read_fixed(r, v);
  } else if constexpr (s == shape::text) {  // u8string, path: a JSON string (UTF-8, as every JSON text)
    std::string_view text;
    if (!r.get_string(text)) [[unlikely]] return false;
    if (!charge(r, text.size())) [[unlikely]] return false;
    assign_text(v, text);
    return true;
  } else if constexpr (s == shape::bitset) {  // N characters '0' or '1', most significant bit first
    std::string_view text;
    if (!r.get_string(text)) [[unlikely]] return false;
    if (!bitset_from_text(text, v)) [[unlikely]] {
      return fail_text(r, errc::invalid_value, bitset_text_what(bitset_size<T>), text);
    }
    return true;
  } else if constexpr (s == shape::set && is_multi_v<T>) {  // a multiset: an array, duplicates kept
    using K = typename T::key_type;
    if (!r.begin_array()) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    v.clear();
    std::size_t i = 0;
    int k;
    while ((k = r.next_element()) == 1) {
      if (!count_element(r, sizeof(K) + 4 * sizeof(void*))) [[unlikely]] return false;
      K key{};
      if (!read(r, key)) [[unlikely]] {
        push_index(r, i);
        return false;
      }
      v.emplace_hint(v.end(), std::move(key));
      ++i;
    }
    return k == 0;
  } else if constexpr (s == shape::map && is_multi_v<T>) {  // a multimap: [[key, value], ...], duplicates kept
    using K = typename T::key_type;
    using M = typename T::mapped_type;
    constexpr std::size_t node = sizeof(std::pair<K, M>) + 4 * sizeof(void*);
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    if (!r.begin_array()) [[unlikely]] return false;
    v.clear();
    std::size_t i = 0;
    int k;
    while ((k = r.next_element()) == 1) {
      if (!count_element(r, node)) [[unlikely]] return false;
      if (!r.begin_array()) [[unlikely]] {
        push_index(r, i);
        return false;
      }
      std::pair<K, M> entry{};
      int e = r.next_element();
      if (e == 0) [[unlikely]] e = fail_count(r, "map entry [key, value]", 2, 0) ? 0 : -1;
      if (e != 1 || !read(r, entry.first)) [[unlikely]] {
        push_index(r, i);
        return false;
      }
      e = r.next_element();
      if (e == 0) [[unlikely]] e = fail_count(r, "map entry [key, value]", 2, 1) ? 0 : -1;
      if (e != 1 || !read(r, entry.second)) [[unlikely]] {
        push_index(r, i);
        return false;
      }
      e = r.next_element();
      if (e == 1) [[unlikely]] e = fail_count(r, "map entry [key, value]", 2, 3) ? 0 : -1;
      if (e != 0) [[unlikely]] {
        push_index(r, i);
        return false;
      }
      v.emplace_hint(v.end(), std::move(entry));
      ++i;
    }
    return k == 0;
  } else if constexpr (s == shape::set) {
    using K = typename T::key_type;
    if (!r.begin_array()) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    v.clear();
    std::size_t i = 0;
    int k;
    while ((k = r.next_element()) == 1) {
      if (!count_element(r, sizeof(K) + 4 * sizeof(void*))) [[unlikely]] return false;
      const std::size_t at = r.offset();
      K key{};
      if (!read(r, key)) [[unlikely]] {
        push_index(r, i);
        return false;
      }
      if (!v.insert(std::move(key)).second) [[unlikely]] {
        record_failure(r, errc::duplicate_key, at, "duplicate set element");
        push_index(r, i);
        return false;
      }
      ++i;
    }
    return k == 0;
  } else if constexpr (s == shape::map) {
    using K = typename T::key_type;
    using M = typename T::mapped_type;
    constexpr std::size_t node = sizeof(std::pair<K, M>) + 4 * sizeof(void*);
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    if constexpr (object_key_v<K>) {
      if (!r.begin_object()) [[unlikely]] return false;
      v.clear();
      std::string_view text;
      int k;
      while ((k = r.next_key(text)) == 1) {
        if (!count_element(r, node)) [[unlikely]] return false;
        K key{};
        if (!read_object_key(r, text, key)) [[unlikely]] return false;
        const std::size_t before = v.size();
        auto it = v.try_emplace(std::move(key)).first;
        if (v.size() == before) [[unlikely]] {
          fail(r, errc::duplicate_key, "duplicate map key");
          push_key(r, text);
          return false;
        }
        if (!read(r, it->second)) [[unlikely]] {
          push_key(r, text);
          return false;
        }
      }
      return k == 0;
    } else {
      if (!r.begin_array()) [[unlikely]] return false;
      v.clear();
      std::size_t i = 0;
      int k;
      while ((k = r.next_element()) == 1) {
        if (!count_element(r, node)) [[unlikely]] return false;
        const std::size_t at = r.offset();
        if (!r.begin_array()) [[unlikely]] {
          push_index(r, i);
          return false;
        }
        K key{};
        int e = r.next_element();
        if (e == 0) [[unlikely]] e = fail_count(r, "map entry [key, value]", 2, 0) ? 0 : -1;
        if (e != 1 || !read(r, key)) [[unlikely]] {
          push_index(r, i);
          return false;
        }
        const std::size_t before = v.size();
        auto it = v.try_emplace(std::move(key)).first;
        if (v.size() == before) [[unlikely]] {
          record_failure(r, errc::duplicate_key, at, "duplicate map key");
          push_index(r, i);
          return false;
        }
        e = r.next_element();
        if (e == 0) [[unlikely]] e = fail_count(r, "map entry [key, value]", 2, 1) ? 0 : -1;
        if (e != 1 || !read(r, it->second)) [[unlikely]] {
          push_index(r, i);
          return false;
        }
        e = r.next_element();
        if (e == 1) [[unlikely]] e = fail_count(r, "map entry [key, value]", 2, 3) ? 0 : -1;
        if (e != 0) [[unlikely]] {
          push_index(r, i);
          return false;
        }
        ++i;
      }
      return k == 0;
    }
  } else if constexpr (s == shape::variant) {
    constexpr std::size_t count = std::variant_size_v<T>;
    if (r.variants != variant_form::by_index) [[unlikely]] return read_variant_named(r, v);
    if (!r.begin_object()) [[unlikely]] return false;
    std::string_view key;
    int k = r.next_key(key);
    if (k < 0) [[unlikely]] return false;
    if (k == 0) [[unlikely]] return fail(r, errc::invalid_variant, "a variant is an object with one key, got {}");
    std::size_t index = 0;
    if (!parse_integer_key(key, index) || index >= count) [[unlikely]] {
      return fail_text(r, errc::invalid_variant,
                       "variant index (" + std::to_string(count) + " alternatives)", key);
    }
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    const bool ok = boost::mp11::mp_with_index<count>(index, [&](auto I) {
      if (v.index() != I) v.template emplace<I>();
      if (!read(r, *std::get_if<I>(&v))) [[unlikely]] {
        push_index(r, I);
        return false;
      }
      return true;
    });
    if (!ok) [[unlikely]] return false;
    k = r.next_key(key);
    if (k < 0) [[unlikely]] return false;
    if (k == 1) [[unlikely]] return fail(r, errc::invalid_variant, "a variant is an object with one key, got a second");
    return true;
  } else if constexpr (s == shape::tuple) {
    constexpr std::size_t n = std::tuple_size_v<T>;
    if (!r.begin_array()) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope scope(r);
    const bool ok = [&]<std::size_t... I>(std::index_sequence<I...>) {
      auto one = [&](auto& e, std::size_t i) {
        const int k = r.next_element();
        if (k == 0) [[unlikely]] return fail_count(r, "tuple", n, i);
        if (k < 0 || !read(r, e)) [[unlikely]] {
          push_index(r, i);
          return false;
        }
        return true;
      };
      (void)one;  // unused for std::tuple<>
      return (one(std::get<I>(v), I) && ...);
    }(std::make_index_sequence<n>{});
    if (!ok) [[unlikely]] return false;
    const int k = r.next_element();
    if (k == 1) [[unlikely]] return fail_count(r, "tuple", n, n + 1);
    return k == 0;
  } else if constexpr (s == shape::record) {
    if constexpr (fieldless_aggregate<T>()) {
      if (!r.begin_object()) [[unlikely]] return false;
      std::string_view key;
      int k;
      while ((k = r.next_key(key)) == 1) {
        if (r.reject_unknown) [[unlikely]] return fail_unknown_field(r, key);
        if (!skip_value(r)) [[unlikely]] {
          push_member(r, key);
          return false;
        }
      }
      return k == 0;
    } else if constexpr (described_record<T>) {
      if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
      depth_scope scope(r);
      return read_record(r, v);
    } else {
      static_assert(dependent_false<T>,
                    "refwire: this format needs field names: describe the type with BOOST_DESCRIBE_STRUCT");
      return false;
    }
  } else {
    static_assert(dependent_false<T>,
                  "refwire: this type is not serializable: describe it with BOOST_DESCRIBE_STRUCT, "
                  "make it an aggregate, or specialize refwire::codec<T>");
    return false;
  }
}

}  // namespace refwire::detail::json
