// The protobuf format: round trips of every shape, compared field by field;
// proto3 default semantics; explicit numbers and encodings; golden bytes;
// pinned schema text.
//
// Regenerate the golden files after an intended format change (then review the diff):
//   REFWIRE_UPDATE_GOLDEN=1 ./protobuf_test
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "../common/field_eq.hpp"
#include "../common/legacy_money.hpp"
#include "../common/types.hpp"
#include "../common/values.hpp"

#ifndef REFWIRE_GOLDEN_DIR
#error "REFWIRE_GOLDEN_DIR must name the directory of the golden files"
#endif

using namespace shapes;
using testing_support::expect_fields_eq;

namespace {

using pbf = refwire::protobuf;

std::vector<std::byte> bytes_of(std::initializer_list<int> b) {
  std::vector<std::byte> v;
  for (int x : b) v.push_back(static_cast<std::byte>(x));
  return v;
}

std::string hex(const std::vector<std::byte>& b) {
  std::string s;
  char buf[4];
  for (std::byte x : b) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned>(x));
    if (!s.empty()) s += ' ';
    s += buf;
  }
  return s;
}

/// Encodes, decodes, and (for ordered types) checks the re-encoding is identical.
template <class T>
T round_trip(const T& v, bool canonical = true) {
  const std::vector<std::byte> bytes = refwire::serialize<pbf>(v);
  T out = refwire::deserialize<T, pbf>(bytes);
  if (canonical) {
    EXPECT_EQ(hex(refwire::serialize<pbf>(out)), hex(bytes)) << "re-encoding differs";
  }
  return out;
}

}  // namespace

// ------------------------------------------------------------- round trips

TEST(protobuf_round_trip, scalars_zero_is_empty_message) {
  scalars zero;
  zero.col = color{0};
  zero.pe = plain_enum{0};
  EXPECT_TRUE(refwire::serialize<pbf>(zero).empty());
  expect_fields_eq(round_trip(zero), zero);
  expect_fields_eq(round_trip(scalars{}), scalars{});
}

TEST(protobuf_round_trip, floats_are_bit_exact_and_negative_zero_is_written) {
  scalars s;
  s.d = -0.0;
  s.f = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(refwire::serialize<pbf>(s).empty());
  expect_fields_eq(round_trip(s), s);
}

TEST(protobuf_round_trip, inheritance_class_aggregate_recursive_empty) {
  derived d;
  d.id = 7;
  d.tag = "t";
  d.value = 2.5;
  expect_fields_eq(round_trip(d), d);
  // base fields first: id = 1, tag = 2, value = 3
  EXPECT_EQ(hex(refwire::serialize<pbf>(d)), "08 07 12 01 74 19 00 00 00 00 00 00 04 40");

  const account a("owner", -5);
  EXPECT_EQ(round_trip(a), a);

  const plain p{1, "b", {1.5, 2.5}, {3, "d"}};
  EXPECT_EQ(round_trip(p), p);

  node n;
  n.value = 1;
  n.kids.resize(2);
  n.kids[1].value = 3;
  n.next = std::make_unique<node>();
  n.next->next = std::make_unique<node>();
  n.next->next->value = -9;
  EXPECT_EQ(round_trip(n), n);

  EXPECT_TRUE(refwire::serialize<pbf>(empty{}).empty());
}

TEST(protobuf_round_trip, skipped_fields_stay_off_the_wire_and_keep_their_number) {
  with_attrs w;
  w.keep = 1;
  w.cache = "local";
  w.after = 2;
  EXPECT_EQ(hex(refwire::serialize<pbf>(w)), "08 01 18 02");  // after is field 3
  with_attrs back;
  back.cache = "mine";
  ASSERT_FALSE(refwire::deserialize<pbf>(refwire::serialize<pbf>(w), back));
  EXPECT_EQ(back.keep, 1);
  EXPECT_EQ(back.after, 2);
  EXPECT_EQ(back.cache, "mine");  // decode leaves a skipped field as it was
}

TEST(protobuf_round_trip, top_level_non_messages_are_field_1_of_a_wrapper) {
  const std::vector<double> d = {1.0, 2.0};
  EXPECT_EQ(hex(refwire::serialize<pbf>(d)),
            "0a 10 00 00 00 00 00 00 f0 3f 00 00 00 00 00 00 00 40");
  EXPECT_EQ(round_trip(d), d);
  const std::vector<std::string> s = {"a", ""};
  EXPECT_EQ(hex(refwire::serialize<pbf>(s)), "0a 01 61 0a 00");
  EXPECT_EQ(round_trip(s), s);
  EXPECT_EQ(round_trip(std::string("x")), "x");
  EXPECT_EQ(round_trip(std::int64_t{-1}), -1);
}

