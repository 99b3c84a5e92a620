// Golden wire files for the binary format: an accidental layout change fails here.
//
// Each fixed value is encoded and compared byte for byte with a committed file in
// tests/serialization/golden/; each file is decoded back and compared field by field.
// The hand-computed hex strings below check the golden files against the spec
// (docs/binary-format.md), so a regenerated file cannot silently pin a wrong layout.
//
// Regenerate after an intended format change (then review the diff of the .bin files):
//   REFWIRE_UPDATE_GOLDEN=1 ./binary_golden_test
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
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

#include "../common/types.hpp"

#ifndef REFWIRE_GOLDEN_DIR
#error "REFWIRE_GOLDEN_DIR must name the directory of the golden files"
#endif

namespace golden {

enum class color : std::uint16_t { red = 1, green = 2, blue = 0x1234 };
BOOST_DESCRIBE_ENUM(color, red, green, blue)

enum level : std::int8_t { low = -1, high = 1 };  // unscoped, not described

using point = shapes::bare_point;

struct scalars {
  bool t = false;
  bool f = true;
  std::int8_t i8 = 0;
  std::uint8_t u8 = 0;
  std::int16_t i16 = 0;
  std::uint16_t u16 = 0;
  std::int32_t i32 = 0;
  std::uint32_t u32 = 0;
  std::int64_t i64 = 0;
  std::uint64_t u64 = 0;
  char c = 0;
  signed char sc = 0;
  unsigned char uc = 0;
  char8_t c8 = 0;
  char16_t c16 = 0;
  char32_t c32 = 0;
  wchar_t wc = 0;
  float f32 = 0;
  double f64 = 0;
  color col = color::red;
  level lvl = high;
  std::byte by{};
};
BOOST_DESCRIBE_STRUCT(scalars, (),
                      (t, f, i8, u8, i16, u16, i32, u32, i64, u64, c, sc, uc, c8, c16, c32, wc, f32, f64, col,
                       lvl, by))

struct containers {
  std::string s;
  std::string long_s;
  std::vector<std::byte> blob;
  std::vector<std::int32_t> ints;
  std::vector<std::string> strs;
  std::deque<std::int16_t> dq;
  std::list<std::string> lst;
  std::vector<bool> bits;
  std::vector<point> pts;
  std::array<std::uint16_t, 3> arr{};
  std::int32_t carr[2] = {};
  std::array<std::string, 2> sarr;
  std::array<bool, 2> barr{};
  std::set<std::int32_t> set;
  std::unordered_set<std::int32_t> uset;  // one element: iteration order is then fixed
  std::map<std::string, std::int32_t> map;
  std::unordered_map<std::int32_t, std::string> umap;  // one entry
  std::map<std::int32_t, std::vector<std::string>> nested;
};
BOOST_DESCRIBE_STRUCT(containers, (),
                      (s, long_s, blob, ints, strs, dq, lst, bits, pts, arr, carr, sarr, barr, set, uset, map,
                       umap, nested))

struct wrappers {
  std::optional<std::int32_t> some;
  std::optional<std::string> none;
  std::unique_ptr<point> ptr;
  std::unique_ptr<std::int32_t> null_ptr;
  std::variant<std::int32_t, std::string, point> var;
  std::pair<std::int32_t, std::string> pr;
  std::tuple<std::uint8_t, double, bool> tup{};
};
BOOST_DESCRIBE_STRUCT(wrappers, (), (some, none, ptr, null_ptr, var, pr, tup))

/// A type we pretend not to own: it goes on the wire through refwire::codec.
class celsius {
 public:
  celsius() = default;
  explicit celsius(double v) : v_(v) {}
  [[nodiscard]] double value() const { return v_; }
  friend bool operator==(const celsius&, const celsius&) = default;

 private:
  double v_ = 0;
};

}  // namespace golden

