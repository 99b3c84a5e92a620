// The RPC wire protocol (refwire/rpc/detail/protocol.hpp, docs/rpc-protocol.md):
// frame headers and the handshake, handshake reply and error payloads.
//
//   - round trips, field by field, of every header kind and every payload;
//   - golden frames in tests/rpc/golden/, compared byte for byte with what the
//     encoders write, each checked once against hand-written hex from the spec;
//   - the worked example of docs/rpc-protocol.md (calc.v1.add(2, 3) with the
//     binary codec, request and response), whose hex the document must quote;
//   - hostile input for every parser: every truncation, huge counts, bad and
//     oversized varints, trailing bytes, unknown kinds/flags/versions/numbers,
//     invalid UTF-8, with the exact messages.
//
// Regenerate the golden files after an intended protocol change (then review
// the diff of the .bin files and update docs/rpc-protocol.md):
//   REFWIRE_UPDATE_GOLDEN=1 ./rpc_protocol_test
#include <refwire/rpc/detail/protocol.hpp>
#include <refwire/rpc/options.hpp>
#include <refwire/rpc/status.hpp>
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "../serialization/common/alloc_watch.hpp"

namespace rpc = refwire::rpc;
namespace pd = refwire::rpc::detail;

namespace {

// ---- helpers ------------------------------------------------------------------

/// FNV-1a 32-bit, written here independently of the library's method ids.
constexpr std::uint32_t fnv1a(std::string_view s) {
  std::uint32_t h = 0x811c9dc5U;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x01000193U;
  }
  return h;
}
static_assert(fnv1a("") == 0x811c9dc5U);
static_assert(fnv1a("a") == 0xe40c292cU);
static_assert(fnv1a("foobar") == 0xbf9cf968U);

constexpr std::uint32_t add_id = fnv1a("calc.v1.add");
constexpr std::uint32_t log_id = fnv1a("calc.v1.log");

std::string hex(std::span<const std::byte> b) {
  std::string s;
  char buf[4];
  for (std::size_t i = 0; i < b.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned>(b[i]));
    if (i != 0) s += ' ';
    s += buf;
  }
  return s;
}

std::vector<std::byte> unhex(std::string_view text) {
  std::vector<std::byte> out;
  int nibble = -1;
  for (const char c : text) {
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (v < 0) continue;
    if (nibble < 0) {
      nibble = v;
    } else {
      out.push_back(static_cast<std::byte>(nibble * 16 + v));
      nibble = -1;
    }
  }
  return out;
}

