#pragma once
// Durations and timestamps as int64 nanoseconds, the form every format
// carries them in (binary: 8 bytes; protobuf: seconds + nanos of it; JSON:
// a number or RFC 3339 text of it). Conversions are exact or reported,
// never truncated. Then the calendar: civil dates from and to days since
// 1970-01-01, and RFC 3339 text from and to int64 nanoseconds.

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ratio>
#include <string>
#include <string_view>
#include <type_traits>

#include <refwire/serialization/detail/wire/itoa.hpp>

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

// ------------------------------------------------------------------ calendar

/// The proleptic Gregorian date of day z (days since 1970-01-01), Howard
/// Hinnant's civil_from_days: year y, month m (1-12), day d (1-31).
constexpr void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) noexcept {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2 ? 1 : 0;
}

/// Days since 1970-01-01 of the proleptic Gregorian date y-m-d (Howard
/// Hinnant's days_from_civil; m 1-12, d 1-31, not checked).
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// ------------------------------------------------------------------ RFC 3339

/// The length of format_rfc3339's text.
inline constexpr std::size_t rfc3339_size = 30;

/// ns (nanoseconds since the epoch) as RFC 3339 UTC text with 9 fraction
/// digits, "2026-12-01T09:47:29.123456789Z", at out (rfc3339_size bytes);
/// returns its end. int64 nanoseconds span 1677-2262: always four year digits.
inline char* format_rfc3339(char* out, std::int64_t ns) noexcept {
  std::int64_t secs = ns / 1'000'000'000;
  std::int64_t frac = ns % 1'000'000'000;
  if (frac < 0) {
    frac += 1'000'000'000;
    --secs;
  }
  std::int64_t days = secs / 86400;
  std::int64_t sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    --days;
  }
  std::int64_t y;
  unsigned m;
  unsigned d;
  civil_from_days(days, y, m, d);
  char* const o = out;
  const auto year = static_cast<unsigned>(y);
  put_pair(o, year / 100);
  put_pair(o + 2, year % 100);
  o[4] = '-';
  put_pair(o + 5, m);
  o[7] = '-';
  put_pair(o + 8, d);
  o[10] = 'T';
  const auto second = static_cast<unsigned>(sod);  // < 86400: 32-bit arithmetic
  put_pair(o + 11, second / 3600);
  o[13] = ':';
  put_pair(o + 14, second / 60 % 60);
  o[16] = ':';
  put_pair(o + 17, second % 60);
  o[19] = '.';
  const auto f = static_cast<std::uint32_t>(frac);
  o[20] = static_cast<char>('0' + f / 100000000);
  eight_digits(o + 21, f % 100000000);
  o[29] = 'Z';
  return o + rfc3339_size;
}

/// Why parse_rfc3339 rejected a text (each format words its own error).
enum class rfc3339_status : std::uint8_t {
  ok,
  bad_form,          ///< not "YYYY-MM-DDTHH:MM:SS" at the start
  no_such_date,      ///< a month or day out of range (February 29 of a common year included)
  no_such_time,      ///< an hour, minute or second out of range
  long_fraction,     ///< more than 9 fraction digits
  empty_fraction,    ///< a '.' with no digit after it
  bad_offset,        ///< a '+' or '-' not followed by a valid "hh:mm"
  no_offset,         ///< neither 'Z' / 'z' nor an offset
  trailing,          ///< characters after the offset
  out_of_range,      ///< outside int64 nanoseconds (1677-09-21 to 2262-04-11)
  bad_leap_second,   ///< second 60 at a time other than 23:59 UTC (after the offset)
};

/// Parses an RFC 3339 date-time into nanoseconds since the epoch: 'T', 't'
/// or a space between date and time, 0-9 fraction digits, 'Z' / 'z' or a
/// "+hh:mm" / "-hh:mm" offset. A leap second (second 60) is accepted on any
/// date when the time is 23:59 UTC once the offset is applied, and is read
/// as the last nanosecond of that minute, 23:59:59.999999999 UTC (its
/// fraction is dropped): int64 nanoseconds since the epoch have no room for
/// it, and this keeps it after every instant of 23:59:59 and before the
/// next day. The form format_rfc3339 writes takes a
/// straight-line path. Compiled once (src/wire/time.cpp).
rfc3339_status parse_rfc3339(std::string_view text, std::int64_t& ns) noexcept;

/// What is wrong with a text parse_rfc3339 rejected: where in the text
/// (index) and in words, e.g. "missing time-zone offset: expected 'Z' or
/// +HH:MM after the seconds". For failure paths (src/wire/time.cpp).
struct rfc3339_fault {
  std::size_t index = 0;
  std::string what;
};
rfc3339_fault describe_rfc3339(std::string_view text, rfc3339_status why);

// ------------------------------------------------------------ epoch numbers

/// The longest text format_epoch writes ("-9223372036.854775808").
inline constexpr std::size_t epoch_text_max = 32;

/// ns (nanoseconds since the epoch) as a count of units of unit_ns
/// nanoseconds (1, 1000, 1000000 or 1000000000), exact: the whole count,
/// then '.' and the fraction without trailing zeros when there is one
/// ("1796118449.123456789" in seconds, "1796118449123" in milliseconds).
/// At most epoch_text_max bytes at out; returns the end.
char* format_epoch(char* out, std::int64_t ns, std::int64_t unit_ns) noexcept;

/// Why parse_epoch rejected a number.
enum class epoch_status : std::uint8_t {
  ok,
  too_precise,   ///< a digit below a nanosecond that is not zero
  out_of_range,  ///< outside int64 nanoseconds (1677-09-21 to 2262-04-11)
};

/// A JSON number (RFC 8259 grammar, already checked) of units of unit_ns
/// nanoseconds as nanoseconds since the epoch, exactly, from its decimal
/// text (no rounding through a double): "1796118449.5" seconds is
/// 1796118449500000000 ns; exponents are taken ("1.7e9").
epoch_status parse_epoch(std::string_view number, std::int64_t unit_ns, std::int64_t& ns) noexcept;

}  // namespace refwire::detail::wire
