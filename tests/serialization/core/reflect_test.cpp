// The field walk, attributes, the serializable concept and canonical names.
#include <refwire/serialization/reflect.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../common/types.hpp"

using namespace shapes;

namespace {

struct not_serializable {
  virtual ~not_serializable() = default;
  int x = 0;
};

}  // namespace


TEST(reflect, walks_described_fields_in_order_with_indices) {
  inner v{3, "s"};
  std::vector<std::string> seen;
  refwire::for_each_field(v, [&](auto field, auto& member) {
    seen.push_back(std::string(field.name) + "#" + std::to_string(field.index));
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(member)>, std::int16_t>) member = 9;
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a#0", "s#1"}));
  EXPECT_EQ(v.a, 9) << "the walk hands out mutable references";
}

TEST(reflect, bases_come_first_and_are_flattened) {
  std::vector<std::string> seen;
  refwire::for_each_field_type<derived>([&](auto field) {
    seen.push_back(std::string(field.name) + "#" + std::to_string(field.index));
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"id#0", "tag#1", "value#2"}));
  EXPECT_EQ(refwire::field_count<derived>, 3u);
}

TEST(reflect, aggregates_are_positional) {
  std::vector<std::size_t> indices;
  refwire::for_each_field_type<plain>([&](auto field) {
    EXPECT_TRUE(field.name.empty());
    indices.push_back(field.index);
  });
  EXPECT_EQ(indices, (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(refwire::field_count<plain>, 4u);
}

TEST(reflect, attributes_skip_and_rename_keep_positions) {
  std::vector<std::string> seen;
  refwire::for_each_field_type<with_attrs>([&](auto field) {
    seen.push_back(std::string(field.member_name) + "->" + std::string(field.name) + "#" +
                   std::to_string(field.index));
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"keep->keep#0", "after->later#2"}));
  EXPECT_EQ(refwire::field_count<with_attrs>, 3u) << "skipped fields keep their position";
}

TEST(reflect, private_members_of_described_classes) {
  account a("x", 5);
  int n = 0;
  refwire::for_each_field(a, [&](auto, auto&) { ++n; });
  EXPECT_EQ(n, 2);
}

static_assert(refwire::serializable<int>);
static_assert(refwire::serializable<std::vector<std::map<std::string, std::optional<inner>>>>);
static_assert(refwire::serializable<node>);
static_assert(refwire::serializable<plain>);
static_assert(refwire::serializable<std::variant<int, std::string>>);
static_assert(refwire::serializable<std::int32_t[4]>);
static_assert(!refwire::serializable<not_serializable>);
static_assert(!refwire::serializable<int*>);
static_assert(!refwire::serializable<const int>);
static_assert(!refwire::serializable<std::vector<int*>>);
static_assert(!refwire::serializable<std::map<std::string, not_serializable>>);
static_assert(!refwire::serializable<long double>);
static_assert(refwire::described_record<inner> && !refwire::aggregate_record<inner>);
static_assert(refwire::aggregate_record<plain> && !refwire::described_record<plain>);
static_assert(!refwire::record<std::array<int, 2>>);

TEST(reflect, canonical_names) {
  EXPECT_EQ(refwire::type_name<scalars>(),
            "{bool b;char c;i8 i8;u8 u8;i16 i16;u16 u16;i32 i32;u32 u32;i64 i64;u64 u64;f32 f;f64 d;"
            "enum:u8{red=1,green=2,blue=200} col;enum:i64 pe;u16 c16;u32 c32}");
  EXPECT_EQ(refwire::type_name<std::vector<std::byte>>(), "bytes");
  EXPECT_EQ((refwire::type_name<std::map<std::string, std::vector<double>>>()), "map<string,vector<f64>>");
  EXPECT_EQ((refwire::type_name<std::unordered_map<std::int32_t, bool>>()), "map<i32,bool>");
  EXPECT_EQ(refwire::type_name<std::set<std::uint64_t>>(), "set<u64>");
  EXPECT_EQ((refwire::type_name<std::tuple<int, std::string>>()), "tuple<i32,string>");
  EXPECT_EQ((refwire::type_name<std::pair<int, std::string>>()), "tuple<i32,string>");
  EXPECT_EQ((refwire::type_name<std::variant<std::monostate, inner>>()), "variant<{},{i16 a;string s}>");
  EXPECT_EQ(refwire::type_name<std::optional<refwire::uuid>>(), "optional<uuid>");
  EXPECT_EQ(refwire::type_name<std::unique_ptr<refwire::timestamp>>(), "ptr<timestamp>");
  EXPECT_EQ(refwire::type_name<std::chrono::milliseconds>(), "duration");
  EXPECT_EQ((refwire::type_name<std::array<float, 3>>()), "array<f32,3>");
  EXPECT_EQ(refwire::type_name<std::deque<std::string>>(), "vector<string>");
}

TEST(reflect, fingerprint_is_fnv1a_of_the_canonical_name) {
  // Fixed values: a g++ build and a clang build must agree on them.
  EXPECT_EQ(refwire::fingerprint<inner>(), 0xe3147792df5af881ULL);
  EXPECT_EQ(refwire::detail::fnv1a(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(refwire::detail::fnv1a("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_NE(refwire::fingerprint<inner>(), refwire::fingerprint<derived>());
}