template <>
struct refwire::codec<golden::celsius> {
  using wire = std::int32_t;  // hundredths of a degree
  static std::int32_t to_wire(const golden::celsius& c) { return static_cast<std::int32_t>(c.value() * 100); }
  static golden::celsius from_wire(std::int32_t&& w) { return golden::celsius(w / 100.0); }
};

namespace golden {

using minutes32 = std::chrono::duration<std::int32_t, std::ratio<60>>;
using seconds_timestamp = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>;

struct times {
  refwire::uuid id;
  refwire::timestamp ts;
  seconds_timestamp ts_sec;
  std::chrono::nanoseconds ns{};
  std::chrono::milliseconds ms{};
  std::chrono::seconds sec{};
  minutes32 min{};
  celsius temp;
};
BOOST_DESCRIBE_STRUCT(times, (), (id, ts, ts_sec, ns, ms, sec, min, temp))

struct everything {
  scalars sc;
  containers co;
  wrappers wr;
  times ti;
  std::int32_t cache = 0;  // skipped: not on the wire
  std::uint8_t end = 0;
};
BOOST_DESCRIBE_STRUCT(everything, (), (sc, co, wr, ti, cache, end))
REFWIRE_ATTRIBUTES(everything, {.name = "cache", .skip = true})

struct base {
  std::int32_t id = 0;
  std::string tag;
};
BOOST_DESCRIBE_STRUCT(base, (), (id, tag))

struct middle : base {
  double weight = 0;
  std::int32_t cache = 0;  // skipped
};
BOOST_DESCRIBE_STRUCT(middle, (base), (weight, cache))
REFWIRE_ATTRIBUTES(middle, {.name = "cache", .skip = true})

struct derived : middle {
  bool flag = false;
  std::vector<std::string> notes;
};
BOOST_DESCRIBE_STRUCT(derived, (middle), (flag, notes))
REFWIRE_ATTRIBUTES(derived, {.name = "notes", .rename = "remarks"})

/// A plain aggregate: walked by Boost.PFR, positional, no names.
struct plain {
  std::uint16_t a = 0;
  std::string b;
  std::vector<std::int32_t> c;
  std::optional<double> d;
  point p;
};

struct node {
  std::int32_t value = 0;
  std::vector<node> kids;
};
BOOST_DESCRIBE_STRUCT(node, (), (value, kids))

// ----------------------------------------------------------------- the values

point make_point() { return {1, 2.5, "hi"}; }

everything make_everything() {
  everything e;
  scalars& s = e.sc;
  s.t = true;
  s.f = false;
  s.i8 = -2;
  s.u8 = 0xfe;
  s.i16 = -300;
  s.u16 = 0xbeef;
  s.i32 = -100000;
  s.u32 = 0xdeadbeef;
  s.i64 = -1234567890123456789;
  s.u64 = 0xfedcba9876543210ULL;
  s.c = 'A';
  s.sc = -5;
  s.uc = 200;
  s.c8 = u8'z';
  s.c16 = u'\u00e9';
  s.c32 = U'\U0001F600';
  s.wc = L'w';
  s.f32 = 1.5F;
  s.f64 = -0.25;
  s.col = color::blue;
  s.lvl = low;
  s.by = std::byte{0xab};

  containers& c = e.co;
  c.s = "hello";
  c.long_s = std::string(200, 'x');
  c.blob = {std::byte{0}, std::byte{1}, std::byte{0xff}};
  c.ints = {1, -1, 300};
  c.strs = {"a", "", "bc"};
  c.dq = {7, -7};
  c.lst = {"l1", "l2"};
  c.bits = {true, false, true};
  c.pts = {{1, 0.5, "p"}, {-1, 2.0, ""}};
  c.arr = {1, 2, 0xffff};
  c.carr[0] = 10;
  c.carr[1] = -10;
  c.sarr = {"s0", "s1"};
  c.barr = {false, true};
  c.set = {30, -5, 10};
  c.uset = {42};
  c.map = {{"two", 2}, {"one", 1}, {"three", 3}};
  c.umap = {{9, "nine"}};
  c.nested = {{2, {"b"}}, {1, {"a", "aa"}}};

  wrappers& w = e.wr;
  w.some = 5;
  w.none.reset();
  w.ptr = std::make_unique<point>(point{3, -1.0, "ptr"});
  w.null_ptr.reset();
  w.var = std::string("alt1");
  w.pr = {-2, "pair"};
  w.tup = {7, 0.125, true};

  times& t = e.ti;
  t.id = refwire::uuid::from_string("123e4567-e89b-12d3-a456-426614174000");
  t.ts = refwire::timestamp(std::chrono::nanoseconds(1700000000123456789LL));
  t.ts_sec = seconds_timestamp(std::chrono::seconds(-86400));
  t.ns = std::chrono::nanoseconds(-1);
  t.ms = std::chrono::milliseconds(1500);
  t.sec = std::chrono::seconds(3600);
  t.min = minutes32(-90);
  t.temp = celsius(21.5);

  e.cache = 99;
  e.end = 0x5a;
  return e;
}

derived make_derived() {
  derived d;
  d.id = 7;
  d.tag = "ab";
  d.weight = 0.5;
  d.cache = 99;
  d.flag = true;
  d.notes = {"x"};
  return d;
}

plain make_plain() { return {0x0102, "pfr", {5, 6}, 0.75, {-3, 1.0, "q"}}; }

node make_tree() { return {1, {{2, {}}, {3, {{4, {}}}}}}; }

// ---------------------------------------------------------------- the checks

std::string hex(std::span<const std::byte> b) {
  std::string s;
  char buf[4];
  for (std::size_t i = 0; i < b.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned>(b[i]));
    if (i != 0) s += ' ';
    s += buf;
  }
  return s;
}

