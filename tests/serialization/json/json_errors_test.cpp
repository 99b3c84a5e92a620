// JSON errors a reader can act on: the offending byte's offset, line and
// column, a reason that says what is wrong with a malformed token, and the
// path of the value even when the fault is inside a skipped (unknown) value
// or is found before any value is read.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace json_errors {

struct rec {
  std::int32_t i = 0;
  double d = 0;
  bool b = false;
  std::optional<std::int32_t> o;
  std::vector<std::int32_t> a;
  std::vector<double> ad;
  std::map<std::string, std::int32_t> m;
  std::string s;
  std::chrono::sys_time<std::chrono::nanoseconds> t{};
  std::vector<bool> vb;
  std::vector<std::string> vs;
};
BOOST_DESCRIBE_STRUCT(rec, (), (i, d, b, o, a, ad, m, s, t, vb, vs))

struct outer {
  rec r;
  std::vector<rec> list;
};
BOOST_DESCRIBE_STRUCT(outer, (), (r, list))

}  // namespace json_errors

using namespace json_errors;

namespace {

/// Decodes from an exact-size heap copy (the ASan build catches reads past it).
template <class T = rec>
refwire::error fails(std::string_view text) {
  std::unique_ptr<char[]> copy(new char[text.size() + 1]);
  std::memcpy(copy.get(), text.data(), text.size());
  T out{};
  return refwire::deserialize<refwire::json>(std::string_view(copy.get(), text.size()), out);
}

template <class T = rec>
std::string message(std::string_view text) {
  return fails<T>(text).message();
}

}  // namespace

