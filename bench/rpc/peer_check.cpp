// bench/rpc/peer_check.cpp: rpc_peer_check, a smoke test of bench_rpc's peer
// libraries (peer_grpc.cpp, peer_capnp.cpp) without the benchmark driver.
//
// For each peer and transport it starts a server the way bench_rpc does (this
// program re-executed with --serve=<peer> --transport=<t> --dir=<temp dir>),
// checks every shape field by field (including the 8,294,400-byte echo),
// calls from several threads, checks that a call on a stopped server throws,
// that the server exits 0 when its standard input closes and leaves nothing in
// its directory, and prints rough figures: µs per Sim call (median of rounds)
// and per Conn (connect + add + destroy), and GB/s of put(8,294,400 bytes).
//
//   rpc_peer_check [--peer=grpc|capnp] [--transport=unix|tcp] [--calls=N] [--rounds=R]
//   taskset -c 0 rpc_peer_check       (client and server on one CPU, as bench_rpc does)
// Exit status 0 when every check passed.
#include "peer.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace rpcbench {


namespace {

int failures = 0;

void fail(const std::string& where, const std::string& what) {
  ++failures;
  std::printf("FAIL %s: %s\n", where.c_str(), what.c_str());
}

#define CHECK(where, cond)                      \
  do {                                          \
    if (!(cond)) fail((where), "not " #cond);   \
  } while (0)

const peer* find_peer(std::string_view name) {
  if (name == "grpc") return &grpc_peer();
  if (name == "capnp") return &capnp_peer();
  return nullptr;
}

// A server process: this program re-executed with --serve.
class server_process {
 public:
  server_process(const peer& p, const std::string& transport) {
    char tmpl[] = "/tmp/rpc_peer_check.XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
    dir_ = tmpl;
    int in[2];
    int out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
      const int e = errno;
      ::rmdir(dir_.c_str());
      throw std::runtime_error(std::string("pipe2: ") + std::strerror(e));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    std::string a1 = "--serve=" + std::string(p.name);
    std::string a2 = "--transport=" + transport;
    std::string a3 = "--dir=" + dir_;
    char self[] = "rpc_peer_check";
    char* argv[] = {self, a1.data(), a2.data(), a3.data(), nullptr};
    const int rc = ::posix_spawn(&pid_, "/proc/self/exe", &fa, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    to_child_ = in[1];
    from_child_ = out[0];
    try {
      if (rc != 0) throw std::runtime_error(std::string("posix_spawn: ") + std::strerror(rc));
      address_ = read_ready();
    } catch (...) {
      stop("start");  // no process, descriptor or directory left behind
      throw;
    }
  }
  server_process(const server_process&) = delete;
  server_process& operator=(const server_process&) = delete;
  ~server_process() { stop("cleanup"); }

  const std::string& address() const { return address_; }

  // Closes the server's stdin; checks it exits 0 within 5 s and leaves its directory empty.
  void stop(const std::string& where) {
    if (to_child_ < 0) return;
    ::close(to_child_);
    to_child_ = -1;
    if (pid_ > 0) reap(where);
    ::close(from_child_);
    if (DIR* d = ::opendir(dir_.c_str())) {
      while (dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n == "." || n == "..") continue;
        fail(where, "the server left " + n + " in its directory");
        ::unlink((dir_ + "/" + n).c_str());
      }
      ::closedir(d);
    }
    ::rmdir(dir_.c_str());
  }

 private:
  void reap(const std::string& where) {
    int status = 0;
    bool exited = false;
    for (int i = 0; i < 500 && !exited; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited = true;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    if (!exited) {
      fail(where, "the server did not exit within 5 s of its stdin closing (killed)");
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fail(where, "the server's exit status is " + std::to_string(status) + ", not 0");
    }
    pid_ = -1;
  }

  std::string read_ready() {
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd p{from_child_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
        throw std::runtime_error("the server printed no ready line within 10 s");
      }
      char c = 0;
      const ssize_t n = ::read(from_child_, &c, 1);
      if (n <= 0) throw std::runtime_error("the server closed stdout before its ready line: '" + line + "'");
      if (c == '\n') break;
      line += c;
    }
    if (line.rfind("ready ", 0) != 0) throw std::runtime_error("the server's first line is '" + line + "'");
    return line.substr(6);
  }

  std::string dir_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string address_;
};

bool same(const std::vector<item>& a, const std::vector<item>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || a[i].name != b[i].name || a[i].price != b[i].price) return false;
  }
  return true;
}

