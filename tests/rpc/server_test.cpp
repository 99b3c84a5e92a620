// The server's production features: the handler pool (out-of-order replies,
// cancellation, deadlines, draining), its limits (max_calls_in_flight,
// idle_timeout, write_timeout, max_connections), its hooks (stats, log, the
// hook clock) and the call context a handler sees. Raw peers send the frames
// by hand where the exact ids, deadlines or timing matter.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <refwire/rpc.hpp>

#include "rpc_support.hpp"

namespace {

using namespace std::chrono_literals;
using refwire::rpc::client;
using refwire::rpc::log_level;
using refwire::rpc::status_code;
using rpctest::expect_rpc_error;
using rpctest::transport;
namespace rd = refwire::rpc::detail;

/// The interface these tests serve: handlers that sleep, wait for
/// cancellation, report their call context.
struct probe {
  virtual ~probe() = default;
  virtual int add(int a, int b) = 0;
  virtual int slow(int ms) = 0;         // sleeps, returns ms
  virtual int wait_cancel(int ms) = 0;  // until cancelled() (returns 1) or ms passed (returns 0)
  virtual std::string context() = 0;    // records call_context::current()
  virtual void note(std::string s) = 0; // one way
  virtual std::string blob(int n) = 0;  // n bytes
  virtual int divide(int a, int b) = 0; // throws std::domain_error on b == 0
};
BOOST_DESCRIBE_STRUCT(probe, (), (add, slow, wait_cancel, context, note, blob, divide))
REFWIRE_NAME(probe, "probe.v1")

struct seen_context {
  std::string method;
  std::uint32_t request_id = 0;
  bool one_way = false;
  std::chrono::steady_clock::time_point deadline{};
  std::string peer;
  std::optional<std::uint32_t> pid, uid;
  bool cancelled = false;
};

class probe_impl : public probe {
 public:
  int add(int a, int b) override {
    adds.fetch_add(1);
    return a + b;
  }
  int slow(int ms) override {
    started.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return ms;
  }
  int wait_cancel(int ms) override {
    started.fetch_add(1);
    const auto* call = refwire::rpc::call_context::current();
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < until) {
      if (call != nullptr && call->cancelled()) {
        saw_cancel.fetch_add(1);
        return 1;
      }
      std::this_thread::sleep_for(1ms);
    }
    return 0;
  }
  std::string context() override { return capture(); }
  void note(std::string s) override {
    capture();
    notes.fetch_add(1);
    (void)s;
  }
  std::string blob(int n) override { return std::string(static_cast<std::size_t>(n), 'b'); }
  int divide(int a, int b) override {
    if (b == 0) throw std::domain_error("divide: division by zero");
    return a / b;
  }

  seen_context last() {
    std::lock_guard lock(mutex);
    return seen;
  }

  std::atomic<int> adds{0}, started{0}, saw_cancel{0}, notes{0};

 private:
  std::string capture() {
    const auto* call = refwire::rpc::call_context::current();
    if (call == nullptr) return "no context";
    std::lock_guard lock(mutex);
    seen = {std::string(call->method()), call->request_id(), call->one_way(), call->deadline(),
            call->peer().address, call->peer().pid, call->peer().uid, call->cancelled()};
    return seen.method;
  }
  std::mutex mutex;
  seen_context seen;
};

struct served {
  explicit served(transport t, refwire::rpc::server_options so = {}) : server(so) {
    server.serve<probe>(impl);
    uri = server.listen(rpctest::listen_uri(t, dir));
    server.start();
  }
  rpctest::temp_dir dir;
  probe_impl impl;
  refwire::rpc::server server;
  std::string uri;
};

const rd::method_info& method_named(std::string_view name) {
  for (const auto& m : rd::methods_of<probe>()) {
    if (m.name == name) return m;
  }
  throw std::runtime_error("no such method");
}

std::uint32_t id_of(std::string_view name) { return method_named(name).id; }

