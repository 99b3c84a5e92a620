// Hostile peers against a server, over every transport: raw bytes and frames
// that break the protocol or its limits. For each: the error reply where one
// is possible, else that connection closed, the reason logged; a normal
// client on another connection keeps working; nothing leaks (every
// connection logged as opened is logged as closed, and the process has as
// many descriptors open as before).

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <refwire/rpc.hpp>

#include "rpc_support.hpp"
#include "test_service.hpp"

namespace {

using namespace std::chrono_literals;
using refwire::rpc::client;
using refwire::rpc::codec;
using refwire::rpc::log_level;
using refwire::rpc::status_code;
using rpctest::calculator;
using rpctest::transport;
namespace rd = refwire::rpc::detail;

/// A server of calculator with a capturing logger, and a good client on its
/// own connection. finish() checks that the client still works, stops
/// everything and checks nothing leaked.
struct watched {
  explicit watched(transport t, refwire::rpc::server_options so = {})
      : fds(rpctest::open_fds()), log(std::make_shared<rpctest::capture_log>(log_level::debug)) {
    so.log = log;
    server = std::make_unique<refwire::rpc::server>(so);
    server->serve<calculator>(impl);
    uri = server->listen(rpctest::listen_uri(t, dir));
    server->start();
    good = std::make_unique<client<calculator>>(uri);
    EXPECT_EQ(good->call<&calculator::add>(1, 2), 3);
  }

  void finish() {
    EXPECT_EQ(good->call<&calculator::add>(20, 22), 42);  // the other connection kept working
    good.reset();
    server.reset();
    EXPECT_EQ(rpctest::open_fds(), fds) << "descriptors leaked";
    EXPECT_EQ(log->count(log_level::info, " opened on "), log->count(log_level::info, " closed: ")) << log->dump();
  }

  /// The warning giving why a connection was refused, and its closing line.
  void expect_refusal_logged(const std::string& why) const {
    EXPECT_FALSE(log->wait_for(log_level::warning, " refused: " + why).empty()) << log->dump();
    EXPECT_FALSE(log->wait_for(log_level::info, " closed: " + why).empty()) << log->dump();
  }

