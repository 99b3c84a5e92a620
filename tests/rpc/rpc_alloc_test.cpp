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
/// Bytes this thread asked operator new for.
thread_local std::size_t bytes_here = 0;
/// Bytes the other threads (the server's) asked for, while `watching`.
thread_local bool test_thread = false;
std::atomic<std::size_t> bytes_elsewhere{0};
}  // namespace

void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  bytes_here += n;
  if (!test_thread) bytes_elsewhere.fetch_add(n, std::memory_order_relaxed);
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

// A large argument is sent from the caller's own memory, and a large reply
// read straight into the result's storage: on a new client's first call,
// the calling thread allocates the result and a little more, not one frame
// buffer per direction besides (which it did when every frame went through
// a buffer: three times the payload).
TEST_P(rpc_allocations, a_large_payload_is_not_copied_through_frame_buffers) {
  if (GetParam() == transport::inproc) GTEST_SKIP() << "an inproc pipe buffers the bytes itself (its own allocation)";
  rpctest::temp_dir dir;
  rpctest::calculator_impl impl;
  refwire::rpc::server server;
  server.serve<calculator>(impl);
  const std::string uri = server.listen(rpctest::listen_uri(GetParam(), dir));
  server.start();
  const std::string big(4u << 20, 'b');
  refwire::rpc::client<calculator> calc(uri);
  const std::size_t before = bytes_here;
  const std::string got = calc.call<&calculator::echo>(big);
  const std::size_t during = bytes_here - before;
  EXPECT_EQ(got, big);
  EXPECT_GE(during, big.size());
  EXPECT_LT(during, big.size() + (256u << 10)) << during << " bytes allocated by the calling thread";
}

/// A blob store: its argument is a std::vector<std::byte>, which takes over
/// the buffer a large request's blob was read into.
struct blob_sink {
  virtual ~blob_sink() = default;
  virtual std::uint64_t put(const std::vector<std::byte>& b) = 0;
};
BOOST_DESCRIBE_STRUCT(blob_sink, (), (put))
REFWIRE_NAME(blob_sink, "test.blobs.v1")

struct blob_sink_impl : blob_sink {
  std::uint64_t put(const std::vector<std::byte>& b) override { return b.size() + static_cast<std::uint64_t>(b[7]); }
};

/// On both sides of a new connection's first large call: the client sends the
/// blob from the caller's vector (the calling thread allocates next to
/// nothing), the server reads it straight into the buffer that becomes the
/// argument (the blob's size once; reading it into the frame buffer first and
/// decoding a copy was twice that).
void expect_blob_read_once(transport t, const refwire::rpc::server_options& options) {
  test_thread = true;
  rpctest::temp_dir dir;
  blob_sink_impl impl;
  refwire::rpc::server server(options);
  server.serve<blob_sink>(impl);
  const std::string uri = server.listen(rpctest::listen_uri(t, dir));
  server.start();
  std::vector<std::byte> blob(4u << 20, std::byte{3});
  refwire::rpc::client<blob_sink> sink(uri);
  const std::size_t here_before = bytes_here;
  const std::size_t elsewhere_before = bytes_elsewhere.load();
  EXPECT_EQ(sink.call<&blob_sink::put>(blob), blob.size() + 3);
  const std::size_t here = bytes_here - here_before;
  const std::size_t elsewhere = bytes_elsewhere.load() - elsewhere_before;
  EXPECT_LT(here, 64u << 10) << here << " bytes allocated by the calling thread";
  EXPECT_GE(elsewhere, blob.size());
  EXPECT_LT(elsewhere, blob.size() + (256u << 10)) << elsewhere << " bytes allocated by the server";
  test_thread = false;
}

TEST_P(rpc_allocations, a_large_blob_is_read_once_into_its_argument) {
  if (GetParam() == transport::inproc) GTEST_SKIP() << "an inproc pipe buffers the bytes itself (its own allocation)";
  expect_blob_read_once(GetParam(), {});
}

TEST_P(rpc_allocations, a_large_blob_is_read_once_into_its_argument_with_a_handler_pool) {
  if (GetParam() == transport::inproc) GTEST_SKIP() << "an inproc pipe buffers the bytes itself (its own allocation)";
  expect_blob_read_once(GetParam(), {.handler_threads = 1});
}

}  // namespace