/// A raw peer that has completed its handshake for every method of probe.
struct probe_peer : rpctest::raw_peer {
  explicit probe_peer(const std::string& uri) : raw_peer(uri) {
    std::vector<rd::method_entry> entries;
    for (const auto& m : rd::methods_of<probe>()) entries.push_back({m.id, m.full_name, m.signature, m.shape});
    handshake(entries);
    auto reply = read_frame();
    if (!reply || reply->header.kind != rd::frame_kind::handshake_reply) throw std::runtime_error("no handshake reply");
  }

  template <class... A>
  void call(std::uint32_t request_id, std::string_view method, std::optional<std::uint32_t> deadline_ms, A... args) {
    const auto bytes = refwire::serialize(std::tuple<A...>{args...});
    send_request(request_id, id_of(method), bytes, deadline_ms);
  }

  /// Reads frames until one for each of n requests came; keyed by request id.
  std::map<std::uint32_t, frame> replies(std::size_t n) {
    std::map<std::uint32_t, frame> out;
    while (out.size() < n) {
      auto f = read_frame(std::chrono::seconds(5));
      if (!f) throw std::runtime_error("closed after " + std::to_string(out.size()) + " replies");
      out.emplace(f->header.request_id, std::move(*f));
    }
    return out;
  }
};

int int_of(const rpctest::raw_peer::frame& f) {
  EXPECT_EQ(f.header.kind, rd::frame_kind::response);
  return std::get<0>(refwire::deserialize<std::tuple<int>>(f.payload));
}

class server_pool : public testing::TestWithParam<transport> {};
class server_limits : public testing::TestWithParam<transport> {};
class server_hooks : public testing::TestWithParam<transport> {};
class server_context : public testing::TestWithParam<transport> {};
const auto every_transport =
    testing::Values(transport::inproc, transport::unix_socket, transport::tcp, transport::shm);
const auto transport_name = [](const testing::TestParamInfo<transport>& p) { return rpctest::to_string(p.param); };
INSTANTIATE_TEST_SUITE_P(every_transport, server_pool, every_transport, transport_name);
INSTANTIATE_TEST_SUITE_P(every_transport, server_limits, every_transport, transport_name);
INSTANTIATE_TEST_SUITE_P(every_transport, server_hooks, every_transport, transport_name);
INSTANTIATE_TEST_SUITE_P(every_transport, server_context, every_transport, transport_name);

// ---------------------------------------------------------------- the pool

TEST_P(server_pool, a_slow_handler_does_not_delay_the_others_on_its_connection) {
  served s(GetParam(), {.handler_threads = 2});
  client<probe> c(s.uri);
  auto slow = c.async_call<&probe::slow>(300);
  ASSERT_TRUE(rpctest::eventually([&] { return s.impl.started.load() == 1; }));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) EXPECT_EQ(c.call<&probe::add>(i, 1), i + 1);  // same connection
  EXPECT_LT(std::chrono::steady_clock::now() - start, 250ms);
  EXPECT_FALSE(slow.ready());
  EXPECT_EQ(slow.get(), 300);

  // On the wire: request 1 (slow) is answered after request 2 (add).
  probe_peer peer(s.uri);
  peer.call(1, "slow", std::nullopt, 150);
  peer.call(2, "add", std::nullopt, 20, 22);
  auto first = peer.read_frame();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->header.request_id, 2u);
  EXPECT_EQ(int_of(*first), 42);
  auto second = peer.read_frame();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->header.request_id, 1u);
  EXPECT_EQ(int_of(*second), 150);
}

