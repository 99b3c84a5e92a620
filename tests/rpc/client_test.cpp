// The client against a scripted fake server (fake_server.hpp): the exact
// frames it sends (the deadline prefix, cancel), its pings, its hooks.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <refwire/rpc.hpp>
#include <refwire/serialization.hpp>

#include "fake_server.hpp"
#include "rpc_support.hpp"
#include "test_service.hpp"

namespace {

using namespace std::chrono_literals;
using refwire::rpc::client;
using refwire::rpc::log_level;
using refwire::rpc::status_code;
using refwire::rpc::detail::frame_kind;
using rpctest::calculator;
using rpctest::expect_rpc_error;
using rpctest::fake_peer;
using rpctest::fake_server;
using rpctest::transport;

constexpr std::uint32_t add_id = 0x4a86edca;  // fnv1a("calc.v1.add")

std::vector<std::byte> hex(const std::string& text) {
  std::vector<std::byte> out;
  for (std::size_t i = 0; i + 1 < text.size();) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    out.push_back(static_cast<std::byte>(std::stoi(text.substr(i, 2), nullptr, 16)));
    i += 2;
  }
  return out;
}

std::vector<std::byte> golden(const std::string& name) {
  std::ifstream in(std::string(REFWIRE_RPC_GOLDEN_DIR) + "/" + name, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out;
  for (char c : bytes) out.push_back(static_cast<std::byte>(c));
  return out;
}

/// A request frame as the client must write it.
std::vector<std::byte> request_frame(std::uint32_t id, std::uint32_t method, std::uint8_t flags, std::uint32_t ms,
                                     const std::vector<std::byte>& args) {
  namespace d = refwire::rpc::detail;
  d::frame_header h;
  h.kind = frame_kind::request;
  h.flags = flags;
  h.codec = 1;
  h.length = static_cast<std::uint32_t>(4 + args.size());
  h.request_id = id;
  h.method_id = method;
  std::vector<std::byte> out(d::header_size);
  d::write_header(h, std::span<std::byte, d::header_size>(out.data(), d::header_size));
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>((ms >> (8 * i)) & 0xff));
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

using rpctest::capture_log;
using rpctest::capture_stats;

void well_behaved(fake_peer& p, int) { p.serve_calculator(); }

// ---- ping -------------------------------------------------------------------------

TEST(client_ping, finds_a_silent_peer_within_interval_plus_timeout) {
  rpctest::temp_dir dir;
  rpctest::leak_check leaks;
  {
    fake_server fake(transport::unix_socket, dir, [](fake_peer& p, int n) {
      if (n > 0) return p.serve_calculator();
      p.answer_handshake();
      while (p.read_frame(10s)) {  // reads everything, answers nothing: a dead peer behind a live socket
      }
    });
    auto log = std::make_shared<capture_log>();
    const auto start = std::chrono::steady_clock::now();
    client<calculator> calc(fake.uri(), {.ping_interval = 100ms, .ping_timeout = 100ms, .log = log});
    // Idle from the start: pinged at 100 ms, taken for dead at 200 ms.
    const std::string dead =
        "client: connection to " + fake.uri() + " closed: no reply to a ping within ping_timeout (100 ms)";
    EXPECT_TRUE(rpctest::eventually([&] { return log->has(log_level::warning, dead); }, 2s)) << log->dump();
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_GE(took, 190ms);
    EXPECT_LT(took, 700ms);
    const auto pings = fake.frames(frame_kind::ping);
    ASSERT_GE(pings.size(), 1u);
    EXPECT_EQ(pings[0].header.length, 0u);
    EXPECT_NE(pings[0].header.request_id, 0u);
    // The next call does not wait out its deadline on the dead connection: it connects again.
    const auto call_start = std::chrono::steady_clock::now();
    EXPECT_EQ(calc.call<&calculator::add>({.timeout = 10s}, 4, 5), 9);
    EXPECT_LT(std::chrono::steady_clock::now() - call_start, 2s);
    EXPECT_EQ(fake.connections(), 2);
  }
  leaks.check();
}

TEST(client_ping, a_call_in_flight_is_not_pinged) {
  // A server running a long handler on its IO thread answers no ping meanwhile:
  // a connection with a call in flight is left to that call's deadline.
  rpctest::temp_dir dir;
  fake_server fake(transport::tcp, dir, [](fake_peer& p, int) {
    p.answer_handshake();
    while (auto f = p.read_frame(5s)) {
      if (f->header.kind != frame_kind::request) continue;  // pings unanswered
      std::this_thread::sleep_for(450ms);
      p.answer_calculator(*f);
    }
  });
  auto log = std::make_shared<capture_log>();
  client<calculator> calc(fake.uri(), {.ping_interval = 50ms, .ping_timeout = 50ms, .log = log});
  EXPECT_EQ(calc.call<&calculator::add>({.timeout = 5s}, 20, 22), 42);
  EXPECT_EQ(fake.frames(frame_kind::ping).size(), 0u);
  EXPECT_EQ(log->count(log_level::warning, "no reply to a ping"), 0u) << log->dump();
  EXPECT_EQ(fake.connections(), 1);
}

TEST(client_ping, a_live_server_keeps_the_connection) {
  rpctest::temp_dir dir;
  rpctest::leak_check leaks;
  {
    fake_server fake(transport::tcp, dir, well_behaved);
    client<calculator> calc(fake.uri(), {.ping_interval = 40ms, .ping_timeout = 100ms});
    EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
    // Nobody calls: the ping thread reads the pongs itself, else the second ping would break the connection.
    std::this_thread::sleep_for(500ms);
    EXPECT_GE(fake.frames(frame_kind::ping).size(), 4u);
    EXPECT_EQ(calc.call<&calculator::add>(3, 4), 7);
    EXPECT_EQ(fake.connections(), 1);
  }
  leaks.check();
}

TEST(client_ping, off_starts_no_thread) {
  rpctest::temp_dir dir;
  fake_server fake(transport::inproc, dir, well_behaved);
  const int before = rpctest::threads();
  {
    client<calculator> calc(fake.uri());
    EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
    EXPECT_EQ(rpctest::threads(), before);
  }
  {
    client<calculator> calc(fake.uri(), {.ping_interval = 1s});
    EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
    EXPECT_EQ(rpctest::threads(), before + 1);  // the ping thread
  }
  EXPECT_TRUE(rpctest::eventually([&] { return rpctest::threads() == before; }));
}

// ---- deadline -----------------------------------------------------------------------

TEST(client_deadline, every_request_carries_its_timeout) {
  rpctest::temp_dir dir;
  fake_server fake(transport::unix_socket, dir, well_behaved);
  {
    client<calculator> calc(fake.uri());  // the default timeout: 30 s
    EXPECT_EQ(calc.call<&calculator::add>(2, 3), 5);
    EXPECT_EQ(calc.call<&calculator::add>({.timeout = 250ms}, 2, 3), 5);
    EXPECT_EQ(calc.call<&calculator::add>({.timeout = std::chrono::milliseconds(5'000'000'000)}, 2, 3), 5);
    auto f = calc.async_call<&calculator::add>({.timeout = 1500ms}, 2, 3);
    EXPECT_EQ(f.get(), 5);
    calc.notify<&calculator::log>(std::string("x"));  // one_way: no deadline
    EXPECT_EQ(calc.call<&calculator::add>(0, 0), 0);
  }
  const auto args = refwire::serialize(std::tuple<int, int>{2, 3});
  const auto requests = fake.frames(frame_kind::request);
  ASSERT_EQ(requests.size(), 5u);
  EXPECT_EQ(requests[0].raw, golden("call-add-request-deadline.bin"));
  EXPECT_EQ(requests[0].raw, hex("01 03 02 01 0c 00 00 00 01 00 00 00 ca ed 86 4a 30 75 00 00 02 00 00 00 03 00 00 00"));
  EXPECT_EQ(requests[1].raw, request_frame(2, add_id, 0x02, 250, args));
  EXPECT_EQ(requests[2].raw, request_frame(3, add_id, 0x02, 0xffffffffu, args));  // clamped
  EXPECT_EQ(requests[3].raw, request_frame(4, add_id, 0x02, 1500, args));
  const auto one_way = fake.frames(frame_kind::one_way);
  ASSERT_EQ(one_way.size(), 1u);
  EXPECT_EQ(one_way[0].header.flags, 0u);
  EXPECT_EQ(one_way[0].payload, refwire::serialize(std::tuple<std::string>{"x"}));

  // Compressed: the prefix stays outside the lz4 envelope; short arguments travel as they are.
  fake_server packed(transport::inproc, dir, well_behaved);
  const std::string big(5000, 'z');
  {
    client<calculator> calc(packed.uri(), {.compression = refwire::compression::lz4, .timeout = 700ms,
                                           .compression_threshold = 64});
    EXPECT_EQ(calc.call<&calculator::echo>(big), big);
    EXPECT_EQ(calc.call<&calculator::add>(2, 3), 5);
  }
  std::vector<std::byte> envelope;
  refwire::compress(refwire::serialize(std::tuple<std::string>{big}), envelope, {.compression_threshold = 0});
  const auto echo_id = refwire::rpc::detail::methods_of<calculator>()[3].id;
  const auto zipped = packed.frames(frame_kind::request);
  ASSERT_EQ(zipped.size(), 2u);
  EXPECT_EQ(zipped[0].raw, request_frame(1, echo_id, 0x03, 700, envelope));
  EXPECT_EQ(zipped[1].raw, request_frame(2, add_id, 0x02, 700, args));
}

// ---- cancel -------------------------------------------------------------------------

TEST(client_cancel, sends_a_cancel_frame_and_drops_the_late_reply) {
  rpctest::temp_dir dir;
  std::mutex held_mutex;
  std::vector<rpctest::seen_frame> held;  // requests not answered yet
  fake_server fake(transport::tcp, dir, [&](fake_peer& p, int) {
    p.answer_handshake();
    p.serve([&](fake_peer& peer, const rpctest::seen_frame& f) {
      if (f.header.kind == frame_kind::cancel) {
        std::lock_guard lock(held_mutex);
        for (const auto& r : held) {  // the late reply, after the cancel (none for add(-2, 0))
          const auto args = refwire::deserialize<std::tuple<int, int>>(fake_peer::arguments(r));
          if (r.header.request_id == f.header.request_id && std::get<0>(args) != -2) peer.answer_calculator(r);
        }
      } else if (f.header.kind == frame_kind::request) {
        const auto [a, b] = refwire::deserialize<std::tuple<int, int>>(fake_peer::arguments(f));
        if (a < 0) {
          std::lock_guard lock(held_mutex);
          held.push_back(f);  // a "slow" call: answered only once cancelled
        } else {
          peer.answer_calculator(f);
        }
        (void)b;
      }
    });
  });
  auto log = std::make_shared<capture_log>();
  client<calculator> calc(fake.uri(), {.log = log});

  auto slow = calc.async_call<&calculator::add>(-1, 0);  // request id 1
  slow.cancel();
  expect_rpc_error([&] { (void)slow.get(); }, status_code::cancelled, "calc.v1.add: cancelled");
  ASSERT_TRUE(rpctest::eventually([&] { return fake.frames(frame_kind::cancel).size() == 1; }));
  EXPECT_EQ(fake.frames(frame_kind::cancel)[0].raw, hex("01 07 00 00 00 00 00 00 01 00 00 00 ca ed 86 4a"));
  EXPECT_EQ(calc.call<&calculator::add>(4, 5), 9);  // read after the late reply of id 1, which is dropped
  EXPECT_TRUE(log->has(log_level::debug, "client: " + fake.uri() +
                                              " sent a response for request id 1, no longer waited for (cancelled or "
                                              "past its deadline): dropped"))
      << log->dump();

  // Cancelled from another thread: a caller waiting behind the reader returns at once; the
  // reader itself (add(-2, 0): no late reply comes) returns with the pong of the ping sent
  // after the cancel.
  auto reader_call = calc.async_call<&calculator::add>(-2, 0);
  auto waiter_call = calc.async_call<&calculator::add>(-3, 0);
  std::atomic<long> reader_ms{-1}, waiter_ms{-1};
  std::chrono::steady_clock::time_point cancelled_at;
  std::atomic<bool> cancelled_flag{false};
  auto measure = [&](refwire::rpc::pending<int>& f, std::atomic<long>& ms) {
    try {
      (void)f.get();
    } catch (const refwire::rpc::rpc_error& e) {
      EXPECT_EQ(e.code(), status_code::cancelled) << e.what();
    }
    EXPECT_TRUE(cancelled_flag.load());
    ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - cancelled_at)
             .count();
  };
  std::thread reader([&] { measure(reader_call, reader_ms); });
  std::this_thread::sleep_for(50ms);  // the reader role is its
  std::thread waiter([&] { measure(waiter_call, waiter_ms); });
  std::this_thread::sleep_for(50ms);
  cancelled_at = std::chrono::steady_clock::now();
  cancelled_flag = true;
  waiter_call.cancel();
  ASSERT_TRUE(rpctest::eventually([&] { return waiter_ms.load() >= 0; }, 2s));
  EXPECT_LT(waiter_ms.load(), 100);
  cancelled_at = std::chrono::steady_clock::now();
  reader_call.cancel();
  waiter.join();
  reader.join();
  EXPECT_LT(reader_ms.load(), 200);
  EXPECT_EQ(calc.call<&calculator::add>(1, 1), 2);
  EXPECT_EQ(fake.connections(), 1);
}

// ---- hooks --------------------------------------------------------------------------

TEST(client_hooks, stats_record_each_call) {
  rpctest::temp_dir dir;
  fake_server fake(transport::inproc, dir, [](fake_peer& p, int) {
    p.answer_handshake([](refwire::rpc::detail::handshake_reply& r) {
      r.methods[2].state = refwire::rpc::detail::method_state::unknown;  // calc.v1.log
    });
    p.serve([](fake_peer& peer, const rpctest::seen_frame& f) {
      if (f.header.kind != frame_kind::request) return;
      if (peer.method_name(f.header.method_id) == "calc.v1.divide") {
        peer.send_error(f.header.request_id, f.header.method_id, status_code::internal, "no");
      } else if (peer.method_name(f.header.method_id) != "calc.v1.sleep_ms") {
        peer.answer_calculator(f);
      }
    });
  });
  rpctest::counting_hook_clock clock;
  auto stats = std::make_shared<capture_stats>();
  {
    client<calculator> calc(fake.uri(), {.stats = stats});
    EXPECT_EQ(calc.call<&calculator::add>(2, 3), 5);
    EXPECT_THROW((void)calc.call<&calculator::divide>(1, 0), refwire::rpc::rpc_error);
    EXPECT_THROW(calc.call<&calculator::log>(std::string("x")), refwire::rpc::rpc_error);  // unimplemented
    auto f = calc.async_call<&calculator::echo>(std::string("hi"));
    EXPECT_EQ(f.get(), "hi");
    auto g = calc.async_call<&calculator::sleep_ms>(1);
    g.cancel();
    EXPECT_THROW(g.get(), refwire::rpc::rpc_error);
  }
  const auto rows = stats->records();
  ASSERT_EQ(rows.size(), 5u);
  const auto& m = refwire::rpc::detail::methods_of<calculator>();
  const auto expect_row = [&](const capture_stats::record_copy& r, std::size_t method, status_code code, std::size_t req,
                              std::size_t resp) {
    EXPECT_EQ(r.side, refwire::rpc::call_side::client);
    EXPECT_EQ(r.method, m[method].full_name);
    EXPECT_EQ(r.method_id, m[method].id);
    EXPECT_EQ(r.code, code) << r.method;
    EXPECT_EQ(r.latency, 1ms) << r.method;  // two reads of the counting clock
    EXPECT_EQ(r.request_bytes, req) << r.method;
    EXPECT_EQ(r.response_bytes, resp) << r.method;
  };
  std::vector<std::byte> err;
  refwire::rpc::detail::encode(refwire::rpc::detail::error_payload{status_code::internal, "", "no"}, err);
  expect_row(rows[0], 0, status_code::ok, 8, 4);                          // add(2, 3) -> 5
  expect_row(rows[1], 4, status_code::internal, 8, err.size());           // divide: the error reply
  expect_row(rows[2], 2, status_code::unimplemented, 0, 0);               // log: not sent
  const std::size_t hi = refwire::serialize(std::tuple<std::string>{"hi"}).size();
  expect_row(rows[3], 3, status_code::ok, hi, hi);                        // echo("hi")
  expect_row(rows[4], 6, status_code::cancelled, 4, 0);                   // sleep_ms(1), cancelled
  EXPECT_EQ(clock.reads(), 10);
}

TEST(client_hooks, no_hook_means_no_clock_read) {
  rpctest::temp_dir dir;
  fake_server fake(transport::unix_socket, dir, well_behaved);
  rpctest::counting_hook_clock clock;
  {
    auto quiet = std::make_shared<capture_log>(log_level::info);  // a logger without slow_call needs no clock
    client<calculator> calc(fake.uri(), {.log = quiet});
    int wrong = 0;
    for (int i = 0; i < 1000; ++i) wrong += calc.call<&calculator::add>(i, 1) != i + 1;
    auto f = calc.async_call<&calculator::add>(1, 1);
    wrong += f.get() != 2;
    EXPECT_EQ(wrong, 0);
  }
  EXPECT_EQ(clock.reads(), 0);
  {
    client<calculator> calc(fake.uri(), {.stats = std::make_shared<capture_stats>()});
    for (int i = 0; i < 1000; ++i) (void)calc.call<&calculator::add>(i, 1);
  }
  EXPECT_GE(clock.reads(), 1000);
  const long with_stats = clock.reads();
  {
    auto slow = std::make_shared<capture_log>(log_level::warning, 1000s);  // slow-call logging reads it too
    client<calculator> calc(fake.uri(), {.log = slow});
    for (int i = 0; i < 1000; ++i) (void)calc.call<&calculator::add>(i, 1);
  }
  EXPECT_GE(clock.reads() - with_stats, 1000);
}

TEST(client_hooks, log_reports_connections_and_bad_frames) {
  rpctest::temp_dir dir;
  fake_server fake(transport::unix_socket, dir, [](fake_peer& p, int n) {
    p.answer_handshake();
    int requests = 0;
    p.serve([n, &requests](fake_peer& peer, const rpctest::seen_frame& f) {
      if (f.header.kind != frame_kind::request) return;
      // First connection: a reply for an id never sent and the real one; garbage
      // for the second request (the reader takes every whole frame a read
      // brings, so garbage right after the first reply would fail the first
      // connection before the second call).
      if (n == 0 && requests++ == 0) {
        auto stray = f;
        stray.header.request_id = 77;
        peer.answer_calculator(stray);
        peer.answer_calculator(f);
      } else if (n == 0) {
        peer.send_bytes(hex("ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff"));
      } else {
        peer.answer_calculator(f);
      }
    });
  });
  rpctest::counting_hook_clock clock;  // each call "takes" 1 ms: over slow_call
  auto log = std::make_shared<capture_log>(log_level::debug, 500us);
  const std::string uri = fake.uri();
  {
    client<calculator> calc(uri, {.log = log});
    EXPECT_TRUE(log->has(log_level::info, "client: connection to " + uri + " opened"));
    EXPECT_EQ(calc.call<&calculator::add>(2, 3), 5);
    EXPECT_TRUE(log->has(log_level::warning, "client: " + uri +
                                                  " sent a response for request id 77, which this client never sent: "
                                                  "dropped"))
        << log->dump();
    EXPECT_TRUE(log->has(log_level::warning,
                         "client: slow call calc.v1.add to " + uri + ": 1.0 ms (slow_call 500.0 \u00b5s), ok"))
        << log->dump();
    const std::string bad = "the server sent a bad frame: protocol version 255 is not supported (this side speaks "
                            "version 1)";
    expect_rpc_error([&] { (void)calc.call<&calculator::add>(1, 1); }, status_code::unavailable,
                     "calc.v1.add: " + bad);
    EXPECT_TRUE(log->has(log_level::warning, "client: connection to " + uri + " closed: " + bad)) << log->dump();
    EXPECT_EQ(calc.call<&calculator::add>(1, 1), 2);  // connects again
  }
  EXPECT_TRUE(log->has(log_level::info, "client: connection to " + uri + " closed: the client was destroyed"))
      << log->dump();
  fake.stop();
  expect_rpc_error([&] { client<calculator> none(uri, {.log = log}); }, status_code::unavailable,
                   "cannot connect to " + uri);
  const std::string text = log->dump();
  EXPECT_NE(text.find("warning: client: cannot connect to " + uri + ": "), std::string::npos) << text;
}

// ---- limits and a connection the server closed while it was idle ----------------------

TEST(client_limits, max_calls_in_flight_fails_the_next_call_unsent) {
  rpctest::temp_dir dir;
  fake_server fake(transport::inproc, dir, [](fake_peer& p, int) {
    p.answer_handshake();
    while (p.read_frame(5s)) {  // answers nothing: the calls stay in flight
    }
  });
  client<calculator> calc(fake.uri(), {.max_calls_in_flight = 2});
  auto a = calc.async_call<&calculator::add>(1, 1);
  auto b = calc.async_call<&calculator::add>(2, 2);
  expect_rpc_error([&] { (void)calc.async_call<&calculator::add>(3, 3); }, status_code::resource_exhausted,
                   "calc.v1.add: 2 calls are in flight on this connection (max_calls_in_flight)");
  expect_rpc_error([&] { (void)calc.call<&calculator::add>(4, 4); }, status_code::resource_exhausted,
                   "calc.v1.add: 2 calls are in flight on this connection (max_calls_in_flight)");
  a.cancel();  // one place free again
  auto c = calc.async_call<&calculator::add>(5, 5);
  EXPECT_TRUE(rpctest::eventually([&] { return fake.frames(frame_kind::cancel).size() == 1; }));
  const auto requests = fake.frames(frame_kind::request);
  ASSERT_EQ(requests.size(), 3u);  // the refused ones were never sent
  const auto args = refwire::serialize(std::tuple<int, int>{5, 5});
  ASSERT_EQ(requests[2].payload.size(), 4 + args.size());
  EXPECT_EQ(std::vector<std::byte>(requests[2].payload.begin() + 4, requests[2].payload.end()), args);
  b.cancel();
  c.cancel();
}

class client_quiet : public ::testing::TestWithParam<transport> {};
std::string transport_name(const ::testing::TestParamInfo<transport>& p) { return rpctest::to_string(p.param); }
INSTANTIATE_TEST_SUITE_P(sockets, client_quiet, ::testing::Values(transport::unix_socket, transport::tcp),
                         transport_name);

TEST_P(client_quiet, a_connection_closed_while_idle_is_replaced_before_the_next_call) {
  // The server closes a connection idle for idle_timeout (telling why in an
  // error frame); a client unused for a second reads what came before it
  // sends, so its next call connects again instead of failing.
  rpctest::temp_dir dir;
  rpctest::calculator_impl impl;
  refwire::rpc::server server({.idle_timeout = 100ms});
  server.serve<calculator>(impl);
  const std::string uri = server.listen(rpctest::listen_uri(GetParam(), dir));
  server.start();
  auto log = std::make_shared<capture_log>();
  client<calculator> calc(uri, {.log = log});
  EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
  std::this_thread::sleep_for(1100ms);  // past idle_timeout, and past the client's quiet probe (1 s)
  EXPECT_EQ(calc.call<&calculator::add>(3, 4), 7);
  EXPECT_TRUE(log->has(log_level::warning, "client: connection to " + uri +
                                               " closed: the server closed the connection: idle_timeout (100 ms) "
                                               "passed with no frame"))
      << log->dump();
  EXPECT_EQ(log->count(log_level::info, " opened"), 2u) << log->dump();
}

// ---- large payloads -----------------------------------------------------------------
// A large argument leaves the caller's memory as it is (a gather write, the
// same bytes as a copy would give); a large reply to the reading caller is
// read from the socket straight into the result's storage as it arrives.

std::uint32_t echo_method_id() { return refwire::rpc::detail::methods_of<calculator>()[3].id; }

/// A reply frame's header for `to` announcing `length` payload bytes.
refwire::rpc::detail::frame_header reply_header(const rpctest::seen_frame& to, std::uint32_t length) {
  refwire::rpc::detail::frame_header h;
  h.kind = frame_kind::response;
  h.codec = 1;
  h.request_id = to.header.request_id;
  h.method_id = to.header.method_id;
  h.length = length;
  return h;
}

/// Answers the handshake, reads a request, sends the first half of an echo
/// reply of `text` (its header announcing all of it); false when no request came.
bool send_half_a_reply(fake_peer& p, const std::string& text) {
  p.answer_handshake();
  auto f = p.read_frame();
  if (!f) return false;
  const std::vector<std::byte> payload = refwire::serialize(std::tuple<std::string>{text});
  p.send_frame(reply_header(*f, static_cast<std::uint32_t>(payload.size())),
               std::span<const std::byte>(payload).first(payload.size() / 2), true);
  return true;
}

std::string large_text(std::size_t n) {
  std::string s(n, ' ');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7) % 26);
  return s;
}

TEST(client_large, a_large_argument_goes_out_as_the_bytes_of_its_encoding) {
  rpctest::temp_dir dir;
  fake_server fake(transport::unix_socket, dir, well_behaved);
  const std::string big = large_text(3u << 20);
  {
    client<calculator> calc(fake.uri(), {.timeout = 20s});
    EXPECT_EQ(calc.call<&calculator::echo>(big), big);  // the fake echoes it: a 3 MiB reply, streamed
    EXPECT_EQ(calc.call<&calculator::add>(2, 3), 5);   // the connection is in step after it
    EXPECT_EQ(calc.call<&calculator::echo>(big), big);
  }
  const auto requests = fake.frames(frame_kind::request);
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].raw, request_frame(1, echo_method_id(), 0x02, 20'000,
                                           refwire::serialize(std::tuple<std::string>{big})));
  EXPECT_EQ(requests[2].raw, request_frame(3, echo_method_id(), 0x02, 20'000,
                                           refwire::serialize(std::tuple<std::string>{big})));
}