// --------------------------------------------------------- proto3 semantics

TEST(protobuf_proto3, missing_fields_decode_as_zero_not_the_cpp_default) {
  const defaults d = refwire::deserialize<defaults, pbf>(std::span<const std::byte>{});
  EXPECT_EQ(d.x, 0);
  EXPECT_EQ(d.s, "");
  EXPECT_FALSE(d.b);
  EXPECT_EQ(d.p, point{});
  EXPECT_FALSE(d.o.has_value());

  defaults existing;  // decoding into an existing value resets it first
  ASSERT_FALSE(refwire::deserialize<pbf>(bytes_of({0x08, 0x01}), existing));
  EXPECT_EQ(existing.x, 1);
  EXPECT_EQ(existing.s, "");
  EXPECT_EQ(existing.p, point{});
}

TEST(protobuf_proto3, zero_values_are_not_written_but_messages_and_present_optionals_are) {
  defaults d;
  d.x = 0;
  d.s.clear();
  d.b = false;
  d.p = {};
  d.o = 0;
  // p (field 4) is an empty message, o (field 5) a present zero
  EXPECT_EQ(hex(refwire::serialize<pbf>(d)), "22 00 28 00");
}

TEST(protobuf_proto3, last_scalar_wins_messages_merge_repeated_append) {
  // x=1, x=2; p{x=3}; p{name="n"}; o=4; o=5
  const auto in = bytes_of({0x08, 0x01, 0x08, 0x02, 0x22, 0x02, 0x08, 0x03, 0x22, 0x03, 0x1a, 0x01, 0x6e,
                            0x28, 0x04, 0x28, 0x05});
  const defaults d = refwire::deserialize<defaults, pbf>(in);
  EXPECT_EQ(d.x, 2);
  EXPECT_EQ(d.p, (point{3, 0, "n"}));
  EXPECT_EQ(d.o, 5);

  // repeated: a packed run, a lone element, another packed run
  const auto rep = bytes_of({0x0a, 0x02, 0x01, 0x02, 0x08, 0x03, 0x0a, 0x01, 0x04});
  const auto v = refwire::deserialize<std::vector<std::int32_t>, pbf>(rep);
  EXPECT_EQ(v, (std::vector<std::int32_t>{1, 2, 3, 4}));
}

TEST(protobuf_proto3, map_entries_last_wins_and_missing_key_or_value_is_zero) {
  // {1: "a"}, {1: "b"}, {} (key 0, value "")
  const auto in = bytes_of({0x0a, 0x05, 0x08, 0x01, 0x12, 0x01, 0x61, 0x0a, 0x05, 0x08, 0x01, 0x12, 0x01, 0x62,
                            0x0a, 0x00});
  const auto m = refwire::deserialize<std::map<std::int32_t, std::string>, pbf>(in);
  EXPECT_EQ(m, (std::map<std::int32_t, std::string>{{0, ""}, {1, "b"}}));
}

TEST(protobuf_proto3, unknown_fields_are_skipped_or_rejected) {
  // point: x=1, unknown 4 (varint), 5 (i64), 6 (len), 7 (group with a varint inside), 8 (i32), name="n"
  const auto in = bytes_of({0x08, 0x01, 0x20, 0x96, 0x01, 0x29, 1, 2, 3, 4, 5, 6, 7, 8, 0x32, 0x01, 0x00, 0x3b,
                            0x08, 0x05, 0x3c, 0x45, 1, 2, 3, 4, 0x1a, 0x01, 0x6e});
  const point p = refwire::deserialize<point, pbf>(in);
  EXPECT_EQ(p, (point{1, 0, "n"}));
  point q;
  const refwire::error e = refwire::deserialize<pbf>(in, q, {.reject_unknown_fields = true});
  EXPECT_EQ(e.code(), refwire::errc::unknown_field);
  EXPECT_EQ(e.message(),
            "$: unknown field 4 (wire type 0, varint) and decode_options::reject_unknown_fields is set, at offset 2");
}

TEST(protobuf_proto3, bool_accepts_any_nonzero_varint_and_open_enums_keep_unknown_values) {
  scalars s;
  ASSERT_FALSE(refwire::deserialize<pbf>(bytes_of({0x08, 0x02, 0x68, 0x07}), s));
  EXPECT_TRUE(s.b);
  EXPECT_EQ(static_cast<int>(s.col), 7);
}

// ------------------------------------------------- numbers and encodings

