#pragma once
// Sample values of the test types (types.hpp), shared by the format tests.
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "types.hpp"

namespace shapes {


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

/// full_containers() with strings that need JSON escapes and no infinities
/// (JSON has none): a value every format carries.
inline containers json_full_containers() {
  containers c = full_containers();
  c.text += " \"quoted\" \\ \t\n\x1f";
  c.doubles = {0.5, -0.0, std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min()};
  c.m.emplace("\"quoted\\key\"", 3);
  return c;
}

inline convention sample_convention() {
  convention c;
  c.col = color::blue;
  c.pe = pe_b;
  c.id = refwire::uuid::from_string("123e4567-e89b-12d3-a456-426614174000");
  c.when = refwire::timestamp(std::chrono::nanoseconds(1'796'118'449'123'456'789LL));
  c.timeout = std::chrono::milliseconds(1500);
  c.blob = {std::byte{'r'}, std::byte{'e'}, std::byte{'f'}, std::byte{0xff}};
  c.some = -3;
  c.var = std::string("two");
  c.by_name = {{"a", 1}, {"b\"", 2}};
  c.by_int = {{-2, true}, {10, false}};
  c.by_enum = {{color::green, 7}};
  c.by_uuid = {{refwire::uuid{}, 0}};
  c.tags = {"x", "y"};
  c.pr = {1, "one"};
  c.ratio = 0.1;
  c.big = 18446744073709551615ULL;
  c.text = "line\nnext \xe2\x82\xac";
  return c;
}

/// The JSON text of sample_convention().
inline constexpr std::string_view sample_convention_text =
    R"({"col":"blue","pe":1099511627776,"id":"123e4567-e89b-12d3-a456-426614174000",)"
    R"("when":"2026-12-01T09:47:29.123456789Z","timeout":1500,"blob":"cmVm/w==","none":null,"some":-3,)"
    R"("var":{"1":"two"},"by_name":{"a":1,"b\"":2},"by_int":{"-2":true,"10":false},"by_enum":{"green":7},)"
    R"("by_uuid":[["00000000-0000-0000-0000-000000000000",0]],"tags":["x","y"],"pr":[1,"one"],"ratio":0.1,)"
    R"("big":18446744073709551615,"text":"line\nnext )" "\xe2\x82\xac" R"("})";

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

/// Every field of mixed set.
inline mixed make_mixed() {
  mixed m;
  m.b = true;
  m.i = -77;
  m.f = 0.5F;
  m.c = color16::green;
  m.s = "string";
  m.blob = {std::byte{1}, std::byte{2}};
  m.dv = {1.0, -2.0};
  m.sv = {"a", "bcd", ""};
  m.dq = {1, 2, 3};
  m.pl = {{1, 1.0, "one"}, {2, 2.0, "two"}};
  m.bits = {true, false};
  m.arr = {5, 6};
  m.sarr = {"x", "yz"};
  m.set = {3, 1, 2};
  m.map = {{"k1", {1, 0.5, "v1"}}, {"k2", {2, 0.25, ""}}};
  m.opt = bare_point{9, 9.0, "nine"};
  m.ptr = std::make_unique<std::string>("pointee");
  m.var = bare_point{4, 4.0, "four"};
  m.tup = {1, "t", true};
  m.id = refwire::uuid::from_string("00112233-4455-6677-8899-aabbccddeeff");
  m.ts = refwire::timestamp(std::chrono::nanoseconds(123456789));
  m.ms = std::chrono::milliseconds(-3);
  m.e = even{8};
  return m;
}

/// A std_types with every field set: duplicates in the multi containers, bits
/// in every byte of each bitset (padding excepted), a path and non-ASCII text.
inline std_types full_std_types() {
  std_types v;
  v.sp = std::make_shared<inner>(inner{5, "shared"});
  v.mm = {{"a", 1}, {"a", 2}, {"b", -3}, {"a", 1}};
  v.ms = {3, 1, 1, -7};
  v.mss = {"x", "", "x"};
  v.bits12 = std::bitset<12>(0x801);
  v.bits8 = std::bitset<8>(0xa5);
  v.bits70.set(0).set(9).set(64).set(69);
  v.file = "dir/sub dir/r\xc3\xa9sum\xc3\xa9.txt";
  v.u8 = u8"gr\u00fc\u00dfe \U0001F600";
  v.by_rank = {{rank::mid, 4}, {rank::high, -9}, {rank::low, 1}};
  v.by_small = {{small_rank::on, "on"}, {small_rank::off, "off"}};
  v.by_id = {{refwire::uuid::from_string("123e4567-e89b-12d3-a456-426614174000"), "first"},
             {refwire::uuid{}, "nil"}};
  v.mm_inner = {{inner{1, "k"}, 1}, {inner{1, "k"}, 2}, {inner{0, ""}, 3}};
  auto one = std::make_shared<inner>(inner{9, "one"});
  v.sps = {one, one, nullptr};  // one object twice: two objects after a decode
  v.by_path = {{"/etc/hosts", 1}, {"rel/a", 2}};
  return v;
}

}  // namespace shapes