template <class T>
std::string hex_of(const T& v) {
  return hex(refwire::serialize(v));
}

bool updating() {
  const char* v = std::getenv("REFWIRE_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

std::filesystem::path golden_path(const std::string& name) {
  return std::filesystem::path(REFWIRE_GOLDEN_DIR) / (name + ".bin");
}

std::vector<std::byte> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

/// Compares bytes with the golden file (or rewrites it under REFWIRE_UPDATE_GOLDEN=1)
/// and returns the file's bytes for the decode check.
std::vector<std::byte> check_golden(const std::string& name, const std::vector<std::byte>& bytes) {
  const auto path = golden_path(name);
  if (updating()) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    EXPECT_TRUE(out.good()) << "could not write " << path;
    std::printf("[golden] wrote %s (%zu bytes)\n", path.string().c_str(), bytes.size());
  }
  std::vector<std::byte> file = read_file(path);
  EXPECT_FALSE(file.empty()) << "missing golden file " << path << " (run with REFWIRE_UPDATE_GOLDEN=1)";
  if (file != bytes) {
    std::size_t i = 0;
    while (i < file.size() && i < bytes.size() && file[i] == bytes[i]) ++i;
    ADD_FAILURE() << "encoding of '" << name << "' differs from " << path << " at offset " << i
                  << " (encoded " << bytes.size() << " bytes, golden " << file.size() << ")\n"
                  << "encoded: " << hex(bytes) << "\ngolden:  " << hex(file);
  }
  return file;
}

template <class T>
T decode_exact(const std::vector<std::byte>& bytes) {
  T out{};
  refwire::error e = refwire::deserialize<refwire::binary>(bytes, out);
  EXPECT_FALSE(e) << e.message();
  std::size_t used = 12345;
  T again{};
  refwire::error e2 = refwire::deserialize_prefix<refwire::binary>(bytes, again, used);
  EXPECT_FALSE(e2) << e2.message();
  EXPECT_EQ(used, bytes.size());
  return out;
}

void expect_point(const point& a, const point& b) {
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.name, b.name);
}

// ------------------------------------------------------------------ the tests

