#pragma once
// What a C++ type is to protobuf, decided once for the encoder, the decoder
// and the schema: its category (from shape_of<T>()), its wire type, the
// integer it travels as, a record field's number and integer encoding (the
// only place the `number` and `encoding` attributes are read), the seconds
// and nanos of a time value, and whether encoding it can fail. Mapping:
// docs/protobuf-format.md.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <boost/mp11/algorithm.hpp>

#include <refwire/serialization/detail/core/decode_context.hpp>
#include <refwire/serialization/detail/core/encode_failure.hpp>
#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/detail/core/text_bits.hpp>
#include <refwire/serialization/detail/core/walk.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire::detail::pb {

/// Protobuf wire types.
enum wire_type : std::uint32_t { w_varint = 0, w_i64 = 1, w_len = 2, w_sgroup = 3, w_egroup = 4, w_i32 = 5 };

inline constexpr std::uint32_t max_field_number = (1U << 29) - 1;

template <std::uint32_t N, wire_type W>
inline constexpr std::uint32_t tag_v = (N << 3) | W;

/// What a C++ type is to protobuf (after codec<T> is applied).
/// text: a std::u8string or std::filesystem::path, a `string` on the wire;
/// bits: a std::bitset<N>, `bytes` on the wire (ceil(N / 8) of them, or none
/// for all zeros).
enum class cat : std::uint8_t { scalar, string, blob, uuid, message, optional, repeated, map, codec, text, bits };

template <class T>
constexpr cat category() {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::codec) return cat::codec;
  else if constexpr (s == shape::boolean || s == shape::integer || s == shape::floating || s == shape::enumeration)
    return cat::scalar;
  else if constexpr (s == shape::string) return cat::string;
  else if constexpr (s == shape::text) return cat::text;
  else if constexpr (s == shape::bitset) return cat::bits;
  else if constexpr (s == shape::blob) return cat::blob;
  else if constexpr (s == shape::uuid) return cat::uuid;
  else if constexpr (s == shape::optional || s == shape::pointer) return cat::optional;
  else if constexpr (s == shape::sequence || s == shape::set || s == shape::fixed_array) return cat::repeated;
  else if constexpr (s == shape::map) return cat::map;
  else if constexpr (s == shape::timestamp || s == shape::duration || s == shape::variant || s == shape::tuple ||
                     s == shape::record)
    return cat::message;
  else {
    static_assert(dependent_false<T>,
                  "refwire: this type is not serializable: describe it with BOOST_DESCRIBE_STRUCT, "
                  "make it an aggregate, or specialize refwire::codec<T>");
    return cat::scalar;
  }
}

/// A time value: a google.protobuf.Timestamp or Duration message.
template <class T>
inline constexpr bool is_time_v = shape_of<T>() == shape::timestamp || shape_of<T>() == shape::duration;

/// A type that is a message at the top level (a record, tuple or variant);
/// any other top-level type is field 1 of a wrapper message.
template <class T>
constexpr bool top_level_message() {
  return category<T>() == cat::message && !is_time_v<T>;
}

/// A type that is one protobuf value: a scalar, string, bytes or a message.
/// Anything else (optional, repeated, map) inside a context that needs one
/// value (a repeated element, a map value, a oneof alternative) is wrapped in
/// a message whose field 1 holds it.
template <class T>
constexpr bool singular() {
  constexpr cat c = category<T>();
  if constexpr (c == cat::codec) return singular<typename codec<T>::wire>();
  else
    return c == cat::scalar || c == cat::string || c == cat::blob || c == cat::uuid || c == cat::message ||
           c == cat::text || c == cat::bits;
}

template <class T> struct repeated_elem { using type = typename T::value_type; };
template <class T, std::size_t N> struct repeated_elem<T[N]> { using type = T; };
template <class T> using repeated_elem_t = typename repeated_elem<T>::type;

