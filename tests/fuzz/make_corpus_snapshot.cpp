// Writes the seed corpora of fuzz_lz4 and fuzz_snapshot: a few envelopes
// (stored, lz4, and uncompressed bytes that are not one) and snapshots (plain,
// lz4, JSON, protobuf, an older version to upgrade, a version-1 header; mode
// byte for reseal, type and tolerant, see fuzz_snapshot.cpp).
// Usage: fuzz_snapshot_corpus <lz4 dir> <snapshot dir>
// (the committed seeds are in tests/fuzz/corpus/lz4/ and tests/fuzz/corpus/snapshot/).
#include "fuzz_snapshot_types.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

void write(const std::string& path, const std::vector<std::byte>& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

std::vector<std::byte> with_mode(unsigned mode, std::vector<std::byte> b) {
  b.insert(b.begin(), static_cast<std::byte>(mode));
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <lz4 corpus dir> <snapshot corpus dir>\n", argv[0]);
    return 2;
  }
  const std::string lz4_dir = argv[1];
  const std::string snap_dir = argv[2];

  fuzz::order small;
  small.id = 3;
  small.items = {{1, 1.0, "a"}};
  fuzz::order big;
  big.id = 9;
  for (int i = 0; i < 40; ++i) big.items.push_back({i, 0.5, "item item item"});
  big.by_name = {{"a", {1, 1.0, "a"}}, {"b", {3, 0.5, "bee"}}};
  fuzz::node tree;
  tree.value = 1;
  tree.kids.resize(3);

  const refwire::encode_options lz4{.compression = refwire::compression::lz4, .compression_threshold = 0};
  write(lz4_dir + "/stored.bin", refwire::serialize(small, {.compression = refwire::compression::lz4}));
  write(lz4_dir + "/lz4.bin", refwire::serialize(big, lz4));
  write(lz4_dir + "/lz4-small.bin", refwire::serialize(small, lz4));
  // Not an envelope: bytes encoded without compression (rejected at the magic).
  write(lz4_dir + "/uncompressed.bin", refwire::serialize(small));

  write(snap_dir + "/order.bin", with_mode(0, refwire::encode_snapshot(small)));
  write(snap_dir + "/order-lz4.bin", with_mode(0, refwire::encode_snapshot(big, lz4)));
  write(snap_dir + "/order-reseal.bin", with_mode(1, refwire::encode_snapshot(big)));
  write(snap_dir + "/order-lz4-reseal.bin", with_mode(1, refwire::encode_snapshot(big, lz4)));
  write(snap_dir + "/node-reseal.bin", with_mode(3, refwire::encode_snapshot(tree)));
  // Version 2: JSON and protobuf (tolerant too), the upgrade from fuzz::order to order_v2.
  write(snap_dir + "/order-json-reseal.bin", with_mode(1, refwire::encode_snapshot<refwire::json>(small)));
  write(snap_dir + "/order-protobuf-tolerant.bin", with_mode(9, refwire::encode_snapshot<refwire::protobuf>(big, lz4)));
  write(snap_dir + "/order-json-tolerant.bin", with_mode(9, refwire::encode_snapshot<refwire::json>(big)));
  write(snap_dir + "/upgrade-reseal.bin", with_mode(5, refwire::encode_snapshot(big)));
  write(snap_dir + "/upgrade-json-tolerant.bin", with_mode(13, refwire::encode_snapshot<refwire::json>(small)));
  write(snap_dir + "/order-v2-reseal.bin", with_mode(5, refwire::encode_snapshot(fuzz::order_v2{4, 2, "n"})));
  // Version 1: the 36-byte header of earlier builds (the payload as version 2 writes it).
  std::vector<std::byte> v1 = refwire::encode_snapshot(small);
  const std::size_t header = 41 + static_cast<std::size_t>(v1[32]);
  std::vector<std::byte> old(v1.begin(), v1.begin() + 36);
  old[8] = std::byte{1};
  for (std::size_t i = 0; i < 8; ++i) old[12 + i] = static_cast<std::byte>((refwire::fingerprint<fuzz::order>() >> (8 * i)) & 0xff);
  old.insert(old.end(), v1.begin() + static_cast<std::ptrdiff_t>(header), v1.end());
  write(snap_dir + "/order-v1-reseal.bin", with_mode(1, old));  // resealed by the fuzzer
  std::printf("wrote 4 lz4 seeds to %s and 12 snapshot seeds to %s\n", lz4_dir.c_str(), snap_dir.c_str());
  return 0;
}
