// libFuzzer target for the RPC frame parsers (refwire/rpc/detail/protocol.hpp).
//
// The first byte selects what the rest is parsed as (its value modulo 4):
//   0 a frame header (the first 16 bytes; fewer: nothing to do), 1 a handshake,
//   2 a handshake reply, 3 an error payload.
// A failed parse must say why, prefixed with the payload's name. A parse that
// succeeds is encoded again: the encoding must be the input itself (the
// protocol has one encoding per value: minimal varints, valid UTF-8, no
// optional fields), and parsing that again must give an equal value. A header
// accepted under a limit is accepted under any larger one.
//
//   fuzz_rpc_frames -max_len=512 -max_total_time=60 <scratch dir> tests/fuzz/corpus/rpc_frames
#include <refwire/rpc/detail/protocol.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pd = refwire::rpc::detail;

namespace {

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz_rpc_frames: %s %s\n", what, detail.c_str());
  std::abort();
}

bool same(const pd::frame_header& a, const pd::frame_header& b) {
  return a.version == b.version && a.kind == b.kind && a.flags == b.flags && a.codec == b.codec &&
         a.length == b.length && a.request_id == b.request_id && a.method_id == b.method_id;
}

bool same(const std::vector<pd::extension>& a, const std::vector<pd::extension>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].type != b[i].type || a[i].data != b[i].data) return false;
  }
  return true;
}

bool same(const pd::handshake& a, const pd::handshake& b) {
  if (a.version != b.version || a.codec != b.codec || a.compression != b.compression ||
      a.compression_threshold != b.compression_threshold || a.max_frame_size != b.max_frame_size ||
      a.interface_name != b.interface_name || a.methods.size() != b.methods.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.methods.size(); ++i) {
    const pd::method_entry& x = a.methods[i];
    const pd::method_entry& y = b.methods[i];
    if (x.id != y.id || x.name != y.name || x.signature != y.signature || x.shape != y.shape) return false;
  }
  return same(a.extensions, b.extensions);
}

bool same(const pd::handshake_reply& a, const pd::handshake_reply& b) {
  if (a.codec != b.codec || a.compression != b.compression || a.max_frame_size != b.max_frame_size ||
      a.methods.size() != b.methods.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.methods.size(); ++i) {
    if (a.methods[i].state != b.methods[i].state || a.methods[i].server_signature != b.methods[i].server_signature) {
      return false;
    }
  }
  return same(a.extensions, b.extensions);
}

bool same(const pd::error_payload& a, const pd::error_payload& b) {
  return a.code == b.code && a.type == b.type && a.message == b.message;
}

void check_header(std::span<const std::byte> in) {
  if (in.size() < pd::header_size) return;
  const std::span<const std::byte, pd::header_size> bytes(in.data(), pd::header_size);
  std::string why;
  const auto small = pd::parse_header(bytes, 1u << 20, why);
  if (!small && why.empty()) die("header refused without a reason");
  std::string why_big;
  const auto big = pd::parse_header(bytes, 0xffffffffU, why_big);
  if (small && !big) die("a header accepted under 1 MiB is refused under 4 GiB", why_big);
  if (!big) {
    if (why_big.empty()) die("header refused without a reason");
    return;
  }
  std::array<std::byte, pd::header_size> out{};
  pd::write_header(*big, out);
  for (std::size_t i = 0; i < pd::header_size; ++i) {
    if (out[i] != bytes[i]) die("header re-encodes to other bytes");
  }
  std::string again_why;
  const auto again = pd::parse_header(out, 0xffffffffU, again_why);
  if (!again || !same(*again, *big)) die("re-encoded header parses differently", again_why);
}

template <class Payload>
void check_payload(std::span<const std::byte> in, std::string_view prefix) {
  Payload p;
  std::string why;
  if (!pd::parse(in, p, why)) {
    if (why.rfind(std::string(prefix) + ": ", 0) != 0) die("parse error without the payload's name:", why);
    return;
  }
  std::vector<std::byte> out;
  pd::encode(p, out);
  if (out.size() != in.size() || !std::equal(out.begin(), out.end(), in.begin())) {
    die("a parsed payload re-encodes to other bytes:", std::string(prefix));
  }
  Payload again;
  if (!pd::parse(out, again, why)) die("a re-encoded payload does not parse:", why);
  if (!same(p, again)) die("a re-encoded payload parses to another value:", std::string(prefix));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::byte> rest(reinterpret_cast<const std::byte*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: check_header(rest); break;
    case 1: check_payload<pd::handshake>(rest, "handshake"); break;
    case 2: check_payload<pd::handshake_reply>(rest, "handshake reply"); break;
    default: check_payload<pd::error_payload>(rest, "error payload"); break;
  }
  return 0;
}