TEST_P(server_pool, cancel_drops_a_queued_call_and_tells_a_running_handler) {
  auto stats = std::make_shared<rpctest::capture_stats>();
  auto log = std::make_shared<rpctest::capture_log>();
  served s(GetParam(), {.handler_threads = 1, .stats = stats, .log = log});
  probe_peer peer(s.uri);
  peer.call(1, "wait_cancel", std::nullopt, 3000);  // runs on the one handler thread
  ASSERT_TRUE(rpctest::eventually([&] { return s.impl.started.load() == 1; }));
  peer.call(2, "add", std::nullopt, 1, 2);  // queued behind it
  peer.send_control(rd::frame_kind::cancel, 2, id_of("add"));
  auto dropped = peer.read_frame();
  ASSERT_TRUE(dropped);
  EXPECT_EQ(dropped->header.request_id, 2u);
  const rd::error_payload e = rpctest::raw_peer::error_of(*dropped);
  EXPECT_EQ(e.code, status_code::cancelled);
  EXPECT_EQ(e.message, "probe.v1.add: cancelled by the caller before it started");

  const auto cancelled_at = std::chrono::steady_clock::now();
  peer.send_control(rd::frame_kind::cancel, 1, id_of("wait_cancel"));
  auto running = peer.read_frame();
  ASSERT_TRUE(running);
  EXPECT_EQ(running->header.request_id, 1u);
  EXPECT_EQ(int_of(*running), 1);  // the handler saw cancelled() and returned early
  EXPECT_LT(std::chrono::steady_clock::now() - cancelled_at, 1s);
  EXPECT_EQ(s.impl.saw_cancel.load(), 1);
  EXPECT_EQ(s.impl.adds.load(), 0);  // the queued add never ran

  peer.send_control(rd::frame_kind::cancel, 1);  // no longer in flight: ignored
  EXPECT_FALSE(log->wait_for(log_level::debug, "a cancel for request id 1, which is not in flight (ignored)").empty());
  peer.call(3, "add", std::nullopt, 2, 3);
  auto after = peer.read_frame();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->header.request_id, 3u);
  EXPECT_EQ(int_of(*after), 5);
  ASSERT_TRUE(stats->wait_calls(3));
  int cancelled = 0;
  for (const auto& r : stats->records()) cancelled += r.code == status_code::cancelled ? 1 : 0;
  EXPECT_EQ(cancelled, 1);

  // Through a client: pending::cancel() of a queued call.
  client<probe> c(s.uri);
  auto busy = c.async_call<&probe::slow>(200);
  auto queued = c.async_call<&probe::add>(5, 5);
  queued.cancel();
  expect_rpc_error([&] { (void)queued.get(); }, status_code::cancelled, "probe.v1.add: cancelled");
  EXPECT_EQ(busy.get(), 200);
  EXPECT_EQ(c.call<&probe::add>(1, 1), 2);
  EXPECT_EQ(s.impl.adds.load(), 2);  // 2 + 3 and 1 + 1 only
}

