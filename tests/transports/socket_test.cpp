// What is specific to TCP and unix sockets: bound ports, IPv6, localhost,
// TCP_NODELAY, socket files (stale, live, in the way, removed, mode), refused
// connections and peer identity.
#include "helpers.hpp"

#include <refwire/transports/transport.hpp>

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <string>

namespace refwire::transports::test {
namespace {

std::uint16_t port_of(const std::string& uri) { return parse_uri(uri).port; }

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

/// A socket file nobody listens on: bound, then closed without unlink.
void make_stale_socket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, path.data(), path.size());
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a), 0);
  ::close(fd);
  ASSERT_TRUE(exists(path));
}

int nodelay(int fd) {
  int value = -1;
  socklen_t n = sizeof value;
  EXPECT_EQ(::getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, &n), 0);
  return value;
}

TEST(TransportTcp, PortZeroReportsTheBoundPort) {
  boost::asio::io_context io;
  auto l = listen(io, parse_uri("tcp://127.0.0.1:0"));
  EXPECT_TRUE(std::regex_match(l->uri(), std::regex(R"(tcp://127\.0\.0\.1:[1-9][0-9]*)"))) << l->uri();
  auto c = connect(io, parse_uri(l->uri()), in(2s));
  auto s = accept_one(io, *l);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(c->peer().address, l->uri());
  EXPECT_TRUE(std::regex_match(s->peer().address, std::regex(R"(tcp://127\.0\.0\.1:[1-9][0-9]*)")));
  EXPECT_NE(s->peer().address, l->uri());  // the client's own port
  EXPECT_FALSE(c->peer().uid.has_value());
  EXPECT_FALSE(s->peer().pid.has_value());
}

TEST(TransportTcp, TcpNoDelayOnBothEnds) {
  boost::asio::io_context io;
  auto l = listen(io, parse_uri("tcp://127.0.0.1:0"));
  auto c = connect(io, parse_uri(l->uri()), in(2s));
  auto s = accept_one(io, *l);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(nodelay(c->native_handle()), 0);
  EXPECT_NE(nodelay(s->native_handle()), 0);
}

TEST(TransportTcp, Ipv6Loopback) {
  boost::asio::io_context io;
  std::unique_ptr<listener> l;
  try {
    l = listen(io, parse_uri("tcp://[::1]:0"));
  } catch (const transport_error& e) {
    GTEST_SKIP() << "no IPv6 loopback here: " << e.what();
  }
  EXPECT_TRUE(std::regex_match(l->uri(), std::regex(R"(tcp://\[::1\]:[1-9][0-9]*)"))) << l->uri();
  auto c = connect(io, parse_uri(l->uri()), in(2s));
  auto s = accept_one(io, *l);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->peer().address.rfind("tcp://[::1]:", 0), 0U) << s->peer().address;
  write_bytes(*c, bytes("v6"), in(2s));
  EXPECT_EQ(read_exact(*s, 2, in(2s)), bytes("v6"));
}

TEST(TransportTcp, LocalhostResolves) {
  boost::asio::io_context io;
  auto l = listen(io, parse_uri("tcp://127.0.0.1:0"));
  auto c = connect(io, parse_uri("tcp://localhost:" + std::to_string(port_of(l->uri()))), in(2s));
  auto s = accept_one(io, *l);
  ASSERT_NE(s, nullptr);
  write_bytes(*c, bytes("lh"), in(2s));
  EXPECT_EQ(read_exact(*s, 2, in(2s)), bytes("lh"));
}

TEST(TransportTcp, PortInUseAndFreeAgainAfterClose) {
  boost::asio::io_context io;
  auto l = listen(io, parse_uri("tcp://127.0.0.1:0"));
  const std::string uri = l->uri();
  std::string message;
  EXPECT_EQ(code_of([&] { (void)listen(io, parse_uri(uri)); }, &message), errc::address_in_use);
  EXPECT_EQ(message, uri + ": address in use (another listener has the port)");
  l->close();
  auto again = listen(io, parse_uri(uri));  // SO_REUSEADDR: the port is free at once
  EXPECT_EQ(again->uri(), uri);
}

TEST(TransportTcp, ConnectRefusedWhenNobodyListens) {
  boost::asio::io_context io;
  std::string uri;
  {
    auto l = listen(io, parse_uri("tcp://127.0.0.1:0"));
    uri = l->uri();
  }
  std::string message;
  EXPECT_EQ(code_of([&] { (void)connect(io, parse_uri(uri), in(2s)); }, &message), errc::connection_refused);
  EXPECT_EQ(message, uri + ": connection refused (nobody listens there)");
}

TEST(TransportTcp, UnresolvableHostIsNotFound) {
  boost::asio::io_context io;
  std::string message;
  EXPECT_EQ(code_of([&] { (void)connect(io, parse_uri("tcp://no-such-host.invalid:80"), in(5s)); }, &message),
            errc::not_found);
  EXPECT_EQ(message.rfind("tcp://no-such-host.invalid:80: cannot resolve \"no-such-host.invalid\": ", 0), 0U)
      << message;
}

