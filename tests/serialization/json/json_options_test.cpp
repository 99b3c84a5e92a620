// JSON interop options: omitted nulls and defaults, naming policies (per type
// and per call), variant forms (by index, by name, internally tagged), byte
// inputs to from_json, fieldless values at the top level, indentation and
// short number arrays in the pretty form.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "../common/field_eq.hpp"

namespace json_opts {

struct circle {
  double r = 0;
  friend bool operator==(const circle&, const circle&) = default;
};
BOOST_DESCRIBE_STRUCT(circle, (), (r))
REFWIRE_NAME(circle, "circle")

struct square {
  double side = 0;
  int HTTPServer2Id = 0;
  friend bool operator==(const square&, const square&) = default;
};
BOOST_DESCRIBE_STRUCT(square, (), (side, HTTPServer2Id))
REFWIRE_NAME(square, "square")

struct no_eq {
  int v = 0;
};
BOOST_DESCRIBE_STRUCT(no_eq, (), (v))

struct record {
  int user_id = 0;
  std::optional<int> maybe_value;
  std::unique_ptr<std::string> owned_text;
  std::vector<int> some_list;
  std::string _private;
  std::string trailing_;
  no_eq plain;
  std::variant<circle, square> shape;
};
BOOST_DESCRIBE_STRUCT(record, (), (user_id, maybe_value, owned_text, some_list, _private, trailing_, plain, shape))
REFWIRE_ATTRIBUTES(record, {.name = "some_list", .rename = "LIST"})

/// A type with its own policy: a call's policy does not apply to it.
struct camel_own {
  int user_id = 0;
  int HTTPServer2Id = 0;
};
BOOST_DESCRIBE_STRUCT(camel_own, (), (user_id, HTTPServer2Id))
REFWIRE_TYPE_ATTRIBUTES(camel_own, {.naming = refwire::naming::camel_case})

struct holds_camel {
  int outer_value = 0;
  camel_own inner;
};
BOOST_DESCRIBE_STRUCT(holds_camel, (), (outer_value, inner))

/// Collides only under a call's camelCase.
struct collides {
  int user_id = 0;
  int userId = 0;
};
BOOST_DESCRIBE_STRUCT(collides, (), (user_id, userId))

struct drawing {
  std::variant<circle, square> main;
  std::vector<std::variant<circle, square>> more;
  std::optional<std::variant<circle, square>> maybe;
};
BOOST_DESCRIBE_STRUCT(drawing, (), (main, more, maybe))
REFWIRE_TYPE_ATTRIBUTES(drawing, {.variants = refwire::variant_form::internally_tagged, .variant_tag = "kind"})

/// Holds a drawing (tagged by its own attribute) and a plain variant field (the call's form).
struct scene {
  drawing d;
  std::variant<circle, square> loose;
};
BOOST_DESCRIBE_STRUCT(scene, (), (d, loose))

struct by_name_holder {
  std::variant<circle, square, int> v;
};
BOOST_DESCRIBE_STRUCT(by_name_holder, (), (v))
REFWIRE_TYPE_ATTRIBUTES(by_name_holder, {.variants = refwire::variant_form::by_name})

struct mixed {
  std::variant<circle, int> v;
};
BOOST_DESCRIBE_STRUCT(mixed, (), (v))

struct twins {
  std::variant<int, int> v;
};
BOOST_DESCRIBE_STRUCT(twins, (), (v))

struct has_type_field {
  int type = 0;
};
BOOST_DESCRIBE_STRUCT(has_type_field, (), (type))
struct clash_holder {
  std::variant<has_type_field, circle> v;
};
BOOST_DESCRIBE_STRUCT(clash_holder, (), (v))

struct empty_described {};
BOOST_DESCRIBE_STRUCT(empty_described, (), ())

struct numbers {
  std::vector<int> short_ints;
  std::vector<double> long_doubles;
  std::array<int, 3> fixed{};
  std::vector<std::vector<int>> nested;
};
BOOST_DESCRIBE_STRUCT(numbers, (), (short_ints, long_doubles, fixed, nested))

}  // namespace json_opts

using namespace json_opts;
using refwire::naming;
using refwire::variant_form;
using testing_support::expect_fields_eq;

