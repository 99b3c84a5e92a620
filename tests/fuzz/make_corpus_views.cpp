// Writes the seed corpus of fuzz_views: fuzz_views_corpus tests/fuzz/corpus/views
// Each seed is the format's selector byte (fuzz_views_types.hpp) then an encoding.
#include "fuzz_views_types.hpp"

#include <cstdio>
#include <fstream>
#include <span>
#include <string>
#include <vector>

namespace {

void write(const std::string& dir, const std::string& name, unsigned char selector, std::span<const std::byte> bytes) {
  std::ofstream f(dir + "/" + name, std::ios::binary);
  f.put(static_cast<char>(selector));
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::byte> raw(std::string_view s) {
  std::vector<std::byte> out;
  for (char c : s) out.push_back(static_cast<std::byte>(c));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_views_corpus <dir>\n");
    return 2;
  }
  const std::string dir = argv[1];
  using namespace fuzz_views;
  record_own r;
  r.id = 7;
  r.name = "name";
  r.words = {"a", "", "caf\xc3\xa9"};
  r.note = "note";
  r.counts = {{"k", 1}, {"key", -2}};
  r.parts = {{"t", raw("\x01\x02")}, {"", {}}};
  r.blob = raw(std::string_view("\x00\xff", 2));
  write(dir, "record.bin", 0, refwire::serialize<refwire::binary>(r));
  write(dir, "record.pb", 1, refwire::serialize<refwire::protobuf>(r));
  write(dir, "empty.bin", 0, refwire::serialize<refwire::binary>(record_own{}));
  text_own t{7, "name", {"a", "", "caf\xc3\xa9"}, "note", {{"k", 1}, {"key", -2}}};
  write(dir, "text.json", 2, refwire::serialize<refwire::json>(t));
  write(dir, "text-pretty.json", 2, refwire::serialize<refwire::json>(t, {.pretty = true}));
  write(dir, "escapes.json", 2, raw(R"({"name":"a\"b","words":["\u0041"],"counts":{"k\\":1}})"));
  return 0;
}
