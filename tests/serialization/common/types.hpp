#pragma once
// The test types, each defined once: every shape refwire serializes (the round
// trips and the conformance suite), the protobuf and JSON conventions, and the
// small records of the hostile tests, the golden files and the fuzzers
// (tests/fuzz/fuzz_types.hpp lists the ones the fuzzers decode). A type that
// only one test uses, for a detail of one format, stays in that test.
// Sample values of these types are in values.hpp.
#include <refwire/serialization.hpp>

#include <array>
#include <bitset>
#include <chrono>
#include <cstring>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <limits>
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

namespace shapes {

// ---------------------------------- every shape: round trips, the conformance suite

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

// ------------------------------------------ protobuf: names, numbers, encodings

enum class level : std::int32_t { low = 0, mid = 5, high = -3 };
BOOST_DESCRIBE_ENUM(level, low, mid, high)
REFWIRE_NAME(level, "Level")

/// A named message (proto_schema writes "message Point"), comparable.
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

// ------------------------------------------------------- JSON: conventions

/// JSON text inside a string, parsed by its codec with refwire::from_json (a
/// decode nested in a decode on the same thread).
struct json_text {
  std::string text;
  inner parsed;
};

struct embedded {
  json_text inside;
};
BOOST_DESCRIBE_STRUCT(embedded, (), (inside))

/// One field per convention, for the exact-text test and the golden files.
struct convention {
  color col = color::red;
  plain_enum pe = pe_a;
  refwire::uuid id;
  refwire::timestamp when{};
  std::chrono::milliseconds timeout{};
  std::vector<std::byte> blob;
  std::optional<std::int32_t> none;
  std::optional<std::int32_t> some;
  std::variant<std::int32_t, std::string> var;
  std::map<std::string, std::int32_t> by_name;
  std::map<std::int32_t, bool> by_int;
  std::map<color, std::int32_t> by_enum;
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

struct pretty_sample {
  std::int32_t n = 0;
  std::vector<std::int32_t> v;
  std::vector<std::int32_t> e;
  std::map<std::string, empty> m;
  empty o;
};
BOOST_DESCRIBE_STRUCT(pretty_sample, (), (n, v, e, m, o))

// ------------------------- small records: hostile input, fuzzers, golden files
//
// The binary golden files, the fuzzers' seed corpora and the hostile tests'
// exact offsets encode these: change none of them (fields, order, types,
// defaults); add a new type instead.

/// A point without operator== or a schema name.
struct bare_point {
  std::int32_t x = 0;
  double y = 0;
  std::string name;
};
BOOST_DESCRIBE_STRUCT(bare_point, (), (x, y, name))

/// Items with a name each: paths like $.items[3].name.
struct point_list {
  std::vector<bare_point> items;
};
BOOST_DESCRIBE_STRUCT(point_list, (), (items))

/// A PFR aggregate with no fields: encodes to zero bytes in the positional formats.
struct empty_aggregate {};

/// Recursion through a vector: each level is a record and a container.
struct tree {
  std::vector<tree> kids;
};
BOOST_DESCRIBE_STRUCT(tree, (), (kids))

/// Recursion through a pointer.
struct chain {
  std::int32_t v = 0;
  std::unique_ptr<chain> next;
};
BOOST_DESCRIBE_STRUCT(chain, (), (v, next))

struct flags {
  std::int32_t a = 0;
  bool b = false;
  std::optional<std::int16_t> o;
  std::unique_ptr<std::int16_t> p;
  std::variant<std::int32_t, std::string> v;
};
BOOST_DESCRIBE_STRUCT(flags, (), (a, b, o, p, v))

struct with_maps {
  std::map<std::string, std::int32_t> m;
  std::map<std::int32_t, bare_point> im;
  std::set<std::string> s;
  std::map<refwire::uuid, std::int32_t> um;
};
BOOST_DESCRIBE_STRUCT(with_maps, (), (m, im, s, um))

/// A PFR aggregate: its fields have no names ($.#2).
struct agg {
  std::uint8_t a = 0;
  std::uint8_t b = 0;
  bool c = false;
};

struct renamed {
  std::int32_t id = 0;
  bool flag = false;
};
BOOST_DESCRIBE_STRUCT(renamed, (), (id, flag))
REFWIRE_ATTRIBUTES(renamed, {.name = "flag", .rename = "on"})

struct tag_base {
  std::string tag;
};
BOOST_DESCRIBE_STRUCT(tag_base, (), (tag))
struct tag_derived : tag_base {
  bool ok = false;
};
BOOST_DESCRIBE_STRUCT(tag_derived, (tag_base), (ok))

struct timing {
  std::chrono::milliseconds ms{};
  std::chrono::duration<std::int32_t> s32{};
  std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds> ts{};
};
BOOST_DESCRIBE_STRUCT(timing, (), (ms, s32, ts))

enum class color16 : std::uint16_t { red = 1, green = 2 };
BOOST_DESCRIBE_ENUM(color16, red, green)

/// An enum whose underlying type is bool: a bool on the wire.
enum class yes_no : bool { no, yes };

/// Rejected by its codec when odd ("odd number 3").
struct even {
  std::int32_t v = 0;
};

struct holds_even {
  std::int32_t a = 0;
  even e;
};

/// Rejected by its codec when odd ("odd"): the fuzzers' variant.
struct fuzz_even {
  std::int32_t v = 0;
};

}  // namespace shapes

template <>
struct refwire::codec<shapes::json_text> {
  using wire = std::string;
  static std::string to_wire(const shapes::json_text& t) { return t.text; }
  static shapes::json_text from_wire(std::string&& s) {
    shapes::json_text t;
    t.parsed = refwire::from_json<shapes::inner>(s);
    t.text = std::move(s);
    return t;
  }
};

template <>
struct refwire::codec<shapes::even> {
  using wire = std::int32_t;
  static std::int32_t to_wire(const shapes::even& e) { return e.v; }
  static shapes::even from_wire(std::int32_t&& w) {
    if (w % 2 != 0) throw std::invalid_argument("odd number " + std::to_string(w));
    return shapes::even{w};
  }
};

template <>
struct refwire::codec<shapes::fuzz_even> {
  using wire = std::int32_t;
  static std::int32_t to_wire(const shapes::fuzz_even& e) { return e.v; }
  static shapes::fuzz_even from_wire(std::int32_t&& w) {
    if (w % 2 != 0) throw std::invalid_argument("odd");
    return shapes::fuzz_even{w};
  }
};

namespace shapes {

BOOST_DESCRIBE_STRUCT(holds_even, (), (a, e))  // in the type's namespace, or it is silently a PFR aggregate

/// Every shape at once, for truncation and mutation loops.
struct mixed {
  bool b = false;
  std::int64_t i = 0;
  float f = 0;
  color16 c = color16::red;
  std::string s;
  std::vector<std::byte> blob;
  std::vector<double> dv;
  std::vector<std::string> sv;
  std::deque<std::int16_t> dq;
  std::list<bare_point> pl;
  std::vector<bool> bits;
  std::array<std::int32_t, 2> arr{};
  std::array<std::string, 2> sarr;
  std::set<std::int32_t> set;
  std::map<std::string, bare_point> map;
  std::optional<bare_point> opt;
  std::unique_ptr<std::string> ptr;
  std::variant<std::int32_t, std::string, bare_point> var;
  std::tuple<std::uint8_t, std::string, bool> tup;
  refwire::uuid id;
  refwire::timestamp ts;
  std::chrono::milliseconds ms{};
  even e;
};
BOOST_DESCRIBE_STRUCT(mixed, (),
                      (b, i, f, c, s, blob, dv, sv, dq, pl, bits, arr, sarr, set, map, opt, ptr, var, tup, id, ts,
                       ms, e))

// ------------------------------------ the fuzzers' types (tests/fuzz/corpus)

struct order {
  std::uint32_t id = 0;
  std::vector<bare_point> items;
  std::map<std::string, bare_point> by_name;
};
BOOST_DESCRIBE_STRUCT(order, (), (id, items, by_name))

struct fuzz_node {
  std::int16_t value = 0;
  std::vector<fuzz_node> kids;
};
BOOST_DESCRIBE_STRUCT(fuzz_node, (), (value, kids))

struct fuzz_chain {
  std::uint8_t v = 0;
  std::unique_ptr<fuzz_chain> next;
};
BOOST_DESCRIBE_STRUCT(fuzz_chain, (), (v, next))

struct fuzz_flags {
  bool b = false;
  std::optional<std::int16_t> o;
  std::unique_ptr<std::string> p;
  std::variant<std::int32_t, std::string, bare_point, std::vector<bool>> v;
};
BOOST_DESCRIBE_STRUCT(fuzz_flags, (), (b, o, p, v))

enum class fuzz_color : std::uint8_t { red, green };
BOOST_DESCRIBE_ENUM(fuzz_color, red, green)

/// Every shape whose encoding is canonical (ordered containers only).
struct ordered_shapes {
  fuzz_color c = fuzz_color::red;
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
  std::optional<bare_point> opt;
  std::tuple<std::uint8_t, std::string, bool> tup;
  std::pair<bool, std::int8_t> pr;
  refwire::uuid id;
  refwire::timestamp ts;
  std::chrono::milliseconds ms{};
  std::chrono::duration<std::int16_t> s16{};
  std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds> ts_sec;
  fuzz_even e;
};
BOOST_DESCRIBE_STRUCT(ordered_shapes, (),
                      (c, yn, ch, f, s, blob, dv, sv, dq, ls, bits, arr, barr, carr, set, map, opt, tup, pr, id, ts,
                       ms, s16, ts_sec, e))

/// A plain aggregate (Boost.PFR).
struct fuzz_plain {
  std::uint16_t a = 0;
  std::string b;
  std::vector<std::int32_t> c;
  std::optional<std::uint64_t> d;
};

/// Unordered containers: written in iteration order, so compared by value.
struct unordered {
  std::unordered_map<std::string, std::int32_t> m;
  std::unordered_set<std::int64_t> s;
  std::unordered_map<std::int32_t, std::vector<std::string>> nested;
  friend bool operator==(const unordered&, const unordered&) = default;
};
BOOST_DESCRIBE_STRUCT(unordered, (), (m, s, nested))

// ------------- the standard types users reach for: shared_ptr, the multi containers, bitset, path, u8string

enum class rank : std::int32_t { low = 0, mid = 1, high = 7 };
BOOST_DESCRIBE_ENUM(rank, low, mid, high)

enum class small_rank : std::uint8_t { off = 0, on = 3 };  // not described: a number in JSON

/// Every one of them, in ordered containers (canonical in every format), and
/// the map keys every format takes: enums and uuids.
struct std_types {
  std::shared_ptr<inner> sp;
  std::shared_ptr<std::int32_t> sp_null;
  std::multimap<std::string, std::int32_t> mm;
  std::multiset<std::int32_t> ms;
  std::multiset<std::string> mss;
  std::bitset<12> bits12;
  std::bitset<8> bits8;
  std::bitset<70> bits70;
  std::filesystem::path file;
  std::u8string u8;
  std::map<rank, std::int32_t> by_rank;
  std::map<small_rank, std::string> by_small;
  std::map<refwire::uuid, std::string> by_id;
  std::multimap<inner, std::int32_t> mm_inner;  // a record key: an entry message in protobuf
  std::vector<std::shared_ptr<inner>> sps;
  std::map<std::filesystem::path, std::int32_t> by_path;
};
BOOST_DESCRIBE_STRUCT(std_types, (),
                      (sp, sp_null, mm, ms, mss, bits12, bits8, bits70, file, u8, by_rank, by_small, by_id, mm_inner,
                       sps, by_path))

/// The unordered multi containers: written in iteration order, so compared by value.
struct std_unordered {
  std::unordered_multimap<std::int32_t, std::string> umm;
  std::unordered_multiset<std::string> ums;
  friend bool operator==(const std_unordered&, const std_unordered&) = default;
};
BOOST_DESCRIBE_STRUCT(std_unordered, (), (umm, ums))

/// What the fuzzers decode of the standard types (compared by value: a
/// multimap re-encodes sorted, and a path in JSON or protobuf in its generic form).
struct fuzz_std {
  std::shared_ptr<bare_point> sp;
  std::multimap<std::string, std::int16_t> mm;
  std::multiset<std::int8_t> ms;
  std::bitset<12> bits;
  std::filesystem::path file;
  std::u8string u8;
  std::map<fuzz_color, std::string> by_color;
  std::map<refwire::uuid, std::int8_t> by_id;
  std::unordered_multiset<std::int32_t> ums;
  friend bool operator==(const fuzz_std& a, const fuzz_std& b) {
    const bool same_sp = (!a.sp && !b.sp) || (a.sp && b.sp && a.sp->x == b.sp->x && a.sp->name == b.sp->name &&
                                         std::memcmp(&a.sp->y, &b.sp->y, sizeof(double)) == 0);
    return same_sp && a.mm == b.mm && a.ms == b.ms && a.bits == b.bits && a.file == b.file && a.u8 == b.u8 &&
           a.by_color == b.by_color && a.by_id == b.by_id && a.ums == b.ums;
  }
};
BOOST_DESCRIBE_STRUCT(fuzz_std, (), (sp, mm, ms, bits, file, u8, by_color, by_id, ums))

/// Recursion through a shared_ptr.
struct shared_chain {
  std::int32_t v = 0;
  std::shared_ptr<shared_chain> next;
};
BOOST_DESCRIBE_STRUCT(shared_chain, (), (v, next))

}  // namespace shapes
