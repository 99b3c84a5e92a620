// libFuzzer target for the compression envelope (compression.hpp).
//
// The input is an envelope, decoded with a 1 MiB allocation limit by
// decompress (whole and prefix forms, which must agree), and by the
// compression hook of deserialize as a fuzz::order. When decompress succeeds,
// compressing its output and decompressing that again gives the same bytes,
// and the input started with the envelope's magic (f7 72 77 7a); input that
// does not start with it is corrupt_compressed, or truncated while it is a
// proper prefix of it. Any disagreement aborts; the limit keeps a lying size from allocating.
//
//   fuzz_lz4 -max_len=4096 <scratch dir> tests/fuzz/corpus/lz4
#include "fuzz_types.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz_lz4: %s %s\n", what, detail.c_str());
  std::abort();
}

constexpr std::uint64_t limit = std::uint64_t{1} << 20;
constexpr unsigned char magic[4] = {0xf7, 0x72, 0x77, 0x7a};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data), size);
  refwire::decode_options o = fuzz::fuzz_options;
  o.max_alloc_bytes = limit;
  o.compression = refwire::compression::lz4;

  std::vector<std::byte> whole;
  const refwire::error full = refwire::decompress(in, whole, o);
  std::vector<std::byte> pre;
  std::size_t used = 0;
  const refwire::error prefix = refwire::decompress(in, pre, o, &used);

  const std::size_t have = size < 4 ? size : 4;
  const bool magic_so_far = have == 0 || std::memcmp(data, magic, have) == 0;
  if (!magic_so_far && (!full || full.code() != refwire::errc::corrupt_compressed || full.offset() != 0)) {
    die("input without the magic was not corrupt_compressed at offset 0", full.message());
  }
  if (magic_so_far && size < 4 && (!full || full.code() != refwire::errc::truncated)) {
    die("a proper prefix of the magic was not truncated", full.message());
  }
  if (full) {
    if (!whole.empty()) die("output left behind on failure");
    if (full.offset() > size) die("error offset past the input", full.message());
    if (full.code() == refwire::errc::trailing_bytes) {
      if (prefix || used >= size || full.offset() != used) die("trailing bytes but prefix disagrees", full.message());
    } else if (!prefix || prefix.message() != full.message()) {
      die("prefix decode disagrees", full.message() + " / " + prefix.message());
    }
  } else if (prefix || used != size || pre != whole) {
    die("whole decode succeeded, prefix decode disagrees", prefix.message());
  }
  if (!prefix) {
    if (pre.size() > limit) die("output over the limit");
    std::vector<std::byte> again;
    refwire::compress(pre, again, {.compression_threshold = 0});
    std::vector<std::byte> back;
    if (refwire::error e = refwire::decompress(again, back, o)) die("re-compressed bytes do not decompress", e.message());
    if (back != pre) die("compress/decompress round trip differs");
  }

  // The same bytes through deserialize's compression hook.
  fuzz::order v;
  const refwire::error typed = refwire::deserialize<refwire::binary>(in, v, o);
  if (full && !typed) die("deserialize accepted an envelope decompress rejects", full.message());
  if (!full && !typed) {
    const std::vector<std::byte> reencoded = refwire::serialize(v);
    if (reencoded.size() != whole.size()) die("decoded value re-encodes to a different size");
  }
  return 0;
}
