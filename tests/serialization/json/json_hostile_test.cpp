// Hostile input for the JSON decoder: every truncation, deep nesting, huge
// numbers, bad escapes, invalid UTF-8, lone surrogates, the decode_options
// limits, and random bytes. Inputs are copied into exact-size heap buffers, so
// the ASan build catches any read past the caller's bytes.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "../common/types.hpp"

namespace hostile_json {

using point = shapes::bare_point;

struct order {
  std::vector<point> items;
  std::map<std::string, std::int32_t> counts;
  std::optional<point> best;
};
BOOST_DESCRIBE_STRUCT(order, (), (items, counts, best))

using tree = shapes::tree;

struct numbers {
  std::vector<std::int32_t> a;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  std::vector<std::vector<std::int64_t>> nested;
  std::string s;
};
BOOST_DESCRIBE_STRUCT(numbers, (), (a, i, u, d, nested, s))

struct long_names {
  std::int32_t a_field_name_of_sixteen = 0;
  std::int32_t fifteen_letters = 0;
  std::int32_t x = 0;
};
BOOST_DESCRIBE_STRUCT(long_names, (), (a_field_name_of_sixteen, fifteen_letters, x))

using chain = shapes::chain;

}  // namespace hostile_json

using namespace hostile_json;

namespace {

/// Decodes from an exact-size heap copy.
template <class T>
refwire::error decode(std::string_view text, T& out, const refwire::decode_options& o = {}) {
  std::unique_ptr<char[]> copy(new char[text.size() == 0 ? 1 : text.size()]);
  if (!text.empty()) std::memcpy(copy.get(), text.data(), text.size());
  return refwire::deserialize<refwire::json>(std::string_view(copy.get(), text.size()), out, o);
}

template <class T>
refwire::error fails(std::string_view text, const refwire::decode_options& o = {}) {
  T out{};
  return decode(text, out, o);
}

void expect_well_formed(const refwire::error& e, std::size_t size) {
  ASSERT_TRUE(e);
  EXPECT_LE(e.offset(), size);
  // Text formats add the line and column of the offset; binary formats have none.
  const std::string where = e.line() == 0 ? std::string() : " (line " + std::to_string(e.line()) + ", column " + std::to_string(e.column()) + ")";
  EXPECT_EQ(e.line() == 0, e.column() == 0) << e.message();
  EXPECT_EQ(e.message(), e.path() + ": " + e.reason() + ", at offset " + std::to_string(e.offset()) + where);
  EXPECT_EQ(e.path().substr(0, 1), "$");
}

order sample_order() {
  order o;
  o.items = {{1, 2.5, "a\"b"}, {-3, -0.0, "\xc3\xbc\xe2\x82\xac"}, {7, 1e300, ""}};
  o.counts = {{"x", 1}, {"y\n", -2}};
  o.best = point{9, 0.125, "best"};
  return o;
}

}  // namespace

TEST(json_hostile, every_truncation_fails_cleanly) {
  const std::string full = refwire::to_json(sample_order());
  const std::string pretty = refwire::to_json(sample_order(), {.pretty = true});
  for (const std::string* text : {&full, &pretty}) {
    for (std::size_t n = 0; n < text->size(); ++n) {
      const std::string_view cut(text->data(), n);
      // A prefix that ends in whitespace after the closing brace cannot exist: every proper prefix is incomplete.
      if (text == &pretty && n > 0 && cut.find_last_not_of(" \n") != std::string_view::npos &&
          cut.substr(0, cut.find_last_not_of(" \n") + 1) == *text) {
        continue;
      }
      const refwire::error e = fails<order>(cut);
      SCOPED_TRACE(std::string(cut));
      expect_well_formed(e, n);
    }
    order ok;
    EXPECT_FALSE(decode(*text, ok));
  }
  EXPECT_EQ(fails<order>("").code(), refwire::errc::truncated);
  EXPECT_EQ(fails<order>("   \n").code(), refwire::errc::truncated);
  EXPECT_EQ(fails<order>(R"({"items":[{"x":1)").code(), refwire::errc::truncated);
}