namespace {

template <std::size_t N = 64>
std::string convert(std::string_view name, naming p) {
  return std::string(refwire::detail::converted_name<N>(name, p).view());
}

std::string encode_failure(auto&& f) {
  try {
    f();
  } catch (const refwire::encode_error& e) {
    return e.what();
  }
  return "no error";
}

template <class T>
std::string decode_failure(std::string_view text, const refwire::decode_options& o) {
  T out{};
  const refwire::error e = refwire::deserialize<refwire::json>(text, out, o);
  return e ? e.message() : "no error";
}

template <class T>
refwire::errc decode_code(std::string_view text, const refwire::decode_options& o) {
  T out{};
  return refwire::deserialize<refwire::json>(text, out, o).code();
}

record sample() {
  record r;
  r.user_id = 7;
  r.maybe_value = 3;
  r.owned_text = std::make_unique<std::string>("t");
  r.some_list = {1, 2};
  r._private = "p";
  r.trailing_ = "q";
  r.plain.v = 4;
  r.shape = square{1.5, 9};
  return r;
}

}  // namespace

// ------------------------------------------------------------------ naming

TEST(json_naming, word_rules) {
  static_assert(refwire::detail::converted_name<32>("HTTPServer2Id", naming::snake_case).view() == "http_server2_id");
  EXPECT_EQ(convert("HTTPServer2Id", naming::snake_case), "http_server2_id");
  EXPECT_EQ(convert("HTTPServer2Id", naming::camel_case), "httpServer2Id");
  EXPECT_EQ(convert("HTTPServer2Id", naming::pascal_case), "HttpServer2Id");
  EXPECT_EQ(convert("HTTPServer2Id", naming::kebab_case), "http-server2-id");
  EXPECT_EQ(convert("HTTPServer2Id", naming::as_declared), "HTTPServer2Id");
  EXPECT_EQ(convert("already_snake", naming::snake_case), "already_snake");
  EXPECT_EQ(convert("already_snake", naming::camel_case), "alreadySnake");
  EXPECT_EQ(convert("already_snake", naming::pascal_case), "AlreadySnake");
  EXPECT_EQ(convert("already_snake", naming::kebab_case), "already-snake");
  EXPECT_EQ(convert("_private_x_", naming::camel_case), "_privateX_");
  EXPECT_EQ(convert("_private_x_", naming::kebab_case), "_private-x_");
  EXPECT_EQ(convert("__", naming::camel_case), "__");
  EXPECT_EQ(convert("a__b", naming::snake_case), "a_b");
  EXPECT_EQ(convert("userId", naming::snake_case), "user_id");
  EXPECT_EQ(convert("ID", naming::camel_case), "id");
  EXPECT_EQ(convert("ID", naming::pascal_case), "Id");
  EXPECT_EQ(convert("a2B", naming::snake_case), "a2_b");
  EXPECT_EQ(convert("getHTTPResponseCode", naming::kebab_case), "get-http-response-code");
  EXPECT_EQ(convert("sha256sum", naming::camel_case), "sha256sum");
  EXPECT_EQ(convert("x", naming::pascal_case), "X");
}

TEST(json_naming, per_call_policy_text_and_round_trip) {
  const record r = sample();
  EXPECT_EQ(refwire::to_json(r, {.naming = naming::camel_case}),
            R"({"userId":7,"maybeValue":3,"ownedText":"t","LIST":[1,2],"_private":"p","trailing_":"q",)"
            R"("plain":{"v":4},"shape":{"1":{"side":1.5,"httpServer2Id":9}}})");
  EXPECT_EQ(refwire::to_json(r, {.naming = naming::kebab_case}),
            R"({"user-id":7,"maybe-value":3,"owned-text":"t","LIST":[1,2],"_private":"p","trailing_":"q",)"
            R"("plain":{"v":4},"shape":{"1":{"side":1.5,"http-server2-id":9}}})");
  for (naming p : {naming::snake_case, naming::camel_case, naming::pascal_case, naming::kebab_case}) {
    const std::string text = refwire::to_json(r, {.naming = p});
    const record back = refwire::from_json<record>(text, {.reject_unknown_fields = true, .naming = p});
    expect_fields_eq(back, r);
    EXPECT_EQ(back.plain.v, 4);
    // Read with the wrong policy, the keys are unknown.
    EXPECT_EQ(decode_code<record>(text, {.reject_unknown_fields = true}), refwire::errc::unknown_field) << text;
  }
}

