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
#include <refwire/serialization/detail/core/walk.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire::detail::pb {

/// Protobuf wire types.
enum wire_type : std::uint32_t { w_varint = 0, w_i64 = 1, w_len = 2, w_sgroup = 3, w_egroup = 4, w_i32 = 5 };

inline constexpr std::uint32_t max_field_number = (1U << 29) - 1;

template <std::uint32_t N, wire_type W>
inline constexpr std::uint32_t tag_v = (N << 3) | W;

/// What a C++ type is to protobuf (after codec<T> is applied).
enum class cat : std::uint8_t { scalar, string, blob, uuid, message, optional, repeated, map, codec };

template <class T>
constexpr cat category() {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::codec) return cat::codec;
  else if constexpr (s == shape::boolean || s == shape::integer || s == shape::floating || s == shape::enumeration)
    return cat::scalar;
  else if constexpr (s == shape::string) return cat::string;
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
  else return c == cat::scalar || c == cat::string || c == cat::blob || c == cat::uuid || c == cat::message;
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

/// A part of a value whose protobuf encoding can fail: a std::string (it must
/// hold UTF-8), a duration (or a timestamp's) wider than int64 nanoseconds.
template <class T>
struct leaf_can_fail : std::bool_constant<is_string_v<T>> {};
template <class R, class P>
struct leaf_can_fail<std::chrono::duration<R, P>>
    : std::bool_constant<duration_can_fail<std::chrono::duration<R, P>>()> {};
template <class C, class D>
struct leaf_can_fail<std::chrono::time_point<C, D>> : leaf_can_fail<D> {};

/// Pushes the path segment of a map entry, in decode and encode paths alike:
/// its key (protobuf's keys are integers, bool or strings; a bool key is 0 or 1).
template <class Failure, class K>
inline void push_entry_key(Failure& f, const K& key) {
  if constexpr (is_bool_v<K>) push_key(f, static_cast<unsigned long long>(key));
  else push_map_key(f, key, 0);  // a string or an integer: the position is not used
}

/// True when encoding T can throw an encode_failure; only then do the
/// levels of its encoding add their path segments (encode_within).
template <class T>
inline constexpr bool can_fail = any_part<T, leaf_can_fail>();

}  // namespace refwire::detail::pb
