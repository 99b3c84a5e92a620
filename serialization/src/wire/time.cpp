// RFC 3339 text to int64 nanoseconds (detail/wire/time.hpp), compiled once.
#include <refwire/serialization/detail/wire/time.hpp>

#include <bit>
#include <cstring>

namespace refwire::detail::wire {

namespace {

bool digits(std::string_view s, std::size_t at, std::size_t n, int& out) {
  if (at + n > s.size()) return false;
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

/// The form the writer emits, "YYYY-MM-DDTHH:MM:SS.fffffffffZ" (30
/// characters), in straight-line code. False for any other text or any
/// invalid field; parse_rfc3339 then takes the general path, which says why.
bool parse_fixed_timestamp(std::string_view s, std::int64_t& ns) noexcept {
  if (s.size() != 30) return false;
  const char* p = s.data();
  if (p[4] != '-' || p[7] != '-' || p[10] != 'T' || p[13] != ':' || p[16] != ':' || p[19] != '.' || p[29] != 'Z')
    return false;
  auto d = [p](int i) { return static_cast<unsigned>(static_cast<unsigned char>(p[i])) - '0'; };
  // The 9 fraction digits: one digit, then 8 checked and converted at once (SWAR).
  std::uint64_t w;
  std::memcpy(&w, p + 21, 8);
  if ((((w & 0xF0F0F0F0F0F0F0F0ULL) | (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) !=
       0x3333333333333333ULL) ||
      std::endian::native != std::endian::little)
    return false;
  w -= 0x3030303030303030ULL;
  w = (w * 10) + (w >> 8);
  w = (((w & 0x000000FF000000FFULL) * 0x000F424000000064ULL) +
       (((w >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >> 32;
  const unsigned d0 = d(0), d1 = d(1), d2 = d(2), d3 = d(3), d5 = d(5), d6 = d(6), d8 = d(8), d9 = d(9), d11 = d(11),
                 d12 = d(12), d14 = d(14), d15 = d(15), d17 = d(17), d18 = d(18), d20 = d(20);
  if ((d0 > 9) | (d1 > 9) | (d2 > 9) | (d3 > 9) | (d5 > 9) | (d6 > 9) | (d8 > 9) | (d9 > 9) | (d11 > 9) | (d12 > 9) |
      (d14 > 9) | (d15 > 9) | (d17 > 9) | (d18 > 9) | (d20 > 9))
    return false;
  const unsigned year = d0 * 1000 + d1 * 100 + d2 * 10 + d3;
  const unsigned month = d5 * 10 + d6;
  const unsigned day = d8 * 10 + d9;
  const unsigned hour = d11 * 10 + d12;
  const unsigned minute = d14 * 10 + d15;
  const unsigned second = d17 * 10 + d18;
  const std::int64_t frac = static_cast<std::int64_t>(d20) * 100000000 + static_cast<std::int64_t>(w);
  static constexpr unsigned month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month < 1 || month > 12 || day < 1 || day > month_days[month - 1] || (month == 2 && day == 29 && !leap) ||
      hour > 23 || minute > 59 || second > 59)
    return false;
  const std::int64_t days = days_from_civil(year, month, day);
  const std::int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second;
  // Inside 1678-2261 the nanoseconds always fit; the general path handles the edges.
  if (secs < -9200000000LL || secs > 9200000000LL) return false;
  ns = secs * 1'000'000'000 + frac;
  return true;
}

}  // namespace

rfc3339_status parse_rfc3339(std::string_view s, std::int64_t& ns) noexcept {
  if (parse_fixed_timestamp(s, ns)) [[likely]] return rfc3339_status::ok;
  int year, month, day, hour, minute, second;
  if (!digits(s, 0, 4, year) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, month) || s[7] != '-' ||
      !digits(s, 8, 2, day) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(s, 11, 2, hour) ||
      s[13] != ':' || !digits(s, 14, 2, minute) || s[16] != ':' || !digits(s, 17, 2, second)) {
    return rfc3339_status::bad_form;
  }
  static constexpr int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month < 1 || month > 12 || day < 1 || day > month_days[month - 1] || (month == 2 && day == 29 && !leap)) {
    return rfc3339_status::no_such_date;
  }
  if (hour > 23 || minute > 59 || second > 60) return rfc3339_status::no_such_time;
  const bool leap_second = second == 60;
  if (leap_second) second = 59;
  std::size_t i = 19;
  std::int64_t frac = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    std::size_t n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (n == 9) return rfc3339_status::long_fraction;
      frac = frac * 10 + (s[i] - '0');
      ++n;
      ++i;
    }
    if (n == 0) return rfc3339_status::empty_fraction;
    for (; n < 9; ++n) frac *= 10;
  }
  std::int64_t offset_s = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh, om;
    if (!digits(s, i + 1, 2, oh) || i + 3 >= s.size() || s[i + 3] != ':' || !digits(s, i + 4, 2, om) || oh > 23 ||
        om > 59) {
      return rfc3339_status::bad_offset;
    }
    offset_s = (s[i] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    i += 6;
  } else {
    return rfc3339_status::no_offset;
  }
  if (i != s.size()) return rfc3339_status::trailing;
  if (leap_second) {
    // 23:59 UTC once the offset is applied; read as 23:59:59.999999999.
    const std::int64_t utc_minute = ((hour * 60 + minute - offset_s / 60) % 1440 + 1440) % 1440;
    if (utc_minute != 1439) return rfc3339_status::bad_leap_second;
    frac = 999'999'999;
  }
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const std::int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  // int64 nanoseconds: about 1677-09-21 to 2262-04-11.
  constexpr std::int64_t max_secs = 9223372036LL;
  if (secs > max_secs || secs < -max_secs - 1) return rfc3339_status::out_of_range;
  std::int64_t whole = 0;
  std::int64_t secs_part = secs;
  if (secs < 0 && frac > 0) {  // keep the product in range near the lower end
    ++secs_part;
    frac -= 1'000'000'000;
  }
  if (__builtin_mul_overflow(secs_part, std::int64_t{1'000'000'000}, &whole) || __builtin_add_overflow(whole, frac, &ns)) {
    return rfc3339_status::out_of_range;
  }
  return rfc3339_status::ok;
}

namespace {

std::string char_shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7F) return std::string("'") + c + "'";
  static constexpr char hex[] = "0123456789abcdef";
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

/// text with every byte that is not printable ASCII shown as '?'.
std::string printable(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) c = '?';
  }
  return out;
}

int two(std::string_view s, std::size_t i) noexcept { return (s[i] - '0') * 10 + (s[i + 1] - '0'); }

}  // namespace

rfc3339_fault describe_rfc3339(std::string_view s, rfc3339_status why) {
  switch (why) {
    case rfc3339_status::ok:
      return {0, "valid"};
    case rfc3339_status::bad_form: {
      static constexpr std::string_view form = "dddd-dd-ddTdd:dd:dd";
      for (std::size_t k = 0; k < form.size(); ++k) {
        if (k >= s.size()) {
          if (k < 10) return {k, "incomplete date: expected YYYY-MM-DD"};
          if (k == 10) return {k, "missing the time: expected 'T' and HH:MM:SS after the date"};
          return {k, "incomplete time: expected HH:MM:SS after the 'T'"};
        }
        const char c = s[k];
        const char f = form[k];
        if (f == 'd' && !(c >= '0' && c <= '9')) {
          return {k, "expected a digit at index " + std::to_string(k) + ", got " + char_shown(c) +
                         " (the form is YYYY-MM-DDTHH:MM:SS)"};
        }
        if (f == 'T' && c != 'T' && c != 't' && c != ' ') {
          return {k, "expected 'T' between the date and the time, got " + char_shown(c)};
        }
        if (f != 'd' && f != 'T' && c != f) {
          return {k, std::string("expected '") + f + "' at index " + std::to_string(k) + ", got " + char_shown(c) +
                         " (the form is YYYY-MM-DDTHH:MM:SS)"};
        }
      }
      return {0, "expected YYYY-MM-DDTHH:MM:SS"};
    }
    case rfc3339_status::no_such_date: {
      const int month = two(s, 5);
      if (month < 1 || month > 12) return {5, "no such date: month " + std::string(s.substr(5, 2))};
      return {8, "no such date: " + std::string(s.substr(0, 7)) + " has no day " + std::string(s.substr(8, 2))};
    }
    case rfc3339_status::no_such_time:
      if (two(s, 11) > 23) return {11, "no such time of day: hour " + std::string(s.substr(11, 2))};
      if (two(s, 14) > 59) return {14, "no such time of day: minute " + std::string(s.substr(14, 2))};
      return {17, "no such time of day: second " + std::string(s.substr(17, 2))};
    case rfc3339_status::bad_leap_second: {
      // The UTC hour and minute of the local time (the offset is valid: the parse got past it).
      std::size_t i = 19;
      if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
      }
      int off = 0;
      if (i + 5 < s.size() && (s[i] == '+' || s[i] == '-')) off = (s[i] == '+' ? 1 : -1) * (two(s, i + 1) * 60 + two(s, i + 4));
      const int utc = ((two(s, 11) * 60 + two(s, 14) - off) % 1440 + 1440) % 1440;
      char hhmm[6] = {static_cast<char>('0' + utc / 600), static_cast<char>('0' + utc / 60 % 10), ':',
                      static_cast<char>('0' + utc % 60 / 10), static_cast<char>('0' + utc % 10), 0};
      return {17, std::string("no such time of day: a leap second (second 60) is only at 23:59 UTC, this is ") + hhmm +
                      " UTC"};
    }
    case rfc3339_status::long_fraction:
      return {29, "more than 9 fraction digits"};
    case rfc3339_status::empty_fraction:
      return {20, "expected a digit after the '.' of the fraction"};
    case rfc3339_status::bad_offset:
    case rfc3339_status::no_offset:
    case rfc3339_status::trailing: {
      std::size_t i = 19;
      if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
      }
      if (why == rfc3339_status::no_offset) {
        if (i >= s.size()) return {i, "missing time-zone offset: expected 'Z' or +HH:MM after the seconds"};
        return {i, "expected a time-zone offset ('Z' or +HH:MM) after the seconds, got " + char_shown(s[i])};
      }
      if (why == rfc3339_status::bad_offset) {
        return {i, "invalid time-zone offset " + printable(s.substr(i, 6)) +
                       ": expected +HH:MM or -HH:MM, hours 00-23 and minutes 00-59"};
      }
      const std::size_t end = i < s.size() && (s[i] == 'Z' || s[i] == 'z') ? i + 1 : i + 6;
      return {end, "unexpected characters after the time-zone offset"};
    }
    case rfc3339_status::out_of_range:
      return {0, "outside the int64 nanosecond range (1677-09-21 to 2262-04-11)"};
  }
  return {0, "invalid"};
}

