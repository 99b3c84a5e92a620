// What every transport's streams do, run over unix sockets, TCP, inproc and shm:
// round trips, gather writes, deadlines, the bounded buffer seen through
// try_write and async_wait_writable, close from another thread, end of stream,
// the asynchronous side on an io_context.
#include "helpers.hpp"

#include <refwire/transports/transport.hpp>

#include <boost/asio/io_context.hpp>

#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace refwire::transports::test {
namespace {

class TransportStream : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    l = listen(io, parse_uri(where()));
    client = connect(io, parse_uri(l->uri()), in(2s));
    server = accept_one(io, *l);
    ASSERT_NE(server, nullptr);
  }

  [[nodiscard]] std::string where() const {
    if (GetParam() == "unix") return "unix://" + dir.file("s.sock");
    if (GetParam() == "tcp") return "tcp://127.0.0.1:0";
    static std::atomic<int> next{0};
    if (GetParam() == "shm") return "shm://stream-test-" + std::to_string(::getpid()) + "-" + std::to_string(next++);
    return "inproc://stream-test-" + std::to_string(next++);
  }

  /// Fills client's direction with try_write until it returns short; returns the total.
  std::size_t fill_client() {
    const std::vector<std::byte> chunk = pattern(1 << 20);
    const std::span<const std::byte> parts[] = {chunk};
    std::size_t total = 0;
    for (int i = 0; i < 512; ++i) {
      const std::size_t n = client->try_write(parts);
      total += n;
      if (n < chunk.size()) return total;
    }
    ADD_FAILURE() << "512 MiB taken without a short write";
    return total;
  }

  boost::asio::io_context io;  // first: outlives the streams
  temp_dir dir;
  std::unique_ptr<listener> l;
  std::unique_ptr<stream> client;
  std::unique_ptr<stream> server;
};

