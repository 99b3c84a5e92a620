// The deep serializable check (every field, however nested; recursive types
// stay legal) and the workaround for Boost.Describe's 52-member limit: a
// described public base plus the derived struct, whose fields are flattened.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace diag {

struct tree {
  int value = 0;
  std::vector<tree> children;
};
BOOST_DESCRIBE_STRUCT(tree, (), (value, children))

struct list_node {
  int value = 0;
  std::unique_ptr<list_node> next;
};
BOOST_DESCRIBE_STRUCT(list_node, (), (value, next))

struct ping;
struct pong {
  std::unique_ptr<ping> back;
};
struct ping {
  std::optional<pong> forth;
};
BOOST_DESCRIBE_STRUCT(pong, (), (back))
BOOST_DESCRIBE_STRUCT(ping, (), (forth))

struct with_pointer {
  int a = 0;
  int* raw = nullptr;
};
BOOST_DESCRIBE_STRUCT(with_pointer, (), (a, raw))

struct nests_pointer {
  std::vector<std::optional<with_pointer>> items;
};
BOOST_DESCRIBE_STRUCT(nests_pointer, (), (items))

// A cycle whose bad field is only reached through the cycle.
struct loop_b;
struct loop_a {
  std::unique_ptr<loop_b> b;
};
struct loop_c {
  long double bad = 0;
};
struct loop_b {
  std::unique_ptr<loop_a> a;
  loop_c c;
};
BOOST_DESCRIBE_STRUCT(loop_a, (), (b))
BOOST_DESCRIBE_STRUCT(loop_b, (), (a, c))
BOOST_DESCRIBE_STRUCT(loop_c, (), (bad))

struct skips_pointer {
  int a = 0;
  int* cache = nullptr;
};
BOOST_DESCRIBE_STRUCT(skips_pointer, (), (a, cache))
REFWIRE_ATTRIBUTES(skips_pointer, {.name = "cache", .skip = true})

struct plain_pair {
  int a = 0;
  int b = 0;
};

struct holds_plain {
  plain_pair p;
};
BOOST_DESCRIBE_STRUCT(holds_plain, (), (p))

// 52 members, more than one BOOST_DESCRIBE_STRUCT may list: half in a
// described public base, half in the derived struct.
struct wide_base {
  int m0 = 0;
  int m1 = 0;
  int m2 = 0;
  int m3 = 0;
  int m4 = 0;
  int m5 = 0;
  int m6 = 0;
  int m7 = 0;
  int m8 = 0;
  int m9 = 0;
  int m10 = 0;
  int m11 = 0;
  int m12 = 0;
  int m13 = 0;
  int m14 = 0;
  int m15 = 0;
  int m16 = 0;
  int m17 = 0;
  int m18 = 0;
  int m19 = 0;
  int m20 = 0;
  int m21 = 0;
  int m22 = 0;
  int m23 = 0;
  int m24 = 0;
  int m25 = 0;
};
// clang-format off
BOOST_DESCRIBE_STRUCT(wide_base, (), (m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25))
// clang-format on

struct wide : wide_base {
  int m26 = 0;
  int m27 = 0;
  int m28 = 0;
  int m29 = 0;
  int m30 = 0;
  int m31 = 0;
  int m32 = 0;
  int m33 = 0;
  int m34 = 0;
  int m35 = 0;
  int m36 = 0;
  int m37 = 0;
  int m38 = 0;
  int m39 = 0;
  int m40 = 0;
  int m41 = 0;
  int m42 = 0;
  int m43 = 0;
  int m44 = 0;
  int m45 = 0;
  int m46 = 0;
  int m47 = 0;
  int m48 = 0;
  int m49 = 0;
  int m50 = 0;
  int m51 = 0;
};
// clang-format off
BOOST_DESCRIBE_STRUCT(wide, (wide_base), (m26, m27, m28, m29, m30, m31, m32, m33, m34, m35, m36, m37, m38, m39, m40, m41, m42, m43, m44, m45, m46, m47, m48, m49, m50, m51))
// clang-format on

}  // namespace diag

using namespace diag;

TEST(diagnose, recursive_types_stay_serializable) {
  static_assert(refwire::serializable<tree>);
  static_assert(refwire::serializable<list_node>);
  static_assert(refwire::serializable<ping> && refwire::serializable<pong>);
  static_assert(refwire::can_carry<tree, refwire::json>);
  static_assert(refwire::can_carry<ping, refwire::json>);

  tree t{1, {tree{2, {}}, tree{3, {tree{4, {}}}}}};
  const tree back = refwire::from_json<tree>(refwire::to_json(t));
  ASSERT_EQ(back.children.size(), 2u);
  EXPECT_EQ(back.children[1].children[0].value, 4);
}

TEST(diagnose, a_bad_field_makes_the_record_unserializable) {
  static_assert(!refwire::serializable<with_pointer>);
  static_assert(!refwire::serializable<nests_pointer>, "found through vector and optional");
  static_assert(!refwire::serializable<std::vector<nests_pointer>>);
  static_assert(!refwire::serializable<loop_a> && !refwire::serializable<loop_b>,
                "found through a cycle");
  static_assert(!refwire::can_carry<with_pointer, refwire::binary>);
  static_assert(!refwire::can_carry<nests_pointer, refwire::protobuf>);
  SUCCEED();
}

TEST(diagnose, a_skipped_field_is_not_checked) {
  static_assert(refwire::serializable<skips_pointer>);
  int x = 5;
  const skips_pointer v{7, &x};
  const auto bytes = refwire::serialize(v);
  const skips_pointer back = refwire::deserialize<skips_pointer>(bytes);
  EXPECT_EQ(back.a, 7);
  EXPECT_EQ(back.cache, nullptr);
}

TEST(diagnose, named_formats_check_nested_records_for_names) {
  static_assert(refwire::can_carry<holds_plain, refwire::binary>);
  static_assert(refwire::can_carry<holds_plain, refwire::protobuf>);
  static_assert(!refwire::can_carry<holds_plain, refwire::json>, "holds_plain.p has no field names");
  static_assert(!refwire::can_carry<std::vector<plain_pair>, refwire::json>);
  SUCCEED();
}

TEST(diagnose, fifty_two_members_through_a_described_base_round_trip_json) {
  static_assert(refwire::field_count<wide> == 52);
  wide w;
  int n = 0;
  refwire::for_each_field(w, [&](auto, int& member) { member = ++n * 3; });
  const std::string text = refwire::to_json(w);
  EXPECT_NE(text.find("\"m0\":3,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"m51\":156}"), std::string::npos) << text;
  const wide back = refwire::from_json<wide>(text);
  EXPECT_EQ(back.m0, 3);
  EXPECT_EQ(back.m25, 78);
  EXPECT_EQ(back.m26, 81);
  EXPECT_EQ(back.m51, 156);
  EXPECT_EQ(refwire::to_json(back), text);
}
