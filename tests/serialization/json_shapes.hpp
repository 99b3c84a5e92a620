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

#include "shapes.hpp"

namespace json_shapes {

inline shapes::scalars max_scalars() {
  shapes::scalars s;
  s.b = true;
  s.c = std::numeric_limits<char>::max();
  s.i8 = std::numeric_limits<std::int8_t>::min();
  s.u8 = std::numeric_limits<std::uint8_t>::max();
  s.i16 = std::numeric_limits<std::int16_t>::min();
  s.u16 = std::numeric_limits<std::uint16_t>::max();
  s.i32 = std::numeric_limits<std::int32_t>::min();
  s.u32 = std::numeric_limits<std::uint32_t>::max();
  s.i64 = std::numeric_limits<std::int64_t>::min();
  s.u64 = std::numeric_limits<std::uint64_t>::max();
  s.f = std::numeric_limits<float>::max();
  s.d = std::numeric_limits<double>::lowest();
  s.col = shapes::color::blue;
  s.pe = shapes::pe_b;
  s.c16 = u'\xffff';
  s.c32 = U'\U0010ffff';
  return s;
}

/// Every container filled; no infinities (JSON has none).
inline shapes::containers full_containers() {
  shapes::containers c;
  c.text = "grüße, 世界, \xF0\x9F\x98\x80 and a NUL:";
  c.text.push_back('\0');
  c.text += "end \"quoted\" \\ \t\n\x1f";
  c.blob = {std::byte{0}, std::byte{0xff}, std::byte{0x80}};
  c.ints = {1, -1, std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min()};
  c.doubles = {0.5, -0.0, std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min()};
  c.bools = {true, false, true, true, false};
  c.strings = {"", "a", std::string(300, 'x')};
  c.inners = {{1, "one"}, {-2, ""}, {3, std::string(200, 'z')}};
  c.dq = {7, 8, 9};
  c.lst = {"l1", "", "l3"};
  c.arr = {10, 20, 30};
  c.sarr = {"first", "second"};
  c.carr[0] = -1;
  c.carr[3] = 4;
  c.cinner[1] = {5, "five"};
  c.m = {{"", 0}, {"alpha", 1}, {"beta", -2}, {"\"quoted\\key\"", 3}};
  c.mi = {{-1, {1, "x"}}, {7, {2, "y"}}};
  c.um = {{"k1", {1, 2}}, {"k2", {}}};
  c.st = {"a", "b", "ü"};
  c.ust = {-1, 0, 1LL << 50};
  c.nested = {{}, {1}, {2, 3}};
  c.barr = {true, false, true};
  return c;
}

inline shapes::wrappers full_wrappers() {
  shapes::wrappers w;
  w.oi = 0;
  w.os = "present";
  w.oin = shapes::inner{9, "nine"};
  w.ptr = std::make_unique<shapes::inner>(shapes::inner{4, "four"});
  w.var = shapes::inner{3, "three"};
  w.var2 = 2.5;
  w.pr = {42, "answer"};
  w.tup = {true, -7, "t", {1, 2, 3}};
  w.id = refwire::uuid::from_string("123e4567-e89b-12d3-a456-426614174000");
  w.when = refwire::timestamp(std::chrono::nanoseconds(1'700'000'000'123'456'789LL));
  w.ns = std::chrono::nanoseconds(-5);
  w.ms = std::chrono::milliseconds(1234);
  w.sec = std::chrono::seconds(-86400);
  w.when_s = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>(std::chrono::seconds(1'000'000));
  return w;
}

/// A type we pretend not to own (codec surrogate: an integer).
class money {
 public:
  money() = default;
  explicit money(std::int64_t cents) : cents_(cents) {}
  [[nodiscard]] std::int64_t cents() const { return cents_; }
  friend bool operator==(const money&, const money&) = default;

 private:
  std::int64_t cents_ = 0;
};

struct wallet {
  std::string owner;
  money balance;
  std::vector<money> history;
};
BOOST_DESCRIBE_STRUCT(wallet, (), (owner, balance, history))

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
struct refwire::codec<json_shapes::money> {
  using wire = std::int64_t;
  static std::int64_t to_wire(const json_shapes::money& m) { return m.cents(); }
  static json_shapes::money from_wire(std::int64_t&& c) {
    if (c < 0) throw std::invalid_argument("money cannot be negative");
    return json_shapes::money(c);
  }
};

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