TEST_P(server_pool, a_request_past_its_deadline_is_not_run) {
  for (unsigned threads : {1u, 0u}) {
    SCOPED_TRACE("handler_threads " + std::to_string(threads));
    auto stats = std::make_shared<rpctest::capture_stats>();
    served s(GetParam(), {.handler_threads = threads, .stats = stats});
    probe_peer peer(s.uri);
    // Both in one write: with the pool the add waits in the queue, inline it
    // waits behind the slow handler of the same read batch.
    std::vector<std::byte> both;
    auto frame_bytes = [&](std::uint32_t id, std::string_view method, std::optional<std::uint32_t> ms,
                           std::vector<std::byte> args) {
      rd::frame_header h;
      h.kind = rd::frame_kind::request;
      h.codec = 1;
      h.request_id = id;
      h.method_id = id_of(method);
      const std::vector<std::byte> payload = rpctest::raw_peer::request_payload(h, args, ms);
      h.length = static_cast<std::uint32_t>(payload.size());
      std::array<std::byte, rd::header_size> head{};
      rd::write_header(h, head);
      both.insert(both.end(), head.begin(), head.end());
      both.insert(both.end(), payload.begin(), payload.end());
    };
    frame_bytes(1, "slow", 5000, refwire::serialize(std::tuple<int>{150}));
    frame_bytes(2, "add", 5, refwire::serialize(std::tuple<int, int>{1, 2}));
    frame_bytes(3, "add", 5000, refwire::serialize(std::tuple<int, int>{3, 4}));
    peer.send_bytes(both);
    auto got = peer.replies(3);
    EXPECT_EQ(int_of(got.at(1)), 150);
    const rd::error_payload e = rpctest::raw_peer::error_of(got.at(2));
    EXPECT_EQ(e.code, status_code::deadline_exceeded);
    EXPECT_EQ(e.message, "probe.v1.add: the caller's deadline (5 ms) passed before the call started");
    EXPECT_EQ(int_of(got.at(3)), 7);  // a generous deadline: run
    EXPECT_EQ(s.impl.adds.load(), 1);

    peer.call(4, "add", 0u, 1, 1);  // 0 ms: the caller has already given up
    const rd::error_payload zero = rpctest::raw_peer::error_of(*peer.read_frame());
    EXPECT_EQ(zero.code, status_code::deadline_exceeded);
    EXPECT_EQ(zero.message, "probe.v1.add: the caller's deadline (0 ms) passed before the call started");
    EXPECT_EQ(s.impl.adds.load(), 1);
    ASSERT_TRUE(stats->wait_calls(4));
    int exceeded = 0;
    for (const auto& r : stats->records()) exceeded += r.code == status_code::deadline_exceeded ? 1 : 0;
    EXPECT_EQ(exceeded, 2);
  }
}

TEST_P(server_pool, stop_fails_calls_past_drain_timeout) {
  auto log = std::make_shared<rpctest::capture_log>();
  auto s = std::make_unique<served>(GetParam(),
                                    refwire::rpc::server_options{.drain_timeout = 150ms, .handler_threads = 1,
                                                                 .log = log});
  client<probe> c(s->uri);
  EXPECT_EQ(c.call<&probe::add>(1, 2), 3);
  auto running = c.async_call<&probe::wait_cancel>(5000);
  ASSERT_TRUE(rpctest::eventually([&] { return s->impl.started.load() == 1; }));
  auto queued = c.async_call<&probe::add>(2, 2);
  std::this_thread::sleep_for(20ms);  // both requests are read
  const auto start = std::chrono::steady_clock::now();
  s->server.stop();
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 150ms);
  EXPECT_LT(took, 2s);
  const std::string why = "the server stopped before the call completed (drain_timeout 150 ms)";
  expect_rpc_error([&] { (void)running.get(); }, status_code::unavailable, "probe.v1.wait_cancel: " + why);
  expect_rpc_error([&] { (void)queued.get(); }, status_code::unavailable, "probe.v1.add: " + why);
  EXPECT_EQ(s->impl.saw_cancel.load(), 1);  // the running handler was told, and stop() waited for it
  EXPECT_EQ(s->impl.adds.load(), 1);        // the queued one never ran
  EXPECT_FALSE(log->wait_for(log_level::warning, "server: drain_timeout (150 ms) passed with 2 calls unanswered on 1 "
                                                 "connections: they fail with unavailable", 0ms)
                   .empty())
      << log->dump();

  // Calls that finish within the drain timeout are answered (pool and inline).
  for (unsigned threads : {2u, 0u}) {
    served t(GetParam(), {.drain_timeout = 2s, .handler_threads = threads});
    client<probe> d(t.uri);
    auto a = d.async_call<&probe::slow>(100);
    ASSERT_TRUE(rpctest::eventually([&] { return t.impl.started.load() == 1; }));
    t.server.stop();
    EXPECT_EQ(a.get(), 100);
  }
}

// -------------------------------------------------------------- the limits