// ------------------------------------------------------------ epoch numbers

char* format_epoch(char* out, std::int64_t ns, std::int64_t unit_ns) noexcept {
  char* p = out;
  std::uint64_t mag = static_cast<std::uint64_t>(ns);
  if (ns < 0) {
    *p++ = '-';
    mag = ~mag + 1;  // INT64_MIN included
  }
  const auto unit = static_cast<std::uint64_t>(unit_ns);
  p = format_integer(p, mag / unit);
  std::uint64_t frac = mag % unit;
  if (frac != 0) {
    *p++ = '.';
    char digits[20];
    int n = 0;
    for (std::uint64_t u = unit; u > 1; u /= 10) {
      digits[n++] = static_cast<char>('0' + frac % 10);
      frac /= 10;
    }
    int first = 0;  // trailing zeros dropped
    while (first < n && digits[first] == '0') ++first;
    for (int k = n - 1; k >= first; --k) *p++ = digits[k];
  }
  return p;
}

epoch_status parse_epoch(std::string_view s, std::int64_t unit_ns, std::int64_t& ns) noexcept {
  std::size_t i = 0;
  const bool neg = i < s.size() && s[i] == '-';
  if (neg) ++i;
  // The significant digits as one number (leading zeros skipped), and the
  // power of ten that scales it.
  std::uint64_t digits = 0;
  int count = 0;       // significant digits in `digits`
  long long scale = 0;  // value = digits * 10^scale units
  bool dropped = false;  // a nonzero digit past the 19 kept
  auto take = [&](char c, bool fraction) {
    if (count == 0 && c == '0') {
      if (fraction) --scale;
      return;
    }
    if (count < 19) {
      digits = digits * 10 + static_cast<std::uint64_t>(c - '0');
      ++count;
      if (fraction) --scale;
    } else {
      if (c != '0') dropped = true;
      if (!fraction) ++scale;
    }
  };
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) take(s[i], false);
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) take(s[i], true);
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    const bool eneg = i < s.size() && s[i] == '-';
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    long long e = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (e < 100000) e = e * 10 + (s[i] - '0');
    }
    scale += eneg ? -e : e;
  }
  if (digits == 0) {
    ns = 0;
    return epoch_status::ok;
  }
  // In nanoseconds: digits * 10^(scale + log10(unit_ns)).
  for (std::int64_t u = unit_ns; u > 1; u /= 10) ++scale;
  // A nonzero digit below the 19 kept: past int64 when the kept ones reach
  // whole tens of nanoseconds, else a fraction of a nanosecond.
  if (dropped) return scale > 0 ? epoch_status::out_of_range : epoch_status::too_precise;
  while (scale < 0 && digits % 10 == 0) {
    digits /= 10;
    ++scale;
  }
  if (scale < 0) return epoch_status::too_precise;
  const std::uint64_t limit = neg ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  for (; scale > 0; --scale) {
    if (digits > limit / 10) return epoch_status::out_of_range;
    digits *= 10;
  }
  if (digits > limit) return epoch_status::out_of_range;
  ns = neg ? static_cast<std::int64_t>(~digits + 1) : static_cast<std::int64_t>(digits);
  return epoch_status::ok;
}

}  // namespace refwire::detail::wire
