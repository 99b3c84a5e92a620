// The field walk, attributes, the serializable concept and canonical names.
#include <refwire/serialization/reflect.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../common/types.hpp"

using namespace shapes;

// ------------------------------------------------ attributes in the right place
//
// Each declaration below sits in the namespace that declares its type, so it
// compiles; the same macros anywhere else are compile errors
// (tests/compile_fail/attributes_misplaced*.cpp, name_misplaced.cpp,
// type_attributes_misplaced.cpp).

struct global_user {
  std::string name;
  std::string password;
};
BOOST_DESCRIBE_STRUCT(global_user, (), (name, password))
REFWIRE_ATTRIBUTES(global_user, {.name = "password", .skip = true})
REFWIRE_NAME(global_user, "GlobalUser")
REFWIRE_TYPE_ATTRIBUTES(global_user, {.reserved = {9}})

namespace outer::inner_ns {

struct user {
  std::string name;
  std::string password;
};
BOOST_DESCRIBE_STRUCT(user, (), (name, password))
REFWIRE_ATTRIBUTES(user, {.name = "name", .rename = "login"}, {.name = "password", .skip = true})
REFWIRE_NAME(user, "User")

/// A rename onto the name of a skipped field: the skipped one is not on the wire.
struct moved {
  int old_id = 0;
  int id = 0;
};
BOOST_DESCRIBE_STRUCT(moved, (), (old_id, id))
REFWIRE_ATTRIBUTES(moved, {.name = "old_id", .skip = true}, {.name = "id", .rename = "old_id"})

/// Two fields swapping names is no collision.
struct swapped {
  int a = 0;
  int b = 0;
};
BOOST_DESCRIBE_STRUCT(swapped, (), (a, b))
REFWIRE_ATTRIBUTES(swapped, {.name = "a", .rename = "b"}, {.name = "b", .rename = "a"})

/// Attributes written before the type is described are checked at first use.
struct early {
  int keep = 0;
  int drop = 0;
};
REFWIRE_ATTRIBUTES(early, {.name = "drop", .skip = true})
BOOST_DESCRIBE_STRUCT(early, (), (keep, drop))

/// A class described from the inside (its attributes are found through the friend functions' class).
class account {
 public:
  int id() const { return id_; }

 private:
  int id_ = 0;
  BOOST_DESCRIBE_CLASS(account, (), (), (), (id_))
};
REFWIRE_ATTRIBUTES(account, {.name = "id_", .rename = "id"})

/// REFWIRE_NAME names any class (an interface of virtual functions) and enums.
struct service {
  virtual ~service() = default;
  virtual int ping(int) = 0;
};
REFWIRE_NAME(service, "Service")
enum class mood { calm, busy };
REFWIRE_NAME(mood, "Mood")

}  // namespace outer::inner_ns

static_assert(refwire::detail::has_attributes<global_user> && refwire::detail::has_type_name<global_user> &&
              refwire::detail::has_type_attributes<global_user>);
static_assert(refwire::detail::has_attributes<outer::inner_ns::user>);
static_assert(refwire::detail::has_type_name<outer::inner_ns::service>);
static_assert(refwire::detail::has_type_name<outer::inner_ns::mood>);
static_assert(refwire::detail::type_attributes_of<global_user>().reserved[0] == 9);
static_assert(refwire::detail::type_attributes_of<inner>().numbering == refwire::numbering::positional);

constexpr refwire::fixed_list<std::uint32_t, 4> removed = {4, 7};
static_assert(removed.size() == 2 && removed[0] == 4 && removed[1] == 7);
static_assert(refwire::fixed_list<std::uint32_t, 4>{}.size() == 0);

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

namespace {

template <class T>
std::vector<std::string> wire_names_of() {
  std::vector<std::string> names;
  refwire::for_each_field_type<T>([&](auto field) { names.emplace_back(field.name); });
  return names;
}

}  // namespace

TEST(reflect_attributes, declarations_next_to_the_type_apply_at_any_namespace_depth) {
  EXPECT_EQ(wire_names_of<global_user>(), (std::vector<std::string>{"name"}));
  EXPECT_EQ(wire_names_of<outer::inner_ns::user>(), (std::vector<std::string>{"login"}));
  EXPECT_EQ(wire_names_of<outer::inner_ns::early>(), (std::vector<std::string>{"keep"}));
  EXPECT_EQ(wire_names_of<outer::inner_ns::account>(), (std::vector<std::string>{"id"}));
  EXPECT_EQ(refwire_type_name(static_cast<outer::inner_ns::service**>(nullptr)), "Service");
}

TEST(reflect_attributes, skipped_fields_and_swaps_are_not_collisions) {
  EXPECT_EQ(wire_names_of<outer::inner_ns::moved>(), (std::vector<std::string>{"old_id"}));
  EXPECT_EQ(wire_names_of<outer::inner_ns::swapped>(), (std::vector<std::string>{"b", "a"}));
}
