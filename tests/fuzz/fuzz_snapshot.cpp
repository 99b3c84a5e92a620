// libFuzzer target for the snapshot loader over in-memory bytes
// (decode_snapshot, the same checks as load_snapshot).
//
// The first byte is a mode: bit 0 set "reseals" the rest (recomputes the
// payload length, the header checksum and the payload checksum of a version-1
// or version-2 header, as tests/serialization/snapshot/snapshot_test.cpp does)
// so that the fuzzer gets past the checksums into the flags, format, type
// version, fingerprint and payload decoding (compressed or not); bits 1-2 pick
// the type: fuzz::order, fuzz::node, or fuzz::order_v2 (whose
// snapshot_history upgrades fuzz::order); bit 3 loads with
// decode_options::tolerant_snapshot. The loader must either return a value or
// throw snapshot_error with a well-formed message; a value must round-trip
// through encode_snapshot.
//
//   fuzz_snapshot -max_len=4096 <scratch dir> tests/fuzz/corpus/snapshot
#include "fuzz_snapshot_types.hpp"

#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz_snapshot: %s %s\n", what, detail.c_str());
  std::abort();
}

void put_le(std::vector<std::byte>& b, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i, v >>= 8) b[at + i] = static_cast<std::byte>(v & 0xff);
}

/// The header size the bytes claim: 36 for version 1, 41 + the name length
/// for anything else (0 when the bytes are too short to say).
std::size_t claimed_header(const std::vector<std::byte>& b) {
  if (b.size() < 10) return 0;
  if (b[8] == std::byte{1} && b[9] == std::byte{0}) return 36;
  if (b.size() < 33) return 0;
  return 41 + static_cast<std::size_t>(b[32]);
}

void reseal(std::vector<std::byte>& b) {
  const std::size_t header_size = claimed_header(b);
  if (header_size == 0 || b.size() < header_size + 8) return;
  const std::size_t length = b.size() - header_size - 8;
  put_le(b, 20, length);
  put_le(b, header_size - 8, XXH3_64bits(b.data(), header_size - 8));
  put_le(b, header_size + length, XXH3_64bits(b.data() + header_size, length));
}

template <class T>
void run(const std::vector<std::byte>& in, bool tolerant) {
  refwire::decode_options o = fuzz::fuzz_options;
  o.max_alloc_bytes = std::uint64_t{1} << 20;
  o.tolerant_snapshot = tolerant;
  T v{};
  try {
    v = refwire::decode_snapshot<T>(in, o);
  } catch (const refwire::snapshot_error& e) {
    const std::string what = e.what();
    if (what.rfind("refwire: snapshot \"<memory>\": ", 0) != 0) die("malformed message", what);
    if (refwire::to_string(e.kind()) == "unknown") die("unknown kind", what);
    if (e.file() != "<memory>") die("wrong file name", e.file());
    return;
  }
  const auto compression = static_cast<refwire::compression>(static_cast<std::uint8_t>(in[11]) & 3);
  // A tolerant load only succeeds for JSON and protobuf payloads (valid UTF-8),
  // and refuses binary: its round trip goes through protobuf.
  const std::vector<std::byte> again = tolerant ? refwire::encode_snapshot<refwire::protobuf>(v, {.compression = compression})
                                                : refwire::encode_snapshot(v, {.compression = compression});
  const T w = refwire::decode_snapshot<T>(again, o);
  if (refwire::serialize(w) != refwire::serialize(v)) die("snapshot round trip differs");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::vector<std::byte> in(reinterpret_cast<const std::byte*>(data) + 1, reinterpret_cast<const std::byte*>(data) + size);
  if ((data[0] & 1U) != 0) reseal(in);
  const bool tolerant = (data[0] & 8U) != 0;
  switch ((data[0] >> 1) & 3U) {
    case 1: run<fuzz::node>(in, tolerant); break;
    case 2: run<fuzz::order_v2>(in, tolerant); break;
    default: run<fuzz::order>(in, tolerant); break;
  }
  return 0;
}