std::vector<std::byte> cat(std::vector<std::byte> a, const std::vector<std::byte>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bool updating() {
  const char* v = std::getenv("REFWIRE_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

std::vector<std::byte> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

/// Compares bytes with golden/<name>.bin (rewritten under REFWIRE_UPDATE_GOLDEN=1).
void check_golden(const std::string& name, const std::vector<std::byte>& bytes) {
  const auto path = std::filesystem::path(REFWIRE_RPC_GOLDEN_DIR) / (name + ".bin");
  if (updating()) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    EXPECT_TRUE(out.good()) << "could not write " << path;
    std::printf("[golden] wrote %s (%zu bytes)\n", path.string().c_str(), bytes.size());
  }
  const std::vector<std::byte> file = read_file(path);
  EXPECT_FALSE(file.empty()) << "missing golden file " << path << " (run with REFWIRE_UPDATE_GOLDEN=1)";
  EXPECT_EQ(hex(bytes), hex(file)) << "the encoding of " << name << " differs from " << path;
}

std::vector<std::byte> header_bytes(const pd::frame_header& h) {
  std::array<std::byte, pd::header_size> b{};
  pd::write_header(h, b);
  return {b.begin(), b.end()};
}

std::vector<std::byte> encoded(const auto& payload) {
  std::vector<std::byte> out;
  pd::encode(payload, out);
  return out;
}

/// Parses a header from the first 16 bytes of b (which must have them).
std::optional<pd::frame_header> header_of(const std::vector<std::byte>& b, std::string& why,
                                          std::uint32_t max = rpc::default_max_frame_size) {
  return pd::parse_header(std::span<const std::byte, pd::header_size>(b.data(), pd::header_size), max, why);
}

template <class Payload>
std::string parse_error(const std::vector<std::byte>& b) {
  Payload p;
  std::string why;
  if (pd::parse(b, p, why)) return "(parsed)";
  return why;
}

// ---- the sample values of the golden files ------------------------------------

pd::handshake sample_handshake() {
  pd::handshake h;
  h.version = 1;
  h.codec = rpc::codec::binary;
  h.compression = refwire::compression::lz4;
  h.compression_threshold = 1024;
  h.max_frame_size = 16u << 20;
  h.interface_name = "calc.v1";
  h.methods = {{add_id, "calc.v1.add", "(i32,i32)->i32", "(i32,i32)->i32"},
               {log_id, "calc.v1.log", "(string)->void", "(string)->void"}};
  h.extensions = {{1, {std::byte{0xde}, std::byte{0xad}}}};
  return h;
}

pd::handshake_reply sample_reply() {
  pd::handshake_reply r;
  r.codec = rpc::codec::binary;
  r.compression = refwire::compression::lz4;
  r.max_frame_size = 1u << 20;
  r.methods = {{pd::method_state::ok, ""}, {pd::method_state::unknown, ""},
               {pd::method_state::mismatch, "(i64,i64)->i64"}};
  r.extensions = {{1, {}}};
  return r;
}

pd::error_payload sample_error() { return {rpc::status_code::internal, "std::out_of_range", "index 7 out of range"}; }

// The hex of the golden payloads, written from docs/rpc-protocol.md by hand.
constexpr std::string_view handshake_hex =
    "01 01 01 80 08 80 80 80 08"                          // version 1, binary, lz4, threshold 1024, max 16 MiB
    " 07 63 61 6c 63 2e 76 31"                            // "calc.v1"
    " 02"                                                 // two methods
    " ca ed 86 4a"                                        // entry 0: id fnv1a("calc.v1.add") = 0x4a86edca
    " 0b 63 61 6c 63 2e 76 31 2e 61 64 64"                // "calc.v1.add"
    " 0e 28 69 33 32 2c 69 33 32 29 2d 3e 69 33 32"       // "(i32,i32)->i32"
    " 0e 28 69 33 32 2c 69 33 32 29 2d 3e 69 33 32"       // the same shape
    " 5f 7b ec 8a"                                        // entry 1: id fnv1a("calc.v1.log") = 0x8aec7b5f
    " 0b 63 61 6c 63 2e 76 31 2e 6c 6f 67"                // "calc.v1.log"
    " 0e 28 73 74 72 69 6e 67 29 2d 3e 76 6f 69 64"       // "(string)->void"
    " 0e 28 73 74 72 69 6e 67 29 2d 3e 76 6f 69 64"       // the same shape
    " 01 01 02 de ad";                                    // one extension: type 1, two bytes

constexpr std::string_view reply_hex =
    "01 01 80 80 40"                                      // binary, lz4, max 1 MiB
    " 03 00 01 02"                                        // three methods: ok, unknown, mismatch
    " 0e 28 69 36 34 2c 69 36 34 29 2d 3e 69 36 34"       // "(i64,i64)->i64"
    " 01 01 00";                                          // one extension: type 1, no data

constexpr std::string_view error_hex =
    "0d"                                                  // internal (13)
    " 11 73 74 64 3a 3a 6f 75 74 5f 6f 66 5f 72 61 6e 67 65"  // "std::out_of_range"
    " 14 69 6e 64 65 78 20 37 20 6f 75 74 20 6f 66 20 72 61 6e 67 65";  // "index 7 out of range"

// ---- names ----------------------------------------------------------------------

TEST(RpcNames, StatusCodecAndFrameKind) {
  EXPECT_EQ(rpc::to_string(rpc::status_code::ok), "ok");
  EXPECT_EQ(rpc::to_string(rpc::status_code::cancelled), "cancelled");
  EXPECT_EQ(rpc::to_string(rpc::status_code::invalid_argument), "invalid_argument");
  EXPECT_EQ(rpc::to_string(rpc::status_code::deadline_exceeded), "deadline_exceeded");
  EXPECT_EQ(rpc::to_string(rpc::status_code::resource_exhausted), "resource_exhausted");
  EXPECT_EQ(rpc::to_string(rpc::status_code::unimplemented), "unimplemented");
  EXPECT_EQ(rpc::to_string(rpc::status_code::internal), "internal");
  EXPECT_EQ(rpc::to_string(rpc::status_code::unavailable), "unavailable");
  EXPECT_EQ(rpc::to_string(rpc::status_code::unauthenticated), "unauthenticated");
  EXPECT_EQ(rpc::to_string(static_cast<rpc::status_code>(2)), "unknown");

  EXPECT_EQ(rpc::to_string(rpc::codec::binary), "binary");
  EXPECT_EQ(rpc::to_string(rpc::codec::json), "json");
  EXPECT_EQ(rpc::to_string(rpc::codec::protobuf), "protobuf");
  EXPECT_EQ(rpc::to_string(static_cast<rpc::codec>(9)), "unknown");

  const std::array<std::string_view, 10> kinds = {"unknown",  "handshake", "handshake_reply", "request", "response",
                                                  "error",    "one_way",   "cancel",          "ping",    "pong"};
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(pd::to_string(static_cast<pd::frame_kind>(i)), kinds[i]) << i;
  }
  EXPECT_EQ(pd::to_string(static_cast<pd::frame_kind>(42)), "unknown");
}

TEST(RpcNames, CodecNumbersAreFormatIds) {
  EXPECT_EQ(static_cast<unsigned>(rpc::codec::binary), static_cast<unsigned>(refwire::binary::id));
  EXPECT_EQ(static_cast<unsigned>(rpc::codec::json), static_cast<unsigned>(refwire::json::id));
  EXPECT_EQ(static_cast<unsigned>(rpc::codec::protobuf), static_cast<unsigned>(refwire::protobuf::id));
}

// ---- headers ----------------------------------------------------------------------

TEST(RpcHeader, LayoutIsLittleEndianAtFixedOffsets) {
  const pd::frame_header h{.version = 1,
                           .kind = pd::frame_kind::request,
                           .flags = pd::flag_compressed,
                           .codec = 2,
                           .length = 0x04030201,
                           .request_id = 0x08070605,
                           .method_id = 0x0c0b0a09};
  EXPECT_EQ(hex(header_bytes(h)), "01 03 01 02 01 02 03 04 05 06 07 08 09 0a 0b 0c");
}

TEST(RpcHeader, RoundTripsEveryKindFieldByField) {
  for (std::uint8_t k = 1; k <= 9; ++k) {
    const auto kind = static_cast<pd::frame_kind>(k);
    const bool codec_payload =
        kind == pd::frame_kind::request || kind == pd::frame_kind::response || kind == pd::frame_kind::one_way;
    const bool empty = kind == pd::frame_kind::cancel || kind == pd::frame_kind::ping || kind == pd::frame_kind::pong;
    const pd::frame_header h{.version = pd::protocol_version,
                             .kind = kind,
                             .flags = codec_payload ? pd::flag_compressed : std::uint8_t{0},
                             .codec = codec_payload ? std::uint8_t{3} : std::uint8_t{0},
                             .length = empty ? 0u : 0xffffffffU,
                             .request_id = 0xfffffffeU,
                             .method_id = 0x80000001U};
    std::string why;
    const auto got = header_of(header_bytes(h), why, 0xffffffffU);
    ASSERT_TRUE(got) << pd::to_string(kind) << ": " << why;
    EXPECT_EQ(got->version, h.version);
    EXPECT_EQ(got->kind, h.kind);
    EXPECT_EQ(got->flags, h.flags);
    EXPECT_EQ(got->codec, h.codec);
    EXPECT_EQ(got->length, h.length);
    EXPECT_EQ(got->request_id, h.request_id);
    EXPECT_EQ(got->method_id, h.method_id);
  }
}

TEST(RpcHeader, LengthLimitIsInclusive) {
  std::string why;
  EXPECT_TRUE(header_of(header_bytes({.length = 16u << 20, .request_id = 1}), why)) << why;
  EXPECT_FALSE(header_of(header_bytes({.length = (16u << 20) + 1, .request_id = 1}), why));
  EXPECT_EQ(why, "frame of 16777217 bytes is longer than max_frame_size (16777216)");
  EXPECT_FALSE(header_of(header_bytes({.length = 32u << 20}), why));
  EXPECT_EQ(why, "frame of 33554432 bytes is longer than max_frame_size (16777216)");
  EXPECT_FALSE(header_of(header_bytes({.kind = pd::frame_kind::handshake, .length = 1}), why, 0));
  EXPECT_EQ(why, "frame of 1 byte is longer than max_frame_size (0)");
}

TEST(RpcHeader, HostileHeadersAreRefusedWithTheirReason) {
  const std::vector<std::byte> good = header_bytes({.kind = pd::frame_kind::request, .codec = 1, .length = 8});
  auto with = [&](std::size_t at, std::uint8_t v) {
    std::vector<std::byte> b = good;
    b[at] = static_cast<std::byte>(v);
    return b;
  };
  auto refusal = [](const std::vector<std::byte>& b) {
    std::string why;
    if (header_of(b, why)) return std::string("(parsed)");
    return why;
  };
  EXPECT_EQ(refusal(good), "(parsed)");
  EXPECT_EQ(refusal(with(0, 2)), "protocol version 2 is not supported (this side speaks version 1)");
  EXPECT_EQ(refusal(with(0, 0)), "protocol version 0 is not supported (this side speaks version 1)");
  EXPECT_EQ(refusal(with(0, 255)), "protocol version 255 is not supported (this side speaks version 1)");
  EXPECT_EQ(refusal(with(1, 0)), "unknown frame kind 0");
  EXPECT_EQ(refusal(with(1, 10)), "unknown frame kind 10");
  EXPECT_EQ(refusal(with(1, 42)), "unknown frame kind 42");
  EXPECT_EQ(refusal(with(2, 0x04)), "unknown frame flags 0x04 in 0x04 (this side knows 0x03)");
  EXPECT_EQ(refusal(with(2, 0xff)), "unknown frame flags 0xfc in 0xff (this side knows 0x03)");
  EXPECT_EQ(refusal(with(2, 0x80)), "unknown frame flags 0x80 in 0x80 (this side knows 0x03)");
  EXPECT_EQ(refusal(with(2, 0x07)), "unknown frame flags 0x04 in 0x07 (this side knows 0x03)");
  // The deadline flag: a request with at least its 4-byte prefix, compressed or not.
  EXPECT_EQ(refusal(with(2, 0x02)), "(parsed)");
  EXPECT_EQ(refusal(with(2, 0x03)), "(parsed)");
  EXPECT_EQ(refusal(header_bytes({.kind = pd::frame_kind::request, .flags = pd::flag_deadline, .codec = 1, .length = 4})),
            "(parsed)");
  EXPECT_EQ(refusal(header_bytes({.kind = pd::frame_kind::request, .flags = pd::flag_deadline, .codec = 1, .length = 3})),
            "a request with the deadline flag is 3 bytes long, shorter than its 4-byte deadline");
  EXPECT_EQ(refusal(header_bytes({.kind = pd::frame_kind::one_way, .flags = pd::flag_deadline, .codec = 1, .length = 8})),
            "frame kind one_way cannot carry a deadline (only request frames do)");
  EXPECT_EQ(refusal(header_bytes({.kind = pd::frame_kind::response, .flags = pd::flag_deadline, .codec = 1, .length = 8})),
            "frame kind response cannot carry a deadline (only request frames do)");
  // The version is checked before anything else: another version's header may mean anything.
  std::vector<std::byte> v2 = with(0, 2);
  v2[1] = std::byte{42};
  v2[7] = std::byte{0xff};
  EXPECT_EQ(refusal(v2), "protocol version 2 is not supported (this side speaks version 1)");
  // Compression is for codec payloads only; cancel, ping and pong have no payload.
  EXPECT_EQ(refusal(header_bytes({.kind = pd::frame_kind::handshake, .flags = pd::flag_compressed, .length = 4})),
            "frame kind handshake cannot be compressed (only request, response and one_way payloads are)");
  EXPECT_EQ(refusal(header_bytes({.kind = pd::frame_kind::error, .flags = pd::flag_compressed, .length = 4})),
            "frame kind error cannot be compressed (only request, response and one_way payloads are)");
  EXPECT_EQ(refusal(header_bytes({.kind = pd::frame_kind::ping, .length = 8, .request_id = 3})),
            "frame kind ping carries no payload (its length is 8)");
  EXPECT_EQ(refusal(header_bytes({.kind = pd::frame_kind::cancel, .length = 1, .request_id = 3})),
            "frame kind cancel carries no payload (its length is 1)");
  EXPECT_EQ(refusal(header_bytes({.kind = pd::frame_kind::pong, .length = 0xffffffffU})),
            "frame of 4294967295 bytes is longer than max_frame_size (16777216)");
}

// ---- payload round trips -------------------------------------------------------------

TEST(RpcPayloads, HandshakeRoundTripsFieldByField) {
  pd::handshake h = sample_handshake();
  h.version = 0xffffffffU;
  h.codec = rpc::codec::protobuf;
  h.compression_threshold = 0xfffffffeU;
  h.max_frame_size = 0;
  h.interface_name = "r\xc3\xa9seau.v2";  // UTF-8 survives as it is
  h.methods.push_back({0, "", "", ""});
  h.methods.push_back({0xffffffffU, std::string(300, 'n'), "()->void", "({},&{})->i32"});
  h.extensions.push_back({0xffffffffU, std::vector<std::byte>(200, std::byte{7})});
  h.extensions.push_back({0, {}});

  const std::vector<std::byte> b = encoded(h);
  pd::handshake got;
  std::string why;
  ASSERT_TRUE(pd::parse(b, got, why)) << why;
  EXPECT_EQ(got.version, h.version);
  EXPECT_EQ(got.codec, h.codec);
  EXPECT_EQ(got.compression, h.compression);
  EXPECT_EQ(got.compression_threshold, h.compression_threshold);
  EXPECT_EQ(got.max_frame_size, h.max_frame_size);
  EXPECT_EQ(got.interface_name, h.interface_name);
  ASSERT_EQ(got.methods.size(), h.methods.size());
  for (std::size_t i = 0; i < h.methods.size(); ++i) {
    EXPECT_EQ(got.methods[i].id, h.methods[i].id) << i;
    EXPECT_EQ(got.methods[i].name, h.methods[i].name) << i;
    EXPECT_EQ(got.methods[i].signature, h.methods[i].signature) << i;
    EXPECT_EQ(got.methods[i].shape, h.methods[i].shape) << i;
  }
  ASSERT_EQ(got.extensions.size(), h.extensions.size());
  for (std::size_t i = 0; i < h.extensions.size(); ++i) {
    EXPECT_EQ(got.extensions[i].type, h.extensions[i].type) << i;
    EXPECT_EQ(got.extensions[i].data, h.extensions[i].data) << i;
  }
}

TEST(RpcPayloads, DefaultHandshakeIsEightBytes) {
  const pd::handshake h;
  EXPECT_EQ(hex(encoded(h)), "01 01 00 00 00 00 00 00");
  pd::handshake got = sample_handshake();
  std::string why;
  ASSERT_TRUE(pd::parse(encoded(h), got, why)) << why;
  EXPECT_EQ(got.codec, rpc::codec::binary);
  EXPECT_EQ(got.compression, refwire::compression::none);
  EXPECT_TRUE(got.interface_name.empty());
  EXPECT_TRUE(got.methods.empty());
  EXPECT_TRUE(got.extensions.empty());
}

TEST(RpcPayloads, HandshakeReplyRoundTripsFieldByField) {
  pd::handshake_reply r = sample_reply();
  r.codec = rpc::codec::json;
  r.compression = refwire::compression::none;
  r.max_frame_size = 0xffffffffU;
  r.methods.push_back({pd::method_state::mismatch, ""});  // a mismatch with an empty signature is kept
  r.extensions.push_back({77, {std::byte{0}, std::byte{1}}});

  const std::vector<std::byte> b = encoded(r);
  pd::handshake_reply got;
  std::string why;
  ASSERT_TRUE(pd::parse(b, got, why)) << why;
  EXPECT_EQ(got.codec, r.codec);
  EXPECT_EQ(got.compression, r.compression);
  EXPECT_EQ(got.max_frame_size, r.max_frame_size);
  ASSERT_EQ(got.methods.size(), r.methods.size());
  for (std::size_t i = 0; i < r.methods.size(); ++i) {
    EXPECT_EQ(got.methods[i].state, r.methods[i].state) << i;
    EXPECT_EQ(got.methods[i].server_signature, r.methods[i].server_signature) << i;
  }
  ASSERT_EQ(got.extensions.size(), r.extensions.size());
  for (std::size_t i = 0; i < r.extensions.size(); ++i) {
    EXPECT_EQ(got.extensions[i].type, r.extensions[i].type) << i;
    EXPECT_EQ(got.extensions[i].data, r.extensions[i].data) << i;
  }
}

TEST(RpcPayloads, ServerSignatureTravelsOnlyWithMismatch) {
  pd::handshake_reply r;
  r.methods = {{pd::method_state::ok, "ignored"}, {pd::method_state::unknown, "ignored"}};
  EXPECT_EQ(hex(encoded(r)), "01 00 00 02 00 01 00");
  pd::handshake_reply got;
  std::string why;
  ASSERT_TRUE(pd::parse(encoded(r), got, why)) << why;
  ASSERT_EQ(got.methods.size(), 2U);
  EXPECT_EQ(got.methods[0].server_signature, "");
  EXPECT_EQ(got.methods[1].server_signature, "");
}

TEST(RpcPayloads, ErrorRoundTripsEveryStatusCode) {
  for (const rpc::status_code c :
       {rpc::status_code::cancelled, rpc::status_code::invalid_argument, rpc::status_code::deadline_exceeded,
        rpc::status_code::resource_exhausted, rpc::status_code::unimplemented, rpc::status_code::internal,
        rpc::status_code::unavailable, rpc::status_code::unauthenticated}) {
    const pd::error_payload e{c, "my::error", "line one\nline two \xe2\x9c\x93"};
    pd::error_payload got;
    std::string why;
    ASSERT_TRUE(pd::parse(encoded(e), got, why)) << why;
    EXPECT_EQ(got.code, e.code);
    EXPECT_EQ(got.type, e.type);
    EXPECT_EQ(got.message, e.message);
  }
}

TEST(RpcPayloads, InvalidUtf8InAnEncodedStringBecomesReplacementCharacters) {
  // A handler's exception text may hold any bytes; what is sent always parses.
  const pd::error_payload e{rpc::status_code::internal, "", "bad \xff\xc3 end \xc3\xa9"};
  const std::vector<std::byte> b = encoded(e);
  EXPECT_EQ(hex(b), "0d 00 11 62 61 64 20 ef bf bd ef bf bd 20 65 6e 64 20 c3 a9");
  pd::error_payload got;
  std::string why;
  ASSERT_TRUE(pd::parse(b, got, why)) << why;
  EXPECT_EQ(got.message, "bad \xef\xbf\xbd\xef\xbf\xbd end \xc3\xa9");
}

TEST(RpcPayloads, ParsersAppendNothingOnFailureAndReplaceOnSuccess) {
  pd::handshake h = sample_handshake();
  std::vector<std::byte> b = encoded(h);
  b.pop_back();
  pd::handshake target;
  target.interface_name = "kept";
  std::string why;
  EXPECT_FALSE(pd::parse(b, target, why));
  EXPECT_EQ(target.interface_name, "kept");
  EXPECT_TRUE(target.methods.empty());

  pd::error_payload e{rpc::status_code::cancelled, "old", "old"};
  ASSERT_TRUE(pd::parse(encoded(sample_error()), e, why)) << why;
  EXPECT_EQ(e.code, rpc::status_code::internal);
  EXPECT_EQ(e.type, "std::out_of_range");

  // Encoders append.
  std::vector<std::byte> out = {std::byte{0xaa}};
  pd::encode(sample_error(), out);
  EXPECT_EQ(out.size(), 1 + encoded(sample_error()).size());
  EXPECT_EQ(out[0], std::byte{0xaa});
}

// ---- golden frames --------------------------------------------------------------------

TEST(RpcGolden, PayloadsMatchTheSpecAndTheGoldenFiles) {
  EXPECT_EQ(add_id, 0x4a86edcaU);
  EXPECT_EQ(log_id, 0x8aec7b5fU);
  EXPECT_EQ(hex(encoded(sample_handshake())), hex(unhex(handshake_hex)));
  EXPECT_EQ(hex(encoded(sample_reply())), hex(unhex(reply_hex)));
  EXPECT_EQ(hex(encoded(sample_error())), hex(unhex(error_hex)));
  check_golden("handshake", encoded(sample_handshake()));
  check_golden("handshake-reply", encoded(sample_reply()));
  check_golden("error", encoded(sample_error()));
}

struct header_case {
  const char* name;
  pd::frame_header header;
  const char* hex;
};

TEST(RpcGolden, AHeaderOfEachKind) {
  const auto hs = static_cast<std::uint32_t>(encoded(sample_handshake()).size());
  const auto rp = static_cast<std::uint32_t>(encoded(sample_reply()).size());
  const auto er = static_cast<std::uint32_t>(encoded(sample_error()).size());
  ASSERT_EQ(hs, 115U);
  ASSERT_EQ(rp, 27U);
  ASSERT_EQ(er, 40U);
  const header_case cases[] = {
      {"header-handshake", {.kind = pd::frame_kind::handshake, .length = hs},
       "01 01 00 00 73 00 00 00 00 00 00 00 00 00 00 00"},
      {"header-handshake_reply", {.kind = pd::frame_kind::handshake_reply, .length = rp},
       "01 02 00 00 1b 00 00 00 00 00 00 00 00 00 00 00"},
      {"header-request", {.kind = pd::frame_kind::request, .codec = 1, .length = 8, .request_id = 1, .method_id = add_id},
       "01 03 00 01 08 00 00 00 01 00 00 00 ca ed 86 4a"},
      {"header-response", {.kind = pd::frame_kind::response, .codec = 1, .length = 4, .request_id = 1, .method_id = add_id},
       "01 04 00 01 04 00 00 00 01 00 00 00 ca ed 86 4a"},
      {"header-error", {.kind = pd::frame_kind::error, .length = er, .request_id = 2, .method_id = add_id},
       "01 05 00 00 28 00 00 00 02 00 00 00 ca ed 86 4a"},
      {"header-one_way",
       {.kind = pd::frame_kind::one_way, .flags = pd::flag_compressed, .codec = 2, .length = 1300, .method_id = log_id},
       "01 06 01 02 14 05 00 00 00 00 00 00 5f 7b ec 8a"},
      {"header-cancel", {.kind = pd::frame_kind::cancel, .request_id = 7},
       "01 07 00 00 00 00 00 00 07 00 00 00 00 00 00 00"},
      {"header-ping", {.kind = pd::frame_kind::ping, .request_id = 0x01020304},
       "01 08 00 00 00 00 00 00 04 03 02 01 00 00 00 00"},
      {"header-pong", {.kind = pd::frame_kind::pong, .request_id = 0x01020304},
       "01 09 00 00 00 00 00 00 04 03 02 01 00 00 00 00"},
  };
  for (const header_case& c : cases) {
    const std::vector<std::byte> b = header_bytes(c.header);
    EXPECT_EQ(hex(b), c.hex) << c.name;
    check_golden(c.name, b);
    std::string why;
    const auto got = header_of(read_file(std::filesystem::path(REFWIRE_RPC_GOLDEN_DIR) / (std::string(c.name) + ".bin")),
                               why);
    ASSERT_TRUE(got) << c.name << ": " << why;
    EXPECT_EQ(got->kind, c.header.kind) << c.name;
    EXPECT_EQ(got->flags, c.header.flags) << c.name;
    EXPECT_EQ(got->codec, c.header.codec) << c.name;
    EXPECT_EQ(got->length, c.header.length) << c.name;
    EXPECT_EQ(got->request_id, c.header.request_id) << c.name;
    EXPECT_EQ(got->method_id, c.header.method_id) << c.name;
  }
}

TEST(RpcGolden, GoldenPayloadFilesParseBack) {
  const auto dir = std::filesystem::path(REFWIRE_RPC_GOLDEN_DIR);
  std::string why;
  pd::handshake h;
  ASSERT_TRUE(pd::parse(read_file(dir / "handshake.bin"), h, why)) << why;
  EXPECT_EQ(h.interface_name, "calc.v1");
  ASSERT_EQ(h.methods.size(), 2U);
  EXPECT_EQ(h.methods[1].id, log_id);
  EXPECT_EQ(h.methods[1].signature, "(string)->void");
  ASSERT_EQ(h.extensions.size(), 1U);
  EXPECT_EQ(h.extensions[0].data.size(), 2U);
  pd::handshake_reply r;
  ASSERT_TRUE(pd::parse(read_file(dir / "handshake-reply.bin"), r, why)) << why;
  ASSERT_EQ(r.methods.size(), 3U);
  EXPECT_EQ(r.methods[2].state, pd::method_state::mismatch);
  EXPECT_EQ(r.methods[2].server_signature, "(i64,i64)->i64");
  pd::error_payload e;
  ASSERT_TRUE(pd::parse(read_file(dir / "error.bin"), e, why)) << why;
  EXPECT_EQ(e.message, "index 7 out of range");
}

// The worked example of docs/rpc-protocol.md: calc.v1's add(2, 3), binary codec, request id 1.
constexpr std::string_view add_request_hex =
    "01 03 00 01 08 00 00 00 01 00 00 00 ca ed 86 4a 02 00 00 00 03 00 00 00";
constexpr std::string_view add_response_hex = "01 04 00 01 04 00 00 00 01 00 00 00 ca ed 86 4a 05 00 00 00";

TEST(RpcGolden, WorkedExampleAddTwoThree) {
  const std::vector<std::byte> args = refwire::serialize(std::tuple<int, int>{2, 3});
  const std::vector<std::byte> request = cat(
      header_bytes({.kind = pd::frame_kind::request,
                    .codec = static_cast<std::uint8_t>(rpc::codec::binary),
                    .length = static_cast<std::uint32_t>(args.size()),
                    .request_id = 1,
                    .method_id = add_id}),
      args);
  const std::vector<std::byte> result = refwire::serialize(std::tuple<int>{5});
  const std::vector<std::byte> response = cat(
      header_bytes({.kind = pd::frame_kind::response,
                    .codec = static_cast<std::uint8_t>(rpc::codec::binary),
                    .length = static_cast<std::uint32_t>(result.size()),
                    .request_id = 1,
                    .method_id = add_id}),
      result);
  EXPECT_EQ(hex(request), add_request_hex);
  EXPECT_EQ(hex(response), add_response_hex);
  check_golden("call-add-request", request);
  check_golden("call-add-response", response);

  // What the server does with the request frame: header, then the codec's tuple.
  std::string why;
  const auto h = header_of(request, why);
  ASSERT_TRUE(h) << why;
  ASSERT_EQ(h->length, request.size() - pd::header_size);
  const auto decoded = refwire::deserialize<std::tuple<int, int>>(std::span(request).subspan(pd::header_size));
  EXPECT_EQ(std::get<0>(decoded), 2);
  EXPECT_EQ(std::get<1>(decoded), 3);

  // The document quotes these bytes.
  std::ifstream doc(std::filesystem::path(REFWIRE_SOURCE_DIR) / "docs" / "rpc-protocol.md");
  const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty()) << "docs/rpc-protocol.md not found";
  EXPECT_NE(text.find(add_request_hex), std::string::npos) << "docs/rpc-protocol.md does not quote " << add_request_hex;
  EXPECT_NE(text.find(add_response_hex), std::string::npos)
      << "docs/rpc-protocol.md does not quote " << add_response_hex;
}

