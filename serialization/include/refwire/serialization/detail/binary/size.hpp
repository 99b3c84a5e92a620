#pragma once
// The binary format's sizes known at compile time: the fewest bytes a type
// encodes to (checked against the input before a count is trusted), the
// exact size of fixed-size types, and the runs of fixed-size fields that are
// bounds-checked (decode) or given room (encode) once. Layout: docs/binary-format.md.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire::detail::bin {

/// A std::vector of memcpy_ok values.
template <class T> inline constexpr bool is_raw_vector = false;
template <class E, class A> inline constexpr bool is_raw_vector<std::vector<E, A>> = memcpy_ok<E>;

/// The fewest bytes any value of T encodes to (0 for empty records).
template <class T>
constexpr std::size_t min_size() {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::codec) return min_size<typename codec<T>::wire>();
  else if constexpr (s == shape::boolean) return 1;
  else if constexpr (is_raw_scalar_v<T>) return sizeof(T);
  else if constexpr (s == shape::uuid) return 16;
  else if constexpr (s == shape::timestamp || s == shape::duration) return 8;
  else if constexpr (s == shape::bitset) return (bitset_size<T> + 7) / 8;
  else if constexpr (s == shape::fixed_array) {
    return fixed_extent<T> * min_size<typename element_of<T>::type>();
  } else if constexpr (s == shape::tuple) {
    return []<template <class...> class L, class... Ts>(std::type_identity<L<Ts...>>) {
      return (std::size_t{0} + ... + min_size<element_value_t<Ts>>());
    }(std::type_identity<T>{});
  } else if constexpr (s == shape::record) {
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
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::codec) return 0;
  else if constexpr (s == shape::boolean) return 1;
  else if constexpr (s == shape::enumeration && !is_raw_scalar_v<T>) return 1;  // an enum over bool
  else if constexpr (is_raw_scalar_v<T>) return sizeof(T);
  else if constexpr (s == shape::uuid) return 16;
  else if constexpr (s == shape::timestamp || s == shape::duration) return 8;
  else if constexpr (s == shape::fixed_array) {
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

}  // namespace refwire::detail::bin
