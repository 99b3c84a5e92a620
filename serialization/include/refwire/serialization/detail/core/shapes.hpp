#pragma once
// Shapes: which kind of value a T is, decided once here (shape_of<T>()) and
// read by reflect.hpp (what is serializable, canonical names) and by every
// format's encoder and decoder, so that a format handles each shape in one
// branch and a new shape is added here first. Machinery for reflect.hpp and
// the formats.

#include <array>
#include <bit>
#include <bitset>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include <boost/describe/bases.hpp>
#include <boost/describe/members.hpp>

#include <refwire/serialization/types.hpp>

namespace refwire::detail {

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};

template <class T> struct is_unique_ptr : std::false_type {};
template <class T> struct is_unique_ptr<std::unique_ptr<T>> : std::true_type {};

/// std::shared_ptr<T> of a non-const T (a shared_ptr<const T> is not
/// serializable: the decoder must write into the pointee it creates).
template <class T> struct is_shared_ptr : std::false_type {};
template <class T> struct is_shared_ptr<std::shared_ptr<T>> : std::bool_constant<!std::is_const_v<T>> {};

template <class T> struct is_weak_ptr : std::false_type {};
template <class T> struct is_weak_ptr<std::weak_ptr<T>> : std::true_type {};

template <class T> struct is_bitset : std::false_type {};
template <std::size_t N> struct is_bitset<std::bitset<N>> : std::true_type {};
/// N of a std::bitset<N>.
template <class T> inline constexpr std::size_t bitset_size = 0;
template <std::size_t N> inline constexpr std::size_t bitset_size<std::bitset<N>> = N;

template <class T> struct is_variant : std::false_type {};
template <class... Ts> struct is_variant<std::variant<Ts...>> : std::true_type {};

template <class T> struct is_tuple : std::false_type {};
template <class... Ts> struct is_tuple<std::tuple<Ts...>> : std::true_type {};
template <class A, class B> struct is_tuple<std::pair<A, B>> : std::true_type {};

/// The type a tuple element is carried as: a reference element (as made by
/// std::tie or std::forward_as_tuple) as the type it refers to, so that
/// std::tuple<const A&, B&> encodes, is named and is checked exactly as
/// std::tuple<A, B>; any other element (and every variant alternative) as
/// itself (a const element stays unserializable). Decoding into a tuple of
/// references is a compile error (detail/core/diagnose.hpp).
///   static_assert(std::is_same_v<element_value_t<const point&>, point>);
template <class E>
using element_value_t = std::conditional_t<std::is_reference_v<E>, std::remove_cvref_t<E>, E>;

/// A std::tuple or std::pair with a reference element: encodable, never decodable.
template <class T> struct is_reference_tuple : std::false_type {};
template <class... Ts>
struct is_reference_tuple<std::tuple<Ts...>> : std::bool_constant<(std::is_reference_v<Ts> || ...)> {};
template <class A, class B>
struct is_reference_tuple<std::pair<A, B>> : std::bool_constant<std::is_reference_v<A> || std::is_reference_v<B>> {};

template <class T> struct is_std_array : std::false_type {};
template <class T, std::size_t N> struct is_std_array<std::array<T, N>> : std::true_type {};

/// vector, deque, list: a count, then the elements.
template <class T> struct is_sequence : std::false_type {};
template <class T, class A> struct is_sequence<std::vector<T, A>> : std::true_type {};
template <class T, class A> struct is_sequence<std::deque<T, A>> : std::true_type {};
template <class T, class A> struct is_sequence<std::list<T, A>> : std::true_type {};

template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};

/// The multi containers (duplicates kept): multiset, unordered_multiset,
/// multimap, unordered_multimap. They have the set and map shapes; each
/// format's set and map branches ask is_multi_v where duplicates matter.
template <class T> struct is_multi : std::false_type {};
template <class K, class C, class A> struct is_multi<std::multiset<K, C, A>> : std::true_type {};
template <class K, class H, class E, class A> struct is_multi<std::unordered_multiset<K, H, E, A>> : std::true_type {};
template <class K, class V, class C, class A> struct is_multi<std::multimap<K, V, C, A>> : std::true_type {};
template <class K, class V, class H, class E, class A>
struct is_multi<std::unordered_multimap<K, V, H, E, A>> : std::true_type {};
template <class T> inline constexpr bool is_multi_v = is_multi<T>::value;

template <class T> struct is_set : std::false_type {};
template <class K, class C, class A> struct is_set<std::set<K, C, A>> : std::true_type {};
template <class K, class H, class E, class A> struct is_set<std::unordered_set<K, H, E, A>> : std::true_type {};
template <class K, class C, class A> struct is_set<std::multiset<K, C, A>> : std::true_type {};
template <class K, class H, class E, class A> struct is_set<std::unordered_multiset<K, H, E, A>> : std::true_type {};

