// raw_json and json_value (json_value.hpp): JSON read and write (exact text),
// binary and protobuf as compact JSON text (golden bytes), accessors, round
// trips compared field by field, and hostile input with exact codes,
// messages, paths and offsets under decode_options limits.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using refwire::json_value;
using refwire::raw_json;

struct event {
  std::string kind;
  raw_json payload;
  json_value meta;
};
BOOST_DESCRIBE_STRUCT(event, (), (kind, payload, meta))

template <class T>
refwire::error decode(std::string_view text, T& out, const refwire::decode_options& o = {}) {
  std::unique_ptr<char[]> copy(new char[text.size() == 0 ? 1 : text.size()]);  // exact size: ASan sees overreads
  if (!text.empty()) std::memcpy(copy.get(), text.data(), text.size());
  return refwire::deserialize<refwire::json>(std::string_view(copy.get(), text.size()), out, o);
}

template <class T>
std::string error_of(std::string_view text, const refwire::decode_options& o = {}) {
  T out{};
  const refwire::error e = decode(text, out, o);
  return e ? e.message() : "ok";
}

template <class F, class T>
std::string wire_error_of(const std::vector<std::byte>& bytes, const refwire::decode_options& o = {}) {
  T out{};
  const refwire::error e = refwire::deserialize<F>(bytes, out, o);
  return e ? e.message() : "ok";
}

std::string bin_value_error(const std::vector<std::byte>& b, const refwire::decode_options& o = {}) {
  return wire_error_of<refwire::binary, json_value>(b, o);
}
std::string bin_raw_error(const std::vector<std::byte>& b, const refwire::decode_options& o = {}) {
  return wire_error_of<refwire::binary, raw_json>(b, o);
}
std::string bin_event_error(const std::vector<std::byte>& b) { return wire_error_of<refwire::binary, event>(b); }

std::string hex(const std::vector<std::byte>& b) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  for (std::byte x : b) {
    s += digits[std::to_integer<unsigned>(x) >> 4];
    s += digits[std::to_integer<unsigned>(x) & 15];
  }
  return s;
}

template <class Body>
std::string encode_error_of(Body&& body) {
  try {
    body();
  } catch (const refwire::encode_error& e) {
    return e.what();
  }
  return "(encoded)";
}

event sample() {
  event e;
  e.kind = "k";
  e.payload.text = R"({"a": [1, 2.50, "x"]})";
  e.meta = json_value::object({{"n", 1}, {"list", json_value::array({true, nullptr, "s", 1.5})}, {"big", json_value::number("12345678901234567890123")}});
  return e;
}

void expect_same(const event& a, const event& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.payload, b.payload);
  EXPECT_EQ(a.meta, b.meta);
}

}  // namespace

// -------------------------------------------------------------------- raw_json

TEST(json_raw, kept_exactly_and_written_verbatim) {
  event e;
  ASSERT_FALSE(decode(R"({"kind":"k","payload" :  {"a": [1, 2.50, "\u0078"]}  ,"meta":null})", e));
  EXPECT_EQ(e.payload.text, R"({"a": [1, 2.50, "\u0078"]})");
  EXPECT_EQ(refwire::to_json(e), R"({"kind":"k","payload":{"a": [1, 2.50, "\u0078"]},"meta":null})");
  EXPECT_EQ(refwire::from_json<raw_json>(" 12.0e3 ").text, "12.0e3");
  // Every kind of value in a field, numbers read in place included.
  for (const char* text : {"2", "-0.5e-3", "true", "false", "null", R"("a\"b")", "[]", "{}", R"([1,{"x":[2]}])"}) {
    event f;
    ASSERT_FALSE(decode(std::string(R"({"payload": )") + text + R"( ,"kind":"k"})", f)) << text;
    EXPECT_EQ(f.payload.text, text);
    ASSERT_FALSE(decode(std::string(R"({"payload":)") + text + "}", f)) << text;
    EXPECT_EQ(f.payload.text, text);
  }
  EXPECT_EQ(refwire::from_json<raw_json>(R"("s")").text, R"("s")");
  EXPECT_EQ(refwire::from_json<raw_json>("null").text, "null");
  EXPECT_EQ(refwire::to_json(raw_json{}), "null");  // empty text is null
  EXPECT_EQ(refwire::to_json(raw_json{"[1, 2]"}, {.pretty = true}), "[1, 2]");
}