// ---- hostile payloads -----------------------------------------------------------------

/// Every proper prefix of a valid payload is refused as truncated, or as a
/// count the bytes left cannot hold; never parsed, never out of bounds (ASan).
template <class Payload>
void every_truncation_fails(const std::vector<std::byte>& full, std::string_view prefix) {
  for (std::size_t n = 0; n < full.size(); ++n) {
    const std::vector<std::byte> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    const std::string why = parse_error<Payload>(cut);
    const bool truncated = why.rfind(std::string(prefix) + ": truncated ", 0) == 0;
    const bool count = why.rfind(std::string(prefix) + ": ", 0) == 0 && why.find(" count ") != std::string::npos &&
                       why.find(" does not fit in the ") != std::string::npos;
    EXPECT_TRUE(truncated || count) << "prefix of " << n << " bytes: " << why;
  }
}

TEST(RpcHostile, EveryTruncationOfEveryPayload) {
  every_truncation_fails<pd::handshake>(encoded(sample_handshake()), "handshake");
  every_truncation_fails<pd::handshake_reply>(encoded(sample_reply()), "handshake reply");
  every_truncation_fails<pd::error_payload>(encoded(sample_error()), "error payload");
}

TEST(RpcHostile, TruncationMessagesNameTheField) {
  const std::vector<std::byte> h = encoded(sample_handshake());
  auto cut = [&](std::size_t n) {
    return parse_error<pd::handshake>({h.begin(), h.begin() + static_cast<std::ptrdiff_t>(n)});
  };
  EXPECT_EQ(cut(0), "handshake: truncated version (needs 1 byte, 0 left)");
  EXPECT_EQ(cut(1), "handshake: truncated codec (needs 1 byte, 0 left)");
  EXPECT_EQ(cut(2), "handshake: truncated compression (needs 1 byte, 0 left)");
  EXPECT_EQ(cut(4), "handshake: truncated compression_threshold (needs 2 bytes, 1 left)");
  EXPECT_EQ(cut(8), "handshake: truncated max_frame_size (needs 4 bytes, 3 left)");
  EXPECT_EQ(cut(12), "handshake: truncated interface_name (needs 7 bytes, 2 left)");
  EXPECT_EQ(cut(17), "handshake: truncated method table count (needs 1 byte, 0 left)");
  EXPECT_EQ(cut(18), "handshake: method table count 2 does not fit in the 0 bytes left (an entry takes at least 7 bytes)");
  EXPECT_EQ(cut(20), "handshake: method table count 2 does not fit in the 2 bytes left (an entry takes at least 7 bytes)");
  EXPECT_EQ(cut(27), "handshake: method table count 2 does not fit in the 9 bytes left (an entry takes at least 7 bytes)");
  EXPECT_EQ(cut(32), "handshake: truncated method table entry 0 name (needs 11 bytes, 9 left)");
  EXPECT_EQ(cut(66), "handshake: truncated method table entry 1 id (needs 4 bytes, 2 left)");
  EXPECT_EQ(cut(90), "handshake: truncated method table entry 1 signature (needs 14 bytes, 9 left)");
  EXPECT_EQ(cut(100), "handshake: truncated method table entry 1 shape (needs 14 bytes, 4 left)");
  EXPECT_EQ(cut(110), "handshake: truncated extension table count (needs 1 byte, 0 left)");
  EXPECT_EQ(cut(111), "handshake: extension table count 1 does not fit in the 0 bytes left (an entry takes at least 2 bytes)");
  EXPECT_EQ(cut(113), "handshake: truncated extension table entry 0 data (needs 2 bytes, 0 left)");
  EXPECT_EQ(cut(114), "handshake: truncated extension table entry 0 data (needs 2 bytes, 1 left)");

  const std::vector<std::byte> r = encoded(sample_reply());
  auto cut_reply = [&](std::size_t n) {
    return parse_error<pd::handshake_reply>({r.begin(), r.begin() + static_cast<std::ptrdiff_t>(n)});
  };
  EXPECT_EQ(cut_reply(3), "handshake reply: truncated max_frame_size (needs 2 bytes, 1 left)");
  EXPECT_EQ(cut_reply(8), "handshake reply: method table count 3 does not fit in the 2 bytes left (an entry takes at least 1 byte)");
  EXPECT_EQ(cut_reply(9), "handshake reply: truncated method table entry 2 server_signature (needs 1 byte, 0 left)");
  EXPECT_EQ(cut_reply(12), "handshake reply: truncated method table entry 2 server_signature (needs 14 bytes, 2 left)");
  EXPECT_EQ(cut_reply(26), "handshake reply: extension table count 1 does not fit in the 1 byte left (an entry takes at least 2 bytes)");

  const std::vector<std::byte> e = encoded(sample_error());
  auto cut_error = [&](std::size_t n) {
    return parse_error<pd::error_payload>({e.begin(), e.begin() + static_cast<std::ptrdiff_t>(n)});
  };
  EXPECT_EQ(cut_error(0), "error payload: truncated status code (needs 1 byte, 0 left)");
  EXPECT_EQ(cut_error(1), "error payload: truncated type (needs 1 byte, 0 left)");
  EXPECT_EQ(cut_error(5), "error payload: truncated type (needs 17 bytes, 3 left)");
  EXPECT_EQ(cut_error(19), "error payload: truncated message (needs 1 byte, 0 left)");
  EXPECT_EQ(cut_error(39), "error payload: truncated message (needs 20 bytes, 19 left)");
}