template <class T>
inline std::size_t container_size(const T& v) {
  if constexpr (std::is_array_v<T>) {
    return std::extent_v<T>;
  } else {
    return v.size();
  }
}

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
constexpr wire_type scalar_wire() {
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
constexpr wire_type value_wire() {
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

/// A record field's integer encoding: its attribute's `.encoding` (varint by default).
template <class F>
inline constexpr int_encoding encoding_of = F::attr.encoding;

/// A skipped field keeps its number out of use (proto_schema writes it as
/// `reserved`) when it has one: an explicit `.number`, or its position under
/// positional numbering.
template <class T, class F>
constexpr bool skipped_reserves() {
  return F::attr.skip && (F::attr.number != 0 || type_attributes_of<T>().numbering == numbering::positional);
}

/// The numbers of T's fields (walked and skipped), its declared reserved numbers and names.
struct number_entry {
  std::uint32_t number = 0;
  bool skip = false;
  bool reserves = false;   // a skipped field whose number stays reserved
  bool given = false;      // `.number` was written
  std::string_view name;   // the wire name (empty for an aggregate)
};

template <record T>
constexpr auto number_entries() {
  return []<class... F>(boost::mp11::mp_list<F...>) {
    return std::array<number_entry, sizeof...(F)>{
        number_entry{number_of<F>(), F::attr.skip, skipped_reserves<T, F>(), F::attr.number != 0, F::name}...};
  }(typename fields_of<T>::type{});
}

/// What is wrong with T's protobuf numbers, and with which number or field.
enum class number_problem : std::uint8_t { none, missing, out_of_range, protobuf_range, duplicate, reserved, reserved_name };
struct number_finding {
  number_problem problem = number_problem::none;
  std::uint32_t number = 0;
  std::size_t field = 0;
};

constexpr bool number_in_range(std::uint32_t n) { return n != 0 && n <= max_field_number; }

template <record T>
constexpr number_finding find_number_problem() {
  constexpr auto fields = number_entries<T>();
  constexpr type_attr ta = type_attributes_of<T>();
  for (std::uint32_t r : ta.reserved) {
    if (!number_in_range(r)) return {number_problem::out_of_range, r, 0};
  }
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const number_entry& f = fields[i];
    if (f.skip) continue;
    if (ta.numbering == numbering::explicit_only && !f.given) return {number_problem::missing, 0, i};
    if (!number_in_range(f.number)) return {number_problem::out_of_range, f.number, i};
    if (f.number >= 19000 && f.number <= 19999) return {number_problem::protobuf_range, f.number, i};
    for (std::size_t j = 0; j < i; ++j) {
      if (!fields[j].skip && fields[j].number == f.number) return {number_problem::duplicate, f.number, i};
    }
    for (const number_entry& g : fields) {
      if (g.reserves && g.number == f.number) return {number_problem::reserved, f.number, i};
    }
    for (std::uint32_t r : ta.reserved) {
      if (r == f.number) return {number_problem::reserved, f.number, i};
    }
    for (std::string_view n : ta.reserved_names) {
      if (!f.name.empty() && n == f.name) return {number_problem::reserved_name, f.number, i};
    }
  }
  return {};
}

/// Each stops a constant evaluation, naming the field in clang's notes.
constexpr bool field_without_number_named(std::string_view name) noexcept {
  if (name.size() != static_cast<std::size_t>(-1)) refwire_compile_time_error();
  return false;
}
constexpr bool field_uses_reserved_name_named(std::string_view name) noexcept {
  if (name.size() != static_cast<std::size_t>(-1)) refwire_compile_time_error();
  return false;
}

template <fixed_string Name>
struct field_without_number {
  static_assert(false_v<Name>,
                "refwire: this type's numbering is refwire::numbering::explicit_only: every field needs a protobuf "
                "`.number` (the field is the template argument of field_without_number)");
  static constexpr bool ok = true;  // reported above; the caller's own assert stays quiet
};
template <std::uint32_t N>
struct field_number_out_of_range {
  static_assert(false_v<N>,
                "refwire: a protobuf field number (or a reserved one) must be in 1..536870911 (2^29-1); "
                "the number is the template argument of field_number_out_of_range");
  static constexpr bool ok = true;  // reported above; the caller's own assert stays quiet
};
template <std::uint32_t N>
struct field_number_in_protobuf_reserved_range {
  static_assert(false_v<N>,
                "refwire: protobuf field numbers 19000..19999 are reserved by protobuf itself; "
                "the number is the template argument of field_number_in_protobuf_reserved_range");
  static constexpr bool ok = true;  // reported above; the caller's own assert stays quiet
};
template <std::uint32_t N>
struct duplicate_field_number {
  static_assert(false_v<N>,
                "refwire: two fields of this type have the same protobuf number (an explicit `.number` "
                "equal to another field's, or to another field's position + 1); the number is the template "
                "argument of duplicate_field_number");
  static constexpr bool ok = true;  // reported above; the caller's own assert stays quiet
};
template <std::uint32_t N>
struct field_uses_reserved_number {
  static_assert(false_v<N>,
                "refwire: a field uses a reserved protobuf number (listed in REFWIRE_TYPE_ATTRIBUTES "
                "`.reserved`, or kept by a skipped field); the number is the template argument of "
                "field_uses_reserved_number");
  static constexpr bool ok = true;  // reported above; the caller's own assert stays quiet
};
template <fixed_string Name>
struct field_uses_reserved_name {
  static_assert(false_v<Name>,
                "refwire: a field uses a wire name listed in REFWIRE_TYPE_ATTRIBUTES `.reserved_names`; "
                "the name is the template argument of field_uses_reserved_name");
  static constexpr bool ok = true;  // reported above; the caller's own assert stays quiet
};

template <record T>
constexpr auto number_entry_names() {
  constexpr auto fields = number_entries<T>();
  std::array<std::string_view, fields.size()> names{};
  for (std::size_t i = 0; i < fields.size(); ++i) names[i] = fields[i].name;
  return names;
}

/// True when T's numbers are valid; else stops the evaluation in a function naming the field (clang).
template <record T>
constexpr bool numbers_valid() {
  constexpr number_finding f = find_number_problem<T>();
  if (f.problem == number_problem::missing) return field_without_number_named(number_entries<T>()[f.field].name);
  if (f.problem == number_problem::reserved_name) {
    return field_uses_reserved_name_named(number_entries<T>()[f.field].name);
  }
  return f.problem == number_problem::none;
}

/// The problem with T's numbers as a failed static_assert whose class names it (g++).
template <record T>
constexpr bool numbers_named() {
  constexpr number_finding f = find_number_problem<T>();
  if constexpr (f.problem == number_problem::missing) {
    return field_without_number<fixed_at<number_entry_names<T>, f.field>>::ok;
  } else if constexpr (f.problem == number_problem::out_of_range) {
    return field_number_out_of_range<f.number>::ok;
  } else if constexpr (f.problem == number_problem::protobuf_range) {
    return field_number_in_protobuf_reserved_range<f.number>::ok;
  } else if constexpr (f.problem == number_problem::duplicate) {
    return duplicate_field_number<f.number>::ok;
  } else if constexpr (f.problem == number_problem::reserved) {
    return field_uses_reserved_number<f.number>::ok;
  } else if constexpr (f.problem == number_problem::reserved_name) {
    return field_uses_reserved_name<fixed_at<number_entry_names<T>, f.field>>::ok;
  } else {
    return true;
  }
}

/// Checks T's protobuf numbers: unique, in 1..2^29-1, outside 19000..19999,
/// not reserved, and all explicit under numbering::explicit_only.
template <record T>
constexpr void check_numbers() {
  static_assert(numbers_named<T>());
#if defined(__clang__)
  static_assert(numbers_valid<T>());  // clang names the field only in this evaluation's notes
#endif
}

// ------------------------------------------------------------ time values

/// seconds and nanos of a google.protobuf.Timestamp (nanos in [0, 1e9)) or
/// Duration (nanos with the sign of seconds).
struct seconds_nanos {
  std::int64_t seconds = 0;
  std::int32_t nanos = 0;
};

/// A time value's seconds and nanos; an encode failure when it does not fit
/// in int64 nanoseconds.
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

/// The duration type of a time value.
template <class T> struct time_duration { using type = T; };
template <class C, class D> struct time_duration<std::chrono::time_point<C, D>> { using type = D; };

// ---------------------------------------------------------- encode failures

/// A part of a value whose protobuf encoding can fail: a std::string, a
/// std::u8string or a path (they must hold UTF-8), a duration (or a
/// timestamp's) wider than int64 nanoseconds.
template <class T>
struct leaf_can_fail : std::bool_constant<is_string_v<T> || is_text_v<T>> {};
template <class R, class P>
struct leaf_can_fail<std::chrono::duration<R, P>>
    : std::bool_constant<duration_can_fail<std::chrono::duration<R, P>>()> {};
template <class C, class D>
struct leaf_can_fail<std::chrono::time_point<C, D>> : leaf_can_fail<D> {};

/// A C++ map key type protobuf can carry: integers, bool and strings as
/// protobuf's own keys, and, in their place, an enum as its integer, a uuid
/// as its canonical 36-character string, a std::u8string or path as a string.
template <class K>
inline constexpr bool map_key_ok = is_integer_v<K> || is_bool_v<K> || is_string_v<K> || std::is_enum_v<K> ||
                                   is_uuid_v<K> || is_text_v<K>;

/// Pushes the path segment of a map entry, in decode and encode paths alike:
/// its key (an integer, enum or bool key as its number, a string, text or
/// uuid key quoted).
template <class Failure, class K>
inline void push_entry_key(Failure& f, const K& key) {
  if constexpr (is_bool_v<K>) {
    push_key(f, static_cast<unsigned long long>(key));
  } else if constexpr (std::is_enum_v<K>) {
    using U = std::underlying_type_t<K>;
    if constexpr (is_bool_v<U>) push_key(f, static_cast<unsigned long long>(static_cast<bool>(key)));
    else if constexpr (std::is_signed_v<U>) push_key(f, static_cast<long long>(key));
    else push_key(f, static_cast<unsigned long long>(key));
  } else if constexpr (is_uuid_v<K>) push_key(f, std::string_view(key.to_string()));
  else if constexpr (is_text_v<K>) push_key(f, std::string_view(text_of(key)));
  else push_map_key(f, key, 0);  // a string or an integer: the position is not used
}

/// True when encoding T can throw an encode_failure; only then do the
/// levels of its encoding add their path segments (encode_within).
template <class T>
inline constexpr bool can_fail = any_part<T, leaf_can_fail>();

}  // namespace refwire::detail::pb
