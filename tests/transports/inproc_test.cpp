// What is specific to inproc: names in this process, the bounded buffer,
// completions posted to each side's own io_context, queued connections.
#include "helpers.hpp"

#include <refwire/transports/transport.hpp>

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <vector>

namespace refwire::transports::test {
namespace {

TEST(TransportInproc, PairWithPeerIdentity) {
  boost::asio::io_context io;
  auto l = listen(io, parse_uri("inproc://pair"));
  EXPECT_EQ(l->uri(), "inproc://pair");
  auto c = connect(io, parse_uri("inproc://pair"), in(1s));  // queued until accepted
  auto s = accept_one(io, *l);
  ASSERT_NE(s, nullptr);
  for (const stream* end : {c.get(), s.get()}) {
    EXPECT_EQ(end->peer().address, "inproc://pair");
    EXPECT_EQ(end->peer().uid, std::optional<std::uint32_t>(static_cast<std::uint32_t>(::getuid())));
    EXPECT_EQ(end->peer().pid, std::optional<std::uint32_t>(static_cast<std::uint32_t>(::getpid())));
    EXPECT_EQ(end->native_handle(), -1);
  }
  write_bytes(*c, bytes("abc"), in(1s));
  EXPECT_EQ(read_exact(*s, 3, in(1s)), bytes("abc"));
}

TEST(TransportInproc, NameTakenThenFreeAfterClose) {
  boost::asio::io_context io;
  auto l = listen(io, parse_uri("inproc://taken"));
  std::string message;
  EXPECT_EQ(code_of([&] { (void)listen(io, parse_uri("inproc://taken")); }, &message), errc::address_in_use);
  EXPECT_EQ(message, "inproc://taken: the name is taken by another listener in this process");
  l->close();
  EXPECT_EQ(code_of([&] { (void)connect(io, parse_uri("inproc://taken"), in(1s)); }, &message),
            errc::connection_refused);
  EXPECT_EQ(message, "inproc://taken: no listener by that name in this process");
  auto again = listen(io, parse_uri("inproc://taken"));  // the name is free again
  auto c = connect(io, parse_uri("inproc://taken"), in(1s));
  EXPECT_NE(accept_one(io, *again), nullptr);
  // Closing the old listener once more does not free the new one's name.
  l->close();
  l.reset();
  EXPECT_EQ(code_of([&] { (void)listen(io, parse_uri("inproc://taken")); }), errc::address_in_use);
}

TEST(TransportInproc, ConnectRefusedWithoutListener) {
  boost::asio::io_context io;
  std::string message;
  EXPECT_EQ(code_of([&] { (void)connect(io, parse_uri("inproc://nobody"), in(1s)); }, &message),
            errc::connection_refused);
  EXPECT_EQ(message, "inproc://nobody: no listener by that name in this process");
}

TEST(TransportInproc, BufferIsBounded) {
  boost::asio::io_context io;
  auto l = listen(io, parse_uri("inproc://bounded"));
  auto c = connect(io, parse_uri("inproc://bounded"), in(1s));
  auto s = accept_one(io, *l);
  ASSERT_NE(s, nullptr);
  const std::vector<std::byte> a = pattern(inproc_buffer_bytes - 10), b = pattern(100, 2);
  const std::span<const std::byte> parts[] = {a, b};
  EXPECT_EQ(c->try_write(parts), inproc_buffer_bytes);  // what fits, across the parts
  EXPECT_EQ(c->try_write(parts), 0U);
  std::optional<errc> writable;
  c->async_wait_writable([&](errc e) { writable = e; });
  run_until(io, [&] { return writable.has_value(); }, 20ms);
  EXPECT_FALSE(writable.has_value());
  std::vector<std::byte> some(1000);
  EXPECT_EQ(s->read_some(some, in(1s)), 1000U);
  EXPECT_TRUE(std::equal(some.begin(), some.end(), a.begin()));
  ASSERT_TRUE(run_until(io, [&] { return writable.has_value(); }));
  EXPECT_EQ(*writable, errc::ok);
  // 1000 bytes were read: exactly 1000 fit again.
  const std::vector<std::byte> more(2000);
  const std::span<const std::byte> rest[] = {std::span(b).subspan(10), more};
  EXPECT_EQ(c->try_write(rest), 1000U);
  EXPECT_EQ(c->try_write(rest), 0U);
  // Everything arrives in order.
  std::vector<std::byte> expected(a.begin() + 1000, a.end());
  expected.insert(expected.end(), b.begin(), b.end());  // its first 10 bytes, then the other 90
  expected.insert(expected.end(), more.begin(), more.begin() + 910);
  EXPECT_EQ(read_exact(*s, expected.size(), in(5s)), expected);
}

TEST(TransportInproc, EachSideCompletesOnItsOwnIoContext) {
  boost::asio::io_context server_io, client_io;
  auto l = listen(server_io, parse_uri("inproc://two-loops"));
  std::unique_ptr<stream> s;
  std::optional<errc> accepted;
  l->async_accept([&](errc c, std::unique_ptr<stream> st) {
    accepted = c;
    s = std::move(st);
  });
  auto c = connect(client_io, parse_uri("inproc://two-loops"), in(1s));
  EXPECT_FALSE(run_until(client_io, [&] { return accepted.has_value(); }, 20ms));  // not the client's loop
  ASSERT_TRUE(run_until(server_io, [&] { return accepted.has_value(); }));
  ASSERT_EQ(*accepted, errc::ok);

  std::byte buf[16];
  std::optional<errc> read;
  std::size_t n = 0;
  s->async_read_some(buf, [&](errc e, std::size_t k) {
    read = e;
    n = k;
  });
  write_bytes(*c, bytes("hop"), in(1s));
  EXPECT_FALSE(run_until(client_io, [&] { return read.has_value(); }, 20ms));
  ASSERT_TRUE(run_until(server_io, [&] { return read.has_value(); }));
  EXPECT_EQ(*read, errc::ok);
  ASSERT_EQ(n, 3U);
  EXPECT_EQ(std::vector<std::byte>(buf, buf + n), bytes("hop"));
}

TEST(TransportInproc, QueuedConnectionsOfAClosedListenerEnd) {
  boost::asio::io_context io;
  auto l = listen(io, parse_uri("inproc://dropped"));
  auto c = connect(io, parse_uri("inproc://dropped"), in(1s));
  l.reset();  // never accepted
  std::byte buf[4];
  EXPECT_EQ(c->read_some(buf, in(1s)), 0U);
}

TEST(TransportInproc, BacklogBoundsQueuedConnections) {
  boost::asio::io_context io;
  auto l = listen(io, parse_uri("inproc://backlog"), {.backlog = 2});
  auto c1 = connect(io, parse_uri("inproc://backlog"), in(1s));
  auto c2 = connect(io, parse_uri("inproc://backlog"), in(1s));
  std::string message;
  EXPECT_EQ(code_of([&] { (void)connect(io, parse_uri("inproc://backlog"), in(1s)); }, &message),
            errc::connection_refused);
  EXPECT_EQ(message, "inproc://backlog: the listener's backlog of 2 connections is full");
  EXPECT_NE(accept_one(io, *l), nullptr);
  auto c3 = connect(io, parse_uri("inproc://backlog"), in(1s));  // room again
}

}  // namespace
}  // namespace refwire::transports::test