TEST_P(server_limits, max_calls_in_flight_refuses_the_next_call) {
  auto log = std::make_shared<rpctest::capture_log>();
  served s(GetParam(), {.max_calls_in_flight = 2, .handler_threads = 2, .log = log});
  probe_peer peer(s.uri);
  peer.call(1, "slow", std::nullopt, 200);
  peer.call(2, "slow", std::nullopt, 200);  // at the limit: both run
  peer.call(3, "add", std::nullopt, 1, 2);  // one past it
  auto first = peer.read_frame();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->header.request_id, 3u);
  const rd::error_payload e = rpctest::raw_peer::error_of(*first);
  EXPECT_EQ(e.code, status_code::resource_exhausted);
  EXPECT_EQ(e.message, "probe.v1.add: 2 calls are in flight on this connection (max_calls_in_flight 2)");
  auto rest = peer.replies(2);
  EXPECT_EQ(int_of(rest.at(1)), 200);
  EXPECT_EQ(int_of(rest.at(2)), 200);
  peer.call(4, "add", std::nullopt, 1, 2);  // the connection stays
  auto ok = peer.read_frame();
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->header.request_id, 4u);
  EXPECT_EQ(int_of(*ok), 3);
  EXPECT_EQ(log->count(log_level::warning, "probe.v1.add: 2 calls are in flight on this connection "
                                           "(max_calls_in_flight 2)"),
            1u);
}

TEST_P(server_limits, idle_timeout_closes_a_silent_connection) {
  auto log = std::make_shared<rpctest::capture_log>();
  served s(GetParam(), {.idle_timeout = 150ms, .handler_threads = 1, .log = log});
  probe_peer silent(s.uri);
  const auto start = std::chrono::steady_clock::now();

  client<probe> busy(s.uri, {.reconnect = false});  // a closed connection would fail its next call
  for (int i = 0; i < 8; ++i) {                      // 320 ms of calls 40 ms apart
    EXPECT_EQ(busy.call<&probe::add>(i, i), 2 * i);
    std::this_thread::sleep_for(40ms);
  }
  EXPECT_EQ(busy.call<&probe::slow>(250), 250);  // a call running longer than idle_timeout: not idle

  EXPECT_TRUE(silent.closed_by_server(100ms));  // long closed by now
  EXPECT_EQ(log->count(log_level::warning, "idle_timeout (150 ms) passed with no frame"), 1u) << log->dump();
  const std::string closed = log->wait_for(log_level::info, "closed: idle_timeout (150 ms) passed with no frame", 0ms);
  EXPECT_FALSE(closed.empty()) << log->dump();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);

  probe_peer later(s.uri);
  const auto opened = std::chrono::steady_clock::now();
  EXPECT_TRUE(later.closed_by_server(2s));
  const auto waited = std::chrono::steady_clock::now() - opened;
  EXPECT_GE(waited, 140ms);
  EXPECT_LT(waited, 1s);
}

TEST_P(server_limits, write_timeout_closes_a_peer_that_stops_reading) {
  auto log = std::make_shared<rpctest::capture_log>();
  served s(GetParam(), {.write_timeout = 150ms, .log = log});
  probe_peer peer(s.uri);
  for (std::uint32_t i = 1; i <= 32; ++i) peer.call(i, "blob", std::nullopt, 512 << 10);  // 16 MiB of replies
  const std::string warned = log->wait_for(log_level::warning, "write_timeout (150 ms) passed with", 3s);
  EXPECT_FALSE(warned.empty()) << log->dump();
  EXPECT_NE(warned.find("bytes of replies unsent (the peer does not read)"), std::string::npos) << warned;
  EXPECT_TRUE(peer.closed_by_server(3s));
  EXPECT_FALSE(log->wait_for(log_level::info, "closed: write_timeout (150 ms) passed with replies unsent").empty());
  client<probe> good(s.uri);
  EXPECT_EQ(good.call<&probe::add>(1, 2), 3);
  // A peer that reads slowly but steadily is not closed.
  probe_peer slow_reader(s.uri);
  for (std::uint32_t i = 1; i <= 8; ++i) slow_reader.call(i, "blob", std::nullopt, 512 << 10);
  for (int i = 0; i < 8; ++i) {
    std::this_thread::sleep_for(20ms);
    auto f = slow_reader.read_frame();
    ASSERT_TRUE(f) << i;
    EXPECT_EQ(f->payload.size(), (512u << 10) + 3u);  // a string: its length (a 3-byte varint), then the bytes
  }
}

