#pragma once
// Values and extra types for the JSON tests (shapes.hpp holds the shared shapes).
#include <refwire/serialization.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "legacy_money.hpp"
#include "types.hpp"

namespace json_shapes {

// max_scalars() and full_wrappers() are shapes.hpp's; full_containers() is
// shapes.hpp's with JSON's differences.
using shapes::full_wrappers;
using shapes::max_scalars;

/// Every container filled, with strings that need escapes; no infinities (JSON has none).
inline shapes::containers full_containers() {
  shapes::containers c = shapes::full_containers();
  c.text += " \"quoted\" \\ \t\n\x1f";
  c.doubles = {0.5, -0.0, std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min()};
  c.m.emplace("\"quoted\\key\"", 3);
  return c;
}

using legacy::money;
using legacy::wallet;

/// JSON text inside a string, parsed by its codec with refwire::from_json (a
/// decode nested in a decode on the same thread).
struct json_text {
  std::string text;
  shapes::inner parsed;
};

struct embedded {
  json_text inside;
};
BOOST_DESCRIBE_STRUCT(embedded, (), (inside))

/// One field per convention, for the exact-text test and the golden files.
struct convention {
  shapes::color col = shapes::color::red;
  shapes::plain_enum pe = shapes::pe_a;
  refwire::uuid id;
  refwire::timestamp when{};
  std::chrono::milliseconds timeout{};
  std::vector<std::byte> blob;
  std::optional<std::int32_t> none;
  std::optional<std::int32_t> some;
  std::variant<std::int32_t, std::string> var;
  std::map<std::string, std::int32_t> by_name;
  std::map<std::int32_t, bool> by_int;
  std::map<shapes::color, std::int32_t> by_enum;
  std::map<refwire::uuid, std::int32_t> by_uuid;
  std::set<std::string> tags;
  std::pair<std::int32_t, std::string> pr;
  double ratio = 0;
  std::uint64_t big = 0;
  std::string text;
};
BOOST_DESCRIBE_STRUCT(convention, (),
                      (col, pe, id, when, timeout, blob, none, some, var, by_name, by_int, by_enum, by_uuid, tags, pr,
                       ratio, big, text))

inline convention sample_convention() {
  convention c;
  c.col = shapes::color::blue;
  c.pe = shapes::pe_b;
  c.id = refwire::uuid::from_string("123e4567-e89b-12d3-a456-426614174000");
  c.when = refwire::timestamp(std::chrono::nanoseconds(1'796'118'449'123'456'789LL));
  c.timeout = std::chrono::milliseconds(1500);
  c.blob = {std::byte{'r'}, std::byte{'e'}, std::byte{'f'}, std::byte{0xff}};
  c.some = -3;
  c.var = std::string("two");
  c.by_name = {{"a", 1}, {"b\"", 2}};
  c.by_int = {{-2, true}, {10, false}};
  c.by_enum = {{shapes::color::green, 7}};
  c.by_uuid = {{refwire::uuid{}, 0}};
  c.tags = {"x", "y"};
  c.pr = {1, "one"};
  c.ratio = 0.1;
  c.big = 18446744073709551615ULL;
  c.text = "line\nnext \xe2\x82\xac";
  return c;
}

inline constexpr std::string_view sample_convention_text =
    R"({"col":"blue","pe":1099511627776,"id":"123e4567-e89b-12d3-a456-426614174000",)"
    R"("when":"2026-12-01T09:47:29.123456789Z","timeout":1500000000,"blob":"cmVm/w==","none":null,"some":-3,)"
    R"("var":{"1":"two"},"by_name":{"a":1,"b\"":2},"by_int":{"-2":true,"10":false},"by_enum":{"green":7},)"
    R"("by_uuid":[["00000000-0000-0000-0000-000000000000",0]],"tags":["x","y"],"pr":[1,"one"],"ratio":0.1,)"
    R"("big":18446744073709551615,"text":"line\nnext )" "\xe2\x82\xac" R"("})";

struct pretty_sample {
  std::int32_t n = 0;
  std::vector<std::int32_t> v;
  std::vector<std::int32_t> e;
  std::map<std::string, shapes::empty> m;
  shapes::empty o;
};
BOOST_DESCRIBE_STRUCT(pretty_sample, (), (n, v, e, m, o))

}  // namespace json_shapes

template <>
struct refwire::codec<json_shapes::json_text> {
  using wire = std::string;
  static std::string to_wire(const json_shapes::json_text& t) { return t.text; }
  static json_shapes::json_text from_wire(std::string&& s) {
    json_shapes::json_text t;
    t.parsed = refwire::from_json<shapes::inner>(s);
    t.text = std::move(s);
    return t;
  }
};