TEST(RpcHostile, TrailingBytesAreRefused) {
  EXPECT_EQ(parse_error<pd::handshake>(cat(encoded(sample_handshake()), {std::byte{0}})),
            "handshake: 1 byte after the end of the payload (at offset 115)");
  EXPECT_EQ(parse_error<pd::handshake_reply>(cat(encoded(sample_reply()), unhex("01 02 03"))),
            "handshake reply: 3 bytes after the end of the payload (at offset 27)");
  EXPECT_EQ(parse_error<pd::error_payload>(cat(encoded(sample_error()), unhex("00 00"))),
            "error payload: 2 bytes after the end of the payload (at offset 40)");
}

TEST(RpcHostile, HugeCountsAllocateNothing) {
  // version, codec, compression, threshold 0, max 0, interface "" then the count 2^32, 3 bytes left.
  const std::vector<std::byte> methods = unhex("01 01 00 00 00 00 80 80 80 80 10 00 00 00");
  const std::vector<std::byte> extensions = unhex("01 01 00 00 00 00 00 ff ff ff ff ff ff ff ff ff 01 00 00 00");
  const std::vector<std::byte> replies = unhex("01 00 00 ff ff ff ff 0f");
  std::string m, x, r;
  {
    refwire_test::alloc_watch w;
    m = parse_error<pd::handshake>(methods);
    x = parse_error<pd::handshake>(extensions);
    r = parse_error<pd::handshake_reply>(replies);
    EXPECT_LT(w.largest(), 4096U);
  }
  EXPECT_EQ(m, "handshake: method table count 4294967296 does not fit in the 3 bytes left (an entry takes at least 7 bytes)");
  EXPECT_EQ(x, "handshake: extension table count 18446744073709551615 does not fit in the 3 bytes left (an entry takes at least 2 bytes)");
  EXPECT_EQ(r, "handshake reply: method table count 4294967295 does not fit in the 0 bytes left (an entry takes at least 1 byte)");
  // A count that just fits is accepted: 3 empty-ish extensions in 6 bytes.
  pd::handshake h;
  std::string why;
  ASSERT_TRUE(pd::parse(unhex("01 01 00 00 00 00 00 03 00 00 01 00 02 00"), h, why)) << why;
  ASSERT_EQ(h.extensions.size(), 3U);
  EXPECT_EQ(h.extensions[2].type, 2U);
}