TEST(json_hostile, deep_nesting_over_the_limit) {
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += R"({"kids":[)";
  for (int i = 0; i < 200; ++i) deep += "]}";
  const refwire::error e = fails<tree>(deep);
  EXPECT_EQ(e.code(), refwire::errc::depth_limit);
  EXPECT_EQ(e.reason(), "nesting exceeds decode_options::max_depth");
  EXPECT_FALSE(fails<tree>(deep, {.max_depth = 1000}));
  std::string chain_text;
  for (int i = 0; i < 300; ++i) chain_text += R"({"v":1,"next":)";
  chain_text += "null";
  for (int i = 0; i < 300; ++i) chain_text += "}";
  EXPECT_EQ(fails<chain>(chain_text).code(), refwire::errc::depth_limit);
  // Deep arrays in a skipped value do not recurse: a clean error or a clean skip.
  for (int depth : {100, 5000, 100000}) {
    const std::string skipped = R"({"x":1,"unknown":)" + std::string(static_cast<std::size_t>(depth), '[') +
                                std::string(static_cast<std::size_t>(depth), ']') + "}";
    point p;
    const refwire::error se = decode(skipped, p);
    if (se) expect_well_formed(se, skipped.size());
    const std::string unbalanced = R"({"x":1,"unknown":)" + std::string(static_cast<std::size_t>(depth), '[') + "}";
    expect_well_formed(fails<point>(unbalanced), unbalanced.size());
  }
}

TEST(json_hostile, huge_and_malformed_numbers) {
  EXPECT_EQ(fails<point>(R"({"x":123456789012345678901234567890})").code(), refwire::errc::invalid_value);
  EXPECT_EQ(fails<point>(R"({"x":2147483648})").message(), "$.x: 2147483648 is out of range for i32, at offset 5 (line 1, column 6)");
  EXPECT_EQ(fails<point>(R"({"x":-2147483649})").code(), refwire::errc::invalid_value);
  point p;
  EXPECT_FALSE(decode(R"({"y":123456789012345678901234567890})", p));
  EXPECT_EQ(p.y, 123456789012345678901234567890.0);
  for (const char* bad : {"1e999", "-1e999", "01", "+1", "1.", ".5", "1e", "-", "NaN", "Infinity", "0x10", "1_000"}) {
    const std::string text = std::string(R"({"y":)") + bad + "}";
    const refwire::error e = fails<point>(text);
    EXPECT_TRUE(e) << bad;
    expect_well_formed(e, text.size());
  }
  EXPECT_EQ(fails<std::vector<std::int8_t>>("[1,2,300]").message(), "$[2]: 300 is out of range for i8, at offset 5 (line 1, column 6)");
  EXPECT_EQ(fails<std::vector<std::uint8_t>>("[1,-2]").message(), "$[1]: expected unsigned integer, got number, at offset 3 (line 1, column 4)");
  EXPECT_EQ(fails<std::vector<float>>("[1,1e39]").message(), "$[1]: 1e+39 is out of range for f32, at offset 3 (line 1, column 4)");
  EXPECT_EQ(fails<std::vector<double>>(R"([1,"2"])").message(), "$[1]: expected number, got string, at offset 3 (line 1, column 4)");
}

TEST(json_hostile, bad_strings_escapes_and_surrogates) {
  for (const char* bad : {R"("\x")", R"("\u12")", R"("\uZZZZ")", R"("\ud800")", R"("\udc00")", R"("\ud800\u0041")",
                          R"("abc)", "\"tab\there\"", "\"nl\nhere\"", R"('single')"}) {
    std::string out;
    const refwire::error e = decode(bad, out);
    EXPECT_TRUE(e) << bad;
    expect_well_formed(e, std::strlen(bad));
    EXPECT_TRUE(e.code() == refwire::errc::invalid_json || e.code() == refwire::errc::truncated) << bad << ": " << e.message();
  }
  std::string ok;
  EXPECT_FALSE(decode(R"("\ud83d\ude00")", ok));
  EXPECT_EQ(ok, "\xf0\x9f\x98\x80");
}

