#pragma once
// Field-by-field comparison for tests: a mismatch names the field that differs.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace testing_support {

/// A vector of shared_ptr: compared by pointee, not by address.
template <class T> inline constexpr bool vector_of_shared = false;
template <class E, class A> inline constexpr bool vector_of_shared<std::vector<std::shared_ptr<E>, A>> = true;

template <class T>
bool same_value(const T& a, const T& b) {
  if constexpr (std::is_array_v<T>) {
    return std::equal(std::begin(a), std::end(a), std::begin(b),
                      [](const auto& x, const auto& y) { return same_value(x, y); });
  } else if constexpr (refwire::detail::is_unique_ptr<T>::value || refwire::detail::is_shared_ptr<T>::value) {
    return (!a && !b) || (a && b && same_value(*a, *b));
  } else if constexpr (vector_of_shared<T>) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const auto& x, const auto& y) { return same_value(x, y); });
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;  // bit-exact: NaN payloads and -0.0 survive
  } else if constexpr (refwire::record<T> && !requires { a == b; }) {
    bool same = true;
    refwire::for_each_field(a, [&](auto field, const auto& ma) {
      same = same && same_value(ma, decltype(field)::get(b));
    });
    return same;
  } else {
    return a == b;
  }
}

/// EXPECTs every field of a and b to be equal, naming each one that is not.
template <class T>
void expect_fields_eq(const T& a, const T& b) {
  refwire::for_each_field(a, [&](auto field, const auto& ma) {
    using F = decltype(field);
    EXPECT_TRUE(same_value(ma, F::get(b)))
        << "field #" << F::index << " '" << F::member_name << "' differs";
  });
}

}  // namespace testing_support