TEST(json_naming, type_policy_wins_over_the_call) {
  const holds_camel h{1, {2, 3}};
  EXPECT_EQ(refwire::to_json(h), R"({"outer_value":1,"inner":{"userId":2,"httpServer2Id":3}})");
  EXPECT_EQ(refwire::to_json(h, {.naming = naming::pascal_case}),
            R"({"OuterValue":1,"Inner":{"userId":2,"httpServer2Id":3}})");
  const auto back = refwire::from_json<holds_camel>(R"({"OuterValue":1,"Inner":{"userId":2,"httpServer2Id":3}})",
                                                    {.naming = naming::pascal_case});
  EXPECT_EQ(back.outer_value, 1);
  EXPECT_EQ(back.inner.user_id, 2);
  EXPECT_EQ(back.inner.HTTPServer2Id, 3);
  // The type policy is the wire name of every format: .proto field names too.
  const std::string proto = refwire::proto_schema<camel_own>("app");
  EXPECT_NE(proto.find("int32 userId = 1;"), std::string::npos) << proto;
  EXPECT_NE(proto.find("int32 httpServer2Id = 2;"), std::string::npos) << proto;
}

TEST(json_naming, per_call_collision_names_both_fields_and_the_policy) {
  EXPECT_EQ(refwire::to_json(collides{1, 2}), R"({"user_id":1,"userId":2})");
  EXPECT_EQ(encode_failure([] { (void)refwire::to_json(collides{1, 2}, {.naming = naming::camel_case}); }),
            "$: naming::camel_case gives fields user_id and userId the same key \"userId\"");
  EXPECT_EQ(decode_failure<collides>(R"({"userId":1})", {.naming = naming::camel_case}),
            "$: naming::camel_case gives fields user_id and userId the same key \"userId\", at offset 0 (line 1, "
            "column 1)");
  EXPECT_EQ(decode_code<collides>("{}", {.naming = naming::camel_case}), refwire::errc::invalid_value);
  // snake_case keeps them apart: user_id and user_id? No: userId -> user_id collides too.
  EXPECT_EQ(encode_failure([] { (void)refwire::to_json(collides{}, {.naming = naming::snake_case}); }),
            "$: naming::snake_case gives fields user_id and userId the same key \"user_id\"");
}

// ------------------------------------------------------------- omissions

TEST(json_omit, null_and_defaults) {
  record r;
  EXPECT_EQ(refwire::to_json(r, {.omit_null = true}),
            R"({"user_id":0,"LIST":[],"_private":"","trailing_":"","plain":{"v":0},"shape":{"0":{"r":0}}})");
  // no_eq has no operator== and is always written (its int field, equal to
  // its default, is not); the variant compares equal.
  EXPECT_EQ(refwire::to_json(r, {.omit_defaults = true}), R"({"plain":{}})");
  EXPECT_EQ(refwire::to_json(r, {.pretty = true, .omit_defaults = true}), "{\n  \"plain\": {}\n}");
  r = sample();
  const std::string all = refwire::to_json(r, {.omit_defaults = true});
  EXPECT_EQ(all, refwire::to_json(r));
  expect_fields_eq(refwire::from_json<record>(all), r);
  r.user_id = 0;
  r.owned_text.reset();
  r.shape = circle{};
  const std::string some = refwire::to_json(r, {.omit_null = true, .omit_defaults = true});
  EXPECT_EQ(some, R"({"maybe_value":3,"LIST":[1,2],"_private":"p","trailing_":"q","plain":{"v":4}})");
  expect_fields_eq(refwire::from_json<record>(some), r);
  // require_all_fields rejects what was left out.
  EXPECT_EQ(decode_failure<record>(some, {.require_all_fields = true}),
            "$: missing field \"user_id\", at offset 77 (line 1, column 78)");
}

// --------------------------------------------------------------- variants

TEST(json_variants, default_form_is_unchanged) {
  EXPECT_EQ(refwire::to_json(mixed{circle{2}}), R"({"v":{"0":{"r":2}}})");
}

