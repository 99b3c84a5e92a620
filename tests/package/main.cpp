// A user's program: its own described struct, through refwire and back.
#include <refwire/serialization.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace app {
struct order {
  int id = 0;
  double price = 0;
  std::string item;
  std::vector<int> quantities;
};
BOOST_DESCRIBE_STRUCT(order, (), (id, price, item, quantities))
}  // namespace app

int main() {
  const app::order sent{42, 9.75, "widget", {1, 2, 3}};
  const std::vector<std::byte> bytes = refwire::serialize(sent);
  const app::order got = refwire::deserialize<app::order>(bytes);
  if (got.id != sent.id || got.price != sent.price || got.item != sent.item ||
      got.quantities != sent.quantities) {
    std::fprintf(stderr, "round trip mismatch\n");
    return 1;
  }
  app::order damaged;
  const std::vector<std::byte> truncated(bytes.begin(), bytes.end() - 1);
  if (!refwire::deserialize<refwire::binary>(truncated, damaged)) {
    std::fprintf(stderr, "a truncated message decoded without error\n");
    return 1;
  }
  // lz4 and xxhash (private dependencies of the library) link through the package too.
  const auto packed = refwire::serialize(sent, {.compression = refwire::compression::lz4, .compression_threshold = 0});
  const auto snap = refwire::encode_snapshot(refwire::deserialize<app::order>(packed, {.compression = refwire::compression::lz4}));
  if (refwire::decode_snapshot<app::order>(snap).item != sent.item) {
    std::fprintf(stderr, "lz4 / snapshot round trip mismatch\n");
    return 1;
  }
  std::printf("package ok: %zu bytes round-tripped\n", bytes.size());
  return 0;
}
