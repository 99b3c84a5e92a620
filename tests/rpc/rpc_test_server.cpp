// The server program the process tests start: serves rpctest::calculator and
// rpctest::greeter on every endpoint given on the command line, prints each
// bound URI on a line of its own and then "ready", and exits when its
// standard input closes (so it never outlives the test that started it).
//
//   rpc_test_server unix:///tmp/x.sock tcp://127.0.0.1:0=json
//   (a "=json" suffix: that endpoint accepts the JSON codec only)

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>

#include <refwire/rpc.hpp>

#include "test_service.hpp"

int main(int argc, char** argv) {
  try {
    rpctest::calculator_impl calc;
    rpctest::greeter_impl greeter;
    refwire::rpc::server server({.io_threads = 2});
    server.serve<rpctest::calculator>(calc);
    server.serve<rpctest::greeter>(greeter);
    for (int i = 1; i < argc; ++i) {
      std::string uri = argv[i];
      refwire::rpc::endpoint_options options;
      if (uri.size() > 5 && uri.ends_with("=json")) {
        uri.resize(uri.size() - 5);
        options.codecs = {refwire::rpc::codec::json};
      }
      std::printf("%s\n", server.listen(uri, options).c_str());
    }
    server.start();
    std::printf("ready\n");
    std::fflush(stdout);
    char c;
    while (::read(STDIN_FILENO, &c, 1) > 0) {
    }
    server.stop();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpc_test_server: %s\n", e.what());
    return 1;
  }
}