  int fds;
  std::shared_ptr<rpctest::capture_log> log;
  rpctest::temp_dir dir;
  rpctest::calculator_impl impl;
  std::unique_ptr<refwire::rpc::server> server;
  std::string uri;
  std::unique_ptr<client<calculator>> good;
};

const rd::method_info& method_named(std::string_view name) {
  for (const auto& m : rd::methods_of<calculator>()) {
    if (m.name == name) return m;
  }
  throw std::runtime_error("no such method");
}

/// A raw peer whose handshake declared every method of calculator.
std::unique_ptr<rpctest::raw_peer> ready_peer(const std::string& uri) {
  auto peer = std::make_unique<rpctest::raw_peer>(uri);
  std::vector<rd::method_entry> entries;
  for (const auto& m : rd::methods_of<calculator>()) entries.push_back({m.id, m.full_name, m.signature, m.shape});
  peer->handshake(entries);
  auto reply = peer->read_frame();
  if (!reply || reply->header.kind != rd::frame_kind::handshake_reply) throw std::runtime_error("no handshake reply");
  return peer;
}

/// This process's resident memory.
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

class hostile_server : public testing::TestWithParam<transport> {};
INSTANTIATE_TEST_SUITE_P(every_transport, hostile_server,
                         testing::Values(transport::inproc, transport::unix_socket, transport::tcp, transport::shm),
                         [](const testing::TestParamInfo<transport>& p) { return rpctest::to_string(p.param); });

TEST_P(hostile_server, garbage_bytes_close_that_connection_only) {
  watched w(GetParam());
  {
    rpctest::raw_peer bad(w.uri);
    std::vector<std::byte> junk(64, std::byte{0xee});
    bad.send_bytes(junk);
    const rd::error_payload e = bad.read_error();
    EXPECT_EQ(e.code, status_code::unimplemented);
    EXPECT_EQ(e.message, "protocol version 238 is not supported (this side speaks version 1)");
    EXPECT_TRUE(bad.closed_by_server());
  }
  w.expect_refusal_logged("protocol version 238 is not supported (this side speaks version 1)");
  w.finish();
}

TEST_P(hostile_server, a_truncated_frame_then_silence_is_closed_by_a_timeout) {
  watched w(GetParam(), {.handshake_timeout = 200ms});
  {
    rpctest::raw_peer bad(w.uri);  // before the handshake: handshake_timeout
    std::vector<std::byte> half(7, std::byte{1});
    bad.send_bytes(half);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(bad.closed_by_server(3s));
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  }
  EXPECT_FALSE(w.log->wait_for(log_level::warning, ": no handshake within handshake_timeout (200 ms)").empty());
  EXPECT_FALSE(w.log->wait_for(log_level::info, " closed: no handshake within handshake_timeout (200 ms)").empty());
  w.finish();

  watched v(GetParam(), {.idle_timeout = 200ms});
  std::atomic<bool> done{false};
  std::thread keep_busy([&] {  // the good client is not idle meanwhile
    while (!done) {
      EXPECT_EQ(v.good->call<&calculator::add>(1, 1), 2);
      std::this_thread::sleep_for(20ms);
    }
  });
  {
    auto bad = ready_peer(v.uri);  // after it: half a request, then nothing (idle_timeout)
    rd::frame_header h;
    h.kind = rd::frame_kind::request;
    h.codec = 1;
    h.request_id = 1;
    h.method_id = method_named("add").id;
    h.length = 8;
    std::array<std::byte, rd::header_size> head{};
    rd::write_header(h, head);
    bad->send_bytes(std::span<const std::byte>(head).first(12));
    EXPECT_TRUE(bad->closed_by_server(3s));
  }
  done = true;
  keep_busy.join();
  EXPECT_FALSE(v.log->wait_for(log_level::info, " closed: idle_timeout (200 ms) passed with no frame").empty());
  v.finish();
}

TEST_P(hostile_server, an_oversize_length_is_refused_before_anything_is_allocated) {
  watched w(GetParam(), {.max_frame_size = 1 << 16});
  {
    rpctest::raw_peer bad(w.uri);
    rd::frame_header h;
    h.kind = rd::frame_kind::handshake;
    h.length = 0xfffffff0u;  // no payload follows: a server that waited for it would hang here
    bad.send_frame(h, {}, true);
    const rd::error_payload e = bad.read_error();
    EXPECT_EQ(e.code, status_code::resource_exhausted);
    EXPECT_EQ(e.message, "frame of 4294967280 bytes is longer than max_frame_size (65536)");
    EXPECT_TRUE(bad.closed_by_server());
  }
  w.expect_refusal_logged("frame of 4294967280 bytes is longer than max_frame_size (65536)");
  w.finish();
}

TEST_P(hostile_server, a_frame_before_the_handshake_is_refused) {
  watched w(GetParam());
  {
    rpctest::raw_peer bad(w.uri);
    rd::frame_header h;
    h.kind = rd::frame_kind::request;
    h.request_id = 1;
    bad.send_frame(h, {});
    const rd::error_payload e = bad.read_error();
    EXPECT_EQ(e.code, status_code::invalid_argument);
    EXPECT_EQ(e.message, "expected a handshake first, got a request frame");
    EXPECT_TRUE(bad.closed_by_server());
  }
  w.expect_refusal_logged("expected a handshake first, got a request frame");
  w.finish();
}

TEST_P(hostile_server, an_unknown_protocol_version_in_the_handshake_is_refused_with_a_message) {
  watched w(GetParam());
  {
    rpctest::raw_peer bad(w.uri);
    bad.handshake({}, codec::binary, 7);
    const rd::error_payload e = bad.read_error();
    EXPECT_EQ(e.code, status_code::unimplemented);
    EXPECT_EQ(e.message, "protocol version 7 is not supported (this server speaks version 1)");
    EXPECT_TRUE(bad.closed_by_server());
  }
  w.expect_refusal_logged("protocol version 7 is not supported (this server speaks version 1)");
  w.finish();
}

TEST_P(hostile_server, an_unknown_handshake_extension_is_refused) {
  watched w(GetParam());
  {
    rpctest::raw_peer bad(w.uri);
    bad.handshake({}, codec::binary, 1, {{7, {std::byte{1}}}});
    const rd::error_payload e = bad.read_error();
    EXPECT_EQ(e.code, status_code::unimplemented);
    EXPECT_EQ(e.message, "handshake extension 7 is not known to this server");
    EXPECT_TRUE(bad.closed_by_server());
  }
  w.expect_refusal_logged("handshake extension 7 is not known to this server");
  w.finish();
}

TEST_P(hostile_server, a_second_handshake_closes_the_connection) {
  watched w(GetParam());
  {
    rpctest::raw_peer peer(w.uri);
    peer.handshake();
    auto reply = peer.read_frame();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->header.kind, rd::frame_kind::handshake_reply);
    peer.handshake();
    const rd::error_payload e = peer.read_error();
    EXPECT_EQ(e.code, status_code::invalid_argument);
    EXPECT_EQ(e.message, "a second handshake on the same connection");
    EXPECT_TRUE(peer.closed_by_server());
  }
  w.expect_refusal_logged("a second handshake on the same connection");
  w.finish();
}

