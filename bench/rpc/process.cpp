// bench/rpc/process.cpp: spawning, talking to and cleaning up after the
// server processes (process.hpp).
#include "process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace rpcbench::proc {
namespace {

// What the cleanup thread removes: the live children and the temporary
// directory. Spawning happens under the lock, so after the cleanup thread
// takes it no new child can appear.
std::mutex registry_mutex;
std::vector<pid_t> live_children;
std::string live_dir;

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

void cleanup_on_signal(int sig) {
  std::lock_guard lock(registry_mutex);
  for (pid_t pid : live_children) kill(pid, SIGKILL);
  for (pid_t pid : live_children) waitpid(pid, nullptr, 0);
  if (!live_dir.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(live_dir, ignored);
  }
  std::fprintf(stderr, "\nbench_rpc: interrupted by signal %d; servers stopped, temporary files removed\n", sig);
  std::_Exit(128 + sig);
}

sigset_t cleanup_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

// Waits up to timeout for pid to exit (true; status filled) or gives up (false).
bool wait_exit(pid_t pid, std::chrono::milliseconds timeout, int& status) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

}  // namespace

void start_cleanup_thread() {
  const sigset_t set = cleanup_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    cleanup_on_signal(sig);
  }).detach();
}

temp_dir::temp_dir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/refwire-rpcbench-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error(errno_text(("mkdtemp " + pattern).c_str()));
  path_ = pattern;
  std::lock_guard lock(registry_mutex);
  live_dir = path_;
}

temp_dir::~temp_dir() {
  {
    std::lock_guard lock(registry_mutex);
    live_dir.clear();
  }
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

child::child(const std::vector<std::string>& args, std::chrono::milliseconds ready_timeout) {
  for (const std::string& a : args) {
    if (a.rfind("--serve=", 0) == 0) name_ = a.substr(8) + " server" + name_;
    if (a.rfind("--transport=", 0) == 0) name_ += " (" + a.substr(12) + ")";
  }
  int in[2];
  int out[2];
  if (pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("pipe2"));
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    throw std::runtime_error(errno_text("pipe2"));
  }
  std::vector<std::string> argv_text = {"bench_rpc"};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);  // dup2 clears O_CLOEXEC on 0 and 1
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // The child gets the default signal mask and dispositions (the driver blocks
  // SIGINT for its cleanup thread and ignores SIGPIPE), so Ctrl-C reaches it.
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults = cleanup_signals();
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  int rc = 0;
  {
    std::lock_guard lock(registry_mutex);
    rc = posix_spawn(&pid_, "/proc/self/exe", &actions, &attr, argv.data(), environ);
    if (rc == 0) live_children.push_back(pid_);
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(in[0]);
  close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
  if (rc != 0) {
    close(to_child_);
    close(from_child_);
    throw std::runtime_error("cannot start the " + name_ + ": posix_spawn: " + std::strerror(rc));
  }
  std::string line;
  try {
    line = read_line(ready_timeout);
  } catch (const std::exception& e) {
    const int status = stop();
    throw std::runtime_error("the " + name_ + " did not start (" + e.what() + "; exit status " +
                             std::to_string(status) + ")");
  }
  if (line.rfind("ready ", 0) != 0 || line.size() == 6) {
    const int status = stop();
    throw std::runtime_error("the " + name_ + " said \"" + line + "\" instead of \"ready <address>\" (exit status " +
                             std::to_string(status) + ")");
  }
  address_ = line.substr(6);
}

child::~child() { stop(); }

void child::send_line(const std::string& text) {
  const std::string l = text + "\n";
  std::size_t done = 0;
  while (done < l.size()) {
    const ssize_t n = write(to_child_, l.data() + done, l.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(errno_text(("writing to the " + name_).c_str()));
    done += static_cast<std::size_t>(n);
  }
}

std::string child::read_line(std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (const auto nl = buffered_.find('\n'); nl != std::string::npos) {
      std::string l = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return l;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw std::runtime_error("no answer within " + std::to_string(timeout.count()) + " ms");
    pollfd p{from_child_, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw std::runtime_error(errno_text("poll"));
    if (r == 0) continue;
    char buf[512];
    const ssize_t n = read(from_child_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("its output closed");
    buffered_.append(buf, static_cast<std::size_t>(n));
  }
}

int child::stop() {
  if (pid_ < 0) return 0;
  if (to_child_ >= 0) close(to_child_);
  to_child_ = -1;
  int status = 0;
  if (!wait_exit(pid_, std::chrono::seconds(5), status)) {
    std::fprintf(stderr, "bench_rpc: the %s did not stop within 5 s of its input closing; killed\n", name_.c_str());
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  if (from_child_ >= 0) close(from_child_);
  from_child_ = -1;
  {
    std::lock_guard lock(registry_mutex);
    live_children.erase(std::remove(live_children.begin(), live_children.end(), pid_), live_children.end());
  }
  pid_ = -1;
  return exit_code(status);
}

void pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<unsigned>(cpu), &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) throw std::runtime_error(errno_text("sched_setaffinity"));
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(static_cast<unsigned>(c), &set)) out.push_back(c);
  return out;
}

}  // namespace rpcbench::proc
