// The JSON format (json.hpp): round trips of every shape compared field by
// field, the conventions, options, errors, and interop with nlohmann-json.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../common/field_eq.hpp"
#include "../common/legacy_money.hpp"
#include "../common/types.hpp"
#include "../common/values.hpp"

using namespace shapes;
using testing_support::expect_fields_eq;

namespace {

/// Encodes, decodes, and checks that re-encoding gives the same text
/// (unordered containers aside).
template <class T>
T round_trip(const T& v, bool canonical = true) {
  const std::string text = refwire::to_json(v);
  T out{};
  const refwire::error e = refwire::deserialize<refwire::json>(text, out);
  EXPECT_FALSE(e) << e.message() << "\n" << text;
  if (canonical) {
    EXPECT_EQ(refwire::to_json(out), text) << "re-encoding differs";
  }
  // Pretty text decodes to the same value.
  const std::string pretty = refwire::to_json(v, {.pretty = true});
  T out2{};
  const refwire::error e2 = refwire::deserialize<refwire::json>(pretty, out2);
  EXPECT_FALSE(e2) << e2.message() << "\n" << pretty;
  if (canonical) {
    EXPECT_EQ(refwire::to_json(out2), text) << "pretty decodes differently";
  }
  // nlohmann-json accepts the text.
  EXPECT_TRUE(nlohmann::json::accept(text)) << text;
  return out;
}

template <class T>
refwire::error decode(std::string_view text, T& out, const refwire::decode_options& o = {}) {
  // An exact-size heap copy: ASan sees any read past the caller's bytes.
  std::unique_ptr<char[]> copy(new char[text.size() == 0 ? 1 : text.size()]);
  if (!text.empty()) std::memcpy(copy.get(), text.data(), text.size());
  return refwire::deserialize<refwire::json>(std::string_view(copy.get(), text.size()), out, o);
}

template <class T>
std::string error_of(std::string_view text, const refwire::decode_options& o = {}) {
  T out{};
  const refwire::error e = decode(text, out, o);
  return e ? e.message() : "ok";
}

}  // namespace

// ------------------------------------------------------------- round trips

TEST(json_round_trip, inheritance_flattens_base_fields) {
  derived d;
  d.id = 7;
  d.tag = "base two";
  d.value = 1.5;
  expect_fields_eq(round_trip(d), d);
  EXPECT_EQ(refwire::to_json(d), R"({"id":7,"tag":"base two","value":1.5})");
}

TEST(json_round_trip, described_class_with_private_members) {
  const account a("ada", -123456789);
  const account back = round_trip(a);
  EXPECT_EQ(back, a);
  EXPECT_EQ(refwire::to_json(a), R"({"owner_":"ada","cents_":-123456789})");
}

TEST(json_round_trip, recursive_type) {
  node n;
  n.value = 1;
  n.kids.resize(2);
  n.kids[0].value = 2;
  n.kids[1].kids.resize(1);
  n.kids[1].kids[0].value = 3;
  n.next = std::make_unique<node>();
  n.next->value = 4;
  EXPECT_EQ(round_trip(n), n);
  EXPECT_EQ(refwire::to_json(n),
            R"({"value":1,"kids":[{"value":2,"kids":[],"next":null},{"value":0,"kids":[{"value":3,"kids":[],"next":null}],"next":null}],"next":{"value":4,"kids":[],"next":null}})");
}

TEST(json_round_trip, empty_struct) {
  EXPECT_EQ(refwire::to_json(empty{}), "{}");
  EXPECT_EQ(refwire::from_json<empty>(" { } "), empty{});
  EXPECT_EQ(refwire::from_json<empty>(R"({"extra":[1,{"a":2}]})"), empty{});
}

