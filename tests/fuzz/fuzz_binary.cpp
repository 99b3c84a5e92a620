// libFuzzer target for the binary decoder.
//
// The first byte picks the type (fuzz_types.hpp); the rest is decoded as that
// type with the non-throwing, the prefix and the throwing entry points, which
// must agree. When a decode succeeds the value is encoded again:
//   - for types without sets or maps the re-encoding must be byte-identical
//     to the bytes the decode consumed (one value, one encoding);
//   - for types with ordered sets or maps it must have the same size, decode
//     again, and re-encode to itself: the decoder accepts entries in any order
//     (a writer's unordered_map may be read into a std::map), and the encoder
//     writes them sorted;
//   - for types with unordered containers it must have the same size, decode
//     again, and give an equal value.
// The decoder of an input still arriving (decode_streaming, the RPC layer's
// large-payload path) is run on the same input cut in two, at a third and at
// a half: when it took a run from the rest it must agree with the whole
// decode exactly (the same error message, or a value that encodes the same);
// when it took nothing, it may only have failed at the cut.
// Any disagreement aborts.
//
//   fuzz_binary -max_len=512 corpus/binary
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
  std::fprintf(stderr, "fuzz_binary: %s %s\n", what, detail.c_str());
  std::abort();
}

enum class check { bytes, sorted, value };

/// The rest of an input past a cut, handed out as a reader of a socket would.
class rest_source final : public refwire::detail::blob_source {
 public:
  explicit rest_source(std::span<const std::byte> rest) : blob_source(rest.size()), rest_(rest) {}

 protected:
  bool read_exact(std::byte* dest, std::size_t n, std::string& why) override {
    if (n > rest_.size() - at_) {
      why = "read past the input";  // decode_streaming never asks for more than pending()
      die("a source read past the input");
    }
    std::memcpy(dest, rest_.data() + at_, n);
    at_ += n;
    return true;
  }
  std::byte* rest_buffer(std::size_t n) override {
    buffer_.resize(n);
    return buffer_.data();
  }

 private:
  std::span<const std::byte> rest_;
  std::size_t at_ = 0;
  std::vector<std::byte> buffer_;
};

template <class T>
void check_streaming(std::span<const std::byte> in, std::size_t cut, const refwire::error& full, const T& whole) {
  rest_source src(in.subspan(cut));
  T v{};
  const refwire::error e = refwire::detail::bin::decode_streaming(in.first(cut), v, fuzz::fuzz_options, src);
  if (!src.used()) {
    if (!e && (full || refwire::serialize(v) != refwire::serialize(whole))) die("streaming decode without a run differs");
    if (e && !full && e.offset() > cut) die("streaming decode failed past the cut without a run", e.message());
    return;
  }
  if (full) {
    if (!e || e.message() != full.message()) die("streaming decode disagrees", full.message() + " / " + e.message());
  } else if (e) {
    die("streaming decode failed where the whole decode did not", e.message());
  } else if (refwire::serialize(v) != refwire::serialize(whole)) {
    die("streaming decode gave another value");
  }
}

template <class T, check C>
void run(std::span<const std::byte> in) {
  const refwire::decode_options& o = fuzz::fuzz_options;

  T whole{};
  const refwire::error full = refwire::deserialize<refwire::binary>(in, whole, o);
  check_streaming(in, in.size() / 3, full, whole);
  check_streaming(in, in.size() / 2, full, whole);

  T v{};
  std::size_t used = 0;
  const refwire::error pre = refwire::deserialize_prefix<refwire::binary>(in, v, used, o);

  // The entry points agree.
  if (full) {
    if (full.offset() > in.size()) die("error offset past the input", full.message());
    if (full.message() != full.path() + ": " + full.reason() + ", at offset " + std::to_string(full.offset())) {
      die("malformed message", full.message());
    }
    if (full.code() == refwire::errc::trailing_bytes) {
      if (pre || used >= in.size() || full.offset() != used) die("trailing bytes but prefix disagrees", full.message());
    } else if (!pre || pre.message() != full.message()) {
      die("prefix decode disagrees", full.message() + " / " + pre.message());
    }
    try {
      (void)refwire::deserialize<T>(in, o);
      die("throwing deserialize did not throw", full.message());
    } catch (const refwire::decode_error& e) {
      if (full.message() != e.what()) die("decode_error::what differs", e.what());
    }
  } else if (pre || used != in.size()) {
    die("full decode succeeded, prefix decode disagrees", pre.message());
  }
  if (pre) {
    if (used != 0) die("consumed set on failure");
    return;
  }
  if (used > in.size()) die("consumed past the input");
  const std::span<const std::byte> consumed = in.first(used);

  const std::vector<std::byte> again = refwire::serialize(v);
  if (again.size() != consumed.size()) die("re-encoding has a different size");

  if constexpr (C == check::bytes) {
    if (std::memcmp(again.data(), consumed.data(), again.size()) != 0) {
      die("re-encoding differs from the consumed input (non-canonical input accepted)");
    }
    return;
  }

  // Value check: the re-encoding decodes (whole), and to an equal value or to
  // the same bytes again.
  T w{};
  if (refwire::error e = refwire::deserialize<refwire::binary>(again, w, o)) die("re-encoding does not decode", e.message());
  if constexpr (C == check::value) {
    if (!(w == v)) die("re-decoded value differs");
  } else {
    if (refwire::serialize(w) != again) die("re-encoding is not a fixed point");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data) + 1, size - 1);
  using fuzz::kind;
  switch (static_cast<kind>(data[0] % fuzz::type_count)) {
    case kind::point: run<fuzz::point, check::bytes>(in); break;
    case kind::order: run<fuzz::order, check::sorted>(in); break;
    case kind::node: run<fuzz::node, check::bytes>(in); break;
    case kind::chain: run<fuzz::chain, check::bytes>(in); break;
    case kind::flags: run<fuzz::flags, check::bytes>(in); break;
    case kind::ordered_shapes: run<fuzz::ordered_shapes, check::sorted>(in); break;
    case kind::plain: run<fuzz::plain, check::bytes>(in); break;
    case kind::string_map: run<fuzz::string_map, check::sorted>(in); break;
    case kind::string_set: run<fuzz::string_set, check::sorted>(in); break;
    case kind::empties: run<fuzz::empties, check::bytes>(in); break;
    case kind::mixed_tuple: run<fuzz::mixed_tuple, check::bytes>(in); break;
    case kind::unordered: run<fuzz::unordered, check::value>(in); break;
    case kind::std_types: run<fuzz::std_types, check::value>(in); break;
    case kind::count: break;
  }
  return 0;
}