bool same(const summary& a, const summary& b) {
  return a.total == b.total && a.count == b.count && a.status == b.status;
}

void check_shapes(peer_client& c, const std::string& w) {
  CHECK(w + " add", c.add(2, 3) == 5);
  CHECK(w + " add", c.add(-7, 3) == -4);
  CHECK(w + " add wraps", c.add(INT_MAX, 1) == INT_MIN);
  c.ping();
  CHECK(w + " echo", c.echo(hello) == hello);
  CHECK(w + " echo", c.echo("").empty());
  const std::string long_text(100'000, 'q');
  CHECK(w + " echo 100k", c.echo(long_text) == long_text);
  CHECK(w + " range", same(c.range(range_n), make_range(range_n)));
  CHECK(w + " range", c.range(0).empty());
  CHECK(w + " range", c.range(1).size() == 1);

  const order o = make_order();
  summary out;
  CHECK(w + " cx", c.cx(o, out) == static_cast<int>(o.lines.size()));
  CHECK(w + " cx", same(out, summarize(o)));
  CHECK(w + " cx", out.status == "ok" && out.count == 10 && out.total > 0);
  order bare = make_order();
  bare.lines.clear();
  bare.note.reset();
  summary none{1, 1, "stale"};
  CHECK(w + " cx empty", c.cx(bare, none) == 0);
  CHECK(w + " cx empty", same(none, summarize(bare)) && none.status == "empty");

  c.put(make_bytes(small_bytes));
  c.put(make_bytes(large_bytes));
  CHECK(w + " echo_bytes 25", c.echo_bytes(make_bytes(small_bytes)) == make_bytes(small_bytes));
  CHECK(w + " echo_bytes 0", c.echo_bytes({}).empty());
  const bytes big = make_bytes(large_bytes);
  const bytes back = c.echo_bytes(big);
  CHECK(w + " echo_bytes 8M", back.size() == large_bytes && back == big);
}

// 4 threads at once: one shared client, or one client each.
void check_threads(const peer& p, peer_client& shared, const std::string& address, const std::string& w) {
  std::vector<std::thread> ts;
  std::vector<int> wrong(4, 0);
  std::vector<std::string> errors(4);
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&, t] {
      try {
        std::unique_ptr<peer_client> own;
        if (!p.shared_client) own = p.connect(address);
        peer_client& c = own ? *own : shared;
        for (int i = 0; i < 500; ++i) {
          if (c.add(t * 1000, i) != t * 1000 + i) ++wrong[static_cast<std::size_t>(t)];
        }
        if (!same(c.range(range_n), make_range(range_n))) ++wrong[static_cast<std::size_t>(t)];
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(t)] = e.what();
      }
    });
  }
  if (!p.shared_client) {
    // A client that is not shared refuses calls from another thread (clearly, not by hanging).
    ts.emplace_back([&] {
      try {
        shared.add(1, 2);
        fail(w + " other thread", "a call from another thread did not throw");
      } catch (const std::runtime_error& e) {
        if (std::string(e.what()).find("belongs to the thread") == std::string::npos) {
          fail(w + " other thread", std::string("unexpected error: ") + e.what());
        }
      }
    });
  }
  for (auto& t : ts) t.join();
  for (std::size_t t = 0; t < 4; ++t) {
    if (wrong[t] != 0) fail(w + " threads", std::to_string(wrong[t]) + " wrong results in thread " + std::to_string(t));
    if (!errors[t].empty()) fail(w + " threads", errors[t]);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void run(const peer& p, const std::string& transport, int calls, int rounds) {
  const std::string w = std::string(p.name) + "/" + transport;
  try {
    server_process server(p, transport);
    std::unique_ptr<peer_client> c = p.connect(server.address());
    check_shapes(*c, w);
    check_threads(p, *c, server.address(), w);

    using clock = std::chrono::steady_clock;
    std::vector<double> sim;
    for (int r = 0; r < rounds; ++r) {
      const auto t0 = clock::now();
      int sum = 0;
      for (int i = 0; i < calls; ++i) sum += c->add(i, 1);
      const auto t1 = clock::now();
      if (sum != static_cast<int>((static_cast<long long>(calls) * (calls + 1)) / 2)) fail(w + " sim", "wrong sum");
      sim.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
    }
    std::vector<double> conn;
    for (int r = 0; r < 20; ++r) {
      const auto t0 = clock::now();
      {
        std::unique_ptr<peer_client> fresh = p.connect(server.address());
        if (fresh->add(1, 2) != 3) fail(w + " conn", "wrong sum");
      }
      conn.push_back(std::chrono::duration<double, std::micro>(clock::now() - t0).count());
    }
    std::vector<double> big;
    const bytes frame = make_bytes(large_bytes);
    for (int r = 0; r < 5; ++r) {
      const auto t0 = clock::now();
      c->put(frame);
      big.push_back(std::chrono::duration<double>(clock::now() - t0).count());
    }
    std::string extra;
    if (p.sim_throughput) {
      for (const int threads : {1, 8}) {
        const auto d = std::chrono::milliseconds(300);
        const std::uint64_t n = p.sim_throughput(server.address(), threads, threads == 8 ? 8 : 1, d);
        if (n == 0) fail(w + " sim_throughput", "no call completed");
        extra += "  sim_throughput(" + std::to_string(threads) + " in flight) " +
                 std::to_string(static_cast<std::uint64_t>(static_cast<double>(n) / 0.3)) + " calls/s";
      }
    }
    std::printf("%-11s Sim %7.1f us/call (median of %d x %d)  Conn %7.1f us  put(8M) %5.2f GB/s%s\n", w.c_str(),
                median(sim), rounds, calls, median(conn), static_cast<double>(large_bytes) / median(big) / 1e9,
                extra.c_str());

    server.stop(w + " stop");
    bool threw = false;
    try {
      c->add(1, 1);
    } catch (const std::runtime_error& e) {
      threw = std::string(e.what()).find(std::string(p.name)) == 0;
      if (!threw) fail(w + " after stop", std::string("the error does not name the peer: ") + e.what());
    }
    if (!threw) fail(w + " after stop", "a call on a stopped server did not throw std::runtime_error");
  } catch (const std::exception& e) {
    fail(w, e.what());
  }
}

std::string_view option(std::string_view arg, std::string_view name) {
  return arg.substr(0, name.size()) == name ? arg.substr(name.size()) : std::string_view();
}

}  // namespace
}  // namespace rpcbench