TEST(json_variants, by_name_per_call) {
  const mixed m{circle{2}};
  EXPECT_EQ(refwire::to_json(m, {.variants = variant_form::by_name}), R"({"v":{"circle":{"r":2}}})");
  const mixed n{5};
  EXPECT_EQ(refwire::to_json(n, {.variants = variant_form::by_name}), R"({"v":{"i32":5}})");
  const auto back = refwire::from_json<mixed>(R"({"v":{"i32":5}})", {.variants = variant_form::by_name});
  ASSERT_EQ(back.v.index(), 1u);
  EXPECT_EQ(std::get<1>(back.v), 5);
  EXPECT_EQ(decode_failure<mixed>(R"({"v":{"disc":{}}})", {.variants = variant_form::by_name}),
            "$.v: unknown variant alternative \"disc\" (one of \"circle\", \"i32\"), at offset 13 (line 1, column 14)");
  EXPECT_EQ(decode_failure<mixed>(R"({"v":{"circle":{"r":"x"}}})", {.variants = variant_form::by_name}),
            "$.v[\"circle\"].r: expected number, got string, at offset 20 (line 1, column 21)");
  EXPECT_EQ(decode_code<mixed>(R"({"v":{}})", {.variants = variant_form::by_name}), refwire::errc::invalid_variant);
  EXPECT_EQ(decode_code<mixed>(R"({"v":{"i32":1,"circle":{}}})", {.variants = variant_form::by_name}),
            refwire::errc::invalid_variant);
  EXPECT_EQ(encode_failure([] { (void)refwire::to_json(twins{}, {.variants = variant_form::by_name}); }),
            "$.v: variant alternatives 0 and 1 have the same name \"i32\" (give one a REFWIRE_NAME, or use "
            "variant_form::by_index)");
  EXPECT_EQ(decode_code<twins>(R"({"v":{"i32":1}})", {.variants = variant_form::by_name}),
            refwire::errc::invalid_variant);
}

TEST(json_variants, by_name_per_type) {
  const by_name_holder h{square{2, 3}};
  EXPECT_EQ(refwire::to_json(h), R"({"v":{"square":{"side":2,"HTTPServer2Id":3}}})");
  const auto back = refwire::from_json<by_name_holder>(R"({"v":{"square":{"side":2,"HTTPServer2Id":3}}})");
  ASSERT_EQ(back.v.index(), 1u);
  EXPECT_EQ(std::get<1>(back.v), (square{2, 3}));
}

TEST(json_variants, internally_tagged_per_type) {
  scene s;
  s.d.main = square{2, 3};
  s.d.more = {circle{1}, square{4, 5}};
  s.d.maybe = circle{6};
  s.loose = circle{7};
  const std::string text = refwire::to_json(s);
  EXPECT_EQ(text,
            R"({"d":{"main":{"kind":"square","side":2,"HTTPServer2Id":3},)"
            R"("more":[{"kind":"circle","r":1},{"kind":"square","side":4,"HTTPServer2Id":5}],)"
            R"("maybe":{"kind":"circle","r":6}},"loose":{"0":{"r":7}}})");
  const scene back = refwire::from_json<scene>(text);
  EXPECT_EQ(back.d.main, s.d.main);
  EXPECT_EQ(back.d.more, s.d.more);
  EXPECT_EQ(back.d.maybe, s.d.maybe);
  EXPECT_EQ(back.loose, s.loose);
  // The call's form applies to the loose field only.
  const std::string named = refwire::to_json(s, {.variants = variant_form::by_name});
  EXPECT_EQ(named.substr(named.size() - 27), R"("loose":{"circle":{"r":7}}})");
  // The tag anywhere in the object; unknown keys skipped.
  const auto late = refwire::from_json<drawing>(R"({"main":{"side":8,"extra":[1,{"kind":2}],"kind":"square"}})");
  EXPECT_EQ(late.main, (std::variant<circle, square>(square{8, 0})));
  EXPECT_EQ(refwire::to_json(s, {.pretty = true}).substr(0, 64),
            "{\n  \"d\": {\n    \"main\": {\n      \"kind\": \"square\",\n      \"side\": 2");
}