template <class T> struct is_map : std::false_type {};
template <class K, class V, class C, class A> struct is_map<std::map<K, V, C, A>> : std::true_type {};
template <class K, class V, class H, class E, class A>
struct is_map<std::unordered_map<K, V, H, E, A>> : std::true_type {};
template <class K, class V, class C, class A> struct is_map<std::multimap<K, V, C, A>> : std::true_type {};
template <class K, class V, class H, class E, class A>
struct is_map<std::unordered_multimap<K, V, H, E, A>> : std::true_type {};

template <class T> struct is_duration : std::false_type {};
template <class R, class P> struct is_duration<std::chrono::duration<R, P>> : std::true_type {};

template <class T> struct is_timestamp : std::false_type {};
template <class D> struct is_timestamp<std::chrono::time_point<std::chrono::system_clock, D>> : std::true_type {};

/// Views into the input: std::string_view has the string shape and
/// std::span<const std::byte> the blob shape (they encode as std::string and
/// std::vector<std::byte> do), but only refwire::deserialize_view decodes
/// them (they point into the input); every other decode path rejects them
/// at compile time (detail/core/diagnose.hpp).
template <class T> inline constexpr bool is_string_view_v = std::is_same_v<T, std::string_view>;
template <class T> inline constexpr bool is_byte_view_v = std::is_same_v<T, std::span<const std::byte>>;
template <class T> struct is_input_view : std::bool_constant<is_string_view_v<T> || is_byte_view_v<T>> {};

template <class T> inline constexpr bool is_string_v = std::is_same_v<T, std::string> || is_string_view_v<T>;
template <class T>
inline constexpr bool is_blob_v = std::is_same_v<T, std::vector<std::byte>> || is_byte_view_v<T>;
/// std::filesystem::path: text on the wire (its generic form, UTF-8).
template <class T> inline constexpr bool is_path_v = std::is_same_v<T, std::filesystem::path>;
/// std::u8string and std::filesystem::path: a string on the wire that is not a std::string.
template <class T> inline constexpr bool is_text_v = std::is_same_v<T, std::u8string> || is_path_v<T>;
template <class T> inline constexpr bool is_uuid_v = std::is_same_v<T, uuid>;
template <class T> inline constexpr bool is_bool_v = std::is_same_v<T, bool>;

/// Integers of every width (char types included), not bool.
template <class T> inline constexpr bool is_integer_v = std::is_integral_v<T> && !is_bool_v<T>;
template <class T>
inline constexpr bool is_float_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

/// A value whose binary encoding is its little-endian memory image, so that a
/// contiguous run of them is one memcpy: integers, float, double, and enums
/// over them (std::byte included). Not bool: its bytes must be validated.
template <class T, bool = std::is_enum_v<T>>
struct is_raw_enum : std::false_type {};
template <class T>
struct is_raw_enum<T, true> : std::bool_constant<!is_bool_v<std::underlying_type_t<T>>> {};

template <class T>
inline constexpr bool is_raw_scalar_v = is_integer_v<T> || is_float_v<T> || is_raw_enum<T>::value;

/// A contiguous run of T is its little-endian memory image on the wire: one memcpy.
template <class T>
inline constexpr bool memcpy_ok = is_raw_scalar_v<T> && std::endian::native == std::endian::little;

template <class T> struct element_of { using type = void; };
template <class T, std::size_t N> struct element_of<T[N]> { using type = T; };
template <class T, std::size_t N> struct element_of<std::array<T, N>> { using type = T; };

template <class T> inline constexpr std::size_t fixed_extent = 0;
template <class T, std::size_t N> inline constexpr std::size_t fixed_extent<T[N]> = N;
template <class T, std::size_t N> inline constexpr std::size_t fixed_extent<std::array<T, N>> = N;

template <class> inline constexpr bool dependent_false = false;

}  // namespace refwire::detail