TEST(json_round_trip, codec_surrogate) {
  legacy::wallet w{"bob", legacy::money(250), {legacy::money(1), legacy::money(2)}};
  EXPECT_EQ(refwire::to_json(w), R"({"owner":"bob","balance":250,"history":[1,2]})");
  const auto back = round_trip(w);
  EXPECT_EQ(back.balance, w.balance);
  EXPECT_EQ(back.history, w.history);
  EXPECT_EQ(error_of<legacy::wallet>(R"({"owner":"x","balance":-1})"),
            "$.balance: money cannot be negative, at offset 23 (line 1, column 24)");
}

TEST(json_round_trip, attributes_rename_and_skip) {
  with_attrs a;
  a.keep = 1;
  a.cache = "not written";
  a.after = 2;
  EXPECT_EQ(refwire::to_json(a), R"({"keep":1,"later":2})");
  with_attrs into;
  into.cache = "kept";
  ASSERT_FALSE(decode(R"({"keep":1,"later":2,"cache":"ignored"})", into));
  EXPECT_EQ(into.keep, 1);
  EXPECT_EQ(into.after, 2);
  EXPECT_EQ(into.cache, "kept");
  // The C++ name of a renamed field is an unknown key.
  EXPECT_EQ(error_of<with_attrs>(R"({"after":3})", {.reject_unknown_fields = true}),
            R"($: unknown field "after", at offset 9 (line 1, column 10))");
}

TEST(json_round_trip, top_level_shapes) {
  EXPECT_EQ(round_trip(std::int32_t{-5}), -5);
  EXPECT_EQ(round_trip(std::string("a\"b")), "a\"b");
  EXPECT_EQ(round_trip(std::vector<std::int32_t>{1, 2, 3}), (std::vector<std::int32_t>{1, 2, 3}));
  EXPECT_EQ(round_trip(std::optional<std::int32_t>{}), std::nullopt);
  EXPECT_EQ(round_trip(true), true);
  EXPECT_EQ(round_trip(2.5), 2.5);
  EXPECT_EQ(refwire::to_json(std::map<std::string, int>{{"a", 1}}), R"({"a":1})");
}

// -------------------------------------------------------------- conventions

TEST(json_conventions, exact_text) {
  shapes::convention c = shapes::sample_convention();
  EXPECT_EQ(refwire::to_json(c), shapes::sample_convention_text);
  const auto back = refwire::from_json<shapes::convention>(shapes::sample_convention_text);
  EXPECT_EQ(refwire::to_json(back), shapes::sample_convention_text);
}