TEST(golden, point) {
  const auto bytes = refwire::serialize(make_point());
  // x = 1 (i32), y = 2.5 (f64, 0x4004000000000000), name = varint 2 + "hi".
  EXPECT_EQ(hex(bytes), "01 00 00 00 00 00 00 00 00 00 04 40 02 68 69");
  const auto file = check_golden("point", bytes);
  ASSERT_FALSE(file.empty());
  expect_point(decode_exact<point>(file), make_point());
  EXPECT_EQ(refwire::type_name<point>(), "{i32 x;f64 y;string name}");
  EXPECT_EQ(refwire::fingerprint<point>(), 0xf33eecec719bf70eULL);
}

TEST(golden, derived_base_fields_first_skipped_absent) {
  const auto bytes = refwire::serialize(make_derived());
  EXPECT_EQ(hex(bytes),
            "07 00 00 00 "                 // base::id
            "02 61 62 "                    // base::tag "ab"
            "00 00 00 00 00 00 e0 3f "     // middle::weight 0.5 (middle::cache skipped)
            "01 "                          // derived::flag
            "01 01 78");                   // derived::notes ["x"]
  const auto file = check_golden("derived", bytes);
  ASSERT_FALSE(file.empty());
  derived d;
  d.cache = -1;  // a skipped field keeps what it held before the decode
  ASSERT_FALSE(refwire::deserialize<refwire::binary>(file, d));
  EXPECT_EQ(d.id, 7);
  EXPECT_EQ(d.tag, "ab");
  EXPECT_EQ(d.weight, 0.5);
  EXPECT_EQ(d.cache, -1);
  EXPECT_TRUE(d.flag);
  EXPECT_EQ(d.notes, std::vector<std::string>{"x"});
  EXPECT_EQ(refwire::type_name<derived>(), "{i32 id;string tag;f64 weight;bool flag;vector<string> remarks}");
}

TEST(golden, pfr_aggregate) {
  const auto bytes = refwire::serialize(make_plain());
  EXPECT_EQ(hex(bytes),
            "02 01 "                                                // a = 0x0102
            "03 70 66 72 "                                          // b = "pfr"
            "02 05 00 00 00 06 00 00 00 "                           // c = [5, 6]
            "01 00 00 00 00 00 00 e8 3f "                           // d = 0.75
            "fd ff ff ff 00 00 00 00 00 00 f0 3f 01 71");           // p = {-3, 1.0, "q"}
  const auto file = check_golden("plain", bytes);
  ASSERT_FALSE(file.empty());
  const plain p = decode_exact<plain>(file);
  const plain want = make_plain();
  EXPECT_EQ(p.a, want.a);
  EXPECT_EQ(p.b, want.b);
  EXPECT_EQ(p.c, want.c);
  EXPECT_EQ(p.d, want.d);
  expect_point(p.p, want.p);
  EXPECT_EQ(refwire::type_name<plain>(), "{u16;string;vector<i32>;optional<f64>;{i32 x;f64 y;string name}}");
}

TEST(golden, recursive_tree) {
  const auto bytes = refwire::serialize(make_tree());
  EXPECT_EQ(hex(bytes),
            "01 00 00 00 02 "        // value 1, two kids
            "02 00 00 00 00 "        // kid {2, []}
            "03 00 00 00 01 "        // kid {3, [..]}
            "04 00 00 00 00");       // grandkid {4, []}
  const auto file = check_golden("tree", bytes);
  ASSERT_FALSE(file.empty());
  const node n = decode_exact<node>(file);
  EXPECT_EQ(n.value, 1);
  ASSERT_EQ(n.kids.size(), 2U);
  EXPECT_EQ(n.kids[0].value, 2);
  EXPECT_TRUE(n.kids[0].kids.empty());
  EXPECT_EQ(n.kids[1].value, 3);
  ASSERT_EQ(n.kids[1].kids.size(), 1U);
  EXPECT_EQ(n.kids[1].kids[0].value, 4);
  EXPECT_TRUE(n.kids[1].kids[0].kids.empty());
  EXPECT_EQ(refwire::type_name<node>(), "{i32 value;vector<@0> kids}");
}

