// The calculator client: calls the server over its Unix socket (binary) and
// over TCP (JSON), and prints what its stats sink saw.
//
//   ./example_calc_client unix:///tmp/calc.sock tcp://127.0.0.1:41234
#include <cstdio>
#include <memory>
#include <string>

#include "calculator.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <unix-uri> <tcp-uri>\n", argv[0]);
    return 2;
  }
  auto stats = std::make_shared<refwire::rpc::memory_stats>();  // per method: calls, errors, latency, bytes
  refwire::rpc::client<calculator> local(argv[1], {.stats = stats});  // binary codec, the default
  std::printf("add(2, 3) = %d\n", local.call<&calculator::add>(2, 3));
  for (const point& p : local.call<&calculator::range>(3)) std::printf("  {%d, %g, %s}\n", p.x, p.y, p.name.c_str());
  local.notify<&calculator::log>("hello from the client");  // one-way

  refwire::rpc::client<calculator> remote(argv[2], {.codec = refwire::rpc::codec::json, .stats = stats});
  refwire::rpc::pending<int> sum = remote.async_call<&calculator::add>(40, 2);
  std::printf("add(40, 2) over JSON = %d\n", sum.get());

  try {
    (void)local.call<&calculator::range>(-1);
  } catch (const refwire::rpc::remote_error& e) {
    std::printf("remote_error %s: %s\n", e.type().c_str(), e.what());
  }
  try {  // this endpoint accepts JSON only
    refwire::rpc::client<calculator> wrong(argv[2], {.codec = refwire::rpc::codec::binary});
  } catch (const refwire::rpc::rpc_error& e) {
    std::printf("rpc_error %s: %s\n", std::string(refwire::rpc::to_string(e.code())).c_str(), e.what());
  }
  for (int i = 0; i < 100; ++i) (void)local.call<&calculator::add>(i, i);
  std::fputs(stats->table().c_str(), stdout);
}