TEST(json_conventions, enums) {
  EXPECT_EQ(refwire::to_json(color::blue), R"("blue")");
  EXPECT_EQ(refwire::to_json(static_cast<color>(7)), "7");  // no name: the number
  EXPECT_EQ(refwire::from_json<color>(R"("green")"), color::green);
  EXPECT_EQ(refwire::from_json<color>("200"), color::blue);
  EXPECT_EQ(refwire::to_json(pe_b), "1099511627776");
  EXPECT_EQ(error_of<color>(R"("purple")"), R"($: invalid enum name "purple", at offset 0 (line 1, column 1))");
  EXPECT_EQ(error_of<color>("256"), "$: 256 is out of range for u8, at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<color>("true"), "$: expected enum name or number, got bool, at offset 0 (line 1, column 1)");
}

TEST(json_conventions, uuid_timestamps_durations_blobs) {
  wrappers w;
  w.id = refwire::uuid::from_string("123e4567-e89b-12d3-a456-426614174000");
  w.when = refwire::timestamp(std::chrono::nanoseconds(1'796'118'449'123'456'789LL));
  w.ms = std::chrono::milliseconds(1234);
  const std::string text = refwire::to_json(w);
  EXPECT_NE(text.find(R"("id":"123e4567-e89b-12d3-a456-426614174000")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("when":"2026-12-01T09:47:29.123456789Z")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("ms":1234)"), std::string::npos) << text;  // milliseconds, in its own unit
  EXPECT_NE(text.find(R"("when_s":"1970-01-01T00:00:00.000000000Z")"), std::string::npos) << text;
  EXPECT_EQ(refwire::to_json(std::vector<std::byte>{}), R"("")");
  EXPECT_EQ(refwire::to_json(std::vector<std::byte>{std::byte{'f'}}), R"("Zg==")");
  EXPECT_EQ(refwire::to_json(std::vector<std::byte>{std::byte{'f'}, std::byte{'o'}}), R"("Zm8=")");
  EXPECT_EQ(refwire::to_json(std::vector<std::byte>{std::byte{'f'}, std::byte{'o'}, std::byte{'o'}}), R"("Zm9v")");
  EXPECT_EQ(refwire::from_json<std::vector<std::byte>>(R"("Zm9vYg==")").size(), 4u);
}

TEST(json_conventions, timestamp_offsets_and_fractions) {
  using refwire::timestamp;
  auto at = [](std::string_view s) {
    return refwire::from_json<timestamp>("\"" + std::string(s) + "\"").time_since_epoch().count();
  };
  EXPECT_EQ(at("2026-12-01T09:47:29.123456789Z"), 1'796'118'449'123'456'789LL);
  EXPECT_EQ(at("2026-12-01T10:47:29.123456789+01:00"), 1'796'118'449'123'456'789LL);
  EXPECT_EQ(at("2026-12-01T04:17:29.123456789-05:30"), 1'796'118'449'123'456'789LL);
  EXPECT_EQ(at("2026-12-01t09:47:29z"), 1'796'118'449'000'000'000LL);
  EXPECT_EQ(at("2026-12-01T09:47:29.1Z"), 1'796'118'449'100'000'000LL);
  EXPECT_EQ(at("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(at("1969-12-31T23:59:59.999999999Z"), -1);
  EXPECT_EQ(at("2024-02-29T00:00:00Z"), 1'709'164'800'000'000'000LL);
  for (const char* bad : {"2026-12-01", "2026-12-01T09:47:29", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z",
                          "2026-12-01T24:00:00Z", "2026-12-01T09:47:29.Z", "2026-12-01T09:47:29.1234567891Z",
                          "2026-12-01T09:47:29+0100", "2026-12-01T09:47:29Zx", "2300-01-01T00:00:00Z", "x"}) {
    refwire::timestamp t;
    const refwire::error e = decode("\"" + std::string(bad) + "\"", t);
    EXPECT_EQ(e.code(), refwire::errc::invalid_value) << bad;
  }
  EXPECT_EQ(error_of<refwire::timestamp>(R"("2026-12-01")"),
            R"($: invalid RFC 3339 timestamp "2026-12-01" (missing the time: expected 'T' and HH:MM:SS after the date), at offset 11 (line 1, column 12))");
}

TEST(json_conventions, coarse_durations_and_timestamps_reject_lost_precision) {
  // A duration is a count of its own period in JSON: no precision to lose.
  EXPECT_EQ(error_of<std::chrono::milliseconds>("1.5"),
            "$: expected integer, got number, at offset 0 (line 1, column 1)");
  EXPECT_EQ(refwire::from_json<std::chrono::milliseconds>("3"), std::chrono::milliseconds(3));
  using sec_tp = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>;
  EXPECT_EQ(refwire::from_json<sec_tp>(R"("1970-01-01T00:00:10Z")").time_since_epoch().count(), 10);
  EXPECT_EQ(error_of<sec_tp>(R"("1970-01-01T00:00:10.5Z")"),
            "$: 10500000000 ns is not a whole number of the field's duration unit (1000000000 ns), at offset 0 (line 1, column 1)");
}

TEST(json_conventions, base64_is_strict) {
  for (const char* bad : {"Zg=", "Zg", "Zh==", "Zm9=", "Z===", "Zm9v\\n", "Zm 9", "Zm9v====", "====", "Zg==Zg=="}) {
    std::vector<std::byte> out;
    const refwire::error e = decode("\"" + std::string(bad) + "\"", out);
    EXPECT_EQ(e.code(), refwire::errc::invalid_value) << bad;
  }
}

TEST(json_conventions, maps) {
  EXPECT_EQ(refwire::to_json(std::map<std::int32_t, std::string>{{-1, "a"}, {7, "b"}}), R"({"-1":"a","7":"b"})");
  EXPECT_EQ(refwire::to_json(std::map<color, int>{{color::red, 1}, {color::blue, 2}}), R"({"red":1,"blue":2})");
  EXPECT_EQ(refwire::to_json(std::map<refwire::uuid, int>{{refwire::uuid{}, 1}}),
            R"([["00000000-0000-0000-0000-000000000000",1]])");
  EXPECT_EQ(refwire::to_json(std::map<inner, int>{{inner{1, "x"}, 2}}), R"([[{"a":1,"s":"x"},2]])");
  using imap = std::map<std::uint8_t, int>;
  EXPECT_EQ(refwire::from_json<imap>(R"({"255":1,"0":2})"), (imap{{255, 1}, {0, 2}}));
  EXPECT_EQ(error_of<imap>(R"({"256":1})"), R"($: invalid integer map key "256", at offset 0 (line 1, column 1))");
  EXPECT_EQ(error_of<imap>(R"({" 1":1})"), R"($: invalid integer map key " 1", at offset 0 (line 1, column 1))");
  EXPECT_EQ(error_of<imap>(R"({"1":1,"1":2})"), R"($["1"]: duplicate map key, at offset 11 (line 1, column 12))");
  using umap = std::map<refwire::uuid, int>;
  EXPECT_EQ(error_of<umap>(R"([["00000000-0000-0000-0000-000000000000",1],["00000000-0000-0000-0000-000000000000",2]])"),
            "$[1]: duplicate map key, at offset 44 (line 1, column 45)");
  EXPECT_EQ(error_of<umap>(R"([["00000000-0000-0000-0000-000000000000"]])"),
            "$[0]: map entry [key, value] needs 2 elements, got 1, at offset 41 (line 1, column 42)");
  EXPECT_EQ(error_of<std::set<int>>("[1,2,1]"), "$[2]: duplicate set element, at offset 5 (line 1, column 6)");
}

TEST(json_conventions, variants) {
  std::variant<std::int32_t, std::string> v = std::string("x");
  EXPECT_EQ(refwire::to_json(v), R"({"1":"x"})");
  using V = std::variant<std::int32_t, std::string>;
  EXPECT_EQ(std::get<0>(refwire::from_json<V>(R"({"0":5})")), 5);
  EXPECT_EQ(error_of<V>("{}"), "$: a variant is an object with one key, got {}, at offset 2 (line 1, column 3)");
  EXPECT_EQ(error_of<V>(R"({"2":1})"), R"($: invalid variant index (2 alternatives) "2", at offset 0 (line 1, column 1))");
  EXPECT_EQ(error_of<V>(R"({"0":1,"1":"x"})"), "$: a variant is an object with one key, got a second, at offset 11 (line 1, column 12)");
  EXPECT_EQ(error_of<V>(R"({"0":"x"})"), "$[0]: expected integer, got string, at offset 5 (line 1, column 6)");
  std::variant<std::monostate, double> m;
  EXPECT_EQ(refwire::to_json(m), R"({"0":{}})");
}

TEST(json_conventions, null_wrappers_and_fixed_arrays) {
  EXPECT_EQ(refwire::to_json(std::unique_ptr<int>()), "null");
  EXPECT_EQ(*refwire::from_json<std::unique_ptr<int>>("5"), 5);
  EXPECT_EQ((error_of<std::array<int, 2>>("[1]")), "$: array needs 2 elements, got 1, at offset 3 (line 1, column 4)");
  EXPECT_EQ((error_of<std::array<int, 2>>("[1,2,3]")), "$: array needs 2 elements, got more, at offset 5 (line 1, column 6)");
  EXPECT_EQ((error_of<std::tuple<int, bool>>("[1]")), "$: tuple needs 2 elements, got 1, at offset 3 (line 1, column 4)");
  EXPECT_EQ((error_of<std::tuple<int, bool>>("[1,true,2]")), "$: tuple needs 2 elements, got more, at offset 8 (line 1, column 9)");
  EXPECT_EQ(refwire::to_json(std::pair<int, std::string>{1, "a"}), R"([1,"a"])");
}

TEST(json_conventions, strings_escape_and_pass_utf8) {
  std::string s = "q\" b\\ n\n t\t c\x01 d\x7f u\xc3\xbc e\xe2\x82\xac g\xf0\x9f\x98\x80";
  s.push_back('\0');
  EXPECT_EQ(refwire::to_json(s), "\"q\\\" b\\\\ n\\n t\\t c\\u0001 d\x7f u\xc3\xbc e\xe2\x82\xac g\xf0\x9f\x98\x80\\u0000\"");
  EXPECT_EQ(round_trip(s), s);
  EXPECT_EQ(refwire::from_json<std::string>(R"("\u00fc\ud83d\ude00\/\b\f\r")"), "\xc3\xbc\xf0\x9f\x98\x80/\b\f\r");
  for (const char* bad : {"a\xff", "\xc3", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80", "ok\xe2\x82"}) {
    EXPECT_THROW((void)refwire::to_json(std::string(bad)), refwire::encode_error) << bad;
  }
  try {
    inner in{1, "x\xff"};
    (void)refwire::to_json(in);
    FAIL();
  } catch (const refwire::encode_error& e) {
    EXPECT_STREQ(e.what(), "$.s: string is not valid UTF-8 (byte 0xff at index 1)");
  }
}

TEST(json_conventions, nan_and_infinity_are_encode_errors) {
  containers c;
  c.doubles = {1, std::numeric_limits<double>::quiet_NaN()};
  try {
    (void)refwire::serialize<refwire::json>(c);
    FAIL();
  } catch (const refwire::encode_error& e) {
    EXPECT_STREQ(e.what(), "$.doubles[1]: NaN has no JSON encoding");
  }
  EXPECT_THROW((void)refwire::to_json(std::numeric_limits<float>::infinity()), refwire::encode_error);
  std::map<std::string, double> m{{"k", -std::numeric_limits<double>::infinity()}};
  try {
    (void)refwire::to_json(m);
    FAIL();
  } catch (const refwire::encode_error& e) {
    EXPECT_STREQ(e.what(), "$[\"k\"]: infinity has no JSON encoding");
  }
}

TEST(json_conventions, integers_are_exact) {
  EXPECT_EQ(refwire::to_json(std::numeric_limits<std::uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(refwire::from_json<std::uint64_t>("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(refwire::from_json<std::int64_t>("-9223372036854775808"), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(error_of<std::uint64_t>("18446744073709551616"), "$: 18446744073709551616 is out of range for unsigned integer, at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<std::int8_t>("128"), "$: 128 is out of range for i8, at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<std::uint16_t>("-1"), "$: expected unsigned integer, got number, at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<std::int32_t>("1.5"), "$: expected integer, got number, at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<float>("1e300"), "$: 1e+300 is out of range for f32, at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<float>("3.4028235677973366e38"), "$: 3.4028235677973366e+38 is out of range for f32, at offset 0 (line 1, column 1)");
  EXPECT_EQ(refwire::from_json<float>("3.4028235677973362e38"), std::numeric_limits<float>::max());
}

// -------------------------------------------------------------- options and keys

TEST(json_keys, any_order_unknown_and_missing) {
  const auto p = refwire::from_json<inner>(R"({"s":"x","a":3})");
  EXPECT_EQ(p, (inner{3, "x"}));
  EXPECT_EQ(refwire::from_json<inner>(R"({"zz":[1,2,{"q":null}],"a":3,"more":"x"})"), (inner{3, ""}));
  EXPECT_EQ(error_of<inner>(R"({"a":3,"zz":1})", {.reject_unknown_fields = true}),
            R"($: unknown field "zz", at offset 12 (line 1, column 13))");
  inner kept{9, "keep"};
  ASSERT_FALSE(decode(R"({"a":1})", kept));
  EXPECT_EQ(kept, (inner{1, "keep"}));
  EXPECT_EQ(error_of<inner>(R"({"a":1})", {.require_all_fields = true}), R"($: missing field "s", at offset 7 (line 1, column 8))");
  EXPECT_EQ(error_of<inner>(R"({"a":1,"s":""})", {.require_all_fields = true}), "ok");
  EXPECT_EQ(error_of<inner>(R"({"a":1,"a":2})"), R"($: duplicate field "a", at offset 11 (line 1, column 12))");
  EXPECT_EQ(refwire::from_json<inner>(R"({"\u0061":5})").a, 5);  // escaped keys match
  EXPECT_EQ(error_of<with_attrs>(R"({"cache":"x"})", {.reject_unknown_fields = true}),
            R"($: unknown field "cache", at offset 9 (line 1, column 10))");
}

TEST(json_keys, nested_error_paths) {
  EXPECT_EQ(error_of<containers>(R"({"inners":[{"a":1},{"a":1,"s":5}]})"),
            "$.inners[1].s: expected string, got number, at offset 30 (line 1, column 31)");
  EXPECT_EQ(error_of<containers>(R"({"m":{"k":"v"}})"), R"($.m["k"]: expected integer, got string, at offset 10 (line 1, column 11))");
  EXPECT_EQ(error_of<wrappers>(R"({"oin":{"a":"x"}})"), "$.oin.a: expected integer, got string, at offset 12 (line 1, column 13)");
  EXPECT_EQ(error_of<wrappers>(R"({"tup":[true,1,2]})"), "$.tup[2]: expected string, got number, at offset 15 (line 1, column 16)");
}

TEST(json_api, throwing_and_prefix_forms) {
  try {
    (void)refwire::from_json<inner>(R"({"a":1,"s":7})");
    FAIL();
  } catch (const refwire::decode_error& e) {
    EXPECT_EQ(e.code(), refwire::errc::type_mismatch);
    EXPECT_EQ(e.path(), "$.s");
    EXPECT_EQ(e.offset(), 11u);
    EXPECT_STREQ(e.what(), "$.s: expected string, got number, at offset 11 (line 1, column 12)");
  }
  const std::string two = R"({"a":1,"s":"x"} {"a":2,"s":"y"})";
  EXPECT_EQ(error_of<inner>(two), "$: 15 bytes of trailing content after the value, at offset 16 (line 1, column 17)");
  inner v;
  std::size_t used = 0;
  ASSERT_FALSE(refwire::deserialize_prefix<refwire::json>(refwire::detail::as_bytes(two), v, used));
  EXPECT_EQ(used, 15u);
  EXPECT_EQ(v, (inner{1, "x"}));
  ASSERT_FALSE(refwire::deserialize_prefix<refwire::json>(refwire::detail::as_bytes(two).subspan(used), v, used));
  EXPECT_EQ(v, (inner{2, "y"}));
  EXPECT_EQ(error_of<inner>(R"({"a":1} x)"), "$: 1 bytes of trailing content after the value, at offset 8 (line 1, column 9)");
  EXPECT_EQ(error_of<inner>(R"({"a":1}})"), "$: 1 bytes of trailing content after the value, at offset 7 (line 1, column 8)");
  EXPECT_EQ(error_of<inner>(" {\"a\":1}\n\t "), "ok");
  EXPECT_EQ(error_of<std::int32_t>("1 2"), "$: trailing content after the value, at offset 0 (line 1, column 1)");
}

TEST(json_api, serialize_into_reused_buffer_and_bytes_form) {
  std::vector<std::byte> buf(1000, std::byte{0x55});
  const auto cap = buf.capacity();
  refwire::serialize<refwire::json>(inner{1, "x"}, buf);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(buf.data()), buf.size()), R"({"a":1,"s":"x"})");
  EXPECT_EQ(buf.capacity(), cap);
  EXPECT_EQ((refwire::deserialize<inner, refwire::json>(buf)), (inner{1, "x"}));
}

TEST(json_api, pretty_printing) {
  shapes::pretty_sample p;
  p.n = 1;
  p.v = {1, 2};
  p.m = {{"k", {}}};
  EXPECT_EQ(refwire::to_json(p, {.pretty = true}),
            "{\n  \"n\": 1,\n  \"v\": [\n    1,\n    2\n  ],\n  \"e\": [],\n  \"m\": {\n    \"k\": {}\n  },\n  \"o\": {}\n}");
}

TEST(json_api, nested_decode_in_a_codec_on_the_same_thread) {
  shapes::embedded e;
  e.inside.text = R"({"a":4,"s":"deep"})";
  const std::string text = refwire::to_json(e);
  const auto back = refwire::from_json<shapes::embedded>(text);
  EXPECT_EQ(back.inside.text, e.inside.text);
  EXPECT_EQ(back.inside.parsed, (inner{4, "deep"}));
}

// ------------------------------------------------------------------ interop

TEST(json_interop, nlohmann_reads_what_refwire_writes) {
  const wrappers w = shapes::full_wrappers();
  const nlohmann::json j = nlohmann::json::parse(refwire::to_json(w));
  EXPECT_EQ(j["oi"], 0);
  EXPECT_EQ(j["os"], "present");
  EXPECT_EQ(j["oin"]["s"], "nine");
  EXPECT_TRUE(j["null_ptr"].is_null());
  EXPECT_EQ(j["var"]["2"]["a"], 3);
  EXPECT_EQ(j["tup"][3][2], 3);
  EXPECT_EQ(j["id"], "123e4567-e89b-12d3-a456-426614174000");
  const containers c = shapes::json_full_containers();
  const nlohmann::json jc = nlohmann::json::parse(refwire::to_json(c));
  EXPECT_EQ(jc["text"].get<std::string>(), c.text);
  EXPECT_EQ(jc["mi"]["-1"]["s"], "x");
  EXPECT_EQ(jc["blob"], "AP+A");
  const scalars s = shapes::max_scalars();
  const nlohmann::json js = nlohmann::json::parse(refwire::to_json(s));
  EXPECT_EQ(js["u64"].get<std::uint64_t>(), s.u64);
  EXPECT_EQ(js["i64"].get<std::int64_t>(), s.i64);
  EXPECT_EQ(js["d"].get<double>(), s.d);
  EXPECT_EQ(js["col"], "blue");
}

TEST(json_interop, refwire_reads_what_nlohmann_writes) {
  nlohmann::json j;
  j["s"] = "h\xc3\xa9llo \"w\"\n\x01";
  j["a"] = -12;
  j["unknown"] = {{"x", {1, 2, 3}}, {"y", nullptr}};
  for (int indent : {-1, 4}) {
    const inner v = refwire::from_json<inner>(j.dump(indent));
    EXPECT_EQ(v.a, -12);
    EXPECT_EQ(v.s, "h\xc3\xa9llo \"w\"\n\x01");
  }
  nlohmann::json s;
  s["b"] = true;
  s["u64"] = std::numeric_limits<std::uint64_t>::max();
  s["i64"] = std::numeric_limits<std::int64_t>::min();
  s["d"] = 0.1;
  s["f"] = 1.5;
  s["col"] = "green";
  const scalars back = refwire::from_json<scalars>(s.dump());
  EXPECT_EQ(back.u64, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(back.i64, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(back.d, 0.1);
  EXPECT_EQ(back.f, 1.5f);
  EXPECT_EQ(back.col, color::green);
  std::vector<double> many(1000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = std::sin(static_cast<double>(i)) * 1e10;
  EXPECT_EQ(refwire::from_json<std::vector<double>>(nlohmann::json(many).dump()), many);
}