TEST(RpcHostile, HugeStringAndBlobLengths) {
  std::string why;
  {
    refwire_test::alloc_watch w;
    why = parse_error<pd::handshake>(unhex("01 01 00 00 00 80 80 80 80 80 20 61 62"));
    EXPECT_LT(w.largest(), 4096U);
  }
  EXPECT_EQ(why, "handshake: truncated interface_name (needs 1099511627776 bytes, 2 left)");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("01 01 00 00 00 00 00 01 05 ff ff ff ff 0f 00")),
            "handshake: truncated extension table entry 0 data (needs 4294967295 bytes, 1 left)");
  EXPECT_EQ(parse_error<pd::error_payload>(unhex("0d 00 ff ff ff ff ff ff ff ff ff 01")),
            "error payload: truncated message (needs 18446744073709551615 bytes, 0 left)");
}

TEST(RpcHostile, BadVarints) {
  EXPECT_EQ(parse_error<pd::handshake>(unhex("ff ff ff ff ff ff ff ff ff 02")),
            "handshake: version at offset 0 is not a valid varint (longer than 10 bytes or over 64 bits)");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("ff ff ff ff ff ff ff ff ff ff 01")),
            "handshake: version at offset 0 is not a valid varint (longer than 10 bytes or over 64 bits)");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("81 00 01 00 00 00 00 00 00")),
            "handshake: version at offset 0 is not a minimal varint (it ends in a zero group)");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("01 01 00 80 00 00 00 00 00 00")),
            "handshake: compression_threshold at offset 3 is not a minimal varint (it ends in a zero group)");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("01 01 00 00 80 80 80 80 10 00 00 00")),
            "handshake: max_frame_size 4294967296 at offset 4 does not fit in 32 bits");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("80 80 80 80 10 01 00 00 00 00 00 00")),
            "handshake: version 4294967296 at offset 0 does not fit in 32 bits");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("01 01 00 00 00 00 00 01 80 80 80 80 10 00")),
            "handshake: extension table entry 0 type 4294967296 at offset 8 does not fit in 32 bits");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("01 01 00 00 00 00 80")),
            "handshake: truncated method table count (needs 2 bytes, 1 left)");
  EXPECT_EQ(parse_error<pd::handshake_reply>(unhex("01 00 ff ff ff ff 1f 00 00")),
            "handshake reply: max_frame_size 8589934591 at offset 2 does not fit in 32 bits");
  EXPECT_EQ(parse_error<pd::error_payload>(unhex("0d 80 00")),
            "error payload: type at offset 1 is not a minimal varint (it ends in a zero group)");
}

