// Writes the seed corpora of fuzz_rpc_server and fuzz_rpc_client: the
// selector byte (fuzz_rpc_session.hpp), then what a client writes after the
// target's handshake (or instead of it), or what a server writes after the
// fake's handshake reply (or instead of it). Valid sessions in every codec
// and near misses: a bad version, an oversize length, a request before the
// handshake, undecodable arguments, an unknown method, an error reply, a
// compressed reply, a ping, garbage.
// Usage: fuzz_rpc_session_corpus <server corpus dir> <client corpus dir>
// (the committed seeds are in tests/fuzz/corpus/rpc_server/ and rpc_client/).
#include "fuzz_rpc_session.hpp"
#include "test_service.hpp"

#include <refwire/rpc.hpp>
#include <refwire/rpc/detail/protocol.hpp>
#include <refwire/serialization/compression.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace pd = refwire::rpc::detail;
using calc = rpctest::calculator;
using refwire::rpc::codec;

namespace {

using bytes = std::vector<std::byte>;

void write(const std::string& path, std::uint8_t selector, const bytes& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  const char s = static_cast<char>(selector);
  f.write(&s, 1);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

void frame(bytes& out, pd::frame_kind kind, std::uint32_t id, std::uint32_t method, const bytes& payload,
           std::uint8_t flags = 0, std::uint8_t codec_byte = 0) {
  fuzz_rpc::append_frame(out, {.kind = kind, .flags = flags, .codec = codec_byte, .request_id = id, .method_id = method},
                         payload);
}

// -- client -> server --

/// Requests with a deadline prefix (flag_deadline) or without.
enum class deadline : bool { none, sent };

/// A request frame of M: with the deadline prefix (1000 ms) as refwire's
/// client sends it, or without; compressed when lz4 is on and the arguments
/// are at least the threshold long.
template <auto M, class... A>
void request(bytes& out, codec c, std::uint32_t id, bool lz4, deadline d, const A&... args) {
  bytes args_bytes;
  pd::encode_request<M>(c, args_bytes, args...);
  bytes payload;
  std::uint8_t flags = 0;
  if (d == deadline::sent) {
    payload = {std::byte{0xe8}, std::byte{0x03}, std::byte{0}, std::byte{0}};  // 1000 ms
    flags |= pd::flag_deadline;
  }
  if (lz4 && args_bytes.size() >= fuzz_rpc::server_compression_threshold) {
    refwire::compress(args_bytes, payload, {.compression_threshold = 0});
    flags |= pd::flag_compressed;
  } else {
    payload.insert(payload.end(), args_bytes.begin(), args_bytes.end());
  }
  frame(out, pd::frame_kind::request, id, pd::method<M>::id, payload, flags, static_cast<std::uint8_t>(c));
}

template <auto M, class... A>
void one_way(bytes& out, codec c, const A&... args) {
  bytes payload;
  pd::encode_request<M>(c, payload, args...);
  frame(out, pd::frame_kind::one_way, 0, pd::method<M>::id, payload, 0, static_cast<std::uint8_t>(c));
}

/// Every method of the test service once, a ping and a cancel.
bytes full_session(codec c, bool lz4) {
  using enum deadline;
  bytes out;
  request<&calc::add>(out, c, 1, lz4, sent, 2, 3);
  request<&calc::echo>(out, c, 2, lz4, none, std::string(lz4 ? 300 : 5, 'e'));
  request<&calc::range>(out, c, 3, lz4, none, 3);
  one_way<&calc::log>(out, c, std::string("a line"));
  const std::vector<rpctest::item> items{{1, "a", 2.5}, {2, "b", 4.0}};
  request<&calc::total>(out, c, 4, lz4, sent, items, rpctest::summary{});
  request<&calc::divide>(out, c, 5, lz4, none, 1, 0);            // the handler throws std::domain_error
  request<&calc::fail_with>(out, c, 6, lz4, none, 13);           // the handler throws rpc_error(internal)
  request<&calc::fail_with>(out, c, 7, lz4, none, -1);           // the handler throws an int
  request<&calc::sleep_ms>(out, c, 8, lz4, sent, 1);
  frame(out, pd::frame_kind::cancel, 8, 0, {});
  request<&calc::logged>(out, c, 9, lz4, none);
  request<&calc::range>(out, c, 10, lz4, none, -1);              // invalid_argument from the handler
  request<&calc::echo>(out, c, 11, lz4, sent, std::string(lz4 ? 200 : 3, 'd'));
  frame(out, pd::frame_kind::ping, 77, 0, {});
  frame(out, pd::frame_kind::pong, 78, 0, {});
  return out;
}

std::uint8_t prefix(codec c) { return static_cast<std::uint8_t>(c); }

void server_seeds(const std::string& dir) {
  write(dir + "/session-binary.bin", prefix(codec::binary), full_session(codec::binary, false));
  write(dir + "/session-json.bin", prefix(codec::json), full_session(codec::json, false));
  write(dir + "/session-protobuf.bin", prefix(codec::protobuf), full_session(codec::protobuf, false));
  write(dir + "/session-binary-lz4.bin", prefix(codec::binary) | fuzz_rpc::server_lz4,
        full_session(codec::binary, true));
  write(dir + "/session-json-pooled.bin", prefix(codec::json) | fuzz_rpc::server_pooled,
        full_session(codec::json, false));
  write(dir + "/session-binary-lz4-pooled.bin", prefix(codec::binary) | fuzz_rpc::server_lz4 | fuzz_rpc::server_pooled,
        full_session(codec::binary, true));
  {
    // The fuzzed bytes handshake themselves (json, the greeter interface).
    bytes out;
    fuzz_rpc::append_handshake(out, fuzz_rpc::handshake_of<rpctest::greeter>(codec::json, refwire::compression::none,
                                                                            1024, 1u << 20));
    request<&rpctest::greeter::greet>(out, codec::json, 1, false, deadline::none, std::string("fuzz"));
    write(dir + "/own-handshake-greeter.bin", 0, out);
  }
  {
    // More calls than the pooled server's max_calls_in_flight (4).
    bytes out;
    for (std::uint32_t id = 1; id <= 7; ++id) request<&calc::sleep_ms>(out, codec::binary, id, false, deadline::none, 2);
    write(dir + "/pooled-in-flight.bin", prefix(codec::binary) | fuzz_rpc::server_pooled, out);
  }
  {
    // A table with a mismatched method (add over i64) and an unknown one.
    bytes out;
    request<&rpctest::changed::calculator::add>(out, codec::binary, 1, false, deadline::none, std::int64_t{2}, std::int64_t{3});
    request<&rpctest::changed::calculator::subtract>(out, codec::binary, 2, false, deadline::none, 5, 3);
    request<&rpctest::changed::calculator::range>(out, codec::binary, 3, false, deadline::sent, 2);
    write(dir + "/changed-table.bin", prefix(codec::binary) | fuzz_rpc::server_changed, out);
  }
  {
    bytes out;
    request<&calc::add>(out, codec::binary, 1, false, deadline::none, 2, 3);
    write(dir + "/no-trailer.bin", prefix(codec::binary) | fuzz_rpc::server_no_trailer, out);
    write(dir + "/request-before-handshake.bin", 0, out);
  }
  {
    bytes out;
    std::array<std::byte, pd::header_size> h{};
    pd::write_header({.kind = pd::frame_kind::request, .codec = 1, .length = 32u << 20, .request_id = 1,
                      .method_id = pd::method<&calc::echo>::id},
                     h);
    out.assign(h.begin(), h.end());
    write(dir + "/oversize.bin", prefix(codec::binary), out);
    out[0] = std::byte{2};
    write(dir + "/bad-version.bin", 0, out);
  }
  {
    bytes out;
    // The arguments in another codec than the connection's, arguments that
    // do not decode, a method nobody serves, a compressed payload that does
    // not open, a second handshake.
    bytes args;
    pd::encode_request<&calc::add>(codec::json, args, 2, 3);
    frame(out, pd::frame_kind::request, 1, pd::method<&calc::add>::id, args, 0, 2);
    frame(out, pd::frame_kind::request, 2, pd::method<&calc::add>::id, {std::byte{1}}, 0, 1);
    frame(out, pd::frame_kind::request, 3, 0x12345678, {}, 0, 1);
    frame(out, pd::frame_kind::request, 4, pd::method<&calc::echo>::id,
          {std::byte{0xf7}, std::byte{0x72}, std::byte{0x77}, std::byte{0x7a}, std::byte{1}, std::byte{0x10}},
          pd::flag_compressed, 1);
    fuzz_rpc::append_handshake(out, fuzz_rpc::handshake_of<calc>(codec::binary, refwire::compression::none, 0, 1024));
    write(dir + "/bad-requests.bin", prefix(codec::binary), out);
  }
  {
    // A handshake the server refuses: an extension it does not know.
    pd::handshake h = fuzz_rpc::handshake_of<calc>(codec::binary, refwire::compression::none, 0, 1u << 20);
    h.extensions = {{1, {std::byte{0xde}, std::byte{0xad}}}};
    bytes out;
    fuzz_rpc::append_handshake(out, h);
    write(dir + "/handshake-extension.bin", 0, out);
  }
}

// -- server -> client --

template <auto M>
void response(bytes& out, codec c, std::uint32_t id, const typename pd::method<M>::response& value,
              bool compressed = false) {
  bytes payload;
  pd::with_codec(c, [&](auto f) { refwire::serialize<decltype(f)>(value, payload); });
  if (compressed) {
    bytes packed;
    refwire::compress(payload, packed, {.compression_threshold = 0});
    payload.swap(packed);
  }
  frame(out, pd::frame_kind::response, id, pd::method<M>::id, payload, compressed ? pd::flag_compressed : 0,
        static_cast<std::uint8_t>(c));
}

void error(bytes& out, std::uint32_t id, std::uint32_t method, refwire::rpc::status_code code, const std::string& type,
           const std::string& message) {
  bytes payload;
  pd::encode(pd::error_payload{code, type, message}, payload);
  frame(out, pd::frame_kind::error, id, method, payload);
}

/// Answers to every call fuzz_rpc_client makes (request ids 1 to 4).
bytes all_answered(bool compressed) {
  bytes out;
  response<&calc::add>(out, codec::binary, fuzz_rpc::client_id_add, {5}, compressed);
  response<&calc::echo>(out, codec::binary, fuzz_rpc::client_id_echo, {std::string(compressed ? 200 : 4, 'f')},
                        compressed);
  response<&calc::range>(out, codec::binary, fuzz_rpc::client_id_range, {{{0, "x", 0.0}}});  // cancelled: dropped
  response<&calc::total>(out, codec::binary, fuzz_rpc::client_id_total, {1, {2.5, 1, "ok"}}, compressed);
  return out;
}

void client_seeds(const std::string& dir) {
  using fuzz_rpc::client_reply;
  const std::uint8_t client_close = fuzz_rpc::client_close_after(6);  // after the last request
  using refwire::rpc::status_code;
  write(dir + "/all-ok.bin", client_reply | client_close, all_answered(false));
  write(dir + "/all-ok-silent.bin", client_reply, all_answered(false));
  write(dir + "/all-ok-close-early.bin", client_reply | fuzz_rpc::client_close_after(1), all_answered(false));
  write(dir + "/compressed.bin", client_reply | client_close | fuzz_rpc::client_lz4, all_answered(true));
  write(dir + "/all-ok-ping.bin", client_reply | fuzz_rpc::client_ping, all_answered(false));
  {
    bytes out;
    error(out, fuzz_rpc::client_id_add, pd::method<&calc::add>::id, status_code::internal, "std::domain_error",
          "divide: division by zero");
    error(out, fuzz_rpc::client_id_echo, pd::method<&calc::echo>::id, status_code::invalid_argument, "",
          "calc.v1.echo: the arguments do not decode");
    response<&calc::total>(out, codec::binary, fuzz_rpc::client_id_total, {0, {0.0, 0, "empty"}});
    write(dir + "/error-replies.bin", client_reply | client_close, out);
  }
  {
    bytes out;
    frame(out, pd::frame_kind::ping, 77, 0, {});
    response<&calc::add>(out, codec::binary, fuzz_rpc::client_id_add, {5});
    frame(out, pd::frame_kind::pong, 9, 0, {});
    write(dir + "/ping.bin", client_reply, out);
  }
  {
    // Out of order, a reply to no call, a duplicate.
    bytes out = all_answered(false);
    bytes reordered;
    response<&calc::total>(reordered, codec::binary, fuzz_rpc::client_id_total, {1, {2.5, 1, "ok"}});
    response<&calc::add>(reordered, codec::binary, 99, {1});
    response<&calc::echo>(reordered, codec::binary, fuzz_rpc::client_id_echo, {std::string("fuzz")});
    response<&calc::add>(reordered, codec::binary, fuzz_rpc::client_id_add, {5});
    response<&calc::add>(reordered, codec::binary, fuzz_rpc::client_id_add, {6});
    write(dir + "/out-of-order.bin", client_reply | client_close, reordered);
  }
  {
    bytes out;
    std::array<std::byte, pd::header_size> h{};
    pd::write_header({.kind = pd::frame_kind::response, .codec = 1, .length = 32u << 20,
                      .request_id = fuzz_rpc::client_id_add, .method_id = pd::method<&calc::add>::id},
                     h);
    out.assign(h.begin(), h.end());
    write(dir + "/oversize.bin", client_reply | client_close, out);
  }
  {
    bytes out;
    frame(out, pd::frame_kind::response, fuzz_rpc::client_id_add, pd::method<&calc::add>::id, {std::byte{5}}, 0, 1);
    frame(out, pd::frame_kind::response, fuzz_rpc::client_id_echo, pd::method<&calc::echo>::id,
          {std::byte{0xf7}, std::byte{0x72}, std::byte{0x77}, std::byte{0x7a}, std::byte{1}, std::byte{0x7f}},
          pd::flag_compressed, 1);
    frame(out, pd::frame_kind::request, 1, pd::method<&calc::add>::id, {}, 0, 1);  // a request to a client
    write(dir + "/bad-responses.bin", client_reply | client_close, out);
  }
  {
    bytes out;
    error(out, 0, 0, status_code::unavailable, "", "the server is stopping");
    write(dir + "/connection-error.bin", client_reply, out);
  }
  {
    // No valid reply from the fake: the fuzzed bytes answer the handshake.
    bytes out;
    error(out, 0, 0, status_code::resource_exhausted, "", "too many connections (max_connections 1)");
    write(dir + "/refused.bin", fuzz_rpc::client_close, out);
    pd::handshake_reply r;
    r.max_frame_size = 1u << 20;
    r.methods.resize(pd::client_methods<calc>().size());
    r.methods[0] = {pd::method_state::mismatch, "(i64,i64)->i64"};
    r.methods[3] = {pd::method_state::unknown, ""};
    bytes payload;
    pd::encode(r, payload);
    out.clear();
    frame(out, pd::frame_kind::handshake_reply, 0, 0, payload);
    const bytes rest = all_answered(false);
    out.insert(out.end(), rest.begin(), rest.end());
    write(dir + "/reply-mismatch.bin", client_close, out);
  }
  {
    bytes out;
    for (int i = 0; i < 64; ++i) out.push_back(static_cast<std::byte>((i * 73 + 41) & 0xff));
    write(dir + "/garbage.bin", client_reply | client_close, out);
    write(dir + "/garbage-no-reply.bin", fuzz_rpc::client_close, out);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <fuzz_rpc_server corpus dir> <fuzz_rpc_client corpus dir>\n", argv[0]);
    return 2;
  }
  server_seeds(argv[1]);
  client_seeds(argv[2]);
  return 0;
}
