// The JSON decoder's out-of-line parts that need no simdjson: the reader's
// failure records, the templates' failure helpers, skipping an unknown
// field's value, and the text helpers (uuid, base64, RFC 3339).
#include <refwire/serialization/json.hpp>
#include <refwire/serialization/detail/core/path.hpp>

#include <array>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace refwire::detail::json {

// ------------------------------------------------------- reader failures

bool fail(reader& r, errc code, std::string reason) { return record_failure(r, code, r.offset(), std::move(reason)); }

bool fail_expected(reader& r, std::string_view what) {
  const std::size_t at = r.offset();
  value_kind k;
  if (!r.kind(k)) return false;
  return record_failure(r, errc::type_mismatch, at,
                        "expected " + std::string(what) + ", got " + std::string(kind_name(k)));
}

bool fail_depth(reader& r) { return fail_depth_at(r, r.offset()); }
bool fail_elements(reader& r, std::uint64_t count) { return fail_elements_at(r, r.offset(), count); }
bool fail_alloc(reader& r, std::uint64_t bytes) { return fail_alloc_at(r, r.offset(), bytes); }

refwire::error make_error(reader& r) {
  if (!r.failed) return refwire::error(errc::invalid_json, 0, "$", "decode failed");
  return detail::make_error(r);
}

// ------------------------------------------------------- template failures

bool fail_range(reader& r, std::string_view value, std::string_view type) {
  return record_failure(r, errc::invalid_value, r.value_at,
                   std::string(value) + " is out of range for " + std::string(type));
}

bool fail_float_range(reader& r, double value) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, value);
  return fail_range(r, std::string_view(buf, static_cast<std::size_t>(res.ptr - buf)), "f32");
}

bool fail_count(reader& r, std::string_view what, std::size_t need, std::size_t got) {
  return fail(r, errc::invalid_value, std::string(what) + " needs " + std::to_string(need) + " elements, got " +
                                         (got > need ? "more" : std::to_string(got)));
}

bool fail_unknown_field(reader& r, std::string_view key) {
  return fail(r, errc::unknown_field, "unknown field " + quote_key(key));
}

bool fail_duplicate_field(reader& r, std::string_view key) {
  return fail(r, errc::duplicate_key, "duplicate field " + quote_key(key));
}

bool fail_missing_field(reader& r, std::string_view name) {
  return fail(r, errc::missing_field, "missing field " + quote_key(name));
}

bool fail_text(reader& r, errc code, std::string_view what, std::string_view text) {
  return record_failure(r, code, r.value_at, "invalid " + std::string(what) + " " + quote_key(text));
}

bool skip_value(reader& r) {
  value_kind k;
  if (!r.kind(k)) return false;
  switch (k) {
    case value_kind::object: {
      if (r.depth_left == 0) return fail_depth(r);
      if (!r.begin_object()) return false;
      depth_scope scope(r);
      std::string_view key;
      int n;
      while ((n = r.next_key(key)) == 1) {
        if (!skip_value(r)) return false;
      }
      return n == 0;
    }
    case value_kind::array: {
      if (r.depth_left == 0) return fail_depth(r);
      if (!r.begin_array()) return false;
      depth_scope scope(r);
      int n;
      while ((n = r.next_element()) == 1) {
        if (!skip_value(r)) return false;
      }
      return n == 0;
    }
    case value_kind::string: {
      std::string_view s;
      return r.get_string(s);
    }
    case value_kind::number: {
      double d;
      return r.get_double(d);
    }
    case value_kind::boolean: {
      bool b;
      return r.get_bool(b);
    }
    case value_kind::null:
      return r.is_null() == 1 || (r.failed ? false : fail(r, errc::invalid_json, "invalid literal (expected null)"));
  }
  return false;
}

// -------------------------------------------------------------------- uuid

bool parse_uuid(std::string_view text, uuid& out) noexcept {
  // What uuid::parse accepts (8-4-4-4-12 hex digits, either case), with a table.
  static constexpr auto hex = [] {
    std::array<std::uint8_t, 256> t{};
    for (auto& x : t) x = 0xFF;
    for (int i = 0; i < 10; ++i) t[static_cast<std::size_t>('0' + i)] = static_cast<std::uint8_t>(i);
    for (int i = 0; i < 6; ++i) {
      t[static_cast<std::size_t>('a' + i)] = static_cast<std::uint8_t>(10 + i);
      t[static_cast<std::size_t>('A' + i)] = static_cast<std::uint8_t>(10 + i);
    }
    return t;
  }();
  if (text.size() != 36) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  if (p[8] != '-' || p[13] != '-' || p[18] != '-' || p[23] != '-') return false;
  static constexpr std::uint8_t at[16] = {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34};
  unsigned bad = 0;
  uuid id;
  for (std::size_t i = 0; i < 16; ++i) {
    const unsigned hi = hex[p[at[i]]];
    const unsigned lo = hex[p[at[i] + 1]];
    bad |= hi | lo;
    id.bytes[i] = static_cast<std::byte>((hi << 4) | (lo & 0xF));
  }
  if (bad & 0xF0) return false;
  out = id;
  return true;
}

