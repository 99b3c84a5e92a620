#pragma once
// How an encode fails, the same in every format: the encoder throws an
// encode_failure where a value has no encoding (a duration past int64
// nanoseconds, NaN in JSON, a non-UTF-8 protobuf string); each level it
// passes through on the way out adds its path segment (encode_within); the
// format's encode entry point turns it into refwire::encode_error, whose
// what() is "$.path: reason".
//
//   encode_within([&] { write(w, v.when); }, [](encode_failure& f) { push_field(f, "when", 3); });

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <string_view>
#include <utility>
#include <vector>

#include <refwire/serialization/detail/core/path.hpp>
#include <refwire/serialization/detail/wire/config.hpp>
#include <refwire/serialization/detail/wire/time.hpp>
#include <refwire/serialization/error.hpp>

namespace refwire::detail {

/// An encode that cannot go on: the reason and the path so far.
struct encode_failure {
  std::string reason;
  std::vector<std::string> path;  // innermost segment first
};

// Out of line (src/core/encode_failure.cpp).
[[noreturn]] void throw_encode_failure(std::string reason);
/// "a duration of <count> x <num>/<den> s does not fit in int64 nanoseconds".
[[noreturn]] void throw_duration_range(long long count, long long num, long long den);
void push_field(encode_failure& f, std::string_view name, std::size_t index);
void push_index(encode_failure& f, std::size_t index);
void push_key(encode_failure& f, std::string_view key);
void push_key(encode_failure& f, long long key);
void push_key(encode_failure& f, unsigned long long key);
/// Throws the refwire::encode_error for f.
[[noreturn]] void throw_encode_error(encode_failure& f);

/// Runs body(); an encode_failure passing through gets push(failure)'s
/// segment on its way out. With no failure this costs nothing at run time
/// (a landing pad only); encoders still use it only where the value can fail.
template <class Body, class Push>
REFWIRE_ALWAYS_INLINE decltype(auto) encode_within(Body&& body, Push&& push) {
  try {
    return body();
  } catch (encode_failure& f) {
    push(f);
    throw;
  }
}

/// Runs an encode; an encode_failure becomes refwire::encode_error.
template <class Body>
REFWIRE_ALWAYS_INLINE decltype(auto) encode_entry(Body&& body) {
  try {
    return body();
  } catch (encode_failure& f) {
    throw_encode_error(f);
  }
}

/// d in int64 nanoseconds, or an encode failure when it does not fit.
template <class D>
inline std::int64_t checked_nanoseconds(D d) {
  std::int64_t ns;
  if (!wire::to_nanoseconds(d, ns)) [[unlikely]] {
    throw_duration_range(static_cast<long long>(d.count()), D::period::num, D::period::den);
  }
  return ns;
}

/// True when encoding a D can fail: a floating-point duration, or one whose
/// range is wider than int64 nanoseconds.
template <class D>
constexpr bool duration_can_fail() {
  using R = typename D::rep;
  if constexpr (std::is_floating_point_v<R>) {
    return true;
  } else {
    constexpr std::int64_t k = wire::ns_per_tick<D>();
    constexpr auto hi = std::numeric_limits<std::int64_t>::max() / k;
    constexpr auto lo = std::numeric_limits<std::int64_t>::min() / k;
    if constexpr (std::is_signed_v<R>) {
      return static_cast<long double>(std::numeric_limits<R>::max()) > static_cast<long double>(hi) ||
             static_cast<long double>(std::numeric_limits<R>::min()) < static_cast<long double>(lo);
    } else {
      return static_cast<long double>(std::numeric_limits<R>::max()) > static_cast<long double>(hi);
    }
  }
}

}  // namespace refwire::detail