TEST(json_hostile, invalid_utf8_anywhere) {
  const std::string cases[] = {"{\"name\":\"a\xff\"}", "{\"na\xc3me\":1}", "{\"x\":1,\"u\":\"\xed\xa0\x80\"}",
                               "{\"x\":1} \xff", "{\"x\":1}\xef\xbb\xbf"};
  const std::size_t offsets[] = {10, 4, 12, 8, 7};
  for (std::size_t i = 0; i < 5; ++i) {
    const refwire::error e = fails<point>(cases[i]);
    // A byte-order mark after the value is trailing content (only a leading one is skipped).
    EXPECT_EQ(e.code(), i == 4 ? refwire::errc::trailing_bytes : refwire::errc::invalid_utf8) << cases[i] << ": " << e.message();
    EXPECT_EQ(e.offset(), offsets[i]) << cases[i];
  }
}

TEST(json_hostile, structural_garbage) {
  for (const char* bad : {"[1,2,]", R"({"x":1,})", R"({"x" 1})", R"({"x":1 "y":2})", R"({x:1})", "[1 2]", "{,}", "]",
                          "}", "{\"x\":1]", "[{]}", "nul", "tru", "falsey", "{\"x\":1}{", "{\"x\":1}]", "\"x\":1",
                          // Invalid JSON inside skipped (unknown) values is still an error.
                          R"({"x":1,"unknown": : , {"z": null}]})", R"({"u":[1,,2],"x":1})", R"({"u":{"a" 1},"x":1})",
                          R"({"u":tru,"x":1})", R"({"u":[1e999],"x":1})", R"({"u":"\q","x":1})"}) {
    const refwire::error e = fails<point>(bad);
    EXPECT_TRUE(e) << bad;
    expect_well_formed(e, std::strlen(bad));
  }
  EXPECT_EQ(fails<point>("[1]").message(), "$: expected object, got array, at offset 0 (line 1, column 1)");
  EXPECT_EQ(fails<point>("null").message(), "$: expected object, got null, at offset 0 (line 1, column 1)");
  EXPECT_EQ(fails<std::vector<point>>("[1]").message(), "$[0]: expected object, got number, at offset 1 (line 1, column 2)");
}

TEST(json_hostile, element_and_allocation_limits) {
  const std::string ints = "[" + std::string("1,", 0) + [] {
    std::string s;
    for (int i = 0; i < 1000; ++i) s += (i ? ",1" : "1");
    return s;
  }() + "]";
  EXPECT_EQ(fails<std::vector<std::int32_t>>(ints, {.max_elements = 999}).message(),
            "$: 1000 elements exceed the element limit (999 left of decode_options::max_elements), at offset 2001 (line 1, column 2002)");
  EXPECT_FALSE(fails<std::vector<std::int32_t>>(ints, {.max_elements = 1000}));
  EXPECT_EQ(fails<std::vector<std::int32_t>>(ints, {.max_alloc_bytes = 3999}).code(), refwire::errc::allocation_limit);
  const std::string strs = R"(["aaaaaaaaaa","bbbbbbbbbb"])";
  EXPECT_EQ(fails<std::vector<std::string>>(strs, {.max_alloc_bytes = 2 * sizeof(std::string) + 15}).code(),
            refwire::errc::allocation_limit);
  EXPECT_EQ(fails<std::vector<std::vector<int>>>("[[],[],[]]", {.max_elements = 2}).message(),
            "$: 1 element exceeds the element limit (0 left of decode_options::max_elements), at offset 7 (line 1, column 8)");
  using smap = std::map<std::string, int>;
  EXPECT_EQ(fails<smap>(R"({"a":1,"b":2})", {.max_elements = 1}).code(), refwire::errc::element_limit);
}

TEST(json_hostile, random_bytes_and_mutations) {
  std::mt19937_64 rng(12345);
  const std::string base = refwire::to_json(sample_order());
  const std::string alphabet = "{}[]:,\"\\ 0123456789-+.eEtrufalsn\x01\xff\xc3";
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    if (round % 2 == 0) {
      const std::size_t n = rng() % 64;
      for (std::size_t i = 0; i < n; ++i) s.push_back(alphabet[rng() % alphabet.size()]);
    } else {
      s = base;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < edits; ++k) {
        const std::size_t at = rng() % s.size();
        switch (rng() % 3) {
          case 0: s[at] = alphabet[rng() % alphabet.size()]; break;
          case 1: s.erase(at, 1); break;
          default: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        }
        if (s.empty()) s = "{";
      }
    }
    order o;
    const refwire::error e = decode(s, o);
    if (e) {
      expect_well_formed(e, s.size());
    } else {
      // Whatever decodes encodes and decodes again to the same text.
      const std::string again = refwire::to_json(o);
      order o2;
      ASSERT_FALSE(decode(again, o2)) << again;
      EXPECT_EQ(refwire::to_json(o2), again);
    }
  }
}

