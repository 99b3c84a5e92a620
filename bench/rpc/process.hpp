#pragma once
// bench/rpc/process.hpp: the server processes of bench_rpc. The driver
// re-executes its own program (posix_spawn of /proc/self/exe, never a fork of
// a process that may have threads) with --serve=..., talks to the child over
// its standard input and output, and removes every child and its private
// temporary directory on the way out: normal exit, an exception, or SIGINT /
// SIGTERM / SIGHUP (a thread waits for those and cleans up).
//
//   rpcbench::proc::start_cleanup_thread();                 // first thing in main
//   rpcbench::proc::temp_dir dir;                           // removed at exit or on a signal
//   rpcbench::proc::child c({"--serve=floor", "--transport=unix", "--dir=" + dir.path()});
//   std::string where = c.address();                        // from its "ready <address>" line
//   c.send_line("allocs"); std::string answer = c.read_line(std::chrono::seconds(10));
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace rpcbench::proc {

/// Blocks SIGINT, SIGTERM and SIGHUP in this thread (and every thread created
/// after it) and starts the thread that waits for them: it kills the children,
/// removes the temporary directory and exits with 128 + the signal.
///   int main() { rpcbench::proc::start_cleanup_thread(); ... }
void start_cleanup_thread();

/// A private (0700) temporary directory, removed with its contents by the destructor.
///   temp_dir d; d.path();  // "/tmp/refwire-rpcbench-Ab12Cd"
class temp_dir {
 public:
  temp_dir();
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

/// A server process: this program run with args. The constructor waits (up to
/// ready_timeout) for its "ready <address>" line and throws std::runtime_error
/// naming the child when it exits or says anything else. The destructor closes
/// its standard input (which tells it to stop), waits a few seconds for it to
/// exit and kills it if it does not.
///   child c({"--serve=refwire", "--transport=tcp", "--dir=/tmp/x"});  c.address();  // "tcp://127.0.0.1:41234"
class child {
 public:
  explicit child(const std::vector<std::string>& args,
                 std::chrono::milliseconds ready_timeout = std::chrono::seconds(30));
  ~child();
  child(const child&) = delete;
  child& operator=(const child&) = delete;

  [[nodiscard]] const std::string& address() const noexcept { return address_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// Writes text and a newline to the child's standard input.
  void send_line(const std::string& text);
  /// The next line of the child's standard output, without its newline;
  /// throws when the child closes it or says nothing within timeout.
  std::string read_line(std::chrono::milliseconds timeout);
  /// Closes the child's standard input and waits for it: its exit status
  /// (0 when it stopped cleanly; 128 + n when a signal n ended it, or it was killed).
  int stop();

 private:
  std::string name_;  // "refwire server (unix)": for messages
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffered_;
  std::string address_;
};

/// Pins the calling thread (and the threads it creates later) to one CPU.
///   pin_to_cpu(0);
void pin_to_cpu(int cpu);
/// The CPUs this process may run on, in order.
[[nodiscard]] std::vector<int> allowed_cpus();

}  // namespace rpcbench::proc
