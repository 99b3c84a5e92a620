// Golden JSON files: an accidental change of the text refwire writes fails
// here. Regenerate deliberately with
//   REFWIRE_UPDATE_GOLDEN=1 ./json_golden_test
// and review the diff of tests/serialization/golden/json/.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../common/types.hpp"
#include "../common/values.hpp"

#ifndef REFWIRE_GOLDEN_DIR
#error "REFWIRE_GOLDEN_DIR must name the directory of the golden files"
#endif

namespace {

bool updating() {
  const char* v = std::getenv("REFWIRE_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Compares the compact and the pretty text of v with <name>.json and <name>.pretty.json,
/// then checks both decode back to the same text.
template <class T>
void check_golden(const std::string& name, const T& v) {
  const std::filesystem::path dir = std::filesystem::path(REFWIRE_GOLDEN_DIR) / "json";
  for (bool pretty : {false, true}) {
    const std::string text = refwire::to_json(v, {.pretty = pretty});
    const std::filesystem::path path = dir / (name + (pretty ? ".pretty.json" : ".json"));
    if (updating()) {
      std::filesystem::create_directories(dir);
      std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    }
    const std::string golden = read_file(path);
    EXPECT_FALSE(golden.empty()) << "missing golden file " << path << " (run with REFWIRE_UPDATE_GOLDEN=1)";
    EXPECT_EQ(text, golden) << path;
    const T back = refwire::from_json<T>(golden);
    EXPECT_EQ(refwire::to_json(back), refwire::to_json(v)) << path;
  }
}

}  // namespace

TEST(json_golden, inner) { check_golden("inner", shapes::inner{-7, "seven \"7\""}); }
TEST(json_golden, derived) {
  shapes::derived d;
  d.id = 7;
  d.tag = "base two";
  d.value = 1.5;
  check_golden("derived", d);
}
TEST(json_golden, scalars) { check_golden("scalars", shapes::max_scalars()); }
TEST(json_golden, containers) {
  shapes::containers c = shapes::json_full_containers();
  c.um.clear();   // unordered: iteration order is not part of the format
  c.ust.clear();
  check_golden("containers", c);
}
TEST(json_golden, wrappers) { check_golden("wrappers", shapes::full_wrappers()); }
TEST(json_golden, conventions) { check_golden("conventions", shapes::sample_convention()); }
TEST(json_golden, tree) {
  shapes::node n;
  n.value = 1;
  n.kids.resize(2);
  n.kids[1].value = 3;
  n.next = std::make_unique<shapes::node>();
  n.next->value = 2;
  check_golden("tree", n);
}
