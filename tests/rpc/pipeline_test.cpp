// Pipelining on one connection: many callers' frames coalesced into one write
// (the client's write queue on its own, against a stream that counts its
// writes; the client against a fake server), a read's every whole frame
// dispatched before the next read, the server writing the replies to a batch
// of pipelined requests in one write, and many threads sharing one client
// with deadlines and cancels mixed in, with and without a handler pool, over
// every transport.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <refwire/rpc.hpp>
#include <refwire/serialization.hpp>

#include "../../rpc/src/write_queue.hpp"
#include "fake_server.hpp"
#include "rpc_support.hpp"
#include "test_service.hpp"

namespace {

using namespace std::chrono_literals;
using refwire::rpc::client;
using refwire::rpc::rpc_error;
using refwire::rpc::status_code;
using rpctest::calculator;
using rpctest::fake_peer;
using rpctest::fake_server;
using rpctest::transport;
namespace rd = refwire::rpc::detail;
namespace tr = refwire::transports;
using steady = std::chrono::steady_clock;

// ------------------------------------------------------- the write queue alone

/// A stream that records every write_all (its bytes and where its parts
/// came from); the first write can be held until release().
class recording_stream final : public tr::stream {
 public:
  struct write {
    std::vector<std::byte> bytes;
    std::vector<const std::byte*> part_data;
  };

  std::size_t read_some(std::span<std::byte>, tr::time_point) override { throw std::logic_error("not read"); }
  void write_all(tr::buffer_list parts, tr::time_point) override {
    std::unique_lock lock(mutex_);
    write w;
    for (const auto& p : parts) {
      w.bytes.insert(w.bytes.end(), p.begin(), p.end());
      w.part_data.push_back(p.data());
    }
    writes_.push_back(std::move(w));
    in_write_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return !hold_; });
    in_write_ = false;
    if (fail_) throw tr::transport_error(tr::errc::io_error, "test: broken pipe");
  }
  std::size_t try_write(tr::buffer_list) override { throw std::logic_error("not try_write"); }
  void async_read_some(std::span<std::byte>, std::function<void(tr::errc, std::size_t)>) override {}
  void async_wait_writable(std::function<void(tr::errc)>) override {}
  void close() noexcept override {}
  [[nodiscard]] const tr::peer_identity& peer() const noexcept override { return peer_; }

  void hold() {
    std::lock_guard lock(mutex_);
    hold_ = true;
  }
  void release(bool fail = false) {
    std::lock_guard lock(mutex_);
    hold_ = false;
    fail_ = fail;
    changed_.notify_all();
  }
  /// Waits until a write is in progress (held).
  bool wait_in_write() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 5s, [&] { return in_write_; });
  }
  std::vector<write> writes() {
    std::lock_guard lock(mutex_);
    return writes_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool hold_ = false;
  bool fail_ = false;
  bool in_write_ = false;
  std::vector<write> writes_;
  tr::peer_identity peer_;
};

/// A frame of `size` bytes filled with `tag`.
std::vector<std::byte> frame_of(std::size_t size, int tag) {
  return std::vector<std::byte>(size, static_cast<std::byte>(tag));
}

TEST(write_queue, a_caller_alone_writes_from_its_own_memory) {
  recording_stream s;
  rd::write_queue q;
  const auto head = frame_of(24, 1);
  const auto payload = frame_of(100, 2);
  const std::span<const std::byte> parts[] = {head, payload};
  ASSERT_TRUE(q.send(s, parts, steady::now() + 1s));
  const auto w = s.writes();
  ASSERT_EQ(w.size(), 1u);
  ASSERT_EQ(w[0].part_data.size(), 2u);
  EXPECT_EQ(w[0].part_data[0], head.data());  // not copied
  EXPECT_EQ(w[0].part_data[1], payload.data());
  EXPECT_EQ(w[0].bytes.size(), 124u);
  EXPECT_EQ(q.queued_bytes(), 0u);
}