INSTANTIATE_TEST_SUITE_P(Transports, TransportStream, ::testing::Values("unix", "tcp", "inproc", "shm"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST_P(TransportStream, RoundTripBothWays) {
  write_bytes(*client, bytes("ping"), in(2s));
  EXPECT_EQ(read_exact(*server, 4, in(2s)), bytes("ping"));
  write_bytes(*server, bytes("pong!"), in(2s));
  EXPECT_EQ(read_exact(*client, 5, in(2s)), bytes("pong!"));
}

TEST_P(TransportStream, GatherWriteOfThreePartsArrivesIntact) {
  const std::vector<std::byte> head = bytes("HEAD"), payload = pattern(100000), tail = bytes("TAIL");
  const std::span<const std::byte> parts[] = {head, payload, tail};
  client->write_all(parts, in(5s));
  std::vector<std::byte> expected = head;
  expected.insert(expected.end(), payload.begin(), payload.end());
  expected.insert(expected.end(), tail.begin(), tail.end());
  EXPECT_EQ(read_exact(*server, expected.size(), in(5s)), expected);
}

TEST_P(TransportStream, GatherWriteOfMorePartsThanIovMax) {
  const std::vector<std::byte> all = pattern(3000 * 4 + 1234, 3);
  std::vector<std::span<const std::byte>> parts;
  std::size_t at = 0;
  for (int i = 0; at < all.size(); ++i) {
    const std::size_t n = std::min<std::size_t>(all.size() - at, static_cast<std::size_t>(i % 7));  // some empty
    parts.push_back(std::span(all).subspan(at, n));
    at += n;
  }
  ASSERT_GT(parts.size(), 3000U);
  client->write_all(parts, in(5s));
  EXPECT_EQ(read_exact(*server, all.size(), in(5s)), all);
}

TEST_P(TransportStream, ReadDeadlineTimesOut) {
  std::byte buf[16];
  const auto start = clock::now();
  std::string message;
  EXPECT_EQ(code_of([&] { (void)server->read_some(buf, start + 100ms); }, &message), errc::timed_out);
  const auto took = clock::now() - start;
  EXPECT_GE(took, 100ms);
  EXPECT_LT(took, 2s);
  EXPECT_EQ(message, server->peer().address + ": read timed out");
  // A deadline that has passed: one look, then timed_out.
  EXPECT_EQ(code_of([&] { (void)server->read_some(buf, clock::now() - 1s); }), errc::timed_out);
  // The stream still works afterwards.
  write_bytes(*client, bytes("x"), in(2s));
  EXPECT_EQ(read_exact(*server, 1, in(2s)), bytes("x"));
}

TEST_P(TransportStream, WriteDeadlineWhenThePeerNeverReads) {
  const std::vector<std::byte> big(64u << 20);
  const auto start = clock::now();
  std::string message;
  EXPECT_EQ(code_of([&] { write_bytes(*client, big, start + 200ms); }, &message), errc::timed_out);
  const auto took = clock::now() - start;
  EXPECT_GE(took, 200ms);
  EXPECT_LT(took, 5s);
  EXPECT_EQ(message, client->peer().address + ": write timed out");
}

TEST_P(TransportStream, TryWriteShortThenWaitWritable) {
  const std::size_t total = fill_client();
  ASSERT_GT(total, 0U);
  const std::vector<std::byte> one = bytes("z");
  const std::span<const std::byte> parts[] = {one};
  EXPECT_EQ(client->try_write(parts), 0U);  // full: takes nothing, never blocks

  std::optional<errc> writable;
  client->async_wait_writable([&](errc c) { writable = c; });
  run_until(io, [&] { return writable.has_value(); }, 50ms);
  EXPECT_FALSE(writable.has_value()) << "writable while the buffer is full";

  const std::vector<std::byte> got = read_exact(*server, total, in(10s));  // the peer drains it all
  ASSERT_EQ(got.size(), total);
  EXPECT_EQ(got[0], pattern(1 << 20)[0]);
  ASSERT_TRUE(run_until(io, [&] { return writable.has_value(); }));
  EXPECT_EQ(*writable, errc::ok);
  EXPECT_EQ(client->try_write(parts), 1U);
  EXPECT_EQ(read_exact(*server, 1, in(2s)), one);
}

TEST_P(TransportStream, CloseFromAnotherThreadWakesABlockedRead) {
  std::atomic<int> outcome{-1};
  const auto start = clock::now();
  std::thread reader([&] {
    std::byte buf[8];
    outcome = static_cast<int>(code_of([&] { (void)server->read_some(buf, in(10s)); }));
  });
  std::this_thread::sleep_for(50ms);
  server->close();
  reader.join();
  EXPECT_EQ(outcome.load(), static_cast<int>(errc::closed));
  EXPECT_LT(clock::now() - start, 5s);
  // The peer sees the end of the stream.
  std::byte buf[8];
  EXPECT_EQ(client->read_some(buf, in(2s)), 0U);
}

TEST_P(TransportStream, CloseFromAnotherThreadWakesABlockedWrite) {
  std::atomic<int> outcome{-1};
  const auto start = clock::now();
  std::thread writer([&] {
    const std::vector<std::byte> big(64u << 20);
    outcome = static_cast<int>(code_of([&] { write_bytes(*client, big, in(10s)); }));
  });
  std::this_thread::sleep_for(100ms);
  client->close();
  writer.join();
  EXPECT_EQ(outcome.load(), static_cast<int>(errc::closed));
  EXPECT_LT(clock::now() - start, 5s);
}

TEST_P(TransportStream, OperationsAfterCloseThrowClosed) {
  client->close();
  client->close();  // idempotent
  std::byte buf[4];
  const std::vector<std::byte> b = bytes("abc");
  const std::span<const std::byte> parts[] = {b};
  std::string message;
  EXPECT_EQ(code_of([&] { (void)client->read_some(buf, in(1s)); }, &message), errc::closed);
  EXPECT_EQ(message, client->peer().address + ": the stream is closed");
  EXPECT_EQ(code_of([&] { client->write_all(parts, in(1s)); }), errc::closed);
  EXPECT_EQ(code_of([&] { (void)client->try_write(parts); }), errc::closed);
  std::optional<errc> read, writable;
  client->async_read_some(buf, [&](errc c, std::size_t n) {
    read = c;
    EXPECT_EQ(n, 0U);
  });
  client->async_wait_writable([&](errc c) { writable = c; });
  ASSERT_TRUE(run_until(io, [&] { return read && writable; }));
  EXPECT_EQ(*read, errc::closed);
  EXPECT_EQ(*writable, errc::closed);
}

TEST_P(TransportStream, EndOfStreamAfterThePeerCloses) {
  write_bytes(*client, bytes("bye"), in(2s));
  client->close();
  EXPECT_EQ(read_exact(*server, 3, in(2s)), bytes("bye"));  // what was written is drained first
  std::byte buf[8];
  EXPECT_EQ(server->read_some(buf, in(2s)), 0U);
  EXPECT_EQ(server->read_some(buf, in(2s)), 0U);
  std::optional<errc> read;
  server->async_read_some(buf, [&](errc c, std::size_t) { read = c; });
  ASSERT_TRUE(run_until(io, [&] { return read.has_value(); }));
  EXPECT_EQ(*read, errc::closed);
}

TEST_P(TransportStream, WriteToAClosedPeerIsABrokenPipeWithoutSigpipe) {
  server.reset();  // destroyed: closed
  const std::vector<std::byte> chunk(1 << 16);
  std::string message;
  errc code = errc::ok;
  // TCP may take the first writes (the reset comes back afterwards); bounded.
  for (int i = 0; i < 100 && code == errc::ok; ++i) {
    code = code_of([&] { write_bytes(*client, chunk, in(2s)); }, &message);
    if (code == errc::ok) std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(code, errc::io_error);
  if (GetParam() == "tcp") {
    EXPECT_TRUE(message == client->peer().address + ": write: broken pipe" ||
                message == client->peer().address + ": write: Connection reset by peer")
        << message;
  } else {
    EXPECT_EQ(message, client->peer().address + ": write: broken pipe");
  }
}

TEST_P(TransportStream, AsyncReadCompletesOnTheIoContext) {
  std::byte buf[64];
  std::optional<errc> code;
  std::size_t n = 0;
  server->async_read_some(buf, [&](errc c, std::size_t k) {
    code = c;
    n = k;
  });
  run_until(io, [&] { return code.has_value(); }, 30ms);
  EXPECT_FALSE(code.has_value()) << "completed with nothing written";
  write_bytes(*client, bytes("hello"), in(2s));
  EXPECT_FALSE(code.has_value()) << "completed outside the io_context";
  ASSERT_TRUE(run_until(io, [&] { return code.has_value(); }));
  EXPECT_EQ(*code, errc::ok);
  ASSERT_EQ(n, 5U);
  EXPECT_EQ(std::vector<std::byte>(buf, buf + n), bytes("hello"));
}

TEST_P(TransportStream, PendingAsyncReadEndsClosedOnClose) {
  std::byte buf[64];
  std::optional<errc> code;
  server->async_read_some(buf, [&](errc c, std::size_t) { code = c; });
  run_until(io, [&] { return code.has_value(); }, 20ms);
  ASSERT_FALSE(code.has_value());
  std::thread closer([&] { server->close(); });  // from another thread
  closer.join();
  ASSERT_TRUE(run_until(io, [&] { return code.has_value(); }));
  EXPECT_EQ(*code, errc::closed);
}

TEST_P(TransportStream, PendingAsyncOpsEndClosedWhenTheStreamIsDestroyed) {
  std::vector<std::byte> buf(64);
  std::optional<errc> read, writable;
  client->async_read_some(buf, [&](errc c, std::size_t) { read = c; });  // the server writes nothing
  fill_client();
  client->async_wait_writable([&](errc c) { writable = c; });
  run_until(io, [&] { return read || writable; }, 20ms);
  ASSERT_FALSE(read || writable);
  client.reset();
  ASSERT_TRUE(run_until(io, [&] { return read && writable; }));
  EXPECT_EQ(*read, errc::closed);
  EXPECT_EQ(*writable, errc::closed);
}

TEST_P(TransportStream, AcceptIsAsynchronousAndListenerCloseEndsAPendingAccept) {
  std::optional<errc> code;
  std::unique_ptr<stream> accepted;
  l->async_accept([&](errc c, std::unique_ptr<stream> s) {
    code = c;
    accepted = std::move(s);
  });
  run_until(io, [&] { return code.has_value(); }, 20ms);
  EXPECT_FALSE(code.has_value()) << "accepted with nobody connecting";
  auto second = connect(io, parse_uri(l->uri()), in(2s));
  ASSERT_TRUE(run_until(io, [&] { return code.has_value(); }));
  ASSERT_EQ(*code, errc::ok);
  ASSERT_NE(accepted, nullptr);
  write_bytes(*second, bytes("2nd"), in(2s));
  EXPECT_EQ(read_exact(*accepted, 3, in(2s)), bytes("2nd"));

  code.reset();
  l->async_accept([&](errc c, std::unique_ptr<stream> s) {
    code = c;
    accepted = std::move(s);
  });
  l->close();
  l->close();  // idempotent
  ASSERT_TRUE(run_until(io, [&] { return code.has_value(); }));
  EXPECT_EQ(*code, errc::closed);
  EXPECT_EQ(accepted, nullptr);
  // A listener that is closed refuses new connections and new accepts.
  EXPECT_EQ(code_of([&] { (void)connect(io, parse_uri(l->uri()), in(1s)); }), errc::connection_refused);
  code.reset();
  l->async_accept([&](errc c, std::unique_ptr<stream>) { code = c; });
  ASSERT_TRUE(run_until(io, [&] { return code.has_value(); }));
  EXPECT_EQ(*code, errc::closed);
  // The existing streams are untouched.
  write_bytes(*client, bytes("still"), in(2s));
  EXPECT_EQ(read_exact(*server, 5, in(2s)), bytes("still"));
}

}  // namespace
}  // namespace refwire::transports::test