TEST(client_large, a_reply_with_many_small_fields_first_is_read_whole) {
  // range's reply is thousands of small items: its decode cannot start from
  // the first 16 KiB (the items run past them), so the reply is read whole
  rpctest::temp_dir dir;
  std::vector<rpctest::item> items;
  for (int i = 0; i < 40'000; ++i) items.push_back({i, "item-" + std::to_string(i), i * 0.25});
  fake_server fake(transport::tcp, dir, [&](fake_peer& p, int) {
    p.answer_handshake();
    p.serve([&](fake_peer& peer, const rpctest::seen_frame& f) {
      peer.respond(f, refwire::serialize(std::tuple<std::vector<rpctest::item>>{items}));
    });
  });
  client<calculator> calc(fake.uri(), {.timeout = 20s});
  const auto got = calc.call<&calculator::range>(40'000);
  ASSERT_EQ(got.size(), items.size());
  EXPECT_EQ(got.front(), items.front());
  EXPECT_EQ(got.back(), items.back());
  EXPECT_EQ(got, items);
}

TEST(client_large, a_server_closing_inside_a_large_reply_fails_the_call_and_the_next_one_reconnects) {
  rpctest::temp_dir dir;
  const std::string big = large_text(1u << 20);
  fake_server fake(transport::unix_socket, dir, [&](fake_peer& p, int n) {
    if (n > 0) return p.serve_calculator();
    if (send_half_a_reply(p, big)) p.close();
  });
  client<calculator> calc(fake.uri(), {.timeout = 10s});
  expect_rpc_error([&] { (void)calc.call<&calculator::echo>(big); }, status_code::unavailable,
                   "the server closed the connection in the middle of a frame");
  EXPECT_EQ(calc.call<&calculator::echo>(big), big);
}

TEST(client_large, a_deadline_inside_a_large_reply_is_deadline_exceeded) {
  rpctest::temp_dir dir;
  const std::string big = large_text(1u << 20);
  std::atomic<bool> release{false};
  fake_server fake(transport::tcp, dir, [&](fake_peer& p, int n) {
    if (n > 0) return p.serve_calculator();
    send_half_a_reply(p, big);
    while (!release.load()) std::this_thread::sleep_for(5ms);  // the rest never comes
  });
  client<calculator> calc(fake.uri(), {.timeout = 10s});
  const auto started = std::chrono::steady_clock::now();
  expect_rpc_error([&] { (void)calc.call<&calculator::echo>({.timeout = 300ms}, big); },
                   status_code::deadline_exceeded, "calc.v1.echo: no reply before the deadline (the reply was still arriving)");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
  release = true;
  EXPECT_EQ(calc.call<&calculator::echo>(big), big);  // a new connection
}

TEST(client_large, a_blob_longer_than_its_frame_is_a_decode_error_and_the_connection_stays) {
  rpctest::temp_dir dir;
  fake_server fake(transport::inproc, dir, [&](fake_peer& p, int) {
    p.answer_handshake();
    p.serve([&](fake_peer& peer, const rpctest::seen_frame& f) {
      if (peer.method_name(f.header.method_id) != "calc.v1.echo") return peer.answer_calculator(f);
      // a string said to be 2 MiB in a 512 KiB frame
      std::vector<std::byte> payload = refwire::serialize(std::tuple<std::string>{large_text(2u << 20)});
      payload.resize(512u << 10);
      peer.respond(f, payload);
    });
  });
  client<calculator> calc(fake.uri(), {.timeout = 10s});
  expect_rpc_error([&] { (void)calc.call<&calculator::echo>(std::string("x")); }, status_code::internal,
                   "calc.v1.echo: the reply does not decode: $[0]: truncated");
  EXPECT_EQ(calc.call<&calculator::add>(2, 3), 5);
}

}  // namespace