TEST(json_variants, internally_tagged_per_call) {
  const mixed m{circle{2}};
  const refwire::encode_options tagged{.variants = variant_form::internally_tagged};
  EXPECT_EQ(refwire::to_json(m, tagged), R"({"v":{"type":"circle","r":2}})");
  EXPECT_EQ(refwire::to_json(m, {.variants = variant_form::internally_tagged, .variant_tag = "@t"}),
            R"({"v":{"@t":"circle","r":2}})");
  const auto back = refwire::from_json<mixed>(R"({"v":{"r":2,"@t":"circle"}})",
                                              {.variants = variant_form::internally_tagged, .variant_tag = "@t"});
  EXPECT_EQ(std::get<0>(back.v).r, 2);
  // An alternative that is not a struct: an error when it is the one held.
  EXPECT_EQ(encode_failure([&] { (void)refwire::to_json(mixed{1}, tagged); }),
            "$.v: variant_form::internally_tagged needs a described struct for every alternative; alternative 1 "
            "(i32) is not");
  EXPECT_EQ(decode_failure<mixed>(R"({"v":{"type":"i32"}})", {.variants = variant_form::internally_tagged}),
            "$.v: variant_form::internally_tagged needs a described struct for every alternative; alternative 1 "
            "(i32) is not, at offset 5 (line 1, column 6)");
  // A field named like the tag.
  EXPECT_EQ(encode_failure([&] { (void)refwire::to_json(clash_holder{}, tagged); }),
            "$.v: field \"type\" of alternative 0 ({i32 type}) has the name of the variant tag \"type\"");
  EXPECT_EQ(decode_failure<clash_holder>(R"({"v":{"type":"{i32 type}"}})",
                                         {.variants = variant_form::internally_tagged}),
            "$.v: field \"type\" of alternative 0 ({i32 type}) has the name of the variant tag \"type\", at offset 5 "
            "(line 1, column 6)");
  // The same type is fine with another tag.
  EXPECT_EQ(refwire::to_json(clash_holder{}, {.variants = variant_form::internally_tagged, .variant_tag = "k"}),
            R"({"v":{"k":"{i32 type}","type":0}})");
}

/// An alternative read by the tagged form's second pass: every decode option
/// reaches it (the timestamp unit here).
struct stamped {
  refwire::timestamp at{};
  std::string note;
};
BOOST_DESCRIBE_STRUCT(stamped, (), (at, note))
REFWIRE_NAME(stamped, "stamped")
struct stamped_holder {
  std::variant<circle, stamped> v;
};
BOOST_DESCRIBE_STRUCT(stamped_holder, (), (v))

TEST(json_variants, internally_tagged_alternative_sees_every_decode_option) {
  const stamped_holder h{stamped{refwire::timestamp(std::chrono::milliseconds(1'796'118'449'500LL)), "x"}};
  const refwire::encode_options eo{.variants = variant_form::internally_tagged,
                                   .timestamps = refwire::timestamp_format::epoch_milliseconds};
  const std::string text = refwire::to_json(h, eo);
  EXPECT_EQ(text, R"({"v":{"type":"stamped","at":1796118449500,"note":"x"}})");
  const refwire::decode_options do_{.variants = variant_form::internally_tagged,
                                    .timestamps = refwire::timestamp_format::epoch_milliseconds};
  const auto back = refwire::from_json<stamped_holder>(text, do_);
  ASSERT_EQ(back.v.index(), 1u);
  EXPECT_EQ(std::get<1>(back.v).at, std::get<1>(h.v).at);
  EXPECT_EQ(std::get<1>(back.v).note, "x");
  // Without the unit the number is refused inside the alternative, with its path.
  EXPECT_EQ(decode_failure<stamped_holder>(text, {.variants = variant_form::internally_tagged}),
            "$.v.at: expected string, got number, at offset 28 (line 1, column 29)");
}

