#pragma once
// What fuzz_rpc_server, fuzz_rpc_client and their seed writer
// (make_corpus_rpc_session.cpp) agree on: the selector bits of an input and
// the handshake and handshake reply a real client and server of the test
// service (tests/rpc/test_service.hpp) exchange, built by the library's own
// functions.

#include <refwire/rpc.hpp>
#include <refwire/rpc/detail/protocol.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fuzz_rpc {

namespace pd = refwire::rpc::detail;

// -- fuzz_rpc_server: the first byte of an input --
/// Bits 0-1: the prefix the target writes before the fuzzed bytes: 0 none (the
/// fuzzed bytes must handshake themselves), 1, 2, 3 a handshake frame in
/// codec binary, json, protobuf.
inline constexpr std::uint8_t server_prefix_mask = 0x03;
/// Bit 2: the handshake asks for lz4 from server_compression_threshold bytes.
inline constexpr std::uint8_t server_lz4 = 0x04;
/// Bit 3: the second server (a handler pool, hooks, small limits).
inline constexpr std::uint8_t server_pooled = 0x08;
/// Bit 4: the handshake lists rpctest::changed::calculator (a mismatched and
/// an unknown method) instead of rpctest::calculator.
inline constexpr std::uint8_t server_changed = 0x10;
/// Bit 5: no trailer. Otherwise the target writes, after the fuzzed bytes, a
/// header of protocol version 2, which the server answers with an error frame
/// and a close: an input that ends on a frame boundary ends its connection at
/// once instead of after the target's quiet period.
inline constexpr std::uint8_t server_no_trailer = 0x20;
/// What the handshake prefix announces.
inline constexpr std::uint32_t server_compression_threshold = 64;
inline constexpr std::uint32_t server_client_max_frame = 1u << 20;

// -- fuzz_rpc_client: the first byte of an input --
/// Bit 0: the fake server answers the client's handshake with a valid reply
/// (every method ok) before the fuzzed bytes; otherwise the fuzzed bytes are
/// the whole answer.
inline constexpr std::uint8_t client_reply = 0x01;
/// Bit 1: the fake server closes the connection after writing (and after
/// reading the number of the client's frames in bits 4-6: the client's
/// requests, cancel and one_way go out in the order below); otherwise it stays
/// silent (reading nothing more) until the client is done.
inline constexpr std::uint8_t client_close = 0x02;
inline constexpr std::uint8_t client_close_after_mask = 0x70;
inline constexpr unsigned client_close_after_shift = 4;
/// Bit 2: the client asks for lz4 (threshold client_compression_threshold);
/// a valid reply agrees.
inline constexpr std::uint8_t client_lz4 = 0x04;
/// Bit 3: the client pings (ping_interval 2 ms, ping_timeout 5 ms).
inline constexpr std::uint8_t client_ping = 0x08;
inline constexpr std::uint32_t client_compression_threshold = 64;
/// The max_frame_size of the fake's valid handshake reply.
inline constexpr std::uint32_t client_fake_max_frame = 64u << 10;
/// The client's frames after its handshake: 1 request add, 2 request echo,
/// 3 request range, 4 cancel range, 5 one_way log, 6 request total.
inline constexpr std::uint8_t client_close_after(unsigned frames) {
  return static_cast<std::uint8_t>(client_close | ((frames & 7u) << client_close_after_shift));
}
/// The calls fuzz_rpc_client makes, in order (request ids 1, 2, 3, 4):
///   1 call add(2, 3) -> i32
///   2 async_call echo("fuzz") -> string, collected after 3 and the notify
///   3 async_call range(3) -> vector<item>, cancelled at once
///     notify log("fuzz") (one_way, request id 0)
///   4 call total({{1, "a", 2.5}}, summary&) -> i32 and an out-parameter
inline constexpr std::uint32_t client_id_add = 1;
inline constexpr std::uint32_t client_id_echo = 2;
inline constexpr std::uint32_t client_id_range = 3;
inline constexpr std::uint32_t client_id_total = 4;

/// The handshake a client<I> with these options sends (as connect_once builds it).
template <class I>
pd::handshake handshake_of(refwire::rpc::codec codec, refwire::compression compression, std::uint32_t threshold,
                           std::uint32_t max_frame_size) {
  pd::handshake h;
  h.codec = codec;
  h.compression = compression;
  h.compression_threshold = threshold;
  h.max_frame_size = max_frame_size;
  h.interface_name = std::string(pd::interface_name_v<I>);
  for (const pd::client_method& m : pd::client_methods<I>()) {
    h.methods.push_back({m.id, m.full_name, m.signature, m.shape});
  }
  return h;
}

/// Header and payload of one frame, appended to out.
inline void append_frame(std::vector<std::byte>& out, pd::frame_header h, std::span<const std::byte> payload) {
  h.length = static_cast<std::uint32_t>(payload.size());
  std::array<std::byte, pd::header_size> head{};
  pd::write_header(h, head);
  out.insert(out.end(), head.begin(), head.end());
  out.insert(out.end(), payload.begin(), payload.end());
}

/// The handshake frame of h, appended to out.
inline void append_handshake(std::vector<std::byte>& out, const pd::handshake& h) {
  std::vector<std::byte> payload;
  pd::encode(h, payload);
  append_frame(out, {.kind = pd::frame_kind::handshake}, payload);
}

/// A handshake reply accepting every method of h, appended to out.
inline void append_reply_ok(std::vector<std::byte>& out, const pd::handshake& h, std::uint32_t max_frame_size) {
  pd::handshake_reply r;
  r.codec = h.codec;
  r.compression = h.compression;
  r.max_frame_size = max_frame_size;
  r.methods.resize(h.methods.size());
  std::vector<std::byte> payload;
  pd::encode(r, payload);
  append_frame(out, {.kind = pd::frame_kind::handshake_reply}, payload);
}

}  // namespace fuzz_rpc