TEST(RpcHostile, UnknownNumbersAreNamed) {
  EXPECT_EQ(parse_error<pd::handshake>(unhex("01 09 00 00 00 00 00 00")), "handshake: unknown codec 9");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("01 00 00 00 00 00 00 00")), "handshake: unknown codec 0");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("01 04 00 00 00 00 00 00")), "handshake: unknown codec 4");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("01 01 07 00 00 00 00 00")), "handshake: unknown compression 7");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("01 01 02 00 00 00 00 00")), "handshake: unknown compression 2");
  EXPECT_EQ(parse_error<pd::handshake_reply>(unhex("ff 00 00 00 00")), "handshake reply: unknown codec 255");
  EXPECT_EQ(parse_error<pd::handshake_reply>(unhex("02 80 00 00 00")), "handshake reply: unknown compression 128");
  EXPECT_EQ(parse_error<pd::handshake_reply>(unhex("01 00 00 02 00 05 00")),
            "handshake reply: method table entry 1: unknown method state 5");
  EXPECT_EQ(parse_error<pd::handshake_reply>(unhex("01 00 00 01 03 00")),
            "handshake reply: method table entry 0: unknown method state 3");
  for (const int code : {2, 5, 6, 7, 9, 10, 11, 15, 17, 255}) {
    std::vector<std::byte> b = encoded(sample_error());
    b[0] = static_cast<std::byte>(code);
    EXPECT_EQ(parse_error<pd::error_payload>(b), "error payload: unknown status code " + std::to_string(code));
  }
  EXPECT_EQ(parse_error<pd::error_payload>(unhex("00 00 00")), "error payload: status code 0 (ok) does not describe a failure");
  // Unknown extension types are not the parser's business: the receiver refuses them.
  pd::handshake h;
  std::string why;
  ASSERT_TRUE(pd::parse(unhex("01 01 00 00 00 00 00 01 ff ff ff ff 0f 00"), h, why)) << why;
  EXPECT_EQ(h.extensions.at(0).type, 0xffffffffU);
}