TEST(write_queue, frames_sent_while_one_writes_go_out_whole_in_one_more_write) {
  recording_stream s;
  rd::write_queue q;
  s.hold();
  const auto first = frame_of(40, 100);
  std::thread leader([&] {
    const std::span<const std::byte> parts[] = {first};
    EXPECT_TRUE(q.send(s, parts, steady::now() + 5s));
  });
  ASSERT_TRUE(s.wait_in_write());
  constexpr int callers = 7;
  std::vector<std::thread> others;
  std::atomic<int> returned{0};
  for (int i = 0; i < callers; ++i) {
    others.emplace_back([&, i] {
      const auto head = frame_of(24, i);
      const auto payload = frame_of(static_cast<std::size_t>(10 + i), i);
      const std::span<const std::byte> parts[] = {head, payload};
      EXPECT_TRUE(q.send(s, parts, steady::now() + 5s));  // queued: returns while the leader's write is held
      returned.fetch_add(1);
    });
  }
  for (auto& t : others) t.join();
  EXPECT_EQ(returned.load(), callers);
  EXPECT_EQ(s.writes().size(), 1u) << "a caller whose frame was queued made a write of its own";
  EXPECT_EQ(q.queued_bytes(), static_cast<std::size_t>(callers * 24 + 10 * callers + 21));
  s.release();
  leader.join();
  const auto w = s.writes();
  ASSERT_EQ(w.size(), 2u);  // the leader's own frame, then everything queued meanwhile in one write
  EXPECT_EQ(w[0].bytes, first);
  // The second write: seven whole frames, one after another, in the order queued.
  std::vector<int> tags;
  std::size_t at = 0;
  const auto& b = w[1].bytes;
  while (at < b.size()) {
    const int tag = static_cast<int>(b[at]);
    const std::size_t size = 24 + 10 + static_cast<std::size_t>(tag);
    ASSERT_LE(at + size, b.size());
    for (std::size_t k = 0; k < size; ++k) ASSERT_EQ(static_cast<int>(b[at + k]), tag) << "a frame cut at byte " << k;
    tags.push_back(tag);
    at += size;
  }
  std::sort(tags.begin(), tags.end());
  EXPECT_EQ(tags, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(q.queued_bytes(), 0u);
}

TEST(write_queue, a_frame_too_large_to_copy_waits_for_the_writer_only_until_its_deadline) {
  recording_stream s;
  rd::write_queue q;
  s.hold();
  const auto first = frame_of(40, 1);
  std::thread leader([&] {
    const std::span<const std::byte> parts[] = {first};
    EXPECT_TRUE(q.send(s, parts, steady::now() + 5s));
  });
  ASSERT_TRUE(s.wait_in_write());
  const auto big = frame_of(rd::write_queue::copy_max + 1, 2);
  const std::span<const std::byte> parts[] = {big};
  const auto t0 = steady::now();
  EXPECT_FALSE(q.send(s, parts, t0 + 50ms));  // handed nothing over
  EXPECT_GE(steady::now() - t0, 50ms);
  EXPECT_EQ(q.queued_bytes(), 0u);
  // Once the role is free, it is written by its own caller, from its memory.
  std::thread second([&] { EXPECT_TRUE(q.send(s, parts, steady::now() + 5s)); });
  std::this_thread::sleep_for(20ms);
  s.release();
  leader.join();
  second.join();
  const auto w = s.writes();
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[1].part_data, (std::vector<const std::byte*>{big.data()}));
}

TEST(write_queue, a_failed_write_drops_what_was_queued_and_frees_the_role) {
  recording_stream s;
  rd::write_queue q;
  s.hold();
  const auto first = frame_of(40, 1);
  std::thread leader([&] {
    const std::span<const std::byte> parts[] = {first};
    try {
      (void)q.send(s, parts, steady::now() + 5s);
      ADD_FAILURE() << "the leader's failed write did not throw";
    } catch (const tr::transport_error& e) {
      EXPECT_EQ(e.code(), tr::errc::io_error);
    }
  });
  ASSERT_TRUE(s.wait_in_write());
  const auto queued = frame_of(30, 2);
  const std::span<const std::byte> qparts[] = {queued};
  EXPECT_TRUE(q.send(s, qparts, steady::now() + 5s));
  s.release(true);
  leader.join();
  EXPECT_EQ(q.queued_bytes(), 0u);
  EXPECT_EQ(s.writes().size(), 1u);  // the queued frame was not written after the failure
}