// ------------------------------------------------------------------ base64

bool base64_decode(std::string_view text, std::vector<std::byte>& out, std::string& why) {
  static constexpr auto table = [] {
    std::array<signed char, 256> t{};
    for (auto& x : t) x = -1;
    const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(a[i])] = static_cast<signed char>(i);
    return t;
  }();
  out.clear();
  if (text.size() % 4 != 0) {
    why = "invalid base64: length " + std::to_string(text.size()) + " is not a multiple of 4";
    return false;
  }
  if (text.empty()) return true;
  std::size_t pad = 0;
  if (text.back() == '=') pad = text[text.size() - 2] == '=' ? 2 : 1;
  out.resize(text.size() / 4 * 3 - pad);
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t o = 0;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int a = table[p[i]];
    const int b = table[p[i + 1]];
    const int c = last && pad == 2 ? 0 : table[p[i + 2]];
    const int d = last && pad >= 1 ? 0 : table[p[i + 3]];
    if (a < 0 || b < 0 || c < 0 || d < 0) {
      why = "invalid base64 character at index " + std::to_string(i);
      out.clear();
      return false;
    }
    const std::uint32_t v = (static_cast<std::uint32_t>(a) << 18) | (static_cast<std::uint32_t>(b) << 12) |
                            (static_cast<std::uint32_t>(c) << 6) | static_cast<std::uint32_t>(d);
    if (last && pad != 0) {
      if ((pad == 2 && (v & 0xFFFF) != 0) || (pad == 1 && (v & 0xFF) != 0)) {
        why = "invalid base64: non-zero bits in the padding";
        out.clear();
        return false;
      }
    }
    out[o++] = static_cast<std::byte>(v >> 16);
    if (o < out.size()) out[o++] = static_cast<std::byte>((v >> 8) & 0xFF);
    if (o < out.size() && !(last && pad == 1)) out[o++] = static_cast<std::byte>(v & 0xFF);
  }
  return true;
}

// -------------------------------------------------------------- RFC 3339

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

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

}  // namespace

namespace {

/// The form the writer emits, "YYYY-MM-DDTHH:MM:SS.fffffffffZ" (30
/// characters), in straight-line code. False for any other text or any
/// invalid field; parse_timestamp then takes the general path, which reports it.
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

bool parse_timestamp(std::string_view s, std::int64_t& ns, std::string& why) {
  if (parse_fixed_timestamp(s, ns)) [[likely]] return true;
  auto bad = [&](const char* what) {
    why = "invalid RFC 3339 timestamp " + quote_key(s) + " (" + what + ")";
    return false;
  };
  int year, month, day, hour, minute, second;
  if (!digits(s, 0, 4, year) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, month) || s[7] != '-' ||
      !digits(s, 8, 2, day) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(s, 11, 2, hour) ||
      s[13] != ':' || !digits(s, 14, 2, minute) || s[16] != ':' || !digits(s, 17, 2, second)) {
    return bad("expected YYYY-MM-DDTHH:MM:SS");
  }
  static constexpr int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month < 1 || month > 12 || day < 1 || day > month_days[month - 1] || (month == 2 && day == 29 && !leap)) {
    return bad("no such date");
  }
  if (hour > 23 || minute > 59 || second > 59) return bad("no such time of day");
  std::size_t i = 19;
  std::int64_t frac = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    std::size_t n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (n == 9) return bad("more than 9 fraction digits");
      frac = frac * 10 + (s[i] - '0');
      ++n;
      ++i;
    }
    if (n == 0) return bad("empty fraction");
    for (; n < 9; ++n) frac *= 10;
  }
  std::int64_t offset_s = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh, om;
    if (!digits(s, i + 1, 2, oh) || i + 3 >= s.size() || s[i + 3] != ':' || !digits(s, i + 4, 2, om) || oh > 23 ||
        om > 59) {
      return bad("bad offset");
    }
    offset_s = (s[i] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    i += 6;
  } else {
    return bad("missing Z or offset");
  }
  if (i != s.size()) return bad("trailing characters");
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const std::int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  // int64 nanoseconds: about 1677-09-21 to 2262-04-11.
  constexpr std::int64_t max_secs = 9223372036LL;
  if (secs > max_secs || secs < -max_secs - 1) return bad("outside the int64 nanosecond range");
  std::int64_t whole = 0;
  std::int64_t secs_part = secs;
  if (secs < 0 && frac > 0) {  // keep the product in range near the lower end
    ++secs_part;
    frac -= 1'000'000'000;
  }
  if (__builtin_mul_overflow(secs_part, std::int64_t{1'000'000'000}, &whole) || __builtin_add_overflow(whole, frac, &ns)) {
    return bad("outside the int64 nanosecond range");
  }
  return true;
}

}  // namespace refwire::detail::json
