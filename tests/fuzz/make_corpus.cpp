// Writes the seed corpus of fuzz_binary (or, built with REFWIRE_CORPUS_PROTOBUF,
// of fuzz_protobuf): small valid encodings, each prefixed with its type's
// selector byte. Usage: fuzz_binary_corpus <dir> / fuzz_protobuf_corpus <dir>
// (the committed seeds are in tests/fuzz/corpus/binary/ and corpus/protobuf/).
#include "fuzz_types.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>

namespace {

int written = 0;
std::string out_dir;

template <class T>
void seed(fuzz::kind k, const std::string& name, const T& v) {
  std::vector<std::byte> b{static_cast<std::byte>(k)};
#ifdef REFWIRE_CORPUS_PROTOBUF
  const std::vector<std::byte> body = refwire::serialize<refwire::protobuf>(v);
#else
  const std::vector<std::byte> body = refwire::serialize(v);
#endif
  b.insert(b.end(), body.begin(), body.end());
  std::ofstream f(out_dir + "/" + name + ".bin", std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", name.c_str());
    std::exit(1);
  }
  ++written;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  out_dir = argv[1];
  using fuzz::kind;

  seed(kind::point, "point", fuzz::point{1, 2.5, "hi"});

  fuzz::order o;
  o.id = 9;
  o.items = {{1, 1.0, "a"}, {2, -2.0, ""}};
  o.by_name = {{"a", {1, 1.0, "a"}}, {"b", {3, 0.5, "bee"}}};
  seed(kind::order, "order", o);

  fuzz::node n;
  n.value = 1;
  n.kids.resize(2);
  n.kids[1].kids.resize(1);
  n.kids[1].kids[0].value = 7;
  seed(kind::node, "node", n);

  fuzz::chain c{1, std::make_unique<fuzz::chain>(fuzz::chain{2, std::make_unique<fuzz::chain>(fuzz::chain{3, {}})})};
  seed(kind::chain, "chain", c);

  fuzz::flags f;
  f.b = true;
  f.o = 5;
  f.p = std::make_unique<std::string>("ptr");
  f.v = fuzz::point{4, 4.0, "four"};
  seed(kind::flags, "flags-point", f);
  f.v = std::vector<bool>{true, false, true};
  f.p.reset();
  seed(kind::flags, "flags-bits", f);

  fuzz::ordered_shapes s;
  s.c = fuzz::color::green;
  s.yn = fuzz::yes_no::yes;
  s.ch = 'q';
  s.f = 0.5F;
  s.s = "string";
  s.blob = {std::byte{1}, std::byte{0xff}};
  s.dv = {1.0, -0.0};
  s.sv = {"a", "", "bcd"};
  s.dq = {1, -1};
  s.ls = {"l"};
  s.bits = {true, false};
  s.arr = {5, -6};
  s.barr = {false, true};
  s.carr[0] = 7;
  s.carr[1] = -8;
  s.set = {-1, 2, 300};
  s.map = {{-2, "m2"}, {3, "m3"}};
  s.opt = fuzz::point{9, 9.0, "nine"};
  s.tup = {1, "t", true};
  s.pr = {true, -3};
  s.id = refwire::uuid::from_string("00112233-4455-6677-8899-aabbccddeeff");
  s.ts = refwire::timestamp(std::chrono::nanoseconds(1700000000123456789LL));
  s.ms = std::chrono::milliseconds(-3);
  s.s16 = std::chrono::duration<std::int16_t>(90);
  s.ts_sec = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>(std::chrono::seconds(60));
  s.e = fuzz::even{8};
  seed(kind::ordered_shapes, "ordered_shapes", s);
  seed(kind::ordered_shapes, "ordered_shapes-default", fuzz::ordered_shapes{});

  seed(kind::plain, "plain", fuzz::plain{0x0102, "pfr", {5, 6}, 77});
  seed(kind::string_map, "string_map", fuzz::string_map{{"a", {1, 2}}, {"bb", {}}, {"c", {-1}}});
  seed(kind::string_set, "string_set", fuzz::string_set{"", "a", "b", "longer string"});
  seed(kind::empties, "empties", fuzz::empties{{{}, {}}, {}, {{}}});
  seed(kind::mixed_tuple, "mixed_tuple", fuzz::mixed_tuple{3, "opt", {true, true, false}, {1, -1, 1LL << 40}});

  fuzz::unordered u;
  u.m = {{"x", 1}, {"y", 2}};
  u.s = {1, 2, 3};
  u.nested = {{1, {"one"}}, {2, {}}};
  seed(kind::unordered, "unordered", u);

  fuzz::std_types t;
  t.sp = std::make_shared<fuzz::point>(fuzz::point{1, 2.5, "sp"});
  t.mm = {{"k", 1}, {"k", 2}, {"j", -1}};
  t.ms = {3, 3, -1};
  t.bits = std::bitset<12>(0x801);
  t.file = "dir/file.txt";
  t.u8 = u8"\u00e9t\u00e9";
  t.by_color = {{fuzz::color::green, "g"}};
  t.by_id = {{refwire::uuid::from_string("123e4567-e89b-12d3-a456-426614174000"), 7}};
  t.ums = {5, 5};
  seed(kind::std_types, "std_types", t);

  std::printf("wrote %d seeds to %s\n", written, out_dir.c_str());
  return 0;
}