TEST(golden, everything) {
  const everything want = make_everything();
  const auto bytes = refwire::serialize(want);
  const auto file = check_golden("everything", bytes);
  ASSERT_EQ(file, bytes);

  // Spot checks of the golden bytes against hand-computed sub-encodings: the
  // encoding of a struct is the concatenation of its fields' encodings.
  const std::string h = hex(file);
  const std::string scalars_hex =
      "01 00 fe fe d4 fe ef be 60 79 fe ff ef be ad de eb 7e 16 82 0b ef dd ee 10 32 54 76 98 ba dc fe "
      "41 fb c8 7a e9 00 00 f6 01 00 77 00 00 00 00 00 c0 3f 00 00 00 00 00 00 d0 bf 34 12 ff ab";
  EXPECT_EQ(hex_of(want.sc), scalars_hex);
  EXPECT_EQ(h.substr(0, scalars_hex.size()), scalars_hex);
  EXPECT_EQ(hex_of(want.ti),
            "12 3e 45 67 e8 9b 12 d3 a4 56 42 66 14 17 40 00 "  // uuid, text order
            "15 cd 85 3d fe 9c 97 17 "                          // ts 1700000000123456789 ns
            "00 00 b1 6e 6b b1 ff ff "                          // ts_sec -86400 s in ns
            "ff ff ff ff ff ff ff ff "                          // ns -1
            "00 2f 68 59 00 00 00 00 "                          // ms 1500 = 1.5e9 ns
            "00 a0 b8 30 46 03 00 00 "                          // sec 3600 = 3.6e12 ns
            "00 10 eb b6 16 fb ff ff "                          // min -90 = -5.4e12 ns
            "66 08 00 00");                                     // celsius 21.5 via codec: i32 2150
  EXPECT_EQ(h.substr(h.size() - hex_of(want.ti).size() - 3), hex_of(want.ti) + " 5a");

  everything got;
  got.cache = 77;
  ASSERT_FALSE(refwire::deserialize<refwire::binary>(file, got));
  EXPECT_EQ(got.cache, 77);  // skipped
  EXPECT_EQ(got.end, 0x5a);

  const scalars& a = got.sc;
  const scalars& b = want.sc;
  EXPECT_EQ(a.t, b.t);
  EXPECT_EQ(a.f, b.f);
  EXPECT_EQ(a.i8, b.i8);
  EXPECT_EQ(a.u8, b.u8);
  EXPECT_EQ(a.i16, b.i16);
  EXPECT_EQ(a.u16, b.u16);
  EXPECT_EQ(a.i32, b.i32);
  EXPECT_EQ(a.u32, b.u32);
  EXPECT_EQ(a.i64, b.i64);
  EXPECT_EQ(a.u64, b.u64);
  EXPECT_EQ(a.c, b.c);
  EXPECT_EQ(a.sc, b.sc);
  EXPECT_EQ(a.uc, b.uc);
  EXPECT_TRUE(a.c8 == b.c8);
  EXPECT_TRUE(a.c16 == b.c16);
  EXPECT_TRUE(a.c32 == b.c32);
  EXPECT_TRUE(a.wc == b.wc);
  EXPECT_EQ(a.f32, b.f32);
  EXPECT_EQ(a.f64, b.f64);
  EXPECT_EQ(a.col, b.col);
  EXPECT_EQ(a.lvl, b.lvl);
  EXPECT_EQ(a.by, b.by);

  const containers& x = got.co;
  const containers& y = want.co;
  EXPECT_EQ(x.s, y.s);
  EXPECT_EQ(x.long_s, y.long_s);
  EXPECT_EQ(x.blob, y.blob);
  EXPECT_EQ(x.ints, y.ints);
  EXPECT_EQ(x.strs, y.strs);
  EXPECT_EQ(x.dq, y.dq);
  EXPECT_EQ(x.lst, y.lst);
  EXPECT_EQ(x.bits, y.bits);
  ASSERT_EQ(x.pts.size(), y.pts.size());
  for (std::size_t i = 0; i < x.pts.size(); ++i) expect_point(x.pts[i], y.pts[i]);
  EXPECT_EQ(x.arr, y.arr);
  EXPECT_EQ(x.carr[0], y.carr[0]);
  EXPECT_EQ(x.carr[1], y.carr[1]);
  EXPECT_EQ(x.sarr, y.sarr);
  EXPECT_EQ(x.barr, y.barr);
  EXPECT_EQ(x.set, y.set);
  EXPECT_EQ(x.uset, y.uset);
  EXPECT_EQ(x.map, y.map);
  EXPECT_EQ(x.umap, y.umap);
  EXPECT_EQ(x.nested, y.nested);

  const wrappers& p = got.wr;
  const wrappers& q = want.wr;
  EXPECT_EQ(p.some, q.some);
  EXPECT_EQ(p.none, q.none);
  ASSERT_TRUE(p.ptr);
  expect_point(*p.ptr, *q.ptr);
  EXPECT_FALSE(p.null_ptr);
  ASSERT_EQ(p.var.index(), 1U);
  EXPECT_EQ(std::get<1>(p.var), "alt1");
  EXPECT_EQ(p.pr, q.pr);
  EXPECT_EQ(p.tup, q.tup);

  const times& m = got.ti;
  const times& n = want.ti;
  EXPECT_EQ(m.id, n.id);
  EXPECT_EQ(m.ts, n.ts);
  EXPECT_EQ(m.ts_sec, n.ts_sec);
  EXPECT_EQ(m.ns, n.ns);
  EXPECT_EQ(m.ms, n.ms);
  EXPECT_EQ(m.sec, n.sec);
  EXPECT_EQ(m.min, n.min);
  EXPECT_EQ(m.temp, n.temp);
}

