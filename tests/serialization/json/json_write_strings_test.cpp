// The JSON encoder's string scan (src/json/write.cpp): every length around
// the 4-, 8- and 16-byte steps, with a byte that needs escaping or checking at
// every position, compared with a byte-at-a-time reference; invalid UTF-8 at
// every position with its exact error; and text in exactly-sized heap
// buffers, so that a read past the end shows under AddressSanitizer.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

/// Length of the valid UTF-8 sequence at s[i] (a byte >= 0x80), or 0.
std::size_t reference_utf8(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned c = b(i);
  std::size_t len = 0;
  unsigned lo = 0x80;
  unsigned hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if ((b(i + k) & 0xC0U) != 0x80U) return 0;
  }
  return len;
}

/// The expected JSON text of s, or the expected error message.
std::string reference(std::string_view s, bool& ok) {
  std::string out = "\"";
  ok = true;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t len = reference_utf8(s, i);
      if (len == 0) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "$: string is not valid UTF-8 (byte 0x%02x at index %zu)", c, i);
        ok = false;
        return buf;
      }
      out.append(s.substr(i, len));
      i += len;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  return out + "\"";
}

/// Encodes the text in an exactly-sized heap buffer and checks it against reference().
void check(const std::string& text) {
  const auto copy = std::make_unique<char[]>(text.size() + 1);  // +1: never zero-sized
  std::memcpy(copy.get(), text.data(), text.size());
  const std::string_view view(copy.get(), text.size());
  bool ok = true;
  const std::string want = reference(view, ok);
  std::vector<std::byte> out;
  try {
    {
      // The string writer itself: the public API would copy the text into a std::string.
      refwire::detail::json::writer w(out, false);
      try {
        refwire::detail::json::write_string(w, view);
      } catch (refwire::detail::encode_failure& f) {
        refwire::detail::throw_encode_error(f);
      }
      w.flush();
    }
    ASSERT_TRUE(ok) << "accepted: " << want;
    ASSERT_EQ(std::string(reinterpret_cast<const char*>(out.data()), out.size()), want);
  } catch (const refwire::encode_error& e) {
    ASSERT_FALSE(ok) << e.what();
    ASSERT_EQ(std::string(e.what()), want);
  }
}

const std::vector<std::string> specials = {
    "\"", "\\", "\n", std::string(1, '\0'), "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
    "\xff", "\xc3", "\xe2\x82", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x80", " "};

TEST(JsonWriteStrings, EveryLengthPlain) {
  for (std::size_t n = 0; n <= 300; ++n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += static_cast<char>('a' + i % 26);
    check(s);
  }
}

TEST(JsonWriteStrings, OneSpecialAtEveryPosition) {
  for (std::size_t n = 0; n <= 40; ++n) {
    for (std::size_t at = 0; at <= n; ++at) {
      for (const std::string& sp : specials) {
        std::string s(n, 'x');
        s.insert(at, sp);
        check(s);
      }
    }
  }
}

TEST(JsonWriteStrings, SpecialNearTheShortTextLimit) {
  for (std::size_t n : {239U, 240U, 241U, 254U, 255U, 256U, 257U}) {
    for (std::size_t at : {0U, 1U, 15U, 16U, 17U, 200U, 238U, 239U}) {
      for (const std::string& sp : specials) {
        std::string s(n, 'z');
        s.insert(at, sp);
        check(s);
        check(s + "\x01");
      }
    }
  }
}

TEST(JsonWriteStrings, TwoSpecials) {
  for (std::size_t n = 0; n <= 20; ++n) {
    for (std::size_t a = 0; a <= n; ++a) {
      for (std::size_t b = a; b <= n; ++b) {
        for (const char* pair : {"\"\\", "\xc3\xa9\n", "\x01\xff", "\xe2\x82\xac\""}) {
          std::string s(n, 'y');
          const std::string_view pv(pair);
          s.insert(b, std::string(pv.substr(pv.size() / 2)));
          s.insert(a, std::string(pv.substr(0, pv.size() / 2)));
          check(s);
        }
      }
    }
  }
}

TEST(JsonWriteStrings, LongTextAcrossChunks) {
  // Longer than one 1024-byte step, with multi-byte characters across its boundaries.
  for (std::size_t lead : {0U, 1U, 2U, 3U, 1021U, 1022U, 1023U, 1024U, 1025U}) {
    std::string s(lead, 'q');
    while (s.size() < 3000) s += "\xe2\x82\xac" "ab\"\xf0\x9f\x98\x80";
    check(s);
    check(s + "\xe2\x82");
  }
}

TEST(JsonWriteStrings, InsideRecordsAndPretty) {
  const std::vector<std::string> v{"", "a", "abc\"", "0123456789abcde", "0123456789abcdef", "\xc3\xa9t\xc3\xa9"};
  EXPECT_EQ(refwire::to_json(v), R"(["","a","abc\"","0123456789abcde","0123456789abcdef","été"])");
  EXPECT_EQ(refwire::to_json(v, {.pretty = true}),
            "[\n  \"\",\n  \"a\",\n  \"abc\\\"\",\n  \"0123456789abcde\",\n  \"0123456789abcdef\",\n  \"été\"\n]");
}

}  // namespace