TEST(protobuf_numbers, explicit_numbers_and_encodings_on_the_wire) {
  numbered n;
  n.a = -3;
  n.b = 1;
  n.c = -1;
  n.zz = {-1, 1};
  n.fx = {-2};
  n.neg = -1;
  n.lv = level::high;
  n.zm = {{-1, 1}};
  EXPECT_EQ(hex(refwire::serialize<pbf>(n)),
            "50 05 "                                         // a: field 10, sint32 -3
            "11 01 00 00 00 00 00 00 00 "                    // b: field 2, fixed64 1
            "18 01 "                                         // c: field 3, sint64 -1
            "22 02 01 02 "                                   // zz: packed sint32 {-1, 1}
            "2a 04 fe ff ff ff "                             // fx: packed sfixed32 {-2}
            "30 ff ff ff ff ff ff ff ff ff 01 "              // neg: int32 -1, sign-extended
            "38 fd ff ff ff ff ff ff ff ff 01 "              // lv: enum -3
            "a2 06 04 08 01 10 02");                         // zm: field 100, entry {sint32 -1, sint64 1}
  expect_fields_eq(round_trip(n), n);
  const numbered f = full_numbered();
  expect_fields_eq(round_trip(f), f);
}

TEST(protobuf_numbers, narrow_integers_are_range_checked) {
  scalars s;
  // i8 is field 3: 200 does not fit
  const refwire::error e = refwire::deserialize<pbf>(bytes_of({0x18, 0xc8, 0x01}), s);
  EXPECT_EQ(e.code(), refwire::errc::invalid_value);
  EXPECT_EQ(e.message(), "$.i8: value 200 (wire bits) out of range for i8, at offset 1");
}

// ------------------------------------------------------------------ golden

namespace {

std::vector<std::byte> read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  const std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) b[i] = static_cast<std::byte>(c[i]);
  return b;
}

template <class T>
void check_golden(const char* file, const T& v) {
  const std::filesystem::path path = std::filesystem::path(REFWIRE_GOLDEN_DIR) / "protobuf" / file;
  const std::vector<std::byte> bytes = refwire::serialize<pbf>(v);
  if (std::getenv("REFWIRE_UPDATE_GOLDEN") != nullptr) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
  }
  const std::vector<std::byte> golden = read_file(path);
  ASSERT_FALSE(golden.empty()) << path << " is missing";
  EXPECT_EQ(hex(bytes), hex(golden)) << file;
  expect_fields_eq(refwire::deserialize<T, pbf>(golden), v);
}

}  // namespace

TEST(protobuf_golden, files) {
  check_golden("point.pb", point{150, 0.5, "hi"});
  check_golden("numbered.pb", full_numbered());
  check_golden("person.pb", full_person());
  check_golden("scalars.pb", max_scalars());
  check_golden("wrappers.pb", full_wrappers());
  derived d;
  d.id = 1;
  d.tag = "base";
  d.value = -1;
  check_golden("derived.pb", d);
}

TEST(protobuf_golden, point_matches_the_spec) {
  EXPECT_EQ(hex(refwire::serialize<pbf>(point{150, 0.5, "hi"})), "08 96 01 11 00 00 00 00 00 00 e0 3f 1a 02 68 69");
}

// ------------------------------------------------------------------ schema

TEST(protobuf_schema, point) {
  EXPECT_EQ(refwire::proto_schema<point>("test.pkg"),
            "syntax = \"proto3\";\n\n"
            "package test.pkg;\n\n"
            "message Point {\n"
            "  int32 x = 1;\n"
            "  double y = 2;\n"
            "  string name = 3;\n"
            "}\n");
}

TEST(protobuf_schema, numbers_encodings_and_enums) {
  EXPECT_EQ(refwire::proto_schema<numbered>(),
            "syntax = \"proto3\";\n\n"
            "message Numbered {\n"
            "  sint32 a = 10;\n"
            "  fixed64 b = 2;\n"
            "  sint64 c = 3;\n"
            "  repeated sint32 zz = 4;\n"
            "  repeated sfixed32 fx = 5;\n"
            "  int32 neg = 6;\n"
            "  Level lv = 7;\n"
            "  map<sint32, sint64> zm = 100;\n"
            "}\n\n"
            "enum Level {\n"
            "  LEVEL_LOW = 0;\n"
            "  LEVEL_MID = 5;\n"
            "  LEVEL_HIGH = -3;\n"
            "}\n");
}

TEST(protobuf_schema, skipped_fields_are_reserved_and_unnamed_types_get_hashed_names) {
  const std::string s = refwire::proto_schema<with_attrs>("p");
  EXPECT_NE(s.find("  int32 keep = 1;\n  int32 later = 3;\n  reserved 2;\n"), std::string::npos) << s;
  EXPECT_EQ(s.rfind("syntax = \"proto3\";\n\npackage p;\n\nmessage Message_", 0), 0U) << s;
  EXPECT_EQ(s, refwire::proto_schema<with_attrs>("p"));  // deterministic
}