TEST_P(hostile_server, an_unknown_frame_kind_closes_the_connection) {
  watched w(GetParam());
  {
    auto peer = ready_peer(w.uri);
    std::array<std::byte, rd::header_size> head{};
    rd::write_header(rd::frame_header{}, head);
    head[1] = std::byte{42};  // the kind
    peer->send_bytes(head);
    const rd::error_payload e = peer->read_error();
    EXPECT_EQ(e.code, status_code::invalid_argument);
    EXPECT_EQ(e.message, "unknown frame kind 42");
    EXPECT_TRUE(peer->closed_by_server());
  }
  w.expect_refusal_logged("unknown frame kind 42");
  w.finish();
}

TEST_P(hostile_server, an_unknown_method_id_is_an_unimplemented_reply_and_the_connection_stays) {
  watched w(GetParam());
  {
    auto peer = ready_peer(w.uri);
    peer->send_request(3, 0x12345678u, refwire::serialize(std::tuple<int, int>{1, 2}));
    auto f = peer->read_frame();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->header.request_id, 3u);
    const rd::error_payload e = rpctest::raw_peer::error_of(*f);
    EXPECT_EQ(e.code, status_code::unimplemented);
    EXPECT_EQ(e.message, "no method with id 0x12345678 is served here");
    EXPECT_TRUE(peer->answers_ping());
  }
  EXPECT_EQ(w.log->count(log_level::warning, ": no method with id 0x12345678 is served here"), 1u) << w.log->dump();
  w.finish();
}

TEST_P(hostile_server, arguments_that_do_not_decode_are_an_invalid_argument_reply) {
  watched w(GetParam());
  {
    auto peer = ready_peer(w.uri);
    const auto& m = method_named("add");
    const std::vector<std::byte> three = {std::byte{1}, std::byte{2}, std::byte{3}};  // not two i32
    peer->send_request(77, m.id, three);
    auto f = peer->read_frame();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->header.request_id, 77u);
    const rd::error_payload e = rpctest::raw_peer::error_of(*f);
    EXPECT_EQ(e.code, status_code::invalid_argument);
    EXPECT_NE(e.message.find("calc.v1.add: the arguments do not decode as (i32,i32)"), std::string::npos)
        << e.message;
    // the connection stays: a good request on it is answered
    peer->send_request(78, m.id, refwire::serialize(std::tuple<int, int>{20, 22}));
    auto ok = peer->read_frame();
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->header.kind, rd::frame_kind::response);
    EXPECT_EQ(ok->header.request_id, 78u);
    EXPECT_EQ(refwire::deserialize<std::tuple<int>>(ok->payload), std::tuple<int>{42});
  }
  EXPECT_EQ(w.log->count(log_level::warning, ": calc.v1.add: the arguments do not decode as (i32,i32)"), 1u)
      << w.log->dump();
  w.finish();
}

TEST_P(hostile_server, a_request_in_another_codec_than_agreed_is_refused_and_the_connection_stays) {
  watched w(GetParam());
  {
    auto peer = ready_peer(w.uri);
    const std::string args = "[1,2]";
    peer->send_request(5, method_named("add").id, std::as_bytes(std::span<const char>(args.data(), args.size())),
                       std::nullopt, false, codec::json);
    auto f = peer->read_frame();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->header.request_id, 5u);
    const rd::error_payload e = rpctest::raw_peer::error_of(*f);
    EXPECT_EQ(e.code, status_code::invalid_argument);
    EXPECT_EQ(e.message, "calc.v1.add: the request is in codec 2, the handshake agreed on binary");
    EXPECT_TRUE(peer->answers_ping(9));
  }
  EXPECT_EQ(w.log->count(log_level::warning, ": calc.v1.add: the request is in codec 2, the handshake agreed on binary"),
            1u)
      << w.log->dump();
  w.finish();
}