int main(int argc, char** argv) {
  using namespace rpcbench;
  std::string_view serve, transport, dir, only_peer;
  int calls = 2000;
  int rounds = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (auto v = option(a, "--serve="); !v.empty()) {
      serve = v;
    } else if (auto t = option(a, "--transport="); !t.empty()) {
      transport = t;
    } else if (auto d = option(a, "--dir="); !d.empty()) {
      dir = d;
    } else if (auto p = option(a, "--peer="); !p.empty()) {
      only_peer = p;
    } else if (auto n = option(a, "--calls="); !n.empty()) {
      calls = std::max(1, std::atoi(std::string(n).c_str()));
    } else if (auto r = option(a, "--rounds="); !r.empty()) {
      rounds = std::max(1, std::atoi(std::string(r).c_str()));
    } else {
      std::fprintf(stderr, "rpc_peer_check: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (!serve.empty()) {
    const peer* p = find_peer(serve);
    if (p == nullptr) {
      std::fprintf(stderr, "rpc_peer_check: unknown peer '%.*s' (grpc or capnp)\n", static_cast<int>(serve.size()),
                   serve.data());
      return 2;
    }
    return p->serve(transport, std::string(dir));
  }
  // A server exiting early must not kill this process with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  for (const char* name : {"grpc", "capnp"}) {
    if (!only_peer.empty() && only_peer != name) continue;
    for (const char* t : {"unix", "tcp"}) {
      if (!transport.empty() && transport != t) continue;
      run(*find_peer(name), t, calls, rounds);
    }
  }
  std::printf("%s (%d failures)\n", failures == 0 ? "ok" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
