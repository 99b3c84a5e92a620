// parse_uri and endpoint::uri: the accepted forms, round trips, and the exact
// message of every malformed URI.
#include "helpers.hpp"

#include <refwire/transports/transport.hpp>

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

#include <string>

namespace refwire::transports::test {
namespace {

TEST(TransportUri, UnixPath) {
  const endpoint e = parse_uri("unix:///tmp/x.sock");
  EXPECT_EQ(e.scheme, scheme::unix_socket);
  EXPECT_EQ(e.path, "/tmp/x.sock");
  EXPECT_EQ(e.host, "");
  EXPECT_EQ(e.port, 0);
  EXPECT_EQ(e.uri(), "unix:///tmp/x.sock");
}

TEST(TransportUri, TcpIpv4) {
  const endpoint e = parse_uri("tcp://127.0.0.1:41234");
  EXPECT_EQ(e.scheme, scheme::tcp);
  EXPECT_EQ(e.host, "127.0.0.1");
  EXPECT_EQ(e.port, 41234);
  EXPECT_EQ(e.path, "");
  EXPECT_EQ(e.uri(), "tcp://127.0.0.1:41234");
}

TEST(TransportUri, TcpIpv6InBrackets) {
  const endpoint e = parse_uri("tcp://[::1]:80");
  EXPECT_EQ(e.scheme, scheme::tcp);
  EXPECT_EQ(e.host, "::1");
  EXPECT_EQ(e.port, 80);
  EXPECT_EQ(e.uri(), "tcp://[::1]:80");
  EXPECT_EQ(parse_uri("tcp://[fe80::1:2]:0").host, "fe80::1:2");
}

TEST(TransportUri, TcpNamesAndPortBounds) {
  const endpoint e = parse_uri("tcp://localhost:0");
  EXPECT_EQ(e.host, "localhost");
  EXPECT_EQ(e.port, 0);
  EXPECT_EQ(e.uri(), "tcp://localhost:0");
  const endpoint f = parse_uri("tcp://my-host.example_1.org:65535");
  EXPECT_EQ(f.host, "my-host.example_1.org");
  EXPECT_EQ(f.port, 65535);
  EXPECT_EQ(parse_uri("tcp://h:00080").port, 80);
}

TEST(TransportUri, Inproc) {
  const endpoint e = parse_uri("inproc://calc service/v1");
  EXPECT_EQ(e.scheme, scheme::inproc);
  EXPECT_EQ(e.path, "calc service/v1");
  EXPECT_EQ(e.uri(), "inproc://calc service/v1");
}

TEST(TransportUri, Shm) {
  const endpoint e = parse_uri("shm://calc-1.v2_x");
  EXPECT_EQ(e.scheme, scheme::shm);
  EXPECT_EQ(e.path, "calc-1.v2_x");
  EXPECT_EQ(e.ring_size, 0U);
  EXPECT_EQ(e.host, "");
  EXPECT_EQ(e.uri(), "shm://calc-1.v2_x");
  const endpoint f = parse_uri("shm://calc?ring_size=4194304");
  EXPECT_EQ(f.path, "calc");
  EXPECT_EQ(f.ring_size, 4194304U);
  EXPECT_EQ(f.uri(), "shm://calc?ring_size=4194304");
  EXPECT_EQ(parse_uri("shm://a?ring_size=4096").ring_size, shm_min_ring_size);
  EXPECT_EQ(parse_uri("shm://a?ring_size=1073741824").ring_size, shm_max_ring_size);
  EXPECT_EQ(parse_uri("shm://" + std::string(100, 'n')).path.size(), 100U);
}

TEST(TransportUri, ShmEndpointBuiltByHandIsChecked) {
  boost::asio::io_context io;
  endpoint e;
  e.scheme = scheme::shm;
  e.path = "x/y";
  std::string message;
  EXPECT_EQ(code_of([&] { (void)listen(io, e); }, &message), errc::invalid_uri);
  EXPECT_EQ(message, "shm://x/y: invalid character in the shm name \"x/y\" (letters, digits, '.', '_' and '-')");
  e.path = "x";
  e.ring_size = 5000;
  EXPECT_EQ(code_of([&] { (void)connect(io, e, in(1s)); }, &message), errc::invalid_uri);
  EXPECT_EQ(message, "shm://x?ring_size=5000: ring size 5000 is not a power of two");
}

TEST(TransportUri, RoundTripsThroughUri) {
  for (const char* text : {"unix:///a", "unix:///run/app/x.sock", "tcp://0.0.0.0:7000", "tcp://[::]:1",
                           "tcp://[2001:db8::8]:443", "tcp://example.com:1", "inproc://x", "shm://x",
                           "shm://a.b?ring_size=65536"}) {
    const endpoint e = parse_uri(text);
    EXPECT_EQ(e.uri(), text);
    const endpoint again = parse_uri(e.uri());
    EXPECT_EQ(again.scheme, e.scheme);
    EXPECT_EQ(again.host, e.host);
    EXPECT_EQ(again.port, e.port);
    EXPECT_EQ(again.path, e.path);
    EXPECT_EQ(again.ring_size, e.ring_size);
  }
}

struct bad_uri {
  std::string uri;
  std::string message;
  friend void PrintTo(const bad_uri& b, std::ostream* os) { *os << ::testing::PrintToString(b.uri); }
};

class TransportUriInvalid : public ::testing::TestWithParam<bad_uri> {};

TEST_P(TransportUriInvalid, ExactMessage) {
  std::string message;
  EXPECT_EQ(code_of([&] { (void)parse_uri(GetParam().uri); }, &message), errc::invalid_uri);
  EXPECT_EQ(message, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Messages, TransportUriInvalid,
    ::testing::Values(
        bad_uri{"", "empty URI: missing scheme (write unix:///path, tcp://host:port, inproc://name or shm://name)"},
        bad_uri{"localhost:80", "localhost:80: missing scheme (write unix:///path, tcp://host:port, inproc://name or shm://name)"},
        bad_uri{"://x", "://x: missing scheme (write unix:///path, tcp://host:port, inproc://name or shm://name)"},
        bad_uri{"shm://", "shm://: missing name (write shm://name)"},
        bad_uri{"shm://?ring_size=4096", "shm://?ring_size=4096: missing name (write shm://name)"},
        bad_uri{"shm://a b", "shm://a b: invalid character in the shm name \"a b\" (letters, digits, '.', '_' and '-')"},
        bad_uri{"shm://..", "shm://..: the shm name cannot be \".\" or \"..\""},
        bad_uri{"shm://" + std::string(101, 'n'),
                "shm://" + std::string(101, 'n') + ": the shm name is 101 bytes long, at most 100 fit"},
        bad_uri{"shm://a?size=4096", "shm://a?size=4096: unknown option \"size\" (the one option is ?ring_size=bytes)"},
        bad_uri{"shm://a?ring_size=", "shm://a?ring_size=: missing ring size (write shm://name?ring_size=bytes)"},
        bad_uri{"shm://a?ring_size=1M", "shm://a?ring_size=1M: ring size \"1M\" is not a number"},
        bad_uri{"shm://a?ring_size=2048", "shm://a?ring_size=2048: ring size 2048 out of range (4096..1073741824)"},
        bad_uri{"shm://a?ring_size=2147483648",
                "shm://a?ring_size=2147483648: ring size 2147483648 out of range (4096..1073741824)"},
        bad_uri{"shm://a?ring_size=65537", "shm://a?ring_size=65537: ring size 65537 is not a power of two"},
        bad_uri{"foo://x", "foo://x: unknown scheme \"foo\" (expected unix, tcp, inproc or shm)"},
        bad_uri{"TCP://h:1", "TCP://h:1: unknown scheme \"TCP\" (expected unix, tcp, inproc or shm)"},
        bad_uri{"tcp://localhost", "tcp://localhost: missing port (write tcp://host:port)"},
        bad_uri{"tcp://localhost:", "tcp://localhost:: missing port (write tcp://host:port)"},
        bad_uri{"tcp://", "tcp://: empty host (write tcp://host:port)"},
        bad_uri{"tcp://:80", "tcp://:80: empty host (write tcp://host:port)"},
        bad_uri{"tcp://h:65536", "tcp://h:65536: port 65536 out of range (0..65535)"},
        bad_uri{"tcp://h:99999999999999999999999",
                "tcp://h:99999999999999999999999: port 99999999999999999999999 out of range (0..65535)"},
        bad_uri{"tcp://h:8o", "tcp://h:8o: port \"8o\" is not a number (write tcp://host:port, port 0..65535)"},
        bad_uri{"tcp://h:-1", "tcp://h:-1: port \"-1\" is not a number (write tcp://host:port, port 0..65535)"},
        bad_uri{"tcp://h:80/x", "tcp://h:80/x: port \"80/x\" is not a number (write tcp://host:port, port 0..65535)"},
        bad_uri{"tcp://[::1:80", "tcp://[::1:80: unclosed '[' in the host (write tcp://[::1]:port)"},
        bad_uri{"tcp://[]:80", "tcp://[]:80: empty host (write tcp://host:port)"},
        bad_uri{"tcp://[::1]", "tcp://[::1]: missing port (write tcp://host:port)"},
        bad_uri{"tcp://[::1]80", "tcp://[::1]80: expected ':' and the port after ']'"},
        bad_uri{"tcp://[nope]:80",
                "tcp://[nope]:80: \"nope\" is not an IPv6 address (only IPv6 addresses go in brackets)"},
        bad_uri{"tcp://::1:80", "tcp://::1:80: an IPv6 address must be in brackets (write tcp://[::1]:port)"},
        bad_uri{"tcp://ho st:80",
                "tcp://ho st:80: invalid character in the host \"ho st\" (a name, an IPv4 address, or an IPv6 "
                "address in brackets)"},
        bad_uri{"unix://", "unix://: missing path (write unix:///path)"},
        bad_uri{"unix://tmp/x.sock", "unix://tmp/x.sock: the unix path must be absolute (write unix:///path)"},
        bad_uri{std::string("unix:///a\0b", 11), "unix:///a\\x00b: the unix path contains a NUL byte"},
        bad_uri{"inproc://", "inproc://: missing name (write inproc://name)"},
        bad_uri{"inproc://a\nb", "inproc://a\\x0ab: the inproc name contains a control character"}));

TEST(TransportUri, ControlBytesAreEscapedInMessages) {
  std::string message;
  EXPECT_EQ(code_of([&] { (void)parse_uri(std::string("\x01\x7f\0:", 4)); }, &message), errc::invalid_uri);
  EXPECT_EQ(message, "\\x01\\x7f\\x00:: missing scheme (write unix:///path, tcp://host:port, inproc://name or shm://name)");
}

TEST(TransportUri, LongUriIsCutInTheMessage) {
  const std::string uri = "tcp://" + std::string(1000, 'h');
  std::string message;
  EXPECT_EQ(code_of([&] { (void)parse_uri(uri); }, &message), errc::invalid_uri);
  EXPECT_EQ(message, uri.substr(0, 200) + "...: missing port (write tcp://host:port)");
}

TEST(TransportUri, ErrcNames) {
  EXPECT_EQ(to_string(errc::ok), "ok");
  EXPECT_EQ(to_string(errc::invalid_uri), "invalid_uri");
  EXPECT_EQ(to_string(errc::address_in_use), "address_in_use");
  EXPECT_EQ(to_string(errc::connection_refused), "connection_refused");
  EXPECT_EQ(to_string(errc::not_found), "not_found");
  EXPECT_EQ(to_string(errc::timed_out), "timed_out");
  EXPECT_EQ(to_string(errc::closed), "closed");
  EXPECT_EQ(to_string(errc::io_error), "io_error");
  EXPECT_EQ(to_string(static_cast<errc>(200)), "unknown");
}

TEST(TransportUri, HandBuiltEndpointsAreChecked) {
  boost::asio::io_context io;
  endpoint no_host;
  no_host.scheme = scheme::tcp;
  std::string message;
  EXPECT_EQ(code_of([&] { (void)listen(io, no_host); }, &message), errc::invalid_uri);
  EXPECT_EQ(message, "tcp://:0: empty host (write tcp://host:port)");
  endpoint relative;
  relative.scheme = scheme::unix_socket;
  relative.path = "x.sock";
  EXPECT_EQ(code_of([&] { (void)connect(io, relative, in(1s)); }, &message), errc::invalid_uri);
  EXPECT_EQ(message, "unix://x.sock: the unix path must be absolute (write unix:///path)");
  endpoint stray;  // a tcp endpoint with a path: not what its URI says
  stray.host = "h";
  stray.path = "/p";
  EXPECT_EQ(code_of([&] { (void)connect(io, stray, in(1s)); }, &message), errc::invalid_uri);
  EXPECT_EQ(message, "tcp://h:0: the endpoint does not round-trip through its URI");
}

TEST(TransportUri, UnixPathTooLong) {
  boost::asio::io_context io;
  const std::string path = "/tmp/" + std::string(200, 'p');
  std::string message;
  EXPECT_EQ(code_of([&] { (void)listen(io, parse_uri("unix://" + path)); }, &message), errc::invalid_uri);
  EXPECT_EQ(message, "unix://" + path + ": the unix path is 205 bytes long, at most 107 fit");
  EXPECT_EQ(code_of([&] { (void)connect(io, parse_uri("unix://" + path), in(1s)); }), errc::invalid_uri);
}

}  // namespace
}  // namespace refwire::transports::test