TEST(TransportTcp, ConnectDeadlineTimesOut) {
  // A listener whose backlog is full (nobody accepts): further SYNs go unanswered.
  boost::asio::io_context io;
  auto l = listen(io, parse_uri("tcp://127.0.0.1:0"), {.backlog = 0});
  std::vector<std::unique_ptr<stream>> held;
  const auto start = clock::now();
  errc code = errc::ok;
  for (int i = 0; i < 16 && code == errc::ok; ++i) {
    try {
      held.push_back(connect(io, parse_uri(l->uri()), in(300ms)));
    } catch (const transport_error& e) {
      code = e.code();
    }
  }
  if (code == errc::ok) GTEST_SKIP() << "this kernel accepted 16 connections with a backlog of 0";
  EXPECT_EQ(code, errc::timed_out);
  EXPECT_LT(clock::now() - start, 10s);
}

class TransportUnix : public ::testing::Test {
 protected:
  boost::asio::io_context io;
  temp_dir dir;
  std::string path = dir.file("s.sock");
  std::string uri = "unix://" + path;
};

TEST_F(TransportUnix, SocketFileRemovedOnCloseAndOnDestruction) {
  auto l = listen(io, parse_uri(uri));
  EXPECT_EQ(l->uri(), uri);
  EXPECT_TRUE(exists(path));
  l->close();
  EXPECT_FALSE(exists(path));
  {
    auto again = listen(io, parse_uri(uri));
    EXPECT_TRUE(exists(path));
  }
  EXPECT_FALSE(exists(path));
}

TEST_F(TransportUnix, StaleSocketFileIsReplaced) {
  make_stale_socket(path);
  auto l = listen(io, parse_uri(uri));
  auto c = connect(io, parse_uri(uri), in(2s));
  auto s = accept_one(io, *l);
  ASSERT_NE(s, nullptr);
  write_bytes(*c, bytes("new"), in(2s));
  EXPECT_EQ(read_exact(*s, 3, in(2s)), bytes("new"));
}

TEST_F(TransportUnix, LiveSocketIsAddressInUse) {
  auto first = listen(io, parse_uri(uri));
  std::string message;
  EXPECT_EQ(code_of([&] { (void)listen(io, parse_uri(uri)); }, &message), errc::address_in_use);
  EXPECT_EQ(message, uri + ": another listener is live on " + path);
  // The first listener keeps its file and still accepts.
  EXPECT_TRUE(exists(path));
  auto c = connect(io, parse_uri(uri), in(2s));
  EXPECT_NE(accept_one(io, *first), nullptr);
}

TEST_F(TransportUnix, RegularFileInTheWayIsAddressInUseAndKept) {
  {
    std::ofstream f(path);
    f << "precious";
  }
  std::string message;
  EXPECT_EQ(code_of([&] { (void)listen(io, parse_uri(uri)); }, &message), errc::address_in_use);
  EXPECT_EQ(message, uri + ": " + path + " exists and is not a socket (left as it is)");
  std::ifstream f(path);
  std::string content;
  f >> content;
  EXPECT_EQ(content, "precious");
}

TEST_F(TransportUnix, AReplacedFileIsNotRemovedOnClose) {
  auto l = listen(io, parse_uri(uri));
  ASSERT_EQ(::unlink(path.c_str()), 0);
  {
    std::ofstream f(path);
    f << "someone else's";
  }
  l->close();
  EXPECT_TRUE(exists(path));
}

TEST_F(TransportUnix, ModeIsApplied) {
  for (std::uint32_t mode : {0600U, 0660U, 0777U}) {
    auto l = listen(io, parse_uri(uri), {.unix_mode = mode});
    struct stat st {};
    ASSERT_EQ(::lstat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777U, mode);
  }
}

TEST_F(TransportUnix, ConnectRefusedWithoutFileOrListener) {
  std::string message;
  EXPECT_EQ(code_of([&] { (void)connect(io, parse_uri(uri), in(2s)); }, &message), errc::connection_refused);
  EXPECT_EQ(message, uri + ": no socket file at " + path);
  make_stale_socket(path);
  EXPECT_EQ(code_of([&] { (void)connect(io, parse_uri(uri), in(2s)); }, &message), errc::connection_refused);
  EXPECT_EQ(message, uri + ": connection refused (nobody listens there)");
}

TEST_F(TransportUnix, MissingDirectoryIsAnIoError) {
  const std::string where = "unix://" + dir.file("no/such/dir.sock");
  std::string message;
  EXPECT_EQ(code_of([&] { (void)listen(io, parse_uri(where)); }, &message), errc::io_error);
  EXPECT_EQ(message, where + ": bind: No such file or directory");
}

TEST_F(TransportUnix, PeerIdentityIsThisProcess) {
  auto l = listen(io, parse_uri(uri));
  auto c = connect(io, parse_uri(uri), in(2s));
  auto s = accept_one(io, *l);
  ASSERT_NE(s, nullptr);
  for (const stream* end : {c.get(), s.get()}) {
    EXPECT_EQ(end->peer().address, uri);
    ASSERT_TRUE(end->peer().uid.has_value());
    ASSERT_TRUE(end->peer().pid.has_value());
    EXPECT_EQ(*end->peer().uid, static_cast<std::uint32_t>(::getuid()));
    EXPECT_EQ(*end->peer().pid, static_cast<std::uint32_t>(::getpid()));
    EXPECT_GE(end->native_handle(), 0);
  }
}

}  // namespace
}  // namespace refwire::transports::test