TEST(json_raw, invalid_text_is_an_encode_error) {
  event e;
  e.payload.text = "{\"a\":";
  EXPECT_EQ(encode_error_of([&] { (void)refwire::to_json(e); }),
            "$.payload: raw_json is not valid JSON: unterminated object or array (at index 5)");
  e.payload.text = "[1, tru]";
  EXPECT_EQ(encode_error_of([&] { (void)refwire::to_json(e); }),
            R"($.payload: raw_json is not valid JSON: invalid literal "tru" (expected true) (at index 4 $[1]))");
  e.payload.text = "\xEF\xBB\xBF" "1";  // a document may start with a byte-order mark, a value may not
  EXPECT_EQ(encode_error_of([&] { (void)refwire::to_json(e); }),
            "$.payload: raw_json is not valid JSON: a byte-order mark before the value (at index 0)");
  EXPECT_EQ(bin_raw_error(refwire::serialize(std::string("\xEF\xBB\xBF" "1"))),
            "$: raw_json is not valid JSON: a byte-order mark before the value (at index 0), at offset 0");
  e.payload.text = "false'";  // a root literal with one byte more (found by fuzz_json_value)
  EXPECT_EQ(encode_error_of([&] { (void)refwire::to_json(e); }),
            R"($.payload: raw_json is not valid JSON: invalid literal "false'" (expected false) (at index 0))");
  EXPECT_EQ(bin_raw_error(refwire::serialize(std::string("false'"))),
            R"($: raw_json is not valid JSON: invalid literal "false'" (expected false) (at index 0), at offset 0)");
  e.payload.text = "\n\nnull5\n";  // the same for null (found by fuzz_json_value)
  EXPECT_EQ(encode_error_of([&] { (void)refwire::to_json(e); }),
            R"($.payload: raw_json is not valid JSON: invalid literal "null5" (expected null) (at index 2))");
  EXPECT_EQ(bin_raw_error(refwire::serialize(std::string("null5"))),
            R"($: raw_json is not valid JSON: invalid literal (expected null) (at index 0), at offset 0)");
  e.payload.text = "1 2";
  EXPECT_EQ(encode_error_of([&] { (void)refwire::to_json(e); }),
            "$.payload: raw_json is not valid JSON: trailing content after the value (at index 0)");
}

TEST(json_raw, hostile_input) {
  EXPECT_EQ(error_of<event>(R"({"payload":[1,tru]})"),
            R"($.payload[1]: invalid literal "tru" (expected true), at offset 14 (line 1, column 15))");
  EXPECT_EQ(error_of<event>(R"({"payload":[[[1]]]})", {.max_depth = 3}),
            "$.payload[0][0]: nesting exceeds decode_options::max_depth, at offset 13 (line 1, column 14)");
  EXPECT_EQ(error_of<event>(R"({"payload":"abcdef"})", {.max_alloc_bytes = 4}),
            "$.payload: allocating 8 bytes exceeds the allocation limit (4 left of decode_options::max_alloc_bytes), "
            "at offset 19 (line 1, column 20)");
}

// ------------------------------------------------------------------ json_value

TEST(json_value_type, accessors) {
  const json_value v = json_value::parse(R"({"id": 7, "tags": ["a", "b"], "x": 1.5, "u": 18446744073709551615, "e": 1e2})");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.size(), 5u);
  EXPECT_EQ(v.find("id")->as_int64(), 7);
  EXPECT_EQ(v.find("tags")->at(1).as_string(), "b");
  EXPECT_EQ((*v.find("tags"))[0].as_string(), "a");
  EXPECT_EQ(v.find("x")->as_double(), 1.5);
  EXPECT_EQ(v.find("u")->as_uint64(), 18446744073709551615ULL);
  EXPECT_EQ(v.find("e")->as_int64(), 100);
  EXPECT_EQ(v.find("missing"), nullptr);
  EXPECT_EQ(v.as_object()[1].first, "tags");
  auto what = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const std::exception& e) {
      return e.what();
    }
    return "(no exception)";
  };
  EXPECT_EQ(what([&] { (void)v.find("x")->as_int64(); }), "json_value: 1.5 is not an int64");
  EXPECT_EQ(what([&] { (void)v.find("u")->as_int64(); }), "json_value: 18446744073709551615 is not an int64");
  EXPECT_EQ(what([&] { (void)json_value(-1).as_uint64(); }), "json_value: -1 is not a uint64");
  EXPECT_EQ(what([&] { (void)json_value::number("1e400"); }), R"(json_value: "1e400" is out of range for a double)");
  EXPECT_EQ(json_value::number("12345678901234567890123").as_double(), 1.2345678901234567e22);
  EXPECT_EQ(what([&] { (void)v.find("tags")->as_int64(); }), "json_value: expected number, got array");
  EXPECT_EQ(what([&] { (void)v.find("tags")->at(2); }), "json_value: index 2 past the end (size 2)");
  EXPECT_EQ(what([&] { (void)json_value(true).size(); }), "json_value: expected array or object, got bool");
  EXPECT_EQ(what([&] { (void)json_value::number("01"); }), R"(json_value: "01" is not a JSON number)");
  EXPECT_EQ(what([&] { (void)json_value(std::string("\xff")); }), "json_value: a string is not valid UTF-8");
  EXPECT_EQ(what([&] { (void)json_value::object({{"a", 1}, {"a", 2}}); }), R"(json_value: duplicate key "a")");
  EXPECT_EQ(what([&] { (void)json_value(std::numeric_limits<double>::infinity()); }),
            "json_value: NaN and infinity have no JSON form");
  json_value a = json_value::array();
  a.push_back(1);
  a.push_back("two");
  EXPECT_EQ(refwire::to_json(a), R"([1,"two"])");
  EXPECT_EQ(json_value(-3).number_text(), "-3");
  EXPECT_NE(json_value::number("1.0"), json_value(1));  // numbers compare by text
}