TEST_P(server_limits, max_connections_refuses_the_next_connection) {
  auto log = std::make_shared<rpctest::capture_log>();
  served s(GetParam(), {.max_connections = 2, .log = log});
  auto a = std::make_unique<client<probe>>(s.uri);
  client<probe> b(s.uri);
  EXPECT_EQ(a->call<&probe::add>(1, 1), 2);
  EXPECT_EQ(b.call<&probe::add>(2, 2), 4);  // at the limit: both work
  const std::string why = "the server has 2 connections open (max_connections 2)";
  expect_rpc_error([&] { client<probe> c(s.uri); }, status_code::resource_exhausted,
                   s.uri + " refused the connection: " + why);
  {
    rpctest::raw_peer raw(s.uri);  // told at once, without a handshake of its own
    const rd::error_payload e = raw.read_error();
    EXPECT_EQ(e.code, status_code::resource_exhausted);
    EXPECT_EQ(e.message, why);
  }
  EXPECT_GE(log->count(log_level::warning, " refused: " + why), 2u) << log->dump();
  a.reset();  // one closes: a new one is accepted
  bool accepted = rpctest::eventually([&] {
    try {
      client<probe> c(s.uri);
      return c.call<&probe::add>(3, 3) == 6;
    } catch (const refwire::rpc::rpc_error&) {
      return false;
    }
  });
  EXPECT_TRUE(accepted);
  EXPECT_EQ(b.call<&probe::add>(2, 2), 4);
}

// --------------------------------------------------------------- the hooks

TEST_P(server_hooks, stats_count_calls_errors_and_bytes) {
  for (unsigned threads : {0u, 2u}) {
    SCOPED_TRACE("handler_threads " + std::to_string(threads));
    auto stats = std::make_shared<rpctest::capture_stats>();
    served s(GetParam(), {.handler_threads = threads, .stats = stats});
    probe_peer peer(s.uri);
    for (std::uint32_t i = 1; i <= 3; ++i) {
      peer.call(i, "add", std::nullopt, 1, 2);
      ASSERT_TRUE(peer.read_frame());
    }
    peer.call(4, "divide", 1000u, 1, 0);  // the handler throws; a deadline prefix counts as payload
    ASSERT_TRUE(peer.read_frame());
    peer.send_request(5, id_of("add"), std::vector<std::byte>{std::byte{1}});  // does not decode
    const auto bad = peer.read_frame();
    ASSERT_TRUE(bad);
    peer.send_request(0, id_of("note"), refwire::serialize(std::tuple<std::string>{"hi"}), std::nullopt, true);
    ASSERT_TRUE(stats->wait_calls(6));
    auto records = stats->records();  // each is recorded after its reply went: pool threads may swap them
    ASSERT_EQ(records.size(), 6u);
    std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
      return std::tie(a.method, a.code) < std::tie(b.method, b.code);
    });
    // add ok x3, add invalid_argument, divide internal, note ok
    for (int i = 0; i < 3; ++i) {
      const auto& r = records[static_cast<std::size_t>(i)];
      EXPECT_EQ(r.side, refwire::rpc::call_side::server);
      EXPECT_EQ(r.method, "probe.v1.add");
      EXPECT_EQ(r.method_id, id_of("add"));
      EXPECT_EQ(r.code, status_code::ok);
      EXPECT_EQ(r.request_bytes, 8u);   // two i32
      EXPECT_EQ(r.response_bytes, 4u);  // one i32
      EXPECT_GT(r.latency.count(), 0);
      EXPECT_LT(r.latency, 1s);
    }
    EXPECT_EQ(records[3].method, "probe.v1.add");
    EXPECT_EQ(records[3].code, status_code::invalid_argument);
    EXPECT_EQ(records[3].request_bytes, 1u);
    EXPECT_EQ(records[3].response_bytes, bad->payload.size());
    EXPECT_EQ(records[4].method, "probe.v1.divide");
    EXPECT_EQ(records[4].code, status_code::internal);
    EXPECT_EQ(records[4].request_bytes, 8u);  // the arguments, not the 4-byte deadline prefix
    EXPECT_GT(records[4].response_bytes, 20u);  // the error payload: code, type and message
    EXPECT_EQ(records[5].method, "probe.v1.note");
    EXPECT_EQ(records[5].code, status_code::ok);
    EXPECT_EQ(records[5].response_bytes, 0u);  // one way: no reply
  }
}