TEST(protobuf_schema, enum_without_zero_gets_an_unspecified_value) {
  const std::string s = refwire::proto_schema<scalars>();
  EXPECT_NE(s.find("  ENUM_"), std::string::npos) << s;
  EXPECT_NE(s.find("_UNSPECIFIED = 0;  // proto3 needs a zero value; not a value of the C++ enum\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("_RED = 1;\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  int64 pe = 14;\n"), std::string::npos) << s;  // not described: its integer type
  EXPECT_NE(s.find("  uint32 c16 = 15;\n"), std::string::npos) << s;
}

TEST(protobuf_schema, person_uses_well_known_types_oneof_and_maps) {
  const std::string s = refwire::proto_schema<person>("demo");
  EXPECT_NE(s.find("import \"google/protobuf/duration.proto\";\nimport \"google/protobuf/timestamp.proto\";\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("  google.protobuf.Timestamp born = 11;\n  google.protobuf.Duration age = 12;\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("  map<string, int32> scores = 6;\n  optional string nickname = 7;\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  oneof value {\n    int32 alt_0 = 1;\n    string alt_1 = 2;\n    Point alt_2 = 3;\n  }\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("  map<int64, Point> by_id = 17;\n"), std::string::npos) << s;
}

TEST(protobuf_schema, non_singular_values_are_wrapped) {
  const std::string s = refwire::proto_schema<containers>();
  EXPECT_NE(s.find("  repeated Wrap_"), std::string::npos) << s;  // nested: vector<vector<int32>>
  EXPECT_NE(s.find("  map<string, Wrap_"), std::string::npos) << s;  // um: map value vector<int32>
  EXPECT_NE(s.find("  repeated int32 value = 1;\n"), std::string::npos) << s;
}

namespace clash {
struct a {
  std::int32_t x = 0;
};
BOOST_DESCRIBE_STRUCT(a, (), (x))
REFWIRE_NAME(a, "Same")
struct b {
  std::string y;
};
BOOST_DESCRIBE_STRUCT(b, (), (y))
REFWIRE_NAME(b, "Same")
struct both {
  a first;
  b second;
  a again;
};
BOOST_DESCRIBE_STRUCT(both, (), (first, second, again))
}  // namespace clash

TEST(protobuf_schema, two_types_with_one_name_throw) {
  EXPECT_THROW((void)refwire::proto_schema<clash::both>(), std::invalid_argument);
  EXPECT_NO_THROW((void)refwire::proto_schema<clash::a>());
}

// ------------------------------------------------------------------- codec


TEST(protobuf_codec, surrogate_round_trip_schema_and_rejection) {
  const legacy::wallet w{"me", legacy::money(150), {legacy::money(1), legacy::money(0)}};
  EXPECT_EQ(hex(refwire::serialize<pbf>(w)), "0a 02 6d 65 10 96 01 1a 02 01 00");
  EXPECT_EQ(round_trip(w), w);
  EXPECT_NE(refwire::proto_schema<legacy::wallet>().find("  int64 balance = 2;\n  repeated int64 history = 3;\n"),
            std::string::npos);
  legacy::wallet out;
  const refwire::error e = refwire::deserialize<pbf>(bytes_of({0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), out);
  EXPECT_EQ(e.code(), refwire::errc::invalid_value);
  EXPECT_EQ(e.message(), "$.balance: money cannot be negative, at offset 0");
  // a packed run of codec values: each element goes through from_wire
  const refwire::error p = refwire::deserialize<pbf>(
      bytes_of({0x1a, 0x0b, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), out);
  EXPECT_EQ(p.message(), "$.history: money cannot be negative, at offset 3");
}

// ---------------------------------------------------------------- encoding

TEST(protobuf_encode, invalid_utf8_in_a_string_is_an_encode_error) {
  point p;
  p.name = "ok\xff";
  EXPECT_THROW((void)refwire::serialize<pbf>(p), refwire::encode_error);
  std::vector<std::string> v = {"fine", "\xc0\x80"};  // overlong NUL
  EXPECT_THROW((void)refwire::serialize<pbf>(v), refwire::encode_error);
}

TEST(protobuf_encode, appends_and_reused_buffer) {
  std::vector<std::byte> buf;
  refwire::serialize<pbf>(point{1, 0, ""}, buf);
  refwire::serialize<pbf>(point{2, 0, ""}, buf);
  EXPECT_EQ(hex(buf), "08 02");
  std::size_t used = 0;
  point p;
  ASSERT_FALSE(refwire::deserialize_prefix<pbf>(buf, p, used));
  EXPECT_EQ(used, buf.size());
  EXPECT_EQ(p.x, 2);
}