TEST(RpcHostile, InvalidUtf8IsRefused) {
  EXPECT_EQ(parse_error<pd::handshake>(unhex("01 01 00 00 00 03 61 ff 62 00 00")),
            "handshake: interface_name is not valid UTF-8 (byte 1 of it, at offset 7)");
  EXPECT_EQ(parse_error<pd::handshake>(unhex("01 01 00 00 00 00 01 00 00 00 00 02 c3 28 00 00 00")),
            "handshake: method table entry 0 name is not valid UTF-8 (byte 0 of it, at offset 12)");
  // An overlong encoding and a surrogate are not UTF-8 either.
  EXPECT_EQ(parse_error<pd::error_payload>(unhex("0d 02 c0 af 00")),
            "error payload: type is not valid UTF-8 (byte 0 of it, at offset 2)");
  EXPECT_EQ(parse_error<pd::error_payload>(unhex("0d 00 03 ed a0 80")),
            "error payload: message is not valid UTF-8 (byte 0 of it, at offset 3)");
  EXPECT_EQ(parse_error<pd::handshake_reply>(unhex("01 00 00 01 02 01 fe 00")),
            "handshake reply: method table entry 0 server_signature is not valid UTF-8 (byte 0 of it, at offset 6)");
}

TEST(RpcHostile, EmptyInputs) {
  EXPECT_EQ(parse_error<pd::handshake>({}), "handshake: truncated version (needs 1 byte, 0 left)");
  EXPECT_EQ(parse_error<pd::handshake_reply>({}), "handshake reply: truncated codec (needs 1 byte, 0 left)");
  EXPECT_EQ(parse_error<pd::error_payload>({}), "error payload: truncated status code (needs 1 byte, 0 left)");
}