TEST_P(server_hooks, log_reports_connections_and_refusals) {
  auto log = std::make_shared<rpctest::capture_log>(log_level::debug, std::chrono::microseconds(30000));
  served s(GetParam(), {.handler_threads = 1, .log = log});
  {
    client<probe> c(s.uri);
    EXPECT_EQ(c.call<&probe::slow>(60), 60);  // slower than slow_call (30 ms)
    EXPECT_EQ(c.call<&probe::add>(1, 1), 2);  // not slow
  }
  const std::string opened = log->wait_for(log_level::info, " opened on " + s.uri);
  ASSERT_FALSE(opened.empty()) << log->dump();
  EXPECT_EQ(opened.rfind("server: connection from ", 0), 0u) << opened;
  if (GetParam() != transport::tcp) {  // unix, shm and inproc know the peer's process
    EXPECT_NE(opened.find("(pid " + std::to_string(::getpid()) + ", uid " + std::to_string(::getuid()) + ")"),
              std::string::npos)
        << opened;
  } else {
    EXPECT_NE(opened.find("from tcp://127.0.0.1:"), std::string::npos) << opened;
  }
  EXPECT_FALSE(log->wait_for(log_level::info, "closed: the peer closed").empty()) << log->dump();
  const std::string slow = log->wait_for(log_level::warning, ": probe.v1.slow took ", 0ms);
  EXPECT_NE(slow.find(" ms (slow_call 30.0 ms)"), std::string::npos) << log->dump();
  EXPECT_EQ(log->count(log_level::warning, "probe.v1.add took"), 0u);

  rpctest::raw_peer bad(s.uri);
  std::vector<std::byte> junk(32, std::byte{0xee});
  bad.send_bytes(junk);
  EXPECT_TRUE(bad.closed_by_server());
  const std::string why = "protocol version 238 is not supported (this side speaks version 1)";
  EXPECT_FALSE(log->wait_for(log_level::warning, " refused: " + why).empty()) << log->dump();
  EXPECT_FALSE(log->wait_for(log_level::info, " closed: " + why).empty()) << log->dump();

  // A logger that wants warnings only is not handed info lines.
  auto quiet = std::make_shared<rpctest::capture_log>(log_level::warning);
  served q(GetParam(), {.log = quiet});
  {
    client<probe> c(q.uri);
    EXPECT_EQ(c.call<&probe::add>(1, 1), 2);
  }
  rpctest::raw_peer bad2(q.uri);
  bad2.send_bytes(junk);
  EXPECT_TRUE(bad2.closed_by_server());
  EXPECT_FALSE(quiet->wait_for(log_level::warning, " refused: " + why).empty());
  for (const auto& l : quiet->lines()) EXPECT_GE(l.level, log_level::warning) << l.message;
}

