// Round trips of every shape through the binary format, compared field by field.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

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

using legacy::wallet;

namespace {

/// Encodes, decodes, and checks that re-encoding the result gives the same
/// bytes (the encoding is canonical: only unordered containers may reorder).
template <class T>
T round_trip(const T& v, bool canonical = true) {
  const std::vector<std::byte> bytes = refwire::serialize(v);
  T out = refwire::deserialize<T>(bytes);
  if (canonical) {
    EXPECT_EQ(refwire::serialize(out), bytes) << "re-encoding differs";
  }
  return out;
}

}  // namespace

TEST(binary_round_trip, scalars_extremes) {
  const scalars s = max_scalars();
  expect_fields_eq(round_trip(s), s);
  EXPECT_EQ(refwire::serialize(s).size(), 1u + 1 + 1 + 1 + 2 + 2 + 4 + 4 + 8 + 8 + 4 + 8 + 1 + 8 + 2 + 4);
}

TEST(binary_round_trip, inheritance_puts_base_fields_first) {
  derived d;
  d.id = 7;
  d.tag = "base two";
  d.value = 1.5;
  expect_fields_eq(round_trip(d), d);
  const auto bytes = refwire::serialize(d);
  ASSERT_EQ(bytes.size(), 4u + 1 + 8 + 8);
  EXPECT_EQ(bytes[0], std::byte{7});             // base1::id first
  EXPECT_EQ(bytes[4], std::byte{8});             // then base2::tag's length
  EXPECT_EQ(refwire::type_name<derived>(), "{i32 id;string tag;f64 value}");
}

TEST(binary_round_trip, plain_aggregate_through_pfr) {
  const plain p{-3, "pfr", {1.0, 2.0}, {5, "inner"}};
  const plain back = round_trip(p);
  EXPECT_EQ(back.a, p.a);
  EXPECT_EQ(back.b, p.b);
  EXPECT_EQ(back.c, p.c);
  EXPECT_EQ(back.d, p.d);
  EXPECT_EQ(refwire::type_name<plain>(), "{i32;string;vector<f64>;{i16 a;string s}}");
}

TEST(binary_round_trip, recursive_type) {
  node n;
  n.value = 1;
  n.kids.resize(2);
  n.kids[0].value = 2;
  n.kids[1].kids.resize(1);
  n.kids[1].kids[0].value = 3;
  n.next = std::make_unique<node>();
  n.next->value = 4;
  n.next->next = std::make_unique<node>();
  n.next->next->value = 5;
  const node back = round_trip(n);
  EXPECT_EQ(back, n);
  ASSERT_TRUE(back.next && back.next->next);
  EXPECT_EQ(back.next->next->value, 5);
  EXPECT_EQ(refwire::type_name<node>(), "{i32 value;vector<@0> kids;ptr<@0> next}");
}

TEST(binary_round_trip, empty_struct_is_zero_bytes) {
  EXPECT_TRUE(refwire::serialize(empty{}).empty());
  EXPECT_EQ(refwire::deserialize<empty>(std::vector<std::byte>{}), empty{});
}

TEST(binary_round_trip, codec_surrogate) {
  wallet w{"bob", legacy::money(250), {legacy::money(1), legacy::money(2)}};
  const wallet back = round_trip(w);
  EXPECT_EQ(back.owner, "bob");
  EXPECT_EQ(back.balance, w.balance);
  EXPECT_EQ(back.history, w.history);
  EXPECT_EQ(refwire::type_name<wallet>(), "{string owner;i64 balance;vector<i64> history}");
}

TEST(binary_round_trip, skipped_fields_stay_off_the_wire) {
  with_attrs a;
  a.keep = 1;
  a.cache = "not written";
  a.after = 2;
  const auto bytes = refwire::serialize(a);
  EXPECT_EQ(bytes.size(), 8u);
  with_attrs into;
  into.cache = "kept";
  ASSERT_FALSE(refwire::deserialize<refwire::binary>(bytes, into));
  EXPECT_EQ(into.keep, 1);
  EXPECT_EQ(into.after, 2);
  EXPECT_EQ(into.cache, "kept");
  EXPECT_EQ(refwire::type_name<with_attrs>(), "{i32 keep;i32 later}");
}

TEST(binary_api, throwing_deserialize_reports_path_and_offset) {
  auto bytes = refwire::serialize(inner{5, "hello world!"});
  bytes.resize(7);
  try {
    (void)refwire::deserialize<inner>(bytes);
    FAIL() << "no exception";
  } catch (const refwire::decode_error& e) {
    EXPECT_EQ(e.code(), refwire::errc::truncated);
    EXPECT_EQ(e.path(), "$.s");
    EXPECT_EQ(e.offset(), 3u);
    EXPECT_STREQ(e.what(), "$.s: truncated string, needs 12 bytes, 4 left, at offset 3");
  }
}

TEST(binary_api, trailing_bytes_are_an_error_unless_prefix) {
  auto bytes = refwire::serialize(inner{5, "x"});
  const std::size_t size = bytes.size();
  bytes.push_back(std::byte{1});
  bytes.push_back(std::byte{2});
  inner out;
  const refwire::error e = refwire::deserialize<refwire::binary>(bytes, out);
  EXPECT_EQ(e.code(), refwire::errc::trailing_bytes);
  EXPECT_EQ(e.message(), "$: 2 trailing bytes after the value, at offset 4");
  std::size_t used = 0;
  EXPECT_FALSE(refwire::deserialize_prefix<refwire::binary>(bytes, out, used));
  EXPECT_EQ(used, size);
  EXPECT_EQ(out, (inner{5, "x"}));
}

TEST(binary_api, coarse_durations_reject_lost_precision) {
  std::vector<std::byte> ms_bytes = refwire::serialize(std::chrono::nanoseconds(1'500'000));
  std::chrono::milliseconds ms{};
  const refwire::error e = refwire::deserialize<refwire::binary>(ms_bytes, ms);
  EXPECT_EQ(e.code(), refwire::errc::invalid_value);
  EXPECT_EQ(e.message(),
            "$: 1500000 ns is not a whole number of the field's duration unit (1000000 ns), at offset 0");
  std::vector<std::byte> whole = refwire::serialize(std::chrono::nanoseconds(3'000'000));
  EXPECT_FALSE(refwire::deserialize<refwire::binary>(whole, ms));
  EXPECT_EQ(ms, std::chrono::milliseconds(3));
}

TEST(test_support, field_comparison_detects_a_difference) {
  containers a = full_containers();
  containers b = a;
  b.carr[2] = 99;
  EXPECT_FALSE(testing_support::same_value(a.carr, b.carr));
  wrappers x = full_wrappers();
  wrappers y = full_wrappers();
  y.ptr->s = "changed";
  EXPECT_FALSE(testing_support::same_value(x.ptr, y.ptr));
}