TEST(json_hostile, first_decode_on_a_new_thread) {
  // A failure at an object's first key or an array's first element, before
  // any value was current, in the thread's first decode.
  for (const char* bad : {R"({"x" 1})", R"({"x"1})", R"({1:2})", R"({"x":1 "y":2})", "[1 2]", R"([{"x" 1}])"}) {
    refwire::error e;
    std::thread([&] { e = fails<point>(bad); }).join();
    EXPECT_TRUE(e) << bad;
    expect_well_formed(e, std::strlen(bad));
    EXPECT_EQ(e.message(), fails<point>(bad).message()) << bad;
  }
}

TEST(json_hostile, keys_matched_in_place) {
  // Keys are first compared with the expected name as raw input bytes (16 at a time).
  point p;
  ASSERT_FALSE(decode(R"({"n\u0061me":"a","\u0078":2})", p));  // escaped keys still match
  EXPECT_EQ(p.name, "a");
  EXPECT_EQ(p.x, 2);
  EXPECT_EQ(fails<point>(R"({"name":"a","n\u0061me":"b"})").message(), R"($: duplicate field "name", at offset 24 (line 1, column 25))");
  EXPECT_EQ(fails<point>(R"({"x":1,"x":2})").message(), R"($: duplicate field "x", at offset 11 (line 1, column 12))");
  for (const char* unknown : {R"({"nam":1})", R"({"names":1})", R"({"name\"":1})", R"({"xx":1})", R"({"":1})"}) {
    EXPECT_EQ(fails<point>(unknown, {.reject_unknown_fields = true}).code(), refwire::errc::unknown_field) << unknown;
  }
  long_names l;
  ASSERT_FALSE(decode(R"({"x":3,"fifteen_letters":2,"a_field_name_of_sixteen":1})", l));
  EXPECT_EQ(l.a_field_name_of_sixteen, 1);
  EXPECT_EQ(l.fifteen_letters, 2);
  EXPECT_EQ(l.x, 3);
  EXPECT_EQ(fails<long_names>(R"({"fifteen_letterz":2})", {.reject_unknown_fields = true}).message(),
            R"($: unknown field "fifteen_letterz", at offset 19 (line 1, column 20))");
  // Every truncation of a document whose keys end at the end of the input.
  const std::string text = R"({"fifteen_letters":1,"a_field_name_of_sixteen":2,"x":3})";
  for (std::size_t n = 0; n < text.size(); ++n) expect_well_formed(fails<long_names>(text.substr(0, n)), n);
}

