#pragma once
// Test shapes for the protobuf format (on top of shapes.hpp): named messages,
// explicit field numbers and integer encodings, default member initializers,
// and the filled values of shapes.hpp's types.
#include <refwire/serialization.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shapes.hpp"

namespace pbshapes {

using namespace shapes;

enum class level : std::int32_t { low = 0, mid = 5, high = -3 };
BOOST_DESCRIBE_ENUM(level, low, mid, high)
REFWIRE_NAME(level, "Level")

struct point {
  std::int32_t x = 0;
  double y = 0;
  std::string name;
  friend bool operator==(const point&, const point&) = default;
};
BOOST_DESCRIBE_STRUCT(point, (), (x, y, name))
REFWIRE_NAME(point, "Point")

/// Explicit numbers and encodings.
struct numbered {
  std::int32_t a = 0;                 // 10, sint32
  std::uint64_t b = 0;                // 2 (position), fixed64
  std::int64_t c = 0;                 // 3, sint64
  std::vector<std::int32_t> zz;       // 4, packed sint32
  std::vector<std::int32_t> fx;       // 5, packed sfixed32
  std::int32_t neg = 0;               // 6, int32 (a negative value is 10 bytes)
  level lv = level::low;              // 7, enum Level
  std::map<std::int32_t, std::int64_t> zm;  // 100, map<sint32, sint64>
  friend bool operator==(const numbered&, const numbered&) = default;
};
BOOST_DESCRIBE_STRUCT(numbered, (), (a, b, c, zz, fx, neg, lv, zm))
REFWIRE_ATTRIBUTES(numbered, {.name = "a", .number = 10, .encoding = refwire::int_encoding::zigzag},
                   {.name = "b", .encoding = refwire::int_encoding::fixed},
                   {.name = "c", .encoding = refwire::int_encoding::zigzag},
                   {.name = "zz", .encoding = refwire::int_encoding::zigzag},
                   {.name = "fx", .encoding = refwire::int_encoding::fixed},
                   {.name = "zm", .number = 100, .encoding = refwire::int_encoding::zigzag})
REFWIRE_NAME(numbered, "Numbered")

/// Default member initializers: proto3 decodes a missing field as zero, not as these.
struct defaults {
  std::int32_t x = 5;
  std::string s = "hi";
  bool b = true;
  point p{7, 1.5, "p"};
  std::optional<std::int32_t> o = 3;
};
BOOST_DESCRIBE_STRUCT(defaults, (), (x, s, b, p, o))
REFWIRE_NAME(defaults, "Defaults")

/// A message using most proto3 field kinds, for the interop tests.
struct person {
  std::string name;
  std::int32_t id = 0;
  std::vector<std::string> emails;
  point home;
  std::vector<point> places;
  std::map<std::string, std::int32_t> scores;
  std::optional<std::string> nickname;
  level lv = level::low;
  std::vector<double> weights;
  std::vector<std::byte> avatar;
  refwire::timestamp born{};
  std::chrono::nanoseconds age{};
  std::variant<std::int32_t, std::string, point> choice;
  bool active = false;
  std::uint64_t big = 0;
  float ratio = 0;
  std::map<std::int64_t, point> by_id;
  friend bool operator==(const person&, const person&) = default;
};
BOOST_DESCRIBE_STRUCT(person, (), (name, id, emails, home, places, scores, nickname, lv, weights, avatar, born, age,
                                   choice, active, big, ratio, by_id))
REFWIRE_NAME(person, "Person")

inline person full_person() {
  person p;
  p.name = "Ada Lovelace, 世界";
  p.id = -42;
  p.emails = {"ada@example.com", "", "a@b.c"};
  p.home = {1, -2.5, "home"};
  p.places = {{3, 4.0, "x"}, {}, {-5, 0.25, "z"}};
  p.scores = {{"math", 100}, {"poetry", -1}, {"", 0}};
  p.nickname = "";
  p.lv = level::high;
  p.weights = {1.0, -0.0, 1e300};
  p.avatar = {std::byte{0}, std::byte{0xff}};
  p.born = refwire::timestamp(std::chrono::nanoseconds(-1'234'567'891LL));
  p.age = std::chrono::nanoseconds(-3'000'000'001LL);
  p.choice = point{9, 9.5, "nine"};
  p.active = true;
  p.big = std::numeric_limits<std::uint64_t>::max();
  p.ratio = 0.75f;
  p.by_id = {{-1, {1, 1, "one"}}, {1LL << 40, {2, 2, "two"}}};
  return p;
}

inline numbered full_numbered() {
  numbered n;
  n.a = -3;
  n.b = 0x0102030405060708ULL;
  n.c = std::numeric_limits<std::int64_t>::min();
  n.zz = {-1, 1, -64, 64};
  n.fx = {-1, 2};
  n.neg = -1;
  n.lv = level::mid;
  n.zm = {{-1, -2}, {3, 4}};
  return n;
}

inline scalars max_scalars() {
  scalars s;
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
  s.col = color::blue;
  s.pe = pe_b;
  s.c16 = u'\xffff';
  s.c32 = U'\U0010ffff';
  return s;
}

inline containers full_containers() {
  containers c;
  c.text = "grüße, 世界, \xF0\x9F\x98\x80 and a NUL:";
  c.text.push_back('\0');
  c.text += "end";
  c.blob = {std::byte{0}, std::byte{0xff}, std::byte{0x80}};
  c.ints = {1, -1, std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min()};
  c.doubles = {0.5, -0.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::denorm_min()};
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
  c.m = {{"", 0}, {"alpha", 1}, {"beta", -2}};
  c.mi = {{-1, {1, "x"}}, {7, {2, "y"}}};
  c.um = {{"k1", {1, 2}}, {"k2", {}}};
  c.st = {"a", "b", "ü"};
  c.ust = {-1, 0, 1LL << 50};
  c.nested = {{}, {1}, {2, 3}};
  c.barr = {true, false, true};
  return c;
}

inline wrappers full_wrappers() {
  wrappers w;
  w.oi = 0;
  w.os = "present";
  w.oin = inner{9, "nine"};
  w.ptr = std::make_unique<inner>(inner{4, "four"});
  w.var = inner{3, "three"};
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


}  // namespace pbshapes
