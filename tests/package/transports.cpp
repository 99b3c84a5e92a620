// A user's program on the transports alone: an inproc pair and a TCP pair
// through the installed library (its header, Boost.Asio and Threads).
#include <refwire/transports/transport.hpp>

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

namespace rt = refwire::transports;

static bool round_trip(boost::asio::io_context& io, const std::string& uri) {
  auto l = rt::listen(io, rt::parse_uri(uri), {.backlog = 4});
  std::unique_ptr<rt::stream> server;
  l->async_accept([&](rt::errc c, std::unique_ptr<rt::stream> s) {
    if (c == rt::errc::ok) server = std::move(s);
  });
  const auto deadline = rt::clock::now() + std::chrono::seconds(2);
  auto client = rt::connect(io, rt::parse_uri(l->uri()), deadline);
  while (!server && rt::clock::now() < deadline) {
    io.restart();
    io.run_one_for(std::chrono::milliseconds(10));
  }
  if (!server) return false;
  const char text[] = "hello";
  const std::span<const std::byte> parts[] = {std::as_bytes(std::span(text, 5))};
  client->write_all(parts, deadline);
  std::byte got[5] = {};
  std::size_t n = 0;
  while (n < 5) {
    const std::size_t k = server->read_some(std::span(got).subspan(n), deadline);
    if (k == 0) return false;
    n += k;
  }
  return std::memcmp(got, text, 5) == 0;
}

int main() {
  boost::asio::io_context io;
  try {
    if (!round_trip(io, "inproc://package") || !round_trip(io, "tcp://127.0.0.1:0")) {
      std::fprintf(stderr, "transports round trip failed\n");
      return 1;
    }
  } catch (const rt::transport_error& e) {
    std::fprintf(stderr, "transports: %s (%s)\n", e.what(), std::string(rt::to_string(e.code())).c_str());
    return 1;
  }
  std::printf("transports ok: inproc and tcp round trips\n");
  return 0;
}
