// RPC between processes: the test starts rpc_test_server (a real program)
// and calls it over unix sockets and TCP; kills it mid-call; starts it again.

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <refwire/rpc.hpp>

#include "rpc_support.hpp"
#include "test_service.hpp"

extern char** environ;

namespace {

using namespace std::chrono_literals;
using refwire::rpc::client;
using refwire::rpc::codec;
using refwire::rpc::rpc_error;
using refwire::rpc::status_code;
using rpctest::calculator;
using rpctest::expect_rpc_error;

/// rpc_test_server as a child process: started with pipes on its standard
/// input and output; killed and reaped by the destructor.
class server_process {
 public:
  explicit server_process(const std::vector<std::string>& endpoints) {
    int in[2];
    int out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::vector<std::string> args = {REFWIRE_RPC_TEST_SERVER};
    args.insert(args.end(), endpoints.begin(), endpoints.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    stdin_ = in[1];
    stdout_ = out[0];
    if (rc != 0) throw std::runtime_error("posix_spawn failed");
    for (;;) {
      const std::string line = read_line(10s);
      if (line == "ready") break;
      uris_.push_back(line);
    }
  }
  ~server_process() { kill(); }
  server_process(const server_process&) = delete;
  server_process& operator=(const server_process&) = delete;

  [[nodiscard]] const std::vector<std::string>& uris() const { return uris_; }

  /// SIGKILL, then reap: the server dies without closing anything itself.
  void kill() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (stdin_ >= 0) ::close(stdin_);
    if (stdout_ >= 0) ::close(stdout_);
    stdin_ = stdout_ = -1;
  }

 private:
  std::string read_line(std::chrono::milliseconds within) {
    std::string line;
    const auto until = std::chrono::steady_clock::now() + within;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) throw std::runtime_error("rpc_test_server did not start in time");
      pollfd p{stdout_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char c;
      if (::read(stdout_, &c, 1) != 1) throw std::runtime_error("rpc_test_server exited before it was ready");
      if (c == '\n') return line;
      line += c;
    }
  }

  pid_t pid_ = -1;
  int stdin_ = -1;
  int stdout_ = -1;
  std::vector<std::string> uris_;
};

TEST(rpc_process, binary_over_unix_and_json_only_over_tcp) {
  rpctest::temp_dir dir;
  server_process server({"unix://" + (dir.path() / "calc.sock").string(), "tcp://127.0.0.1:0=json"});
  ASSERT_EQ(server.uris().size(), 2u);
  const std::string unix_uri = server.uris()[0];
  const std::string tcp_uri = server.uris()[1];
  EXPECT_EQ(unix_uri, "unix://" + (dir.path() / "calc.sock").string());
  EXPECT_EQ(tcp_uri.rfind("tcp://127.0.0.1:", 0), 0u) << tcp_uri;
  EXPECT_NE(tcp_uri, "tcp://127.0.0.1:0");

  client<calculator> local(unix_uri);
  EXPECT_EQ(local.call<&calculator::add>(2, 3), 5);
  EXPECT_EQ(local.call<&calculator::range>(50).size(), 50u);
  rpctest::summary out;
  EXPECT_EQ(local.call<&calculator::total>(std::vector<rpctest::item>{{1, "a", 2}}, out), 1);
  EXPECT_EQ(out, (rpctest::summary{2, 1, "ok"}));

  client<calculator> remote(tcp_uri, {.codec = codec::json});
  EXPECT_EQ(remote.call<&calculator::add>(20, 22), 42);
  EXPECT_EQ(remote.call<&calculator::echo>(std::string("Hello World!")), "Hello World!");
  expect_rpc_error([&] { client<calculator> wrong(tcp_uri, {.codec = codec::binary}); },
                   status_code::invalid_argument, "codec binary is not accepted at " + tcp_uri + ", which accepts json");
}

TEST(rpc_process, a_killed_server_is_unavailable_within_the_deadline_and_a_new_one_is_reached) {
  rpctest::temp_dir dir;
  const std::string path = "unix://" + (dir.path() / "calc.sock").string();
  auto server = std::make_unique<server_process>(std::vector<std::string>{path});
  client<calculator> calc(path, {.timeout = 5s});
  EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);

  std::thread killer([&] {
    std::this_thread::sleep_for(200ms);
    server->kill();
  });
  const auto start = std::chrono::steady_clock::now();
  expect_rpc_error([&] { calc.call<&calculator::sleep_ms>(4000); }, status_code::unavailable,
                   "calc.v1.sleep_ms: the server closed the connection");
  killer.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);  // long before the 5 s deadline

  server = std::make_unique<server_process>(std::vector<std::string>{path});  // the stale socket file is replaced
  EXPECT_EQ(calc.call<&calculator::add>(3, 4), 7);  // connects again at once
}

TEST(rpc_process, many_threads_across_processes) {
  rpctest::temp_dir dir;
  server_process server({"unix://" + (dir.path() / "calc.sock").string(), "tcp://127.0.0.1:0"});
  for (const std::string& uri : server.uris()) {
    client<calculator> calc(uri);
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 2000; ++i) {
          if (calc.call<&calculator::add>(t, i) != t + i) wrong.fetch_add(1);
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(wrong.load(), 0) << uri;
  }
}

}  // namespace