namespace refwire {

/// A type Boost.Describe describes (BOOST_DESCRIBE_STRUCT / BOOST_DESCRIBE_CLASS).
template <class T>
concept described_record = std::is_class_v<T> && boost::describe::has_describe_members<T>::value;

/// A type whose BOOST_DESCRIBE_STRUCT did not expand (more than 52 members,
/// Boost.Describe's limit): the macro declared T's bases but not its members.
/// The compiler has already reported the macro; refwire adds nothing.
///
///   static_assert(!refwire::detail::broken_description<point>);
namespace detail {
template <class T>
concept broken_description = std::is_class_v<T> && boost::describe::has_describe_bases<T>::value &&
                             !boost::describe::has_describe_members<T>::value;
}  // namespace detail

/// A plain aggregate Boost.PFR can walk: positional formats only.
template <class T>
concept aggregate_record = std::is_class_v<T> && std::is_aggregate_v<T> && !described_record<T> &&
                           !detail::is_std_array<T>::value && !std::is_polymorphic_v<T>;

/// A struct whose fields the walk visits.
template <class T>
concept record = described_record<T> || aggregate_record<T>;

/// A type refwire::codec<T> maps to a surrogate.
template <class T>
concept has_codec = requires { typename codec<T>::wire; };

}  // namespace refwire

namespace refwire::detail {

/// The kinds of value refwire knows. Each format has one branch per shape in
/// each direction (see docs/architecture.md, "How to add a shape").
enum class shape : std::uint8_t {
  none,         ///< not serializable (or not yet known: a const, a pointer, a reference)
  codec,        ///< refwire::codec<T> maps it to codec<T>::wire
  boolean,      ///< bool
  integer,      ///< integers of every width, char types included
  floating,     ///< float, double
  enumeration,  ///< an enum (over its underlying type)
  string,       ///< std::string, std::string_view (a view: deserialize_view only)
  text,         ///< std::u8string, std::filesystem::path (a string on the wire)
  bitset,       ///< std::bitset<N>
  blob,         ///< std::vector<std::byte>, std::span<const std::byte> (a view: deserialize_view only)
  uuid,         ///< refwire::uuid
  timestamp,    ///< a system_clock time_point
  duration,     ///< a std::chrono::duration
  optional,     ///< std::optional
  pointer,      ///< std::unique_ptr, std::shared_ptr (of a non-const T)
  sequence,     ///< std::vector, std::deque, std::list (vector<byte>: blob)
  fixed_array,  ///< std::array, one-dimensional C arrays
  set,          ///< std::set, std::unordered_set, and their multi forms (is_multi_v)
  map,          ///< std::map, std::unordered_map, and their multi forms (is_multi_v)
  variant,      ///< std::variant
  tuple,        ///< std::tuple, std::pair
  record,       ///< a described struct or a PFR aggregate
};

/// The shape of T, decided once (codecs first: a codec overrides the shape
/// T would have).
template <class T>
consteval shape shape_of() {
  if constexpr (std::is_const_v<T> || std::is_reference_v<T> || std::is_pointer_v<T>) return shape::none;
  else if constexpr (has_codec<T>) return shape::codec;
  else if constexpr (is_bool_v<T>) return shape::boolean;
  else if constexpr (is_integer_v<T>) return shape::integer;
  else if constexpr (is_float_v<T>) return shape::floating;
  else if constexpr (std::is_enum_v<T>) return shape::enumeration;
  else if constexpr (is_string_v<T>) return shape::string;
  else if constexpr (is_text_v<T>) return shape::text;
  else if constexpr (is_bitset<T>::value) return shape::bitset;
  else if constexpr (is_blob_v<T>) return shape::blob;
  else if constexpr (is_uuid_v<T>) return shape::uuid;
  else if constexpr (is_timestamp<T>::value) return shape::timestamp;
  else if constexpr (is_duration<T>::value) return shape::duration;
  else if constexpr (is_optional<T>::value) return shape::optional;
  else if constexpr (is_unique_ptr<T>::value || is_shared_ptr<T>::value) return shape::pointer;
  else if constexpr (is_sequence<T>::value) return shape::sequence;
  else if constexpr (is_std_array<T>::value || (std::is_array_v<T> && std::rank_v<T> == 1)) return shape::fixed_array;
  else if constexpr (is_set<T>::value) return shape::set;
  else if constexpr (is_map<T>::value) return shape::map;
  else if constexpr (is_variant<T>::value) return shape::variant;
  else if constexpr (is_tuple<T>::value) return shape::tuple;
  else if constexpr (record<T>) return shape::record;
  else return shape::none;
}

template <class T>
inline constexpr shape shape_v = shape_of<T>();

/// A record walked by Boost.PFR: its fields have no names, so only positional
/// formats can carry it. (An aggregate with a shape of its own, such as uuid
/// or a type with a codec, is not one.)
template <class T>
inline constexpr bool unnamed_record = shape_of<T>() == shape::record && aggregate_record<T>;

/// The canonical name of an integer or floating-point type ("i32", "u8",
/// "f64", "char"), as type names spell it and decode errors name it (enums
/// are read, and so reported, as their underlying type).
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

}  // namespace refwire::detail
