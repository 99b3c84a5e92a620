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

#include "types.hpp"

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

// max_scalars(), full_containers() and full_wrappers() come from shapes.hpp.

}  // namespace pbshapes