TEST_P(server_hooks, no_hook_means_no_clock_read) {
  rpctest::counting_hook_clock clock;
  for (unsigned threads : {0u, 2u}) {
    SCOPED_TRACE("handler_threads " + std::to_string(threads));
    {
      served s(GetParam(), {.handler_threads = threads});
      client<probe> c(s.uri);
      clock.reset();
      for (int i = 0; i < 1000; ++i) ASSERT_EQ(c.call<&probe::add>(i, 1), i + 1);
      EXPECT_EQ(clock.reads(), 0);
    }
    {  // a logger without slow_call needs no clock either
      served s(GetParam(), {.handler_threads = threads, .log = std::make_shared<rpctest::capture_log>()});
      client<probe> c(s.uri);
      clock.reset();
      for (int i = 0; i < 1000; ++i) ASSERT_EQ(c.call<&probe::add>(i, 1), i + 1);
      EXPECT_EQ(clock.reads(), 0);
    }
    {
      auto stats = std::make_shared<rpctest::capture_stats>(false);
      served s(GetParam(), {.handler_threads = threads, .stats = stats});
      client<probe> c(s.uri);
      clock.reset();
      for (int i = 0; i < 1000; ++i) ASSERT_EQ(c.call<&probe::add>(i, 1), i + 1);
      EXPECT_TRUE(stats->wait_calls(1000));  // each is recorded just after its reply went
      EXPECT_GE(clock.reads(), 1000);
      EXPECT_EQ(stats->calls(), 1000);
    }
  }
}

// ---------------------------------------------------------- the call context

TEST_P(server_context, a_handler_sees_its_peer_method_and_deadline) {
  for (unsigned threads : {0u, 2u}) {
    SCOPED_TRACE("handler_threads " + std::to_string(threads));
    served s(GetParam(), {.handler_threads = threads});
    probe_peer peer(s.uri);
    const auto before = std::chrono::steady_clock::now();
    peer.send_request(42, id_of("context"), {}, 5000u);
    auto f = peer.read_frame();
    const auto after = std::chrono::steady_clock::now();
    ASSERT_TRUE(f);
    ASSERT_EQ(f->header.kind, rd::frame_kind::response);
    EXPECT_EQ(std::get<0>(refwire::deserialize<std::tuple<std::string>>(f->payload)), "probe.v1.context");
    seen_context seen = s.impl.last();
    EXPECT_EQ(seen.method, "probe.v1.context");
    EXPECT_EQ(seen.request_id, 42u);
    EXPECT_FALSE(seen.one_way);
    EXPECT_FALSE(seen.cancelled);
    EXPECT_GE(seen.deadline, before + 5000ms);  // counted from when the server read the request
    EXPECT_LE(seen.deadline, after + 5000ms);
    switch (GetParam()) {
      case transport::tcp: EXPECT_EQ(seen.peer.rfind("tcp://127.0.0.1:", 0), 0u) << seen.peer; break;
      case transport::unix_socket: EXPECT_EQ(seen.peer.rfind("unix://", 0), 0u) << seen.peer; break;
      case transport::inproc: EXPECT_EQ(seen.peer.rfind("inproc://", 0), 0u) << seen.peer; break;
      case transport::shm: EXPECT_EQ(seen.peer.rfind("shm://", 0), 0u) << seen.peer; break;
    }
    if (GetParam() != transport::tcp) {
      EXPECT_EQ(seen.pid, static_cast<std::uint32_t>(::getpid()));
      EXPECT_EQ(seen.uid, static_cast<std::uint32_t>(::getuid()));
    }

    peer.send_request(43, id_of("context"), {});  // no deadline
    ASSERT_TRUE(peer.read_frame());
    EXPECT_EQ(s.impl.last().deadline, std::chrono::steady_clock::time_point::max());

    client<probe> c(s.uri);
    c.notify<&probe::note>("one way");
    ASSERT_TRUE(rpctest::eventually([&] { return s.impl.notes.load() == 1; }));
    seen = s.impl.last();
    EXPECT_EQ(seen.method, "probe.v1.note");
    EXPECT_TRUE(seen.one_way);
    EXPECT_EQ(seen.request_id, 0u);
    EXPECT_EQ(refwire::rpc::call_context::current(), nullptr);  // not inside a handler
  }
}

}  // namespace
