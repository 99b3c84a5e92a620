#pragma once
// Test types covering every shape refwire serializes, shared by the format tests.
#include <refwire/serialization.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace shapes {

enum class color : std::uint8_t { red = 1, green = 2, blue = 200 };
BOOST_DESCRIBE_ENUM(color, red, green, blue)

enum plain_enum : std::int64_t { pe_a = -5, pe_b = 1LL << 40 };

struct inner {
  std::int16_t a = 0;
  std::string s;
  friend bool operator==(const inner&, const inner&) = default;
  friend auto operator<=>(const inner&, const inner&) = default;
};
BOOST_DESCRIBE_STRUCT(inner, (), (a, s))

struct scalars {
  bool b = false;
  char c = 0;
  std::int8_t i8 = 0;
  std::uint8_t u8 = 0;
  std::int16_t i16 = 0;
  std::uint16_t u16 = 0;
  std::int32_t i32 = 0;
  std::uint32_t u32 = 0;
  std::int64_t i64 = 0;
  std::uint64_t u64 = 0;
  float f = 0;
  double d = 0;
  color col = color::red;
  plain_enum pe = pe_a;
  char16_t c16 = 0;
  char32_t c32 = 0;
  friend bool operator==(const scalars&, const scalars&) = default;
};
BOOST_DESCRIBE_STRUCT(scalars, (), (b, c, i8, u8, i16, u16, i32, u32, i64, u64, f, d, col, pe, c16, c32))

struct containers {
  std::string text;
  std::vector<std::byte> blob;
  std::vector<std::int32_t> ints;
  std::vector<double> doubles;
  std::vector<bool> bools;
  std::vector<std::string> strings;
  std::vector<inner> inners;
  std::deque<std::uint16_t> dq;
  std::list<std::string> lst;
  std::array<std::int32_t, 3> arr{};
  std::array<std::string, 2> sarr;
  std::int32_t carr[4] = {};
  inner cinner[2] = {};
  std::map<std::string, std::int32_t> m;
  std::map<std::int32_t, inner> mi;
  std::unordered_map<std::string, std::vector<std::int32_t>> um;
  std::set<std::string> st;
  std::unordered_set<std::int64_t> ust;
  std::vector<std::vector<std::int32_t>> nested;
  std::array<bool, 3> barr{};
  friend bool operator==(const containers& x, const containers& y) {
    return x.text == y.text && x.blob == y.blob && x.ints == y.ints && x.doubles == y.doubles &&
           x.bools == y.bools && x.strings == y.strings && x.inners == y.inners && x.dq == y.dq &&
           x.lst == y.lst && x.arr == y.arr && x.sarr == y.sarr && std::equal(x.carr, x.carr + 4, y.carr) &&
           std::equal(x.cinner, x.cinner + 2, y.cinner) && x.m == y.m && x.mi == y.mi && x.um == y.um &&
           x.st == y.st && x.ust == y.ust && x.nested == y.nested && x.barr == y.barr;
  }
};
BOOST_DESCRIBE_STRUCT(containers, (),
                      (text, blob, ints, doubles, bools, strings, inners, dq, lst, arr, sarr, carr, cinner, m, mi,
                       um, st, ust, nested, barr))

struct wrappers {
  std::optional<std::int32_t> oi;
  std::optional<std::string> os;
  std::optional<inner> oin;
  std::unique_ptr<inner> ptr;
  std::unique_ptr<std::int32_t> null_ptr;
  std::variant<std::int32_t, std::string, inner> var;
  std::variant<std::monostate, double> var2;
  std::pair<std::int32_t, std::string> pr;
  std::tuple<bool, std::int64_t, std::string, std::vector<std::int32_t>> tup;
  std::tuple<> empty_tup;
  refwire::uuid id;
  refwire::timestamp when{};
  std::chrono::nanoseconds ns{};
  std::chrono::milliseconds ms{};
  std::chrono::seconds sec{};
  std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds> when_s{};
  friend bool operator==(const wrappers& x, const wrappers& y) {
    const bool ptr_eq = (!x.ptr && !y.ptr) || (x.ptr && y.ptr && *x.ptr == *y.ptr);
    const bool null_eq = (!x.null_ptr && !y.null_ptr) || (x.null_ptr && y.null_ptr && *x.null_ptr == *y.null_ptr);
    return x.oi == y.oi && x.os == y.os && x.oin == y.oin && ptr_eq && null_eq && x.var == y.var &&
           x.var2 == y.var2 && x.pr == y.pr && x.tup == y.tup && x.id == y.id && x.when == y.when && x.ns == y.ns &&
           x.ms == y.ms && x.sec == y.sec && x.when_s == y.when_s;
  }
};
BOOST_DESCRIBE_STRUCT(wrappers, (),
                      (oi, os, oin, ptr, null_ptr, var, var2, pr, tup, empty_tup, id, when, ns, ms, sec, when_s))

struct base1 {
  std::int32_t id = 0;
  friend bool operator==(const base1&, const base1&) = default;
};
BOOST_DESCRIBE_STRUCT(base1, (), (id))

struct base2 {
  std::string tag;
  friend bool operator==(const base2&, const base2&) = default;
};
BOOST_DESCRIBE_STRUCT(base2, (), (tag))

struct derived : base1, base2 {
  double value = 0;
  friend bool operator==(const derived&, const derived&) = default;
};
BOOST_DESCRIBE_STRUCT(derived, (base1, base2), (value))

/// A class with private state described by BOOST_DESCRIBE_CLASS.
class account {
 public:
  account() = default;
  account(std::string owner, std::int64_t cents) : owner_(std::move(owner)), cents_(cents) {}
  [[nodiscard]] const std::string& owner() const { return owner_; }
  [[nodiscard]] std::int64_t cents() const { return cents_; }
  friend bool operator==(const account&, const account&) = default;

 private:
  std::string owner_;
  std::int64_t cents_ = 0;
  BOOST_DESCRIBE_CLASS(account, (), (), (), (owner_, cents_))
};

/// A plain aggregate: walked by Boost.PFR, positional formats only.
struct plain {
  std::int32_t a;
  std::string b;
  std::vector<double> c;
  inner d;
  friend bool operator==(const plain&, const plain&) = default;
};

struct node {
  std::int32_t value = 0;
  std::vector<node> kids;
  std::unique_ptr<node> next;
  friend bool operator==(const node& x, const node& y) {
    const bool next_eq = (!x.next && !y.next) || (x.next && y.next && *x.next == *y.next);
    return x.value == y.value && x.kids == y.kids && next_eq;
  }
};
BOOST_DESCRIBE_STRUCT(node, (), (value, kids, next))

struct empty {
  friend bool operator==(const empty&, const empty&) = default;
};
BOOST_DESCRIBE_STRUCT(empty, (), ())

struct with_attrs {
  std::int32_t keep = 0;
  std::string cache;   // skipped: never on the wire
  std::int32_t after = 0;
};
BOOST_DESCRIBE_STRUCT(with_attrs, (), (keep, cache, after))
REFWIRE_ATTRIBUTES(with_attrs, {.name = "cache", .skip = true}, {.name = "after", .rename = "later"})

// ------------------------------------------------ sample values for round trips

/// Every scalar at an extreme of its range.
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

/// Every container filled, with unicode, a NUL, empty and long elements.
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

/// Every wrapper engaged.
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

}  // namespace shapes