TEST_P(hostile_server, a_request_id_reused_while_in_flight_closes_the_connection) {
  watched w(GetParam(), {.handler_threads = 1});
  {
    auto peer = ready_peer(w.uri);
    const auto& sleep = method_named("sleep_ms");
    peer->send_request(7, sleep.id, refwire::serialize(std::tuple<int>{300}));
    peer->send_request(7, sleep.id, refwire::serialize(std::tuple<int>{1}));
    auto f = peer->read_frame();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->header.request_id, 0u);  // about the connection
    const rd::error_payload e = rpctest::raw_peer::error_of(*f);
    EXPECT_EQ(e.code, status_code::invalid_argument);
    EXPECT_EQ(e.message, "request id 7 is already in flight on this connection");
    EXPECT_TRUE(peer->closed_by_server());
  }
  w.expect_refusal_logged("request id 7 is already in flight on this connection");
  // an id used again after its reply is fine
  {
    auto peer = ready_peer(w.uri);
    const auto& add = method_named("add");
    for (int i = 0; i < 3; ++i) {
      peer->send_request(7, add.id, refwire::serialize(std::tuple<int, int>{i, 1}));
      auto f = peer->read_frame();
      ASSERT_TRUE(f);
      EXPECT_EQ(f->header.kind, rd::frame_kind::response);
    }
  }
  w.finish();
}

TEST_P(hostile_server, a_cancel_for_an_unknown_id_is_ignored) {
  for (unsigned threads : {0u, 2u}) {
    SCOPED_TRACE("handler_threads " + std::to_string(threads));
    watched w(GetParam(), {.handler_threads = threads});
    {
      auto peer = ready_peer(w.uri);
      peer->send_control(rd::frame_kind::cancel, 99, method_named("add").id);
      EXPECT_TRUE(peer->answers_ping());
      EXPECT_EQ(w.log->count(log_level::debug, ": a cancel for request id 99, which is not in flight (ignored)"), 1u)
          << w.log->dump();
    }
    w.finish();
  }
}

TEST_P(hostile_server, requests_pipelined_without_reading_a_response_are_bounded_and_closed) {
  auto stats = std::make_shared<rpctest::capture_stats>(false);
  const std::size_t resident_before = resident_bytes();
  watched w(GetParam(), {.write_timeout = 200ms, .stats = stats});
  {
    auto peer = ready_peer(w.uri);
    const auto& range = method_named("range");
    const auto args = refwire::serialize(std::tuple<int>{1000});  // replies of about 30 KB
    std::vector<std::byte> all;
    for (std::uint32_t id = 1; id <= 10000; ++id) {
      rd::frame_header h;
      h.kind = rd::frame_kind::request;
      h.codec = 1;
      h.request_id = id;
      h.method_id = range.id;
      h.length = static_cast<std::uint32_t>(args.size());
      std::array<std::byte, rd::header_size> head{};
      rd::write_header(h, head);
      all.insert(all.end(), head.begin(), head.end());
      all.insert(all.end(), args.begin(), args.end());
    }
    try {
      peer->send_bytes(all);  // the server may stop reading (and close) before it takes them all
    } catch (const refwire::transports::transport_error&) {
    }
    const std::string warned = w.log->wait_for(log_level::warning, "write_timeout (200 ms) passed with", 5s);
    EXPECT_FALSE(warned.empty()) << w.log->dump();
    EXPECT_LT(stats->calls(), 10000);  // it stopped reading while its replies waited
    EXPECT_GT(stats->calls(), 0);
    EXPECT_LT(resident_bytes(), resident_before + (128u << 20));  // unbounded: about 300 MB of replies
    EXPECT_TRUE(peer->closed_by_server());
  }
  EXPECT_FALSE(w.log->wait_for(log_level::info, " closed: write_timeout (200 ms) passed with replies unsent").empty());
  w.finish();
}

// ---- large requests read as they arrive ------------------------------------------------
// A request of 256 KiB or more is read in pieces straight into its argument's
// buffer: asynchronously, so a peer that sends half of one and stops holds
// no IO thread, and a peer that lies or leaves is handled like any other.

