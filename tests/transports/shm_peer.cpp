// A peer process for shm_test: connects to shm://<name>, writes "hello", waits
// <ms> milliseconds, then dies by SIGKILL (no close, no destructors: the
// kernel closes its descriptors).
//   transports_shm_peer <name> <ms>
#include <refwire/transports/transport.hpp>

#include <boost/asio/io_context.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>

int main(int argc, char** argv) {
  namespace rt = refwire::transports;
  if (argc != 3) {
    std::fprintf(stderr, "usage: transports_shm_peer <name> <ms>\n");
    return 2;
  }
  try {
    boost::asio::io_context io;
    auto s = rt::connect(io, rt::parse_uri(std::string("shm://") + argv[1]), rt::clock::now() + std::chrono::seconds(5));
    const char text[] = "hello";
    const std::span<const std::byte> parts[] = {std::as_bytes(std::span(text, 5))};
    s->write_all(parts, rt::clock::now() + std::chrono::seconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(argv[2])));
    ::kill(::getpid(), SIGKILL);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "transports_shm_peer: %s\n", e.what());
    return 1;
  }
  return 3;
}
