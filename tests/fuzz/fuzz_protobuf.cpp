// libFuzzer target for the protobuf decoder.
//
// The first byte picks the type (fuzz_types.hpp, the types fuzz_binary uses);
// the rest is decoded as that type's protobuf message with the non-throwing,
// the prefix and the throwing entry points, which must agree. When a decode
// succeeds, decode -> encode -> decode must be a fixed point: the re-encoding
// decodes, and encodes to itself again (protobuf accepts many encodings of one
// value: any field order, repeated fields split or packed or not, last-one-wins,
// non-minimal varints, so the input bytes themselves are not compared). For
// types with unordered containers the second decode must equal the first.
// Any disagreement aborts.
//
//   fuzz_protobuf -max_len=512 <scratch dir> tests/fuzz/corpus/protobuf
#include "fuzz_types.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

namespace {

using pbf = refwire::protobuf;

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz_protobuf: %s %s\n", what, detail.c_str());
  std::abort();
}

enum class check { fixed_point, value };

template <class T, check C>
void run(std::span<const std::byte> in) {
  const refwire::decode_options& o = fuzz::fuzz_options;

  T v{};
  const refwire::error full = refwire::deserialize<pbf>(in, v, o);

  T p{};
  std::size_t used = 0;
  const refwire::error pre = refwire::deserialize_prefix<pbf>(in, p, used, o);
  if (full) {
    if (full.offset() > in.size()) die("error offset past the input", full.message());
    if (full.message() != full.path() + ": " + full.reason() + ", at offset " + std::to_string(full.offset())) {
      die("malformed message", full.message());
    }
    if (!pre || pre.message() != full.message()) die("prefix decode disagrees", full.message());
    try {
      (void)refwire::deserialize<T, pbf>(in, o);
      die("throwing deserialize did not throw", full.message());
    } catch (const refwire::decode_error& e) {
      if (full.message() != e.what()) die("decode_error::what differs", e.what());
    }
    return;
  }
  if (pre || used != in.size()) die("full decode succeeded, prefix decode disagrees", pre.message());

  std::vector<std::byte> again;
  try {
    again = refwire::serialize<pbf>(v);
  } catch (const refwire::encode_error& e) {
    die("a decoded value does not encode", e.what());
  }
  T w{};
  if (refwire::error e = refwire::deserialize<pbf>(again, w, o)) die("re-encoding does not decode", e.message());
  if constexpr (C == check::value) {
    if (!(w == v)) die("re-decoded value differs");
  } else {
    if (refwire::serialize<pbf>(w) != again) die("decode -> encode -> decode is not a fixed point");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data) + 1, size - 1);
  using fuzz::kind;
  switch (static_cast<kind>(data[0] % fuzz::type_count)) {
    case kind::point: run<fuzz::point, check::fixed_point>(in); break;
    case kind::order: run<fuzz::order, check::fixed_point>(in); break;
    case kind::node: run<fuzz::node, check::fixed_point>(in); break;
    case kind::chain: run<fuzz::chain, check::fixed_point>(in); break;
    case kind::flags: run<fuzz::flags, check::fixed_point>(in); break;
    case kind::ordered_shapes: run<fuzz::ordered_shapes, check::fixed_point>(in); break;
    case kind::plain: run<fuzz::plain, check::fixed_point>(in); break;
    case kind::string_map: run<fuzz::string_map, check::fixed_point>(in); break;
    case kind::string_set: run<fuzz::string_set, check::fixed_point>(in); break;
    case kind::empties: run<fuzz::empties, check::fixed_point>(in); break;
    case kind::mixed_tuple: run<fuzz::mixed_tuple, check::fixed_point>(in); break;
    case kind::unordered: run<fuzz::unordered, check::value>(in); break;
    case kind::std_types: run<fuzz::std_types, check::value>(in); break;
    case kind::count: break;
  }
  return 0;
}