TEST(json_errors, strings_point_at_the_offending_byte) {
  EXPECT_EQ(message("{\"s\":\"a\x01\"}"),
            "$.s: unescaped control character U+0001 in a string (write it as an escape), at offset 7 (line 1, column 8)");
  EXPECT_EQ(fails("{\"s\":\"a\x01\"}").code(), refwire::errc::invalid_json);
  // An unterminated string is reported at its opening quote, with its path.
  EXPECT_EQ(message(R"({"s":"abc)"), "$.s: unterminated string, at offset 5 (line 1, column 6)");
  EXPECT_EQ(fails(R"({"s":"abc)").code(), refwire::errc::truncated);
  EXPECT_EQ(message(R"({"list":[{},{"vs":["a","b)"), "$.list[1].vs[1]: unterminated string, at offset 23 (line 1, column 24)");
  EXPECT_EQ(message("{\"list\":[{\"m\":{\"k\\u0041\x1f\":1}}]}"),
            "$.list[0].m: unescaped control character U+001f in a string (write it as an escape), at offset 23 (line 1, column 24)");
  EXPECT_EQ(message(R"({"s":"a\qb"})"),
            R"($.s: invalid escape \q (expected one of \" \\ \/ \b \f \n \r \t \uXXXX), at offset 7 (line 1, column 8))");
  EXPECT_EQ(message(R"({"s":"\u12G4"})"),
            R"($.s: invalid escape \u12G4 (expected 4 hex digits after \u), at offset 6 (line 1, column 7))");
  // A short \u escape is shown up to the string's closing quote, not past it.
  EXPECT_EQ(message(R"({"s":"\u12"})"),
            R"($.s: invalid escape \u12 (expected 4 hex digits after \u), at offset 6 (line 1, column 7))");
  EXPECT_EQ(message(R"({"s":"\ud800"})"),
            R"($.s: lone high surrogate \ud800 (expected a low surrogate \udc00-\udfff after it), at offset 6 (line 1, column 7))");
  EXPECT_EQ(message(R"({"s":"\udc00"})"),
            R"($.s: lone low surrogate \udc00 (a low surrogate must follow a high one), at offset 6 (line 1, column 7))");
  EXPECT_EQ(message(R"({"s":"ok\ud800\u0041"})"),
            R"($.s: invalid surrogate pair \ud800\u0041 (expected a low surrogate \udc00-\udfff after \ud800), at offset 14 (line 1, column 15))");
  EXPECT_EQ(message(R"({"vs":["x","\q"]})"),
            R"($.vs[1]: invalid escape \q (expected one of \" \\ \/ \b \f \n \r \t \uXXXX), at offset 12 (line 1, column 13))");
  // In a key: the path is the object's.
  EXPECT_EQ(message(R"({"m":{"a\q":1}})"),
            R"($.m: invalid escape \q (expected one of \" \\ \/ \b \f \n \r \t \uXXXX), at offset 8 (line 1, column 9))");
  EXPECT_EQ(message<std::string>(R"("\ud83d\ude00\udc00")"),
            R"($: lone low surrogate \udc00 (a low surrogate must follow a high one), at offset 13 (line 1, column 14))");
}

TEST(json_errors, malformed_tokens_say_what_is_wrong) {
  struct expectation {
    const char* token;
    const char* reason;
  };
  const expectation cases[] = {
      {"tru", R"(invalid literal "tru" (expected true))"},
      {"nul", R"(invalid literal "nul" (expected null))"},
      {"fals", R"(invalid literal "fals" (expected false))"},
      {"truex", R"(invalid literal "truex" (expected true))"},
      {"-", R"(invalid number "-": expected a digit after '-')"},
      {"-NaN", R"(invalid number "-NaN": expected a digit after '-')"},
      {"- 1", R"(invalid number "-": expected a digit after '-')"},
      {".5", R"(invalid number ".5": expected a digit before '.')"},
      {"1.0e+", R"(invalid number "1.0e+": expected a digit in the exponent)"},
      {"01", R"(invalid number "01": leading zeros are not allowed)"},
      {"1.", R"(invalid number "1.": expected a digit after '.')"},
      {"+1", R"(invalid number "+1": a number cannot start with '+')"},
      {"1x", R"(invalid number "1x": unexpected 'x' after the number)"},
  };
  // {"<key>":<token>}: the token at offset 6 (one-letter keys); in arrays and maps a little later.
  for (const expectation& c : cases) {
    const std::string token = c.token;
    const auto expect = [&](const std::string& doc, const std::string& path, std::size_t at) {
      const refwire::error e = fails(doc);
      EXPECT_EQ(e.code(), refwire::errc::invalid_json) << doc;
      EXPECT_EQ(e.message(), path + ": " + c.reason + ", at offset " + std::to_string(at) + " (line 1, column " +
                                 std::to_string(at + 1) + ")")
          << doc;
    };
    for (const char* key : {"i", "d", "b", "o", "s", "t"}) {
      expect(std::string("{\"") + key + "\":" + token + "}", std::string("$.") + key, 5);
    }
    expect(R"({"a":[1,)" + token + "]}", "$.a[1]", 8);
    expect(R"({"ad":[1.5,)" + token + "]}", "$.ad[1]", 11);
    expect(R"({"vb":[true,)" + token + "]}", "$.vb[1]", 12);
    expect(R"({"vs":["x",)" + token + "]}", "$.vs[1]", 11);
    expect(R"({"m":{"k":)" + token + "}}", R"($.m["k"])", 10);
    // In skipped values: the unknown key's path.
    expect(R"({"u":)" + token + "}", "$.u", 5);
    expect(R"({"u":[1,)" + token + "]}", "$.u[1]", 8);
    expect(R"({"u":{"v":[)" + token + "]}}", "$.u.v[0]", 11);
    expect(R"({"u":{"a b":)" + token + "}}", R"($.u["a b"])", 12);
    // At the root.
    const refwire::error root = fails<std::int32_t>(token);
    EXPECT_EQ(root.message(), std::string("$: ") + c.reason + ", at offset 0 (line 1, column 1)");
  }
  // A valid number of the wrong kind is still a type mismatch.
  EXPECT_EQ(message(R"({"i":1.5})"), "$.i: expected integer, got number, at offset 5 (line 1, column 6)");
  EXPECT_EQ(message(R"({"b":1})"), "$.b: expected bool, got number, at offset 5 (line 1, column 6)");
  EXPECT_EQ(message(R"({"i":x})"),
            R"($.i: invalid value "x" (expected a string, number, object, array, true, false or null), at offset 5 (line 1, column 6))");
}

TEST(json_errors, a_root_literal_followed_by_one_more_byte) {
  // simdjson alone takes a six-byte root `false'` as false.
  bool b = true;
  EXPECT_EQ(refwire::deserialize<refwire::json>(std::string_view("false'"), b).message(),
            R"($: invalid literal "false'" (expected false), at offset 0 (line 1, column 1))");
  EXPECT_EQ(refwire::deserialize<refwire::json>(std::string_view("true'"), b).message(),
            R"($: invalid literal "true'" (expected true), at offset 0 (line 1, column 1))");
  EXPECT_EQ(refwire::deserialize<refwire::json>(std::string_view("false"), b).code(), refwire::errc::ok);
  EXPECT_FALSE(b);
  EXPECT_EQ(refwire::deserialize<refwire::json>(std::string_view(" true \n"), b).code(), refwire::errc::ok);
  EXPECT_TRUE(b);
}

TEST(json_errors, skipped_values_name_their_path) {
  EXPECT_EQ(message(R"({"u":[1,tru]})"), R"($.u[1]: invalid literal "tru" (expected true), at offset 8 (line 1, column 9))");
  EXPECT_EQ(message<outer>(R"({"list":[{"i":1},{"zz":{"deep":[{},{"k":"\q"}]}}]})"),
            R"($.list[1].zz.deep[1].k: invalid escape \q (expected one of \" \\ \/ \b \f \n \r \t \uXXXX), at offset 41 (line 1, column 42))");
  EXPECT_EQ(message<json_errors::rec>(R"({"u":{"":-}})"),
            R"($.u[""]: invalid number "-": expected a digit after '-', at offset 9 (line 1, column 10))");
}

TEST(json_errors, line_and_column) {
  const refwire::error e = fails("{\n  \"i\": 1,\n  \"s\": tru\n}");
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.column(), 8u);
  EXPECT_EQ(e.message(), R"($.s: invalid literal "tru" (expected true), at offset 19 (line 3, column 8))");
  // CRLF line ends; columns count characters, not bytes.
  EXPECT_EQ(message("{\r\n\"s\":\"\xc3\xa9\xe2\x82\xac\",\r\n\"i\":-}"),
            R"($.i: invalid number "-": expected a digit after '-', at offset 21 (line 3, column 5))");
  EXPECT_EQ(message("{\"s\":\"\xc3\xa9\",\"i\":-}"), R"($.i: invalid number "-": expected a digit after '-', at offset 14 (line 1, column 14))");
  // The throwing forms carry them too.
  try {
    (void)refwire::from_json<rec>("{\n\"i\":\"1\"}");
    FAIL() << "no throw";
  } catch (const refwire::decode_error& d) {
    EXPECT_STREQ(d.what(), "$.i: expected integer, got string, at offset 6 (line 2, column 5)");
    EXPECT_EQ(d.line(), 2u);
    EXPECT_EQ(d.column(), 5u);
  }
  // Binary formats have no lines.
  std::int32_t x;
  const refwire::error b = refwire::deserialize<refwire::binary>(std::span<const std::byte>(), x);
  ASSERT_TRUE(b);
  EXPECT_EQ(b.line(), 0u);
  EXPECT_EQ(b.column(), 0u);
  EXPECT_EQ(b.message().find("line"), std::string::npos);
  // The four-argument constructor still works, without a position in lines.
  const refwire::error mine(refwire::errc::invalid_value, 3, "$.a", "bad");
  EXPECT_EQ(mine.message(), "$.a: bad, at offset 3");
  const refwire::error text(refwire::errc::invalid_json, 9, "$.a", "bad", 2, 4);
  EXPECT_EQ(text.message(), "$.a: bad, at offset 9 (line 2, column 4)");
}

TEST(json_errors, timestamps_say_what_is_missing) {
  EXPECT_EQ(message(R"({"t":"2024-01-02T03:04:05"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02T03:04:05" (missing time-zone offset: expected 'Z' or +HH:MM after the seconds), at offset 25 (line 1, column 26))");
  EXPECT_EQ(message(R"({"t":"2024-01-02T03:04:05.5"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02T03:04:05.5" (missing time-zone offset: expected 'Z' or +HH:MM after the seconds), at offset 27 (line 1, column 28))");
  EXPECT_EQ(message(R"({"t":"2024-01-02T03:04:05Q"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02T03:04:05Q" (expected a time-zone offset ('Z' or +HH:MM) after the seconds, got 'Q'), at offset 25 (line 1, column 26))");
  EXPECT_EQ(message(R"({"t":"2024-01-02T03:04"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02T03:04" (incomplete time: expected HH:MM:SS after the 'T'), at offset 22 (line 1, column 23))");
  EXPECT_EQ(message(R"({"t":"2024-01-02"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02" (missing the time: expected 'T' and HH:MM:SS after the date), at offset 16 (line 1, column 17))");
  EXPECT_EQ(message(R"({"t":"2024-1-02T03:04:05Z"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-1-02T03:04:05Z" (expected a digit at index 6, got '-' (the form is YYYY-MM-DDTHH:MM:SS)), at offset 12 (line 1, column 13))");
  EXPECT_EQ(message(R"({"t":"2024-01-02X03:04:05Z"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02X03:04:05Z" (expected 'T' between the date and the time, got 'X'), at offset 16 (line 1, column 17))");
  EXPECT_EQ(message(R"({"t":"2024-01-02T03:04:05+01"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02T03:04:05+01" (invalid time-zone offset +01: expected +HH:MM or -HH:MM, hours 00-23 and minutes 00-59), at offset 25 (line 1, column 26))");
  EXPECT_EQ(message(R"({"t":"2024-01-02T03:04:05Zx"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02T03:04:05Zx" (unexpected characters after the time-zone offset), at offset 26 (line 1, column 27))");
  EXPECT_EQ(message(R"({"t":"2024-13-02T03:04:05Z"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-13-02T03:04:05Z" (no such date: month 13), at offset 11 (line 1, column 12))");
  EXPECT_EQ(message(R"({"t":"2023-02-29T03:04:05Z"})"),
            R"($.t: invalid RFC 3339 timestamp "2023-02-29T03:04:05Z" (no such date: 2023-02 has no day 29), at offset 14 (line 1, column 15))");
  EXPECT_EQ(message(R"({"t":"2024-01-02T03:60:05Z"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02T03:60:05Z" (no such time of day: minute 60), at offset 20 (line 1, column 21))");
  EXPECT_EQ(message(R"({"t":"2024-01-02T03:04:05.Z"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02T03:04:05.Z" (expected a digit after the '.' of the fraction), at offset 26 (line 1, column 27))");
  EXPECT_EQ(message(R"({"t":"2024-01-02T03:04:05.1234567891Z"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02T03:04:05.1234567891Z" (more than 9 fraction digits), at offset 35 (line 1, column 36))");
  EXPECT_EQ(message(R"({"t":"2300-01-02T03:04:05Z"})"),
            R"($.t: invalid RFC 3339 timestamp "2300-01-02T03:04:05Z" (outside the int64 nanosecond range (1677-09-21 to 2262-04-11)), at offset 6 (line 1, column 7))");
  // An escape before the fault: reported at the string.
  EXPECT_EQ(message(R"({"t":"2024\u002d01-02"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02" (missing the time: expected 'T' and HH:MM:SS after the date), at offset 5 (line 1, column 6))");
}

TEST(json_errors, a_leading_byte_order_mark_is_skipped) {
  const std::string bom = "\xEF\xBB\xBF";
  rec r;
  ASSERT_FALSE(refwire::deserialize<refwire::json>(bom + R"({"i":7})", r));
  EXPECT_EQ(r.i, 7);
  std::int32_t x = 0;
  ASSERT_FALSE(refwire::deserialize<refwire::json>(bom + " 5 ", x));
  EXPECT_EQ(x, 5);
  // Offsets count the mark; columns do not.
  EXPECT_EQ(message(bom + R"({"i":-})"), R"($.i: invalid number "-": expected a digit after '-', at offset 8 (line 1, column 6))");
  EXPECT_EQ(message(bom + "\n{\"i\":-}"), R"($.i: invalid number "-": expected a digit after '-', at offset 9 (line 2, column 6))");
  EXPECT_EQ(message(bom), "$: no JSON value, at offset 3 (line 1, column 1)");
  EXPECT_EQ(fails(bom).code(), refwire::errc::truncated);
  // Prefix decodes: consumed counts the mark.
  const std::string text = bom + R"({"i":8} {"i":9})";
  std::size_t used = 0;
  ASSERT_FALSE(refwire::deserialize_prefix<refwire::json>(std::as_bytes(std::span(text.data(), text.size())), r, used));
  EXPECT_EQ(r.i, 8);
  EXPECT_EQ(used, 10u);
  const std::string bad = bom + R"({"i":tru} 1)";
  const refwire::error e = refwire::deserialize_prefix<refwire::json>(std::as_bytes(std::span(bad.data(), bad.size())), r, used);
  EXPECT_EQ(e.message(), R"($.i: invalid literal "tru" (expected true), at offset 8 (line 1, column 6))");
  // Anywhere else a mark is still not JSON.
  EXPECT_EQ(message(R"({"i":1})" + bom), "$: 3 bytes of trailing content after the value, at offset 7 (line 1, column 8)");
  EXPECT_EQ(fails(bom + bom + "1").code(), refwire::errc::invalid_json);
  EXPECT_EQ(fails<std::int32_t>(" " + bom + "1").code(), refwire::errc::invalid_json);
  std::string in_string;
  ASSERT_FALSE(refwire::deserialize<refwire::json>("\"" + bom + "\"", in_string));
  EXPECT_EQ(in_string, bom);
}

TEST(json_errors, snapshot_errors_carry_the_line_and_column) {
  const refwire::error cause = fails("{\n\"i\":tru}");
  const refwire::snapshot_error e("state.rfw", cause);
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.column(), 5u);
  EXPECT_EQ(e.details().message(), R"($.i: invalid literal "tru" (expected true), at offset 6 (line 2, column 5))");
  EXPECT_NE(std::string(e.what()).find(R"(payload does not decode: $.i: invalid literal "tru" (expected true), at offset 6 (line 2, column 5))"),
            std::string::npos)
      << e.what();
}

TEST(json_errors, messages_show_no_raw_control_bytes) {
  // The four characters after \u, cut at the string's closing quote and at the
  // first one that is not printable.
  const std::string text("\"\\u{\"\0\0}", 8);
  const refwire::error e = fails<std::string>(text);
  EXPECT_EQ(e.message(), R"($: invalid escape \u{ (expected 4 hex digits after \u), at offset 1 (line 1, column 2))");
  EXPECT_EQ(message<std::string>(std::string("\"\\u12\0\"", 7)),
            "$: unescaped control character U+0000 in a string (write it as an escape), at offset 5 (line 1, column 6)");
  EXPECT_EQ(message(R"({"t":"2024-01-02T03:04:05+\u0000"})"),
            R"($.t: invalid RFC 3339 timestamp "2024-01-02T03:04:05+\u0000" (invalid time-zone offset +?: expected +HH:MM or -HH:MM, hours 00-23 and minutes 00-59), at offset 25 (line 1, column 26))");
}
