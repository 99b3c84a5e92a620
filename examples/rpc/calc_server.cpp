// The calculator server: the same service with the binary codec on a Unix
// socket and JSON on TCP. Prints where it listens, one URI per line, then
// serves until its standard input closes or it gets SIGINT/SIGTERM.
//
//   ./example_calc_server /tmp      # unix:///tmp/calc.sock and tcp://127.0.0.1:<port>
#include <pthread.h>
#include <signal.h>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "calculator.hpp"

struct calc_impl : calculator {
  int add(int a, int b) override { return a + b; }
  std::vector<point> range(int n) override {
    if (n < 0) throw std::invalid_argument("range: n must not be negative");
    std::vector<point> out;
    for (int i = 0; i < n; ++i) out.push_back({i, i * 0.5, "p" + std::to_string(i)});
    return out;
  }
  void log(std::string line) override { std::fprintf(stderr, "server log: %s\n", line.c_str()); }
};

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/tmp";
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);  // the IO threads inherit the mask

  calc_impl impl;
  refwire::rpc::server server;
  server.serve<calculator>(impl);
  std::printf("%s\n", server.listen("unix://" + dir + "/calc.sock", {.codecs = {refwire::rpc::codec::binary}}).c_str());
  std::printf("%s\n", server.listen("tcp://127.0.0.1:0", {.codecs = {refwire::rpc::codec::json}}).c_str());
  std::fflush(stdout);
  server.start();

  int received = 0;
  sigwait(&stop_signals, &received);  // or: server.run() from main, stop() from elsewhere
  server.stop();
  std::fprintf(stderr, "server: stopped\n");
}