TEST(json_variants, internally_tagged_hostile) {
  const refwire::decode_options o{.reject_unknown_fields = true};
  EXPECT_EQ(decode_failure<drawing>(R"({"main":{"side":1}})", o),
            "$.main: missing variant tag \"kind\" (one of \"circle\", \"square\"), at offset 8 (line 1, column 9)");
  EXPECT_EQ(decode_failure<drawing>(R"({"main":{"kind":"disc"}})", o),
            "$.main.kind: unknown variant tag \"disc\" (one of \"circle\", \"square\"), at offset 16 (line 1, column "
            "17)");
  EXPECT_EQ(decode_failure<drawing>(R"({"main":{"kind":1}})", o),
            "$.main.kind: variant tag \"kind\" must be a string naming an alternative, got number, at offset 16 (line "
            "1, column 17)");
  EXPECT_EQ(decode_failure<drawing>(R"({"main":{"kind":null}})", o),
            "$.main.kind: variant tag \"kind\" must be a string naming an alternative, got null, at offset 16 (line 1, "
            "column 17)");
  EXPECT_EQ(decode_failure<drawing>(R"({"main":{"kind":"circle","kind":"square"}})", o),
            "$.main.kind: duplicate variant tag \"kind\", at offset 32 (line 1, column 33)");
  EXPECT_EQ(decode_code<drawing>(R"({"main":{"kind":"circle","kind":"circle"}})", o), refwire::errc::duplicate_key);
  EXPECT_EQ(decode_failure<drawing>(R"({"main":{"kind":"circle","r":1,"z":2}})", o),
            "$.main: unknown field \"z\", at offset 35 (line 1, column 36)");
  EXPECT_EQ(decode_failure<drawing>(R"({"more":[{"kind":"circle"},{"r":"1","kind":"circle"}]})", o),
            "$.more[1].r: expected number, got string, at offset 32 (line 1, column 33)");
  EXPECT_EQ(decode_code<drawing>(R"({"main":[]})", o), refwire::errc::type_mismatch);
  EXPECT_EQ(decode_code<drawing>(R"({"main":"circle"})", o), refwire::errc::type_mismatch);
  // Strings holding braces and escaped quotes do not confuse where the object ends.
  const auto tricky = refwire::from_json<drawing>(R"({"main":{"x":"}\"{","kind":"circle","r":3},"maybe":null})");
  EXPECT_EQ(std::get<0>(tricky.main).r, 3);
  // Limits hold inside the alternative.
  EXPECT_EQ(decode_code<drawing>(R"({"more":[{"kind":"circle"},{"kind":"circle"}]})", {.max_elements = 1}),
            refwire::errc::element_limit);
  EXPECT_EQ(decode_code<drawing>(R"({"main":{"kind":"circle"}})", {.max_depth = 2}), refwire::errc::depth_limit);
  EXPECT_FALSE(refwire::deserialize<refwire::json>(std::string_view(R"({"main":{"kind":"circle"}})"),
                                                   *std::make_unique<drawing>(), {.max_depth = 3}));
}

// ------------------------------------------------------------ byte inputs

TEST(json_inputs, from_json_takes_bytes) {
  const record r = sample();
  const std::vector<std::byte> bytes = refwire::serialize<refwire::json>(r);
  expect_fields_eq(refwire::from_json<record>(bytes), r);
  expect_fields_eq(refwire::from_json<record>(std::span<const std::byte>(bytes)), r);
  expect_fields_eq(refwire::deserialize<record, refwire::json>(bytes), r);
  expect_fields_eq(refwire::from_json<record>(refwire::to_json(r)), r);
  expect_fields_eq(refwire::from_json<record>(refwire::serialize<refwire::json>(r, {.omit_null = true})), r);
}

// -------------------------------------------------------- fieldless values

TEST(json_fieldless, top_level_is_an_empty_object) {
  EXPECT_EQ(refwire::to_json(std::monostate{}), "{}");
  EXPECT_EQ(refwire::to_json(empty_described{}), "{}");
  EXPECT_EQ(refwire::to_json(empty_described{}, {.pretty = true}), "{}");
  const std::vector<std::byte> b = refwire::serialize<refwire::json>(std::monostate{});
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(b.data()), b.size()), "{}");
  (void)refwire::deserialize<std::monostate, refwire::json>(b);
  (void)refwire::from_json<empty_described>(" { } ");
  (void)refwire::from_json<empty_described>(R"({"a":[1]})");
  EXPECT_EQ(decode_code<std::monostate>(R"({"a":1})", {.reject_unknown_fields = true}), refwire::errc::unknown_field);
  EXPECT_EQ(decode_code<empty_described>("[]", {}), refwire::errc::type_mismatch);
}

// ------------------------------------------------------------ pretty form

TEST(json_pretty, indent_width) {
  const holds_camel h{1, {2, 3}};
  EXPECT_EQ(refwire::to_json(h, {.pretty = true, .indent = 4}),
            "{\n    \"outer_value\": 1,\n    \"inner\": {\n        \"userId\": 2,\n        \"httpServer2Id\": 3\n    }\n}");
  EXPECT_EQ(refwire::to_json(h, {.pretty = true, .indent = 0}),
            "{\n\"outer_value\": 1,\n\"inner\": {\n\"userId\": 2,\n\"httpServer2Id\": 3\n}\n}");
  EXPECT_EQ(refwire::to_json(h, {.indent = 4}), R"({"outer_value":1,"inner":{"userId":2,"httpServer2Id":3}})");
}

