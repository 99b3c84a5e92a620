#pragma once
// Durations and timestamps as int64 nanoseconds, the form every format
// carries them in (binary: 8 bytes; protobuf: seconds + nanos of it; JSON:
// a number or RFC 3339 text of it). Conversions are exact or reported,
// never truncated.

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ratio>
#include <type_traits>

namespace refwire::detail::wire {

/// Nanoseconds in one tick of D (D integral, no finer than a nanosecond).
template <class D>
constexpr std::int64_t ns_per_tick() {
  using factor = std::ratio_divide<typename D::period, std::nano>;
  static_assert(factor::den == 1, "refwire: durations finer than nanoseconds are not supported");
  return static_cast<std::int64_t>(factor::num);
}

/// d in int64 nanoseconds; false when it does not fit. Floating-point
/// durations take the nearest value (0.3 ms is 300000 ns, not 299999).
template <class D>
inline bool to_nanoseconds(D d, std::int64_t& out) noexcept {
  using ns = std::chrono::nanoseconds;
  static_assert(std::ratio_greater_equal_v<typename D::period, std::nano>,
                "refwire: durations finer than nanoseconds are not supported");
  if constexpr (std::is_same_v<D, ns>) {
    out = d.count();
    return true;
  } else if constexpr (std::is_floating_point_v<typename D::rep>) {
    const auto c = std::chrono::duration<long double, std::nano>(d).count();
    if (!(c >= -9223372036854775808.0L && c < 9223372036854775807.5L)) return false;
    out = static_cast<std::int64_t>(std::llround(c));
    return true;
  } else {
    constexpr std::int64_t k = ns_per_tick<D>();
    const auto c = static_cast<std::int64_t>(d.count());
    if (c > std::numeric_limits<std::int64_t>::max() / k || c < std::numeric_limits<std::int64_t>::min() / k) {
      return false;
    }
    out = c * k;
    return true;
  }
}

/// How a count of int64 nanoseconds converted to the duration type D. Each
/// format words its own error.
enum class ns_conversion : std::uint8_t { ok, not_whole, out_of_range };

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

}  // namespace refwire::detail::wire