TEST(json_value_type, exact_text_and_round_trip) {
  const event e = sample();
  const std::string text = refwire::to_json(e);
  EXPECT_EQ(text, R"({"kind":"k","payload":{"a": [1, 2.50, "x"]},"meta":{"n":1,"list":[true,null,"s",1.5],"big":12345678901234567890123}})");
  expect_same(refwire::from_json<event>(text), e);
  EXPECT_EQ(refwire::to_json(e.meta, {.pretty = true}),
            "{\n  \"n\": 1,\n  \"list\": [\n    true,\n    null,\n    \"s\",\n    1.5\n  ],\n  \"big\": 12345678901234567890123\n}");
  expect_same(refwire::from_json<event>(refwire::to_json(e, {.pretty = true})), e);
  // Members keep the input's order; numbers keep their text.
  const json_value v = refwire::from_json<json_value>(R"({"z":1.50,"a":-0,"m":{}, "e":[]})");
  EXPECT_EQ(refwire::to_json(v), R"({"z":1.50,"a":-0,"m":{},"e":[]})");
}

TEST(json_value_type, binary_and_protobuf_carry_compact_text) {
  const event e = sample();
  const std::vector<std::byte> b = refwire::serialize(e);
  // "k", then the raw text, then the compact text of meta: each a varint length and the bytes.
  EXPECT_EQ(hex(b),
            "016b"
            "157b2261223a205b312c20322e35302c202278225d7d"
            "407b226e223a312c226c697374223a5b747275652c6e756c6c2c2273222c312e355d2c22626967223a"
            "31323334353637383930313233343536373839303132337d");
  expect_same(refwire::deserialize<event>(b), e);
  const std::vector<std::byte> p = refwire::serialize<refwire::protobuf>(e);
  EXPECT_EQ(hex(p),
            "0a016b"
            "12157b2261223a205b312c20322e35302c202278225d7d"
            "1a407b226e223a312c226c697374223a5b747275652c6e756c6c2c2273222c312e355d2c22626967223a"
            "31323334353637383930313233343536373839303132337d");
  expect_same(refwire::deserialize<event, refwire::protobuf>(p), e);
  EXPECT_NE(refwire::proto_schema<event>("t").find("string meta = 3;"), std::string::npos)
      << refwire::proto_schema<event>("t");
}

