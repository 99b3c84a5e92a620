#pragma once
// The types fuzz_binary decodes, shared with the seed-corpus generator.
// The first input byte (mod type_count) picks one; the rest is the encoding.
#include <refwire/serialization.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace fuzz {

struct point {
  std::int32_t x = 0;
  double y = 0;
  std::string name;
};
BOOST_DESCRIBE_STRUCT(point, (), (x, y, name))

struct order {
  std::uint32_t id = 0;
  std::vector<point> items;
  std::map<std::string, point> by_name;
};
BOOST_DESCRIBE_STRUCT(order, (), (id, items, by_name))

struct node {
  std::int16_t value = 0;
  std::vector<node> kids;
};
BOOST_DESCRIBE_STRUCT(node, (), (value, kids))

struct chain {
  std::uint8_t v = 0;
  std::unique_ptr<chain> next;
};
BOOST_DESCRIBE_STRUCT(chain, (), (v, next))

struct flags {
  bool b = false;
  std::optional<std::int16_t> o;
  std::unique_ptr<std::string> p;
  std::variant<std::int32_t, std::string, point, std::vector<bool>> v;
};
BOOST_DESCRIBE_STRUCT(flags, (), (b, o, p, v))

enum class color : std::uint8_t { red, green };
BOOST_DESCRIBE_ENUM(color, red, green)

enum class yes_no : bool { no, yes };  // a bool on the wire

/// Rejected by its codec when odd.
struct even {
  std::int32_t v = 0;
};

}  // namespace fuzz

template <>
struct refwire::codec<fuzz::even> {
  using wire = std::int32_t;
  static std::int32_t to_wire(const fuzz::even& e) { return e.v; }
  static fuzz::even from_wire(std::int32_t&& w) {
    if (w % 2 != 0) throw std::invalid_argument("odd");
    return fuzz::even{w};
  }
};

namespace fuzz {

/// Every shape whose encoding is canonical (ordered containers only).
struct ordered_shapes {
  color c = color::red;
  yes_no yn = yes_no::no;
  char ch = 0;
  float f = 0;
  std::string s;
  std::vector<std::byte> blob;
  std::vector<double> dv;
  std::vector<std::string> sv;
  std::deque<std::int16_t> dq;
  std::list<std::string> ls;
  std::vector<bool> bits;
  std::array<std::int32_t, 2> arr{};
  std::array<bool, 2> barr{};
  std::int16_t carr[2] = {};
  std::set<std::int32_t> set;
  std::map<std::int8_t, std::string> map;
  std::optional<point> opt;
  std::tuple<std::uint8_t, std::string, bool> tup;
  std::pair<bool, std::int8_t> pr;
  refwire::uuid id;
  refwire::timestamp ts;
  std::chrono::milliseconds ms{};
  std::chrono::duration<std::int16_t> s16{};
  std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds> ts_sec;
  even e;
};
BOOST_DESCRIBE_STRUCT(ordered_shapes, (),
                      (c, yn, ch, f, s, blob, dv, sv, dq, ls, bits, arr, barr, carr, set, map, opt, tup, pr, id, ts,
                       ms, s16, ts_sec, e))

/// A plain aggregate (Boost.PFR).
struct plain {
  std::uint16_t a = 0;
  std::string b;
  std::vector<std::int32_t> c;
  std::optional<std::uint64_t> d;
};

struct empty {};

/// Unordered containers: written in iteration order, so compared by value.
struct unordered {
  std::unordered_map<std::string, std::int32_t> m;
  std::unordered_set<std::int64_t> s;
  std::unordered_map<std::int32_t, std::vector<std::string>> nested;
  friend bool operator==(const unordered&, const unordered&) = default;
};
BOOST_DESCRIBE_STRUCT(unordered, (), (m, s, nested))

using string_map = std::map<std::string, std::vector<std::int16_t>>;
using string_set = std::set<std::string>;
using empties = std::vector<std::vector<empty>>;
using mixed_tuple = std::tuple<std::uint8_t, std::optional<std::string>, std::vector<bool>, std::list<std::int64_t>>;

/// The selector byte of each type (input[0] % type_count).
enum class kind : std::uint8_t {
  point,
  order,
  node,
  chain,
  flags,
  ordered_shapes,
  plain,
  string_map,
  string_set,
  empties,
  mixed_tuple,
  unordered,
  count
};
inline constexpr unsigned type_count = static_cast<unsigned>(kind::count);

/// Limits the harness decodes with: small enough that a short input cannot
/// make one run slow (empty elements cost no input bytes).
inline constexpr refwire::decode_options fuzz_options{
    .max_depth = 64, .max_elements = std::uint64_t{1} << 16, .max_alloc_bytes = std::uint64_t{1} << 24};

}  // namespace fuzz