/// An echo request of `text`: its frame (header and payload with a deadline prefix).
std::vector<std::byte> echo_frame(std::uint32_t id, const std::string& text) {
  rd::frame_header h;
  h.kind = rd::frame_kind::request;
  h.codec = 1;
  h.request_id = id;
  h.method_id = method_named("echo").id;
  const std::vector<std::byte> payload =
      rpctest::raw_peer::request_payload(h, refwire::serialize(std::tuple<std::string>{text}), 30'000);
  h.length = static_cast<std::uint32_t>(payload.size());
  std::vector<std::byte> bytes(rd::header_size);
  rd::write_header(h, std::span<std::byte, rd::header_size>(bytes.data(), rd::header_size));
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  return bytes;
}

std::string large_text(std::size_t n) {
  std::string s(n, ' ');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('A' + (i * 5) % 26);
  return s;
}

TEST_P(hostile_server, half_a_large_request_holds_no_io_thread_and_the_rest_is_answered) {
  watched w(GetParam());  // one IO thread, inline handlers
  {
    auto peer = ready_peer(w.uri);
    const std::string big = large_text(900'000);  // the raw peer's max_frame_size is 1 MiB
    const std::vector<std::byte> frame = echo_frame(5, big);
    const std::span<const std::byte> all(frame);
    peer->send_bytes(all.first(all.size() / 2));
    // meanwhile the server serves the other connection, on its only IO thread
    for (int i = 0; i < 20; ++i) EXPECT_EQ(w.good->call<&calculator::add>(i, 1), i + 1);
    peer->send_bytes(all.subspan(all.size() / 2));
    auto f = peer->read_frame();
    ASSERT_TRUE(f);
    ASSERT_EQ(f->header.kind, rd::frame_kind::response) << rpctest::raw_peer::error_of({f->header, f->payload}).message;
    EXPECT_EQ(f->header.request_id, 5u);
    EXPECT_EQ(refwire::deserialize<std::tuple<std::string>>(f->payload), std::tuple<std::string>{big});
    // and the connection goes on with small frames after it
    peer->send_request(6, method_named("add").id, refwire::serialize(std::tuple<int, int>{2, 2}));
    auto next = peer->read_frame();
    ASSERT_TRUE(next);
    EXPECT_EQ(refwire::deserialize<std::tuple<int>>(next->payload), std::tuple<int>{4});
  }
  w.finish();
}

TEST_P(hostile_server, a_peer_leaving_inside_a_large_request_is_closed_cleanly) {
  watched w(GetParam());
  {
    auto peer = ready_peer(w.uri);
    const std::vector<std::byte> frame = echo_frame(9, large_text(1u << 20));
    peer->send_bytes(std::span<const std::byte>(frame).first(300'000));
  }  // the peer goes
  EXPECT_FALSE(w.log->wait_for(log_level::info, " closed: the peer closed").empty()) << w.log->dump();
  w.finish();
}

TEST_P(hostile_server, a_large_request_whose_run_overstates_the_frame_is_an_invalid_argument_reply) {
  watched w(GetParam());
  {
    auto peer = ready_peer(w.uri);
    // a string said to be 2 MiB in arguments of 400 KiB: not a run the frame holds, read whole, refused
    std::vector<std::byte> args = refwire::serialize(std::tuple<std::string>{large_text(2u << 20)});
    args.resize(400u << 10);
    peer->send_request(3, method_named("echo").id, args, 30'000);
    auto f = peer->read_frame();
    ASSERT_TRUE(f);
    const rd::error_payload e = rpctest::raw_peer::error_of(*f);
    EXPECT_EQ(e.code, status_code::invalid_argument);
    EXPECT_NE(e.message.find("calc.v1.echo: the arguments do not decode as (string): $[0]: truncated"),
              std::string::npos)
        << e.message;
    // trailing bytes after a streamed run are refused the same way
    std::vector<std::byte> longer = refwire::serialize(std::tuple<std::string>{large_text(300'000)});
    longer.resize(longer.size() + 7);
    peer->send_request(4, method_named("echo").id, longer, 30'000);
    auto t = peer->read_frame();
    ASSERT_TRUE(t);
    const rd::error_payload te = rpctest::raw_peer::error_of(*t);
    EXPECT_EQ(te.code, status_code::invalid_argument);
    EXPECT_NE(te.message.find("7 trailing bytes after the value"), std::string::npos) << te.message;
  }
  w.finish();
}

TEST_P(hostile_server, large_requests_stream_with_a_handler_pool_too) {
  watched w(GetParam(), {.handler_threads = 2});
  {
    auto peer = ready_peer(w.uri);
    const std::string a = large_text(700'000);
    const std::string b = large_text(300'000);
    std::vector<std::byte> both = echo_frame(1, a);
    const std::vector<std::byte> second = echo_frame(2, b);
    both.insert(both.end(), second.begin(), second.end());  // back to back, in one write
    peer->send_bytes(both);
    std::vector<std::string> got(3);
    for (int i = 0; i < 2; ++i) {
      auto f = peer->read_frame();
      ASSERT_TRUE(f);
      ASSERT_EQ(f->header.kind, rd::frame_kind::response);
      ASSERT_LE(f->header.request_id, 2u);
      got[f->header.request_id] = std::get<0>(refwire::deserialize<std::tuple<std::string>>(f->payload));
    }
    EXPECT_EQ(got[1], a);
    EXPECT_EQ(got[2], b);
  }
  w.finish();
}

}  // namespace
