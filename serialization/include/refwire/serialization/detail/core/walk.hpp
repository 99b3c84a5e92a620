#pragma once
// Compile-time questions about every type a value is made of: its fields,
// elements, keys, alternatives and codec surrogates, recursive types included
// (a record already being walked is not entered again).
//
//   // does encoding T ever need a path on failure?
//   constexpr bool fallible = any_part<T, binary_leaf_can_fail>();

#include <type_traits>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire::detail {

/// True when Leaf<U>::value holds for T or for any type T is made of.
template <class T, template <class> class Leaf, class Seen = boost::mp11::mp_list<>>
consteval bool any_part() {
  constexpr shape s = shape_of<T>();
  if constexpr (Leaf<T>::value) {
    return true;
  } else if constexpr (s == shape::codec) {
    return any_part<typename codec<T>::wire, Leaf, Seen>();
  } else if constexpr (s == shape::optional || s == shape::sequence || s == shape::set) {
    return any_part<typename T::value_type, Leaf, Seen>();
  } else if constexpr (s == shape::fixed_array) {
    return any_part<typename element_of<T>::type, Leaf, Seen>();
  } else if constexpr (s == shape::pointer) {
    return any_part<typename T::element_type, Leaf, Seen>();
  } else if constexpr (s == shape::map) {
    return any_part<typename T::key_type, Leaf, Seen>() || any_part<typename T::mapped_type, Leaf, Seen>();
  } else if constexpr (s == shape::variant || s == shape::tuple) {
    return []<template <class...> class L, class... Ts>(std::type_identity<L<Ts...>>) {
      return (any_part<element_value_t<Ts>, Leaf, Seen>() || ...);
    }(std::type_identity<T>{});
  } else if constexpr (s == shape::record) {
    if constexpr (boost::mp11::mp_contains<Seen, T>::value) {
      return false;
    } else {
      using seen = boost::mp11::mp_push_back<Seen, T>;
      return []<class... Fs>(boost::mp11::mp_list<Fs...>) {
        return (any_part<typename Fs::type, Leaf, seen>() || ...);
      }(walked_fields_t<T>{});
    }
  } else {
    return false;
  }
}

}  // namespace refwire::detail