TEST(json_hostile, plain_numbers_read_in_place) {
  // Plain numbers are parsed from the input; the rest (exponents, more digits) by simdjson. Both must agree.
  const char* doubles[] = {"0", "-0", "-0.0", "0.1", "1.5", "-81.25363146075541", "6885253.279680922",
                           "9007199254740992", "9007199254740993", "900719925474099.3", "0.0000000000000000000001",
                           "0.00000000000000000000001", "1234567890123456789", "12345678901234567890", "1.7976931348623157",
                           "4.9e-324", "1e22", "123.456e2", "3.141592653589793238462643383279"};
  for (const char* text : doubles) {
    point p;
    const std::string doc = std::string(R"({"y":)") + text + "}";
    ASSERT_FALSE(decode(doc, p)) << text;
    EXPECT_EQ(p.y, std::strtod(text, nullptr)) << text;
    EXPECT_EQ(std::signbit(p.y), text[0] == '-') << text;
  }
  numbers n;
  ASSERT_FALSE(decode(R"({"i":-999999999999999999,"u":18446744073709551615,"d":2,"a":[ 1 , -2,3 ],"nested":[[],[9],[1,2]],"s":"t"})", n));
  EXPECT_EQ(n.i, -999999999999999999);
  EXPECT_EQ(n.u, 18446744073709551615ULL);
  EXPECT_EQ(n.a, (std::vector<std::int32_t>{1, -2, 3}));
  EXPECT_EQ(n.nested, (std::vector<std::vector<std::int64_t>>{{}, {9}, {1, 2}}));
  EXPECT_EQ(n.s, "t");
  ASSERT_FALSE(decode(R"({"i":-9223372036854775808,"u":0,"nested":[[-9223372036854775807,123456789012345678]],"s":"u"})", n));
  EXPECT_EQ(n.i, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(n.nested, (std::vector<std::vector<std::int64_t>>{{-9223372036854775807, 123456789012345678}}));
  EXPECT_EQ(n.s, "u");
  // Malformed numbers and arrays: the same errors, whichever path finds them.
  EXPECT_EQ(fails<numbers>(R"({"i":01})").message(), R"($.i: invalid number "01": leading zeros are not allowed, at offset 5 (line 1, column 6))");
  EXPECT_EQ(fails<numbers>(R"({"i":1.5})").message(), "$.i: expected integer, got number, at offset 5 (line 1, column 6)");
  EXPECT_EQ(fails<numbers>(R"({"u":-1})").message(), "$.u: expected unsigned integer, got number, at offset 5 (line 1, column 6)");
  EXPECT_EQ(fails<numbers>(R"({"d":1.5x})").message(), R"($.d: invalid number "1.5x": unexpected 'x' after the number, at offset 5 (line 1, column 6))");
  EXPECT_EQ(fails<numbers>(R"({"d":1.})").message(), R"($.d: invalid number "1.": expected a digit after '.', at offset 5 (line 1, column 6))");
  EXPECT_EQ(fails<numbers>(R"({"a":[1,2]:3})").code(), refwire::errc::invalid_json);
  EXPECT_EQ(fails<numbers>(R"({"a":[1,2],,"s":"x"})").code(), refwire::errc::invalid_json);
  EXPECT_EQ(fails<numbers>(R"({"nested":[[1],2]})").message(), "$.nested[1]: expected array, got number, at offset 15 (line 1, column 16)");
  for (const char* bad : {R"({"a":[1,2]])", R"({"a":[1,2})", R"({"a":[1,,2]})", R"({"a":[1 2]})", R"({"a":[-]})",
                          R"({"nested":[[1,2]]]})", R"({"nested":[[1,2],[3]})"}) {
    const refwire::error e = fails<numbers>(bad);
    EXPECT_TRUE(e) << bad;
    expect_well_formed(e, std::strlen(bad));
  }
}

TEST(json_hostile, strings_read_in_place) {
  // Strings without escapes are returned from the input; with escapes, unescaped by simdjson.
  for (const std::string& text : {std::string(""), std::string("a"), std::string(15, 'b'), std::string(16, 'c'),
                                 std::string(17, 'd'), std::string(100, 'e') + R"(\u00e9)", std::string(16, 'f') + R"(\\)",
                                 R"(\")" + std::string(31, 'g'), std::string(R"(\u00e9\u20ac)"), std::string("\xc3\xa9")}) {
    point p;
    const std::string doc = R"({"name":")" + text + R"(","x":1})";
    ASSERT_FALSE(decode(doc, p)) << doc;
    std::string expected;
    const refwire::error e = decode("\"" + text + "\"", expected);
    ASSERT_FALSE(e) << e.message();
    EXPECT_EQ(p.name, expected);
    EXPECT_EQ(p.x, 1);
  }
  EXPECT_EQ(fails<point>(R"({"name":"a\qb"})").message(),
            R"($.name: invalid escape \q (expected one of \" \\ \/ \b \f \n \r \t \uXXXX), at offset 10 (line 1, column 11))");
  EXPECT_EQ(fails<point>(R"({"name":"ab":"c"})").code(), refwire::errc::invalid_json);
  EXPECT_EQ(fails<point>("{\"name\":\"a\x01\"}").code(), refwire::errc::invalid_json);
}
