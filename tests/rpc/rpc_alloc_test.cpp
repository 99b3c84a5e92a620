// No allocation per call in steady state: this program replaces the global
// operator new with a counting one, and counts what a thousand calls
// allocate, client and server together (both in this process), once the
// buffers have grown to their size. Over every transport, with the binary
// codec, for a call whose values allocate nothing themselves (int add(int, int),
// std::string echo of a short string), and for a long string argument, whose
// decoded copy is reused from call to call.

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include <gtest/gtest.h>

#include <refwire/rpc.hpp>

#include "rpc_support.hpp"
#include "test_service.hpp"

namespace {
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

using rpctest::calculator;
using rpctest::transport;

class rpc_allocations : public testing::TestWithParam<transport> {};
INSTANTIATE_TEST_SUITE_P(every_transport, rpc_allocations,
                         testing::Values(transport::inproc, transport::unix_socket, transport::tcp, transport::shm),
                         [](const testing::TestParamInfo<transport>& p) { return rpctest::to_string(p.param); });

/// A thousand calls of add and echo after a warm-up: the allocations counted.
void expect_none_per_call(transport t, const refwire::rpc::server_options& options) {
  rpctest::temp_dir dir;
  rpctest::calculator_impl impl;
  refwire::rpc::server server(options);
  server.serve<calculator>(impl);
  const std::string uri = server.listen(rpctest::listen_uri(t, dir));
  server.start();
  refwire::rpc::client<calculator> calc(uri);
  const std::string hello = "Hello World!";
  for (int i = 0; i < 1000; ++i) {  // warm up: buffers grow, asio's handler memory is recycled
    ASSERT_EQ(calc.call<&calculator::add>(i, 1), i + 1);
    ASSERT_EQ(calc.call<&calculator::echo>(hello), hello);
  }
  constexpr int calls = 1000;
  const long before = allocations.load();
  int wrong = 0;
  for (int i = 0; i < calls; ++i) {
    if (calc.call<&calculator::add>(i, 2) != i + 2) ++wrong;
    if (calc.call<&calculator::echo>(hello) != hello) ++wrong;
  }
  const long during = allocations.load() - before;
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(during, 0) << during << " allocations in " << 2 * calls << " calls (client and server)";
}

TEST_P(rpc_allocations, none_per_call_in_steady_state) { expect_none_per_call(GetParam(), {}); }

// With a handler pool: the queued calls and their buffers are recycled, the
// replies are built in the pool thread's own buffers.
TEST_P(rpc_allocations, none_per_call_with_a_handler_pool) {
  expect_none_per_call(GetParam(), {.handler_threads = 2});
}

// A string argument too long for the small-string buffer: the server decodes
// it into the thread's reused arguments (binary codec), so a call allocates
// only its result's own string, once on the server (the handler's return
// value) and once on the client (the decoded result).
TEST_P(rpc_allocations, a_long_string_argument_allocates_only_the_results) {
  rpctest::temp_dir dir;
  rpctest::calculator_impl impl;
  refwire::rpc::server server;
  server.serve<calculator>(impl);
  const std::string uri = server.listen(rpctest::listen_uri(GetParam(), dir));
  server.start();
  refwire::rpc::client<calculator> calc(uri);
  const std::string text(40, 'x');
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(calc.call<&calculator::echo>(text), text);
  constexpr int calls = 1000;
  int wrong = 0;
  const long before = allocations.load();
  for (int i = 0; i < calls; ++i) {
    if (calc.call<&calculator::echo>(text).size() != text.size()) ++wrong;
  }
  const long during = allocations.load() - before;
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(during, 2 * calls) << during << " allocations in " << calls << " calls (client and server)";
}

}  // namespace