// ---- the messages docs/rpc-protocol.md quotes ---------------------------------------------

/// The text of docs/rpc-protocol.md.
std::string protocol_doc() {
  std::ifstream doc(std::filesystem::path(REFWIRE_SOURCE_DIR) / "docs" / "rpc-protocol.md");
  return {(std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>()};
}

TEST(RpcDocs, EveryQuotedMessageIsOneTheParsersPrint) {
  std::string why;
  auto header_refusal = [&](std::size_t at, std::uint8_t v) {
    std::vector<std::byte> b = header_bytes({.kind = pd::frame_kind::request, .codec = 1, .length = 8});
    b[at] = static_cast<std::byte>(v);
    return header_of(b, why) ? std::string("(parsed)") : why;
  };
  auto header_of_frame = [&](const pd::frame_header& h) { return header_of(header_bytes(h), why) ? "(parsed)" : why; };
  const std::vector<std::byte> hs = encoded(sample_handshake());
  auto cut = [&](std::size_t n) {
    return parse_error<pd::handshake>({hs.begin(), hs.begin() + static_cast<std::ptrdiff_t>(n)});
  };
  // Each message the page quotes, printed by the parsers here.
  const std::vector<std::string> printed = {
      header_refusal(0, 2),
      header_refusal(1, 42),
      header_refusal(2, 0x07),
      header_of_frame({.length = 32u << 20}),
      header_of_frame({.kind = pd::frame_kind::handshake, .flags = pd::flag_compressed, .length = 4}),
      header_of_frame({.kind = pd::frame_kind::ping, .length = 8}),
      header_of_frame({.kind = pd::frame_kind::one_way, .flags = pd::flag_deadline, .length = 8}),
      header_of_frame({.kind = pd::frame_kind::request, .flags = pd::flag_deadline, .length = 3}),
      parse_error<pd::handshake>(unhex("01 09 00 00 00 00 00 00")),
      parse_error<pd::handshake>(unhex("01 01 07 00 00 00 00 00")),
      parse_error<pd::handshake>(unhex("01 01 00 00 00 00 80 80 80 80 10 00 00 00")),
      parse_error<pd::handshake_reply>(unhex("01 00 00 02 00 05 00")),
      parse_error<pd::error_payload>(unhex("02 00 00")),
      cut(32),
      cut(90),
      parse_error<pd::handshake>(unhex("81 00 01 00 00 00 00 00 00")),
      parse_error<pd::handshake>(unhex("01 01 00 00 80 80 80 80 10 00 00 00")),
      parse_error<pd::handshake>(unhex("01 01 00 00 00 03 61 ff 62 00 00")),
      parse_error<pd::handshake>(cat(hs, {std::byte{0}})),
  };
  const std::string doc = protocol_doc();
  ASSERT_FALSE(doc.empty()) << "docs/rpc-protocol.md not found";
  // The page's backquoted messages, line breaks folded: those that start like a parser's.
  std::string folded;
  for (const char c : doc) folded += (c == '\n') ? ' ' : c;
  for (std::size_t fence = folded.find("```"); fence != std::string::npos; fence = folded.find("```")) {
    folded.erase(fence, 3);  // code blocks quote bytes, not messages
  }
  const std::array<std::string_view, 6> starts = {"handshake: ", "handshake reply: ", "error payload: ",
                                                  "protocol version ", "unknown frame ", "frame "};
  std::size_t quotes = 0;
  for (std::size_t at = folded.find('`'); at != std::string::npos; at = folded.find('`', at + 1)) {
    const std::size_t end = folded.find('`', at + 1);
    if (end == std::string::npos) break;
    const std::string quote = folded.substr(at + 1, end - at - 1);
    at = end;
    bool message = false;
    for (const std::string_view s : starts) message = message || quote.rfind(s, 0) == 0;
    if (!message) continue;
    ++quotes;
    EXPECT_NE(std::find(printed.begin(), printed.end(), quote), printed.end())
        << "docs/rpc-protocol.md quotes a message no parser here prints: " << quote;
  }
  EXPECT_GE(quotes, printed.size());
  for (const std::string& m : printed) {
    EXPECT_NE(folded.find("`" + m + "`"), std::string::npos) << "not quoted by docs/rpc-protocol.md: " << m;
  }
}

}  // namespace