TEST(json_value_type, hostile_json) {
  EXPECT_EQ(error_of<json_value>(R"({"a":1,"b":2,"a":3})"),
            R"($: duplicate key "a", at offset 17 (line 1, column 18))");
  EXPECT_EQ(error_of<event>(R"({"meta":{"x":[1,{"y":tru}]}})"),
            R"($.meta.x[1].y: invalid literal "tru" (expected true), at offset 21 (line 1, column 22))");
  EXPECT_EQ(error_of<json_value>("[[[[1]]]]", {.max_depth = 3}),
            "$[0][0][0]: nesting exceeds decode_options::max_depth, at offset 3 (line 1, column 4)");
  EXPECT_EQ(error_of<json_value>("[1,2,3,4]", {.max_elements = 3}),
            "$: 1 element exceeds the element limit (0 left of decode_options::max_elements), at offset 7 (line 1, "
            "column 8)");
  EXPECT_EQ(error_of<json_value>(R"("abcdefgh")", {.max_alloc_bytes = 4}),
            "$: allocating 8 bytes exceeds the allocation limit (4 left of decode_options::max_alloc_bytes), at "
            "offset 10 (line 1, column 11)");
  // Deep nesting stops at the default limit, never the stack.
  const std::string deep = std::string(1000, '[') + std::string(1000, ']');
  EXPECT_EQ(refwire::from_json<raw_json>("[1]").text, "[1]");
  json_value v;
  const refwire::error e = decode(deep, v);
  EXPECT_EQ(e.code(), refwire::errc::depth_limit) << e.message();
  // A huge array is bounded by max_elements.
  std::string many = "[";
  for (int i = 0; i < 1000; ++i) many += "0,";
  many += "0]";
  EXPECT_EQ(error_of<json_value>(many, {.max_elements = 999}),
            "$: 1 element exceeds the element limit (0 left of decode_options::max_elements), at offset 1999 (line 1, "
            "column 2000)");
}

TEST(json_value_type, hostile_binary_and_protobuf) {
  auto text_bytes = [](std::string_view prefix_hex_free, std::string_view text) {
    std::vector<std::byte> b;
    (void)prefix_hex_free;
    b.push_back(static_cast<std::byte>(text.size()));
    for (char c : text) b.push_back(static_cast<std::byte>(c));
    return b;
  };
  EXPECT_EQ(bin_value_error(text_bytes("", "[1,")),
            "$: json_value is not valid JSON: unterminated object or array (at index 3), at offset 0");
  EXPECT_EQ(bin_raw_error(text_bytes("", "{\"a\" 1}")),
            "$: raw_json is not valid JSON: invalid JSON structure (at index 5), at offset 0");
  EXPECT_EQ(bin_value_error(text_bytes("", "[[[1]]]"), {.max_depth = 2}),
            "$: nesting exceeds decode_options::max_depth, at offset 0");
  EXPECT_EQ(bin_value_error(text_bytes("", "[1,2,3]"), {.max_elements = 2}),
            "$: 1 element exceeds the element limit (0 left of decode_options::max_elements), at offset 0");
  EXPECT_EQ(bin_value_error(text_bytes("", "{\"a\":1,\"a\":2}")),
            "$: json_value is not valid JSON: duplicate key \"a\" (at index 11), at offset 0");
  std::vector<std::byte> e = refwire::serialize(sample());
  e[e.size() - 40] = std::byte{'X'};  // the comma after meta's null
  EXPECT_EQ(bin_event_error(e),
            "$.meta: json_value is not valid JSON: invalid literal \"nullX\" (expected null) (at index 20 $.list[1]), "
            "at offset 24");
}
