#pragma once
// Shape traits: which standard type a T is. Machinery for reflect.hpp and the formats.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ratio>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include <refwire/serialization/types.hpp>

namespace refwire::detail {

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};

template <class T> struct is_unique_ptr : std::false_type {};
template <class T> struct is_unique_ptr<std::unique_ptr<T>> : std::true_type {};

template <class T> struct is_variant : std::false_type {};
template <class... Ts> struct is_variant<std::variant<Ts...>> : std::true_type {};

template <class T> struct is_tuple : std::false_type {};
template <class... Ts> struct is_tuple<std::tuple<Ts...>> : std::true_type {};
template <class A, class B> struct is_tuple<std::pair<A, B>> : std::true_type {};

template <class T> struct is_std_array : std::false_type {};
template <class T, std::size_t N> struct is_std_array<std::array<T, N>> : std::true_type {};

/// vector, deque, list: a count, then the elements.
template <class T> struct is_sequence : std::false_type {};
template <class T, class A> struct is_sequence<std::vector<T, A>> : std::true_type {};
template <class T, class A> struct is_sequence<std::deque<T, A>> : std::true_type {};
template <class T, class A> struct is_sequence<std::list<T, A>> : std::true_type {};

template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};

template <class T> struct is_set : std::false_type {};
template <class K, class C, class A> struct is_set<std::set<K, C, A>> : std::true_type {};
template <class K, class H, class E, class A> struct is_set<std::unordered_set<K, H, E, A>> : std::true_type {};

template <class T> struct is_map : std::false_type {};
template <class K, class V, class C, class A> struct is_map<std::map<K, V, C, A>> : std::true_type {};
template <class K, class V, class H, class E, class A>
struct is_map<std::unordered_map<K, V, H, E, A>> : std::true_type {};

template <class T> struct is_duration : std::false_type {};
template <class R, class P> struct is_duration<std::chrono::duration<R, P>> : std::true_type {};

template <class T> struct is_timestamp : std::false_type {};
template <class D> struct is_timestamp<std::chrono::time_point<std::chrono::system_clock, D>> : std::true_type {};

template <class T> inline constexpr bool is_string_v = std::is_same_v<T, std::string>;
template <class T> inline constexpr bool is_blob_v = std::is_same_v<T, std::vector<std::byte>>;
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

template <class T> struct element_of { using type = void; };
template <class T, std::size_t N> struct element_of<T[N]> { using type = T; };
template <class T, std::size_t N> struct element_of<std::array<T, N>> { using type = T; };

template <class T> inline constexpr std::size_t fixed_extent = 0;
template <class T, std::size_t N> inline constexpr std::size_t fixed_extent<T[N]> = N;
template <class T, std::size_t N> inline constexpr std::size_t fixed_extent<std::array<T, N>> = N;

template <class> inline constexpr bool dependent_false = false;

/// How a count of int64 nanoseconds (the wire form of every duration and
/// timestamp) converted to the duration type D. Each format words its own error.
enum class ns_conversion : std::uint8_t { ok, not_whole, out_of_range };

/// Nanoseconds in one tick of D (D integral, no finer than a nanosecond).
template <class D>
constexpr std::int64_t ns_per_tick() {
  using factor = std::ratio_divide<typename D::period, std::nano>;
  static_assert(factor::den == 1, "refwire: durations finer than nanoseconds are not supported");
  return static_cast<std::int64_t>(factor::num);
}

/// Converts ns to D exactly: a count that is not a whole number of D's ticks,
/// or does not fit D's representation, is reported, never truncated.
/// Floating-point durations take the nearest value.
template <class D>
ns_conversion from_nanoseconds(std::int64_t ns, D& out) noexcept {
  using nano = std::chrono::nanoseconds;
  if constexpr (std::is_same_v<D, nano>) {
    out = nano(ns);
  } else if constexpr (std::is_floating_point_v<typename D::rep>) {
    out = std::chrono::duration_cast<D>(std::chrono::duration<long double, std::nano>(ns));
  } else {
    constexpr std::int64_t k = ns_per_tick<D>();
    if (ns % k != 0) [[unlikely]] return ns_conversion::not_whole;
    const std::int64_t c = ns / k;
    if (c > static_cast<std::int64_t>(std::numeric_limits<typename D::rep>::max()) ||
        c < static_cast<std::int64_t>(std::numeric_limits<typename D::rep>::min())) [[unlikely]] {
      return ns_conversion::out_of_range;
    }
    out = D(static_cast<typename D::rep>(c));
  }
  return ns_conversion::ok;
}

}  // namespace refwire::detail