// ------------------------------------------------- the client, over transports

class pipeline : public testing::TestWithParam<transport> {};
INSTANTIATE_TEST_SUITE_P(every_transport, pipeline,
                         testing::Values(transport::inproc, transport::unix_socket, transport::tcp, transport::shm),
                         [](const testing::TestParamInfo<transport>& p) { return rpctest::to_string(p.param); });

/// A response frame (header and payload) to a request, answered as the calculator would.
std::vector<std::byte> reply_bytes(const fake_peer& peer, const rpctest::seen_frame& f) {
  const std::vector<std::byte> args = fake_peer::arguments(f);
  std::vector<std::byte> payload;
  if (peer.method_name(f.header.method_id) == "calc.v1.add") {
    const auto [a, b] = refwire::deserialize<std::tuple<int, int>>(args);
    payload = refwire::serialize(std::tuple<int>{a + b});
  } else {
    payload = refwire::serialize(refwire::deserialize<std::tuple<std::string>>(args));
  }
  rd::frame_header h;
  h.kind = rd::frame_kind::response;
  h.codec = f.header.codec;
  h.request_id = f.header.request_id;
  h.method_id = f.header.method_id;
  h.length = static_cast<std::uint32_t>(payload.size());
  std::vector<std::byte> out(rd::header_size);
  rd::write_header(h, std::span<std::byte, rd::header_size>(out.data(), rd::header_size));
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

// While one call's write holds the stream (a request larger than the socket
// takes, to a server not reading yet), the other callers' requests are
// handed to it: they reach the server although every one of those callers
// gave up before the server read a byte. (Each waiting for the stream to
// write its own frame would have failed unsent: "could not be sent before the
// deadline".)
TEST_P(pipeline, requests_made_while_another_writes_are_handed_to_the_writer) {
  rpctest::temp_dir dir;
  constexpr int callers = 6;
  std::mutex m;
  std::condition_variable cv;
  bool go = false;
  fake_server fake(GetParam(), dir, [&](fake_peer& p, int) {
    p.answer_handshake();
    {
      std::unique_lock lock(m);
      cv.wait_for(lock, 10s, [&] { return go; });
    }
    for (int seen = 0; seen < callers + 1;) {
      auto f = p.read_frame();
      if (!f) return;
      if (f->header.kind != rd::frame_kind::request) continue;
      ++seen;
      if (p.method_name(f->header.method_id) == "calc.v1.echo") {
        p.send_error(f->header.request_id, f->header.method_id, status_code::internal, "too long to echo");
      }
    }
    p.serve();
  });
  client<calculator> calc(fake.uri());
  const std::string big(12u << 20, 'x');  // more than any of the transports' buffers
  std::thread writer([&] {
    rpctest::expect_rpc_error([&] { (void)calc.call<&calculator::echo>({.timeout = 20s}, big); },
                              status_code::internal, "too long to echo");
  });
  std::this_thread::sleep_for(200ms);  // the big request is being written: the stream is full
  std::vector<std::thread> small;
  for (int i = 0; i < callers; ++i) {
    small.emplace_back([&, i] {
      rpctest::expect_rpc_error([&] { (void)calc.call<&calculator::add>({.timeout = 300ms}, i, 1000); },
                                status_code::deadline_exceeded, "calc.v1.add: no reply before the deadline");
    });
  }
  for (auto& t : small) t.join();
  {
    std::lock_guard lock(m);
    go = true;
  }
  cv.notify_all();
  writer.join();
  EXPECT_EQ(calc.call<&calculator::add>(2, 3), 5);  // the connection is whole
  fake.stop();
  std::vector<int> firsts;
  for (const auto& f : fake.frames(rd::frame_kind::request)) {
    if (f.header.length > 64) continue;  // the big one
    const auto [a, b] = refwire::deserialize<std::tuple<int, int>>(fake_peer::arguments(f));
    if (b == 1000) firsts.push_back(a);
  }
  std::sort(firsts.begin(), firsts.end());
  EXPECT_EQ(firsts, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(fake.connections(), 1);
}

// A reply in the same read as the reader's own is handed over before the
// reader returns: an async call whose reply came just behind a blocking
// call's is ready when that call returns, though nobody waited for it.
TEST_P(pipeline, every_whole_frame_of_a_read_is_dispatched_before_the_reader_returns) {
  rpctest::temp_dir dir;
  fake_server fake(GetParam(), dir, [](fake_peer& p, int) {
    p.answer_handshake();
    auto first = p.read_frame();  // the async call's request
    auto second = p.read_frame();
    if (!first || !second) return;
    std::vector<std::byte> both = reply_bytes(p, *second);  // the blocking call's reply first
    const auto other = reply_bytes(p, *first);
    both.insert(both.end(), other.begin(), other.end());
    p.send_bytes(both);  // one write
    p.serve();
  });
  client<calculator> calc(fake.uri());
  auto pending = calc.async_call<&calculator::add>(40, 2);
  EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
  EXPECT_TRUE(pending.ready());
  EXPECT_EQ(pending.get(), 42);
}

// N callers' requests answered by the fake server in ONE write: every call completes with its own result.
TEST_P(pipeline, replies_in_one_write_complete_every_caller) {
  rpctest::temp_dir dir;
  constexpr int callers = 8;
  fake_server fake(GetParam(), dir, [](fake_peer& p, int) {
    p.answer_handshake();
    std::vector<std::byte> replies;
    for (int seen = 0; seen < callers;) {
      auto f = p.read_frame();
      if (!f) return;
      if (f->header.kind != rd::frame_kind::request) continue;
      ++seen;
      const auto r = reply_bytes(p, *f);
      replies.insert(replies.begin(), r.begin(), r.end());  // the last request's reply first
    }
    p.send_bytes(replies);
    p.serve();
  });
  client<calculator> calc(fake.uri());
  std::vector<std::thread> threads;
  std::atomic<int> right{0};
  for (int i = 0; i < callers; ++i) {
    threads.emplace_back([&, i] {
      if (calc.call<&calculator::add>({.timeout = 10s}, i, 100) == i + 100) right.fetch_add(1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(right.load(), callers);
}

// ------------------------------------------------------------------- the server

/// A hand-made client of calculator: handshake, then frames written and read raw.
class raw_client {
 public:
  explicit raw_client(const std::string& uri)
      : stream_(tr::connect(io_, tr::parse_uri(uri), steady::now() + 5s)) {
    rd::handshake h;
    h.codec = refwire::rpc::codec::binary;
    h.max_frame_size = 1u << 20;
    for (const auto& m : rd::methods_of<calculator>()) h.methods.push_back({m.id, m.full_name, m.signature, m.shape});
    std::vector<std::byte> payload;
    rd::encode(h, payload);
    rd::frame_header head;
    head.kind = rd::frame_kind::handshake;
    append_frame(out_, head, payload);
    flush();
    const auto replies = read_once(1);
    if (replies.size() != 1 || replies[0].kind != rd::frame_kind::handshake_reply)
      throw std::runtime_error("no handshake reply");
  }

  static std::uint32_t id_of(std::string_view name) {
    for (const auto& m : rd::methods_of<calculator>()) {
      if (m.name == name) return m.id;
    }
    throw std::runtime_error("no such method");
  }

  /// Queues a request (sent by flush()).
  template <class... A>
  void request(std::uint32_t request_id, std::string_view method, const A&... args) {
    rd::frame_header h;
    h.kind = rd::frame_kind::request;
    h.codec = static_cast<std::uint8_t>(refwire::rpc::codec::binary);
    h.request_id = request_id;
    h.method_id = id_of(method);
    append_frame(out_, h, refwire::serialize(std::tuple<A...>{args...}));
  }

  /// Everything queued, in one write.
  void flush() {
    const std::span<const std::byte> parts[] = {out_};
    stream_->write_all(parts, steady::now() + 5s);
    out_.clear();
  }

  /// The frames one read_some brings (it waits for at least `at_least`
  /// whole frames only when the first read ends in the middle of one).
  std::vector<rd::frame_header> read_once(std::size_t at_least) {
    std::vector<std::byte> buf(1u << 20);
    reads_ = 1;
    std::size_t have = stream_->read_some(buf, steady::now() + 5s);
    std::vector<rd::frame_header> frames;
    std::size_t at = 0;
    for (;;) {
      if (have - at < rd::header_size) {
        if (at == have || frames.size() >= at_least) break;
      } else {
        std::string why;
        auto h = rd::parse_header(std::span<const std::byte, rd::header_size>(buf.data() + at, rd::header_size),
                                  1u << 20, why);
        if (!h) throw std::runtime_error("bad frame from the server: " + why);
        if (have - at - rd::header_size >= h->length) {
          frames.push_back(*h);
          payloads_.emplace_back(buf.begin() + static_cast<std::ptrdiff_t>(at + rd::header_size),
                                 buf.begin() + static_cast<std::ptrdiff_t>(at + rd::header_size + h->length));
          at += rd::header_size + h->length;
          continue;
        }
      }
      // a frame cut by the read: the rest (counted as a second read)
      have += stream_->read_some(std::span<std::byte>(buf).subspan(have), steady::now() + 5s);
      ++reads_;
    }
    if (at != have) throw std::runtime_error("bytes after the last whole frame");
    return frames;
  }

  [[nodiscard]] const std::vector<std::vector<std::byte>>& payloads() const { return payloads_; }
  /// How many read_some calls the last read_once made.
  [[nodiscard]] int reads() const { return reads_; }

 private:
  static void append_frame(std::vector<std::byte>& out, rd::frame_header h, std::span<const std::byte> payload) {
    h.length = static_cast<std::uint32_t>(payload.size());
    const std::size_t at = out.size();
    out.resize(at + rd::header_size);
    rd::write_header(h, std::span<std::byte, rd::header_size>(out.data() + at, rd::header_size));
    out.insert(out.end(), payload.begin(), payload.end());
  }

  boost::asio::io_context io_;
  std::unique_ptr<tr::stream> stream_;
  std::vector<std::byte> out_;
  std::vector<std::vector<std::byte>> payloads_;
  int reads_ = 0;
};

/// A server of calculator on transport t.
struct served {
  served(transport t, const refwire::rpc::server_options& o) : server(o) {
    server.serve<calculator>(impl);
    uri = server.listen(rpctest::listen_uri(t, dir));
    server.start();
  }
  rpctest::temp_dir dir;
  rpctest::calculator_impl impl;
  refwire::rpc::server server;
  std::string uri;
};

// With inline handlers, the replies to the requests that one read brought go
// out in one write, after the last of them: here the last is slow, and the
// earlier replies still come with its reply, in the same read (they would
// come first, alone, were each written as its handler returned).
TEST_P(pipeline, server_writes_the_replies_to_a_pipelined_batch_in_one_write) {
  served s(GetParam(), {});
  raw_client peer(s.uri);
  constexpr int k = 16;
  for (int i = 1; i < k; ++i) peer.request(static_cast<std::uint32_t>(i), "add", i, 1000);
  peer.request(k, "sleep_ms", 150);
  peer.flush();
  const auto frames = peer.read_once(k);
  EXPECT_EQ(peer.reads(), 1) << "the replies came in more than one read";
  ASSERT_EQ(frames.size(), static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    EXPECT_EQ(frames[static_cast<std::size_t>(i)].kind, rd::frame_kind::response);
    EXPECT_EQ(frames[static_cast<std::size_t>(i)].request_id, static_cast<std::uint32_t>(i + 1));  // in order
    if (i + 1 < k) {
      EXPECT_EQ(std::get<0>(refwire::deserialize<std::tuple<int>>(peer.payloads()[static_cast<std::size_t>(i) + 1])),
                i + 1 + 1000);
    }
  }
}

// With a pool, the replies to K pipelined requests all arrive, each once, with its result.
TEST_P(pipeline, server_with_a_pool_answers_every_pipelined_request_once) {
  served s(GetParam(), {.handler_threads = 4});
  raw_client peer(s.uri);
  constexpr int k = 200;
  for (int i = 1; i <= k; ++i) peer.request(static_cast<std::uint32_t>(i), "add", i, 7);
  peer.flush();
  std::vector<int> seen(k + 1, 0);
  std::size_t got = 0;
  while (got < k) {
    const std::size_t before = peer.payloads().size();
    const auto frames = peer.read_once(1);
    for (std::size_t f = 0; f < frames.size(); ++f) {
      ASSERT_EQ(frames[f].kind, rd::frame_kind::response);
      const std::uint32_t id = frames[f].request_id;
      ASSERT_TRUE(id >= 1 && id <= k) << id;
      ++seen[id];
      EXPECT_EQ(std::get<0>(refwire::deserialize<std::tuple<int>>(peer.payloads()[before + f])),
                static_cast<int>(id) + 7);
    }
    got += frames.size();
  }
  for (int i = 1; i <= k; ++i) EXPECT_EQ(seen[static_cast<std::size_t>(i)], 1) << "request " << i;
}

// --------------------------------------------------------- under contention

void contend(transport where, const refwire::rpc::server_options& o) {
  served s(where, o);
  auto log = std::make_shared<rpctest::capture_log>(refwire::rpc::log_level::info);
  client<calculator> calc(s.uri, {.log = log});
  constexpr int threads = 8;
  constexpr int calls = 2000;
  std::atomic<int> right{0}, wrong{0}, timed_out{0}, cancelled{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t) * 7919u + 1u);
      for (int i = 0; i < calls; ++i) {
        const int a = t * 100000 + i;
        const auto pick = rng() % 100;
        try {
          if (pick < 3) {  // cancelled at once: cancelled, unless the reply was in already
            auto p = calc.async_call<&calculator::add>(a, 3);
            if (rng() % 2 == 0) std::this_thread::yield();
            p.cancel();
            try {
              if (p.get() == a + 3) {
                right.fetch_add(1);
              } else {
                wrong.fetch_add(1);
              }
            } catch (const rpc_error& e) {
              if (e.code() == status_code::cancelled) {
                cancelled.fetch_add(1);
              } else {
                wrong.fetch_add(1);
                ADD_FAILURE() << e.what();
              }
            }
          } else if (pick < 5) {  // a deadline shorter than the handler
            try {
              calc.call<&calculator::sleep_ms>({.timeout = 1ms}, 3);
              right.fetch_add(1);  // the server was quick after all (the deadline rounds up)
            } catch (const rpc_error& e) {
              if (e.code() == status_code::deadline_exceeded) {
                timed_out.fetch_add(1);
              } else {
                wrong.fetch_add(1);
                ADD_FAILURE() << e.what();
              }
            }
          } else if (pick < 8) {  // a random deadline on a quick call
            const auto timeout = std::chrono::milliseconds(1 + static_cast<int>(rng() % 5));
            try {
              if (calc.call<&calculator::add>({.timeout = timeout}, a, 2) == a + 2) {
                right.fetch_add(1);
              } else {
                wrong.fetch_add(1);
              }
            } catch (const rpc_error& e) {
              if (e.code() == status_code::deadline_exceeded) {
                timed_out.fetch_add(1);
              } else {
                wrong.fetch_add(1);
                ADD_FAILURE() << e.what();
              }
            }
          } else if (calc.call<&calculator::add>({.timeout = 30s}, a, 1) == a + 1) {
            right.fetch_add(1);
          } else {
            wrong.fetch_add(1);
          }
        } catch (const std::exception& e) {
          wrong.fetch_add(1);
          ADD_FAILURE() << "thread " << t << " call " << i << ": " << e.what();
        }
      }
    });
  }
  for (auto& th : ts) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(right.load() + timed_out.load() + cancelled.load(), threads * calls);
  EXPECT_GT(right.load(), threads * calls * 9 / 10);
  EXPECT_EQ(calc.call<&calculator::add>(2, 3), 5);
  // One connection throughout: a half frame, or a reply for no call, would have broken it.
  EXPECT_EQ(log->count(refwire::rpc::log_level::info, "opened"), 1u) << log->dump();
  EXPECT_EQ(log->count(refwire::rpc::log_level::info, "closed"), 0u) << log->dump();
  EXPECT_EQ(log->count(refwire::rpc::log_level::warning, ""), 0u) << log->dump();
}

TEST_P(pipeline, eight_threads_share_one_client_with_inline_handlers) { contend(GetParam(), {}); }

TEST_P(pipeline, eight_threads_share_one_client_with_a_handler_pool) {
  contend(GetParam(), {.handler_threads = 3});
}

}  // namespace