TEST(json_pretty, short_number_arrays_on_one_line) {
  numbers n;
  n.short_ints = {1, 2, 3};
  n.long_doubles = std::vector<double>(20, 0.125);
  n.fixed = {4, 5, 6};
  n.nested = {{1}, {}};
  const std::string text = refwire::to_json(n, {.pretty = true, .short_array_width = 80});
  std::string expected = "{\n  \"short_ints\": [1, 2, 3],\n  \"long_doubles\": [\n";
  for (int i = 0; i < 20; ++i) expected += std::string("    0.125") + (i < 19 ? ",\n" : "\n");
  expected += "  ],\n  \"fixed\": [4, 5, 6],\n  \"nested\": [\n    [1],\n    []\n  ]\n}";
  EXPECT_EQ(text, expected);
  const numbers back = refwire::from_json<numbers>(text);
  expect_fields_eq(back, n);
  // Exactly at the width: indentation (2) + "[1, 2, 3]" (9) = 11 columns.
  EXPECT_NE(refwire::to_json(n, {.pretty = true, .short_array_width = 11}).find("[1, 2, 3]"), std::string::npos);
  EXPECT_EQ(refwire::to_json(n, {.pretty = true, .short_array_width = 10}).find("[1, 2, 3]"), std::string::npos);
  // The default pretty form breaks every array.
  EXPECT_EQ(refwire::to_json(n, {.pretty = true}).find("[1, 2, 3]"), std::string::npos);
  // A top-level array.
  EXPECT_EQ(refwire::to_json(std::vector<int>{-1, 2}, {.pretty = true, .short_array_width = 80}), "[-1, 2]");
  EXPECT_EQ(refwire::to_json(std::vector<double>{0.5, 1e300}, {.pretty = true, .short_array_width = 80}),
            "[0.5, 1e+300]");
  // NaN is still an encode error, named by index.
  EXPECT_EQ(encode_failure([] {
              (void)refwire::to_json(std::vector<double>{1, std::nan("")}, {.pretty = true, .short_array_width = 80});
            }),
            "$[1]: NaN has no JSON encoding");
}

TEST(json_variants, top_level_and_with_a_naming_policy) {
  using shape = std::variant<circle, square>;
  const refwire::encode_options tagged{.naming = naming::kebab_case, .variants = variant_form::internally_tagged};
  EXPECT_EQ(refwire::to_json(shape{square{1, 2}}, tagged), R"({"type":"square","side":1,"http-server2-id":2})");
  const shape back = refwire::from_json<shape>(R"({"http-server2-id":2,"type":"square","side":1})",
                                               {.naming = naming::kebab_case,
                                                .variants = variant_form::internally_tagged});
  EXPECT_EQ(back, (shape{square{1, 2}}));
  EXPECT_EQ(refwire::to_json(shape{circle{3}}, {.variants = variant_form::by_name}), R"({"circle":{"r":3}})");
  EXPECT_EQ(refwire::to_json(shape{circle{3}}, {.pretty = true, .variants = variant_form::internally_tagged}),
            "{\n  \"type\": \"circle\",\n  \"r\": 3\n}");
  // Without the options the same text is not a variant by index.
  EXPECT_EQ(decode_code<shape>(R"({"type":"circle","r":3})", {}), refwire::errc::invalid_variant);
  // std::monostate is a fieldless alternative: only the tag.
  using maybe_shape = std::variant<std::monostate, circle>;
  EXPECT_EQ(refwire::to_json(maybe_shape{}, {.variants = variant_form::internally_tagged}), R"({"type":"{}"})");
  EXPECT_EQ(refwire::from_json<maybe_shape>(R"({"type":"{}"})", {.variants = variant_form::internally_tagged}).index(),
            0u);
}

TEST(json_inputs, mutable_byte_spans_too) {
  std::vector<std::byte> bytes = refwire::serialize<refwire::json>(mixed{circle{2}});
  const mixed m = refwire::from_json<mixed>(std::span<std::byte>(bytes));
  EXPECT_EQ(std::get<0>(m.v).r, 2);
}