// Hand-computed encodings of single shapes, straight from docs/binary-format.md.
TEST(golden, inline_shapes) {
  EXPECT_EQ(hex_of(true), "01");
  EXPECT_EQ(hex_of(false), "00");
  EXPECT_EQ(hex_of(std::int16_t{-2}), "fe ff");
  EXPECT_EQ(hex_of(std::uint32_t{0x01020304}), "04 03 02 01");
  EXPECT_EQ(hex_of(std::int64_t{-1}), "ff ff ff ff ff ff ff ff");
  EXPECT_EQ(hex_of('A'), "41");
  EXPECT_EQ(hex_of(u'\u20ac'), "ac 20");
  EXPECT_EQ(hex_of(1.0F), "00 00 80 3f");
  EXPECT_EQ(hex_of(-2.0), "00 00 00 00 00 00 00 c0");
  EXPECT_EQ(hex_of(color::green), "02 00");
  EXPECT_EQ(hex_of(std::byte{0x7f}), "7f");

  // varints: LEB128, least significant group first
  EXPECT_EQ(hex_of(std::string()), "00");
  EXPECT_EQ(hex_of(std::string("abc")), "03 61 62 63");
  EXPECT_EQ(hex_of(std::string(127, 'a')).substr(0, 5), "7f 61");
  EXPECT_EQ(hex_of(std::string(128, 'a')).substr(0, 8), "80 01 61");
  EXPECT_EQ(hex_of(std::string(300, 'a')).substr(0, 8), "ac 02 61");
  EXPECT_EQ(hex_of(std::string(16384, 'a')).substr(0, 11), "80 80 01 61");
  EXPECT_EQ(hex_of(std::variant<std::int8_t, std::int16_t>(std::int16_t{5})), "01 05 00");

  EXPECT_EQ(hex_of(std::vector<std::byte>{std::byte{1}, std::byte{2}}), "02 01 02");
  EXPECT_EQ(hex_of(std::vector<std::uint8_t>{1, 2}), "02 01 02");
  EXPECT_EQ(hex_of(std::vector<std::int16_t>{1, -1}), "02 01 00 ff ff");
  EXPECT_EQ(hex_of(std::deque<std::int16_t>{1, -1}), "02 01 00 ff ff");
  EXPECT_EQ(hex_of(std::list<std::int16_t>{1, -1}), "02 01 00 ff ff");
  EXPECT_EQ(hex_of(std::vector<bool>{true, false}), "02 01 00");
  EXPECT_EQ(hex_of(std::array<std::int16_t, 2>{1, -1}), "01 00 ff ff");
  EXPECT_EQ(hex_of(std::array<std::string, 2>{"a", "b"}), "01 61 01 62");
  EXPECT_EQ(hex_of(std::set<std::int16_t>{3, 1, 2}), "03 01 00 02 00 03 00");
  EXPECT_EQ(hex_of(std::map<std::string, std::uint8_t>{{"b", 2}, {"a", 1}}), "02 01 61 01 01 62 02");
  EXPECT_EQ(hex_of(std::optional<std::int16_t>{}), "00");
  EXPECT_EQ(hex_of(std::optional<std::int16_t>{7}), "01 07 00");
  EXPECT_EQ(hex_of(std::make_unique<std::int16_t>(7)), "01 07 00");
  EXPECT_EQ(hex_of(std::unique_ptr<std::int16_t>()), "00");
  EXPECT_EQ(hex_of(std::pair<std::uint8_t, std::string>{1, "a"}), "01 01 61");
  EXPECT_EQ(hex_of(std::tuple<std::uint8_t, bool, std::int16_t>{1, true, -1}), "01 01 ff ff");
  EXPECT_EQ(hex_of(refwire::uuid::from_string("00112233-4455-6677-8899-aabbccddeeff")),
            "00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff");
  EXPECT_EQ(hex_of(refwire::timestamp(std::chrono::seconds(1))), "00 ca 9a 3b 00 00 00 00");
  EXPECT_EQ(hex_of(std::chrono::milliseconds(5)), "40 4b 4c 00 00 00 00 00");
  EXPECT_EQ(hex_of(std::chrono::nanoseconds(-2)), "fe ff ff ff ff ff ff ff");
  EXPECT_EQ(hex_of(celsius(-0.5)), "ce ff ff ff");
}

TEST(golden, canonical_type_names) {
  EXPECT_EQ(refwire::type_name<scalars>(),
            "{bool t;bool f;i8 i8;u8 u8;i16 i16;u16 u16;i32 i32;u32 u32;i64 i64;u64 u64;char c;i8 sc;u8 uc;"
            "u8 c8;u16 c16;u32 c32;i32 wc;f32 f32;f64 f64;enum:u16{red=1,green=2,blue=4660} col;enum:i8 lvl;"
            "byte by}");
  EXPECT_EQ(refwire::type_name<wrappers>(),
            "{optional<i32> some;optional<string> none;ptr<{i32 x;f64 y;string name}> ptr;ptr<i32> null_ptr;"
            "variant<i32,string,{i32 x;f64 y;string name}> var;tuple<i32,string> pr;tuple<u8,f64,bool> tup}");
  EXPECT_EQ(refwire::type_name<times>(),
            "{uuid id;timestamp ts;timestamp ts_sec;duration ns;duration ms;duration sec;duration min;i32 temp}");
  EXPECT_EQ((refwire::type_name<std::map<std::string, std::vector<std::byte>>>()), "map<string,bytes>");
  EXPECT_EQ(refwire::type_name<std::unordered_set<std::int64_t>>(), "set<i64>");
  EXPECT_EQ(refwire::type_name<std::list<double>>(), "vector<f64>");
  EXPECT_EQ((refwire::type_name<std::array<std::uint8_t, 4>>()), "array<u8,4>");
}

}  // namespace golden
