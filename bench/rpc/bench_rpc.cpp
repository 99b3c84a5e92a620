// bench_rpc: refwire's RPC against raw floors (and gRPC and Cap'n Proto when
// bench/rpc/peers.cmake builds them in), on the shapes of shapes.hpp, over
// unix sockets, TCP and (when refwire has it) shared memory. One program, one
// run: the servers are this program re-executed with --serve=<kind> (see
// process.hpp), so every server runs in its own process, pinned by default to
// the driver's CPU. docs/performance.md ("RPC") has the results and the goals.
//
//   bench_rpc                                   the tables and the goals (a few minutes)
//   bench_rpc --markdown[=file]                 the same tables as Markdown, for the docs
//   bench_rpc --placement=split                 server on another CPU (same | split | none)
//   bench_rpc --filter=unix/Sim                 only the rows whose name contains the text
//   bench_rpc --check-goals                     exit status 2 when a goal is missed
//   bench_rpc --benchmark_min_time=0.001 --benchmark_repetitions=1    the CI smoke run
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include <signal.h>
#include <unistd.h>

#include <refwire/rpc.hpp>
#include <refwire/rpc/detail/protocol.hpp>  // header_size, deadline_prefix_size: the frame sizes the floors copy
#include <refwire/serialization.hpp>
#include <refwire/transports/transport.hpp>

#include "floors.hpp"
#include "peer.hpp"
#include "process.hpp"
#include "shapes.hpp"

// -- the allocation counter: every operator new of this program, in both processes --

namespace {
std::atomic<long> allocation_count{0};

void* counted_alloc(std::size_t n) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* counted_alloc(std::size_t n, std::align_val_t a) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  const auto align = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(align, (n + align - 1) / align * align)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_alloc(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_alloc(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

using rpcbench::bench_service;
using refwire::rpc::codec;
using clock_type = std::chrono::steady_clock;
using service_client = refwire::rpc::client<bench_service>;

// -- options --

enum class placement { same, split, none };

struct options {
  // driver
  placement where = placement::same;
  double rep_seconds = 0.2;  // --benchmark_min_time
  int reps = 5;              // --benchmark_repetitions
  std::string filter;
  bool markdown = false;
  std::string markdown_file;
  bool check_goals = false;
  // server (--serve=...)
  std::string serve;
  std::string transport;
  std::string dir;
  int cpu = -1;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "bench_rpc: %s\n"
               "usage: bench_rpc [--placement=same|split|none] [--filter=TEXT] [--markdown[=FILE]] [--check-goals]\n"
               "                 [--benchmark_min_time=SECONDS] [--benchmark_repetitions=N]\n",
               why.c_str());
  std::exit(1);
}

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&](std::string_view flag) -> std::optional<std::string> {
      if (a.substr(0, flag.size()) == flag && a.size() > flag.size() && a[flag.size()] == '=')
        return std::string(a.substr(flag.size() + 1));
      return std::nullopt;
    };
    if (auto v = value("--placement")) {
      if (*v == "same") o.where = placement::same;
      else if (*v == "split") o.where = placement::split;
      else if (*v == "none") o.where = placement::none;
      else usage("--placement takes same, split or none, not " + *v);
    } else if (auto t = value("--benchmark_min_time")) {
      std::string s = *t;
      if (!s.empty() && s.back() == 's') s.pop_back();  // Google Benchmark accepts "0.5s"
      char* end = nullptr;
      o.rep_seconds = std::strtod(s.c_str(), &end);
      if (end == s.c_str() || *end != '\0' || !(o.rep_seconds > 0)) usage("--benchmark_min_time takes seconds, not " + *t);
    } else if (auto r = value("--benchmark_repetitions")) {
      o.reps = std::atoi(r->c_str());
      if (o.reps < 1) usage("--benchmark_repetitions takes a count of at least 1, not " + *r);
    } else if (auto f = value("--filter")) {
      o.filter = *f;
    } else if (a == "--markdown") {
      o.markdown = true;
    } else if (auto m = value("--markdown")) {
      o.markdown = true;
      o.markdown_file = *m;
    } else if (a == "--check-goals") {
      o.check_goals = true;
    } else if (auto s = value("--serve")) {
      o.serve = *s;
    } else if (auto tr = value("--transport")) {
      o.transport = *tr;
    } else if (auto d = value("--dir")) {
      o.dir = *d;
    } else if (auto c = value("--cpu")) {
      o.cpu = std::atoi(c->c_str());
    } else if (a == "--help" || a == "-h") {
      usage("the RPC benchmark (docs/performance.md, \"RPC\")");
    } else {
      usage("unknown argument " + std::string(a));
    }
  }
  return o;
}

// -- the peers compiled in --

std::vector<const rpcbench::peer*> compiled_peers() {
#ifdef REFWIRE_BENCH_RPC_PEERS
  return {&rpcbench::grpc_peer(), &rpcbench::capnp_peer()};
#else
  return {};
#endif
}

const rpcbench::peer* find_peer(std::string_view name) {
  for (const rpcbench::peer* p : compiled_peers())
    if (p->name == name) return p;
  return nullptr;
}

// -- refwire's server mode --

// Serves service_impl on one endpoint of transport until standard input ends;
// "allocs" on standard input is answered "allocs <count>" (this process's
// operator new calls so far), without allocating.
int serve_refwire(const std::string& transport, const std::string& dir) {
  static std::atomic<int> shm_names{0};
  std::string uri;
  if (transport == "unix") uri = "unix://" + dir + "/refwire.sock";
  else if (transport == "tcp") uri = "tcp://127.0.0.1:0";
  else if (transport == "shm") uri = "shm://bench-" + std::to_string(getpid()) + "-" + std::to_string(++shm_names);
  else {
    std::fprintf(stderr, "bench_rpc --serve=refwire: unknown transport %s (unix, tcp or shm)\n", transport.c_str());
    return 1;
  }
  rpcbench::service_impl impl;
  refwire::rpc::server server;
  server.serve<bench_service>(impl);
  const std::string where = server.listen(uri);
  server.start();
  std::printf("ready %s\n", where.c_str());
  std::fflush(stdout);
  char line[128];
  while (std::fgets(line, sizeof line, stdin)) {
    if (std::strcmp(line, "allocs\n") == 0) {
      std::printf("allocs %ld\n", allocation_count.load());
      std::fflush(stdout);
    } else {
      std::fprintf(stderr, "bench_rpc --serve=refwire: unknown command %s", line);
    }
  }
  server.stop();
  return 0;
}

int run_server(const options& o) {
  if (o.cpu >= 0) rpcbench::proc::pin_to_cpu(o.cpu);  // before any thread starts: they inherit it
  if (o.serve == "refwire") return serve_refwire(o.transport, o.dir);
  if (o.serve == "floor") return rpcbench::floors::serve(o.transport, o.dir);
  if (const rpcbench::peer* p = find_peer(o.serve)) return p->serve(o.transport, o.dir);
  std::fprintf(stderr, "bench_rpc: --serve=%s: no such server in this build (refwire, floor%s)\n", o.serve.c_str(),
               compiled_peers().empty() ? "; built without the peers" : ", grpc, capnp");
  return 1;
}

// -- the shapes --

enum class shape { sim, void_, str, rg, cxout, bytes25, bytes8m, conn };

std::string_view shape_name(shape s) {
  switch (s) {
    case shape::sim: return "Sim";
    case shape::void_: return "Void";
    case shape::str: return "Str";
    case shape::rg: return "Rg";
    case shape::cxout: return "CxOut";
    case shape::bytes25: return "Bytes25";
    case shape::bytes8m: return "Bytes8M";
    case shape::conn: return "Conn";
  }
  return "?";
}

std::string_view codec_name(codec c) {
  switch (c) {
    case codec::binary: return "binary";
    case codec::json: return "json";
    case codec::protobuf: return "protobuf";
  }
  return "?";
}

/// The rows of one transport's table, in order.
struct row_spec {
  shape what;
  codec with;
};
const std::vector<row_spec>& row_specs() {
  static const std::vector<row_spec> rows = {
      {shape::sim, codec::binary},    {shape::void_, codec::binary},  {shape::str, codec::binary},
      {shape::rg, codec::binary},     {shape::cxout, codec::binary},  {shape::bytes25, codec::binary},
      {shape::bytes8m, codec::binary}, {shape::conn, codec::binary},   {shape::sim, codec::json},
      {shape::sim, codec::protobuf},  {shape::rg, codec::json},       {shape::rg, codec::protobuf},
      {shape::cxout, codec::json},    {shape::cxout, codec::protobuf},
  };
  return rows;
}

/// The values every call sends and every result is compared with.
struct fixtures {
  std::string hello = rpcbench::hello;
  std::vector<rpcbench::item> range = rpcbench::make_range(rpcbench::range_n);
  rpcbench::order order = rpcbench::make_order();
  rpcbench::summary summary = rpcbench::summarize(order);
  rpcbench::bytes small = rpcbench::make_bytes(rpcbench::small_bytes);
  rpcbench::bytes large = rpcbench::make_bytes(rpcbench::large_bytes);
};

/// A wrong result: the run stops with this message (after cleaning up).
struct wrong_answer : std::runtime_error {
  using std::runtime_error::runtime_error;
};

bool same(const rpcbench::item& a, const rpcbench::item& b) {
  return a.id == b.id && a.name == b.name && a.price == b.price;
}
bool same(const std::vector<rpcbench::item>& a, const std::vector<rpcbench::item>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) { return same(x, y); });
}
bool same(const rpcbench::summary& a, const rpcbench::summary& b) {
  return a.total == b.total && a.count == b.count && a.status == b.status;
}

/// Calls one shape through any client (refwire's or a peer's) and checks the
/// result. `full` compares all 8 MB of Bytes8M (the first call); timed calls
/// check its size and a few bytes, so the check does not swamp the copy.
class caller {
 public:
  caller(const fixtures& f, std::string who) : f_(f), who_(std::move(who)) {}

  template <class Call>
  void run(shape s, Call& c, bool full) {
    switch (s) {
      case shape::sim:
      case shape::conn: {
        const int a = next_++ & 0xffff;
        expect(c.add(a, 7) == a + 7, "add(a, 7) is not a + 7");
        break;
      }
      case shape::void_: c.ping(); break;
      case shape::str: expect(c.echo(f_.hello) == f_.hello, "echo(\"Hello World!\") returned another string"); break;
      case shape::rg: expect(same(c.range(rpcbench::range_n), f_.range), "range(50) differs from make_range(50)"); break;
      case shape::cxout: {
        rpcbench::summary out;
        const int n = c.cx(f_.order, out);
        expect(n == 10 && same(out, f_.summary), "cx(order, out) differs from summarize(order)");
        break;
      }
      case shape::bytes25: c.put(f_.small); break;
      case shape::bytes8m: {
        const rpcbench::bytes r = c.echo_bytes(f_.large);
        const std::size_t n = f_.large.size();
        expect(r.size() == n && r[0] == f_.large[0] && r[n / 2] == f_.large[n / 2] && r[n - 1] == f_.large[n - 1] &&
                   (!full || r == f_.large),
               "echo_bytes returned other bytes");
        break;
      }
    }
  }

 private:
  void expect(bool ok, const char* what) const {
    if (!ok) throw wrong_answer(who_ + ": wrong result: " + what);
  }
  const fixtures& f_;
  std::string who_;
  int next_ = 1;
};

/// refwire's client with the peer_client's method names, for caller::run.
struct refwire_calls {
  service_client& c;
  int add(int a, int b) { return c.call<&bench_service::add>(a, b); }
  void ping() { c.call<&bench_service::ping>(); }
  std::string echo(const std::string& s) { return c.call<&bench_service::echo>(s); }
  std::vector<rpcbench::item> range(int n) { return c.call<&bench_service::range>(n); }
  int cx(const rpcbench::order& in, rpcbench::summary& out) { return c.call<&bench_service::cx>(in, out); }
  void put(const rpcbench::bytes& b) { c.call<&bench_service::put>(b); }
  rpcbench::bytes echo_bytes(const rpcbench::bytes& b) { return c.call<&bench_service::echo_bytes>(b); }
};

// -- frame sizes: what refwire puts on the wire for each call --

template <class Fn>
std::size_t with_format(codec c, Fn&& fn) {
  switch (c) {
    case codec::json: return fn(refwire::json{});
    case codec::protobuf: return fn(refwire::protobuf{});
    case codec::binary: break;
  }
  return fn(refwire::binary{});
}

template <class... T>
std::size_t payload_size(codec c, const T&... v) {
  return with_format(c, [&](auto f) {
    std::vector<std::byte> out;
    refwire::serialize<decltype(f)>(std::forward_as_tuple(v...), out);
    return out.size();
  });
}

struct frame_sizes {
  std::size_t request = 0;
  std::size_t reply = 0;
};

// A request is the 16-byte header, the 4-byte deadline refwire's client always
// sends, and the arguments; a reply is the header and the result with the
// out-parameters (docs/rpc-protocol.md §2, §5).
frame_sizes sizes_of(shape s, codec c, const fixtures& f) {
  namespace p = refwire::rpc::detail;
  const std::size_t req = p::header_size + p::deadline_prefix_size;
  const std::size_t rep = p::header_size;
  switch (s) {
    case shape::sim:
    case shape::conn: return {req + payload_size(c, 1, 7), rep + payload_size(c, 8)};
    case shape::void_: return {req + payload_size(c), rep + payload_size(c)};
    case shape::str: return {req + payload_size(c, f.hello), rep + payload_size(c, f.hello)};
    case shape::rg: return {req + payload_size(c, rpcbench::range_n), rep + payload_size(c, f.range)};
    case shape::cxout:
      return {req + payload_size(c, f.order, rpcbench::summary{}), rep + payload_size(c, 10, f.summary)};
    case shape::bytes25: return {req + payload_size(c, f.small), rep + payload_size(c)};
    case shape::bytes8m: return {req + payload_size(c, f.large), rep + payload_size(c, f.large)};
  }
  return {};
}

// -- allocation budgets: a fresh result value allocates what its copy does --

template <class T>
long allocations_of_copy(const T& v) {
  const long before = allocation_count.load();
  {
    T copy = v;
    asm volatile("" : : "g"(&copy) : "memory");  // keep the copy
  }
  return allocation_count.load() - before;
}

struct alloc_budget {
  long client = 0;
  long server = 0;
};

// Rg and CxOut may allocate what their fresh values need: the client's result
// (Rg's vector and its long names), the server's decoded argument (CxOut's
// order) and the result it builds. Everything else: nothing.
alloc_budget budget_of(shape s, const fixtures& f) {
  if (s == shape::rg) return {allocations_of_copy(f.range), allocations_of_copy(f.range)};
  if (s == shape::cxout)
    return {allocations_of_copy(f.summary), allocations_of_copy(f.order) + allocations_of_copy(f.summary)};
  return {};
}

// -- timing --

struct timing {
  double rep_seconds = 0.2;
  int reps = 5;
  [[nodiscard]] double warmup_seconds() const { return std::min(0.1, rep_seconds / 2); }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// One candidate of a row: a call, and the most calls a repetition may make
/// (Conn: each call leaves a TCP connection in TIME_WAIT).
struct candidate {
  std::function<void()> call;
  std::size_t max_calls = SIZE_MAX;
  std::vector<double> seconds_per_call;  // one per repetition
  std::size_t last_calls = 0;
};

// Runs call for about `seconds` (at least 2 calls, at most max_calls); seconds per call.
double run_for(candidate& c, double seconds) {
  const auto start = clock_type::now();
  std::size_t n = 0;
  double elapsed = 0;
  do {
    c.call();
    ++n;
    elapsed = seconds_since(start);
  } while ((elapsed < seconds || n < 2) && n < c.max_calls);
  c.last_calls = n;
  return elapsed / static_cast<double>(n);
}

// Warms every candidate up, then runs the repetitions interleaved (refwire,
// floor, peers, refwire, ...), so that a change of load hits them all alike.
void measure(std::vector<candidate*>& cs, const timing& t) {
  for (candidate* c : cs) run_for(*c, t.warmup_seconds());
  for (int r = 0; r < t.reps; ++r)
    for (candidate* c : cs) c->seconds_per_call.push_back(run_for(*c, t.rep_seconds));
}

// -- results --

struct latency_row {
  std::string transport;
  shape what = shape::sim;
  codec with = codec::binary;
  std::optional<double> refwire, floor, grpc, capnp;  // seconds per call
  /// Bytes8M over sockets: the floor with fresh values (floors::client::use's
  /// values: a new argument and result vector and the handler's copy).
  std::optional<double> values_floor;
  /// Conn over sockets: raw connect, two round trips (a handshake's and a call's), close.
  std::optional<double> handshake_floor;
  std::optional<double> alloc_client, alloc_server;   // refwire's allocations per call
  frame_sizes sizes;
};

struct rate_row {
  std::string transport;
  int threads = 1;
  int clients = 1;
  std::optional<double> refwire, grpc, capnp;  // calls per second
  std::string note;
};

struct run_state {
  options opt;
  timing time;
  fixtures fix;
  std::vector<const rpcbench::peer*> peers = compiled_peers();
  bool shm_in_refwire = false;
  std::vector<int> cpus;  // client, server (empty: not pinned)
  std::vector<latency_row> latency;
  std::vector<rate_row> rates;
  std::vector<std::string> notes;
};

std::string row_key(const std::string& transport, shape s, codec c) {
  return transport + "/" + std::string(shape_name(s)) + "/" + std::string(codec_name(c));
}

bool wanted(const run_state& st, const std::string& key) {
  return st.opt.filter.empty() || key.find(st.opt.filter) != std::string::npos;
}

std::string rate_key(const std::string& transport, int threads, int clients) {
  return transport + "/throughput/" + std::to_string(threads) + " threads, " + std::to_string(clients) +
         (clients == 1 ? " client" : " clients");
}

const std::vector<std::pair<int, int>>& rate_specs() {
  static const std::vector<std::pair<int, int>> specs = {{1, 1}, {2, 1}, {4, 1}, {8, 1}, {8, 8}};
  return specs;
}

// -- one transport --

/// The servers and clients of one transport, started before its rows run.
struct transport_run {
  std::string name;
  std::unique_ptr<rpcbench::proc::child> refwire_server, floor_server;
  std::map<std::string, std::unique_ptr<rpcbench::proc::child>> peer_servers;
  // Declared after the servers: destroyed before them, so every connection is
  // closed before its server is told to stop.
  std::map<codec, std::unique_ptr<service_client>> refwire_clients;
  std::unique_ptr<rpcbench::floors::client> floor;
  std::unique_ptr<rpcbench::floors::client> values_floor;  // its own session (Bytes8M, sockets)
  std::map<std::string, std::unique_ptr<rpcbench::peer_client>> peer_clients;
};

std::vector<std::string> server_args(const run_state& st, const std::string& kind, const std::string& transport,
                                     const std::string& dir) {
  std::vector<std::string> a = {"--serve=" + kind, "--transport=" + transport, "--dir=" + dir};
  if (st.cpus.size() == 2) a.push_back("--cpu=" + std::to_string(st.cpus[1]));
  return a;
}

long server_allocations(rpcbench::proc::child& server) {
  server.send_line("allocs");
  const std::string answer = server.read_line(std::chrono::seconds(10));
  if (answer.rfind("allocs ", 0) != 0) throw std::runtime_error("the " + server.name() + " answered \"" + answer + "\" to allocs");
  return std::atol(answer.c_str() + 7);
}

// Counts refwire's allocations per call in both processes, over as many calls
// as the last timed repetition made (at least 3), after the timing.
void count_allocations(transport_run& tr, candidate& c, latency_row& row) {
  const std::size_t calls = std::max<std::size_t>(3, std::min<std::size_t>(c.last_calls, 5000));
  const long server_before = server_allocations(*tr.refwire_server);
  const long before = allocation_count.load();
  for (std::size_t i = 0; i < calls; ++i) c.call();
  const long client = allocation_count.load() - before;
  const long server = server_allocations(*tr.refwire_server) - server_before;
  row.alloc_client = static_cast<double>(client) / static_cast<double>(calls);
  row.alloc_server = static_cast<double>(server) / static_cast<double>(calls);
}

// One row: refwire, its floor and the peers, checked once, then timed.
latency_row run_row(run_state& st, transport_run& tr, const row_spec& spec, const std::string& dir) {
  latency_row row;
  row.transport = tr.name;
  row.what = spec.what;
  row.with = spec.with;
  row.sizes = sizes_of(spec.what, spec.with, st.fix);
  const std::string key = row_key(tr.name, spec.what, spec.with);
  std::vector<candidate*> cs;

  candidate refwire_c;
  caller refwire_check(st.fix, "refwire " + key);
  if (tr.refwire_server) {
    const std::string uri = tr.refwire_server->address();
    if (spec.what == shape::conn) {
      refwire_c.call = [&refwire_check, uri] {
        service_client c(uri);  // connect and handshake
        refwire_calls calls{c};
        refwire_check.run(shape::conn, calls, false);
      };
      refwire_c.max_calls = 250;
    } else {
      auto& client = tr.refwire_clients[spec.with];
      if (!client) client = std::make_unique<service_client>(uri, refwire::rpc::client_options{.codec = spec.with});
      refwire_calls calls{*client};
      refwire_check.run(spec.what, calls, true);
      refwire_c.call = [&refwire_check, calls, s = spec.what]() mutable { refwire_check.run(s, calls, false); };
    }
    cs.push_back(&refwire_c);
  }

  candidate floor_c;
  if (tr.floor_server) {
    const std::string address = tr.floor_server->address();
    if (spec.what == shape::conn) {
      if (tr.name != "shm") {
        floor_c.call = [name = tr.name, address, s = row.sizes] {
          rpcbench::floors::connect_round_trip_close(name, address, s.request, s.reply);
        };
        floor_c.max_calls = 250;
        cs.push_back(&floor_c);
      }
    } else {
      if (!tr.floor) tr.floor = std::make_unique<rpcbench::floors::client>(tr.name, address);
      rpcbench::floors::client& fl = *tr.floor;
      fl.use(row.sizes.request, row.sizes.reply);
      fl.round_trip();
      const std::size_t echoed = std::min(row.sizes.request, row.sizes.reply);
      if (!std::equal(fl.reply().begin() + 1, fl.reply().begin() + static_cast<std::ptrdiff_t>(echoed),
                      fl.request().begin() + 1))
        throw wrong_answer("floor " + key + ": the reply is not the request echoed");
      floor_c.call = [&fl] { fl.round_trip(); };
      cs.push_back(&floor_c);
    }
  }
  candidate handshake_c;
  if (tr.floor_server && spec.what == shape::conn && tr.name != "shm") {
    handshake_c.call = [name = tr.name, address = tr.floor_server->address(), s = row.sizes] {
      rpcbench::floors::connect_round_trip_close(name, address, s.request, s.reply, 2);
    };
    handshake_c.max_calls = 250;
    cs.push_back(&handshake_c);
  }
  candidate values_c;
  if (tr.floor_server && spec.what == shape::bytes8m && tr.name != "shm") {  // one shm session per floor server
    if (!tr.values_floor) tr.values_floor = std::make_unique<rpcbench::floors::client>(tr.name, tr.floor_server->address());
    rpcbench::floors::client& fl = *tr.values_floor;
    fl.use(row.sizes.request, row.sizes.reply, true);
    fl.round_trip();
    if (!std::equal(fl.reply().begin() + 1, fl.reply().end(), fl.request().begin() + 1))
      throw wrong_answer("values floor " + key + ": the reply is not the request echoed");
    values_c.call = [&fl] { fl.round_trip(); };
    cs.push_back(&values_c);
  }

  // Peers speak their own encoding: they run the binary rows only.
  std::map<std::string, candidate> peer_c;
  std::map<std::string, caller> peer_check;
  if (spec.with == codec::binary) {
    for (const rpcbench::peer* p : st.peers) {
      const std::string name(p->name);
      auto server = tr.peer_servers.find(name);
      if (server == tr.peer_servers.end()) continue;
      const std::string address = server->second->address();
      caller& check = peer_check.try_emplace(name, st.fix, name + " " + key).first->second;
      candidate& c = peer_c[name];
      if (spec.what == shape::conn) {
        c.call = [p, address, &check] {
          std::unique_ptr<rpcbench::peer_client> client = p->connect(address);
          check.run(shape::conn, *client, false);
        };
        c.max_calls = 250;
      } else {
        auto& client = tr.peer_clients[name];
        if (!client) client = p->connect(address);
        check.run(spec.what, *client, true);
        c.call = [&check, pc = client.get(), s = spec.what] { check.run(s, *pc, false); };
      }
      cs.push_back(&c);
    }
  }
  (void)dir;

  measure(cs, st.time);
  if (tr.refwire_server) {
    row.refwire = median(refwire_c.seconds_per_call);
    if (spec.what != shape::conn) count_allocations(tr, refwire_c, row);
  }
  if (!floor_c.seconds_per_call.empty()) row.floor = median(floor_c.seconds_per_call);
  if (!values_c.seconds_per_call.empty()) row.values_floor = median(values_c.seconds_per_call);
  if (!handshake_c.seconds_per_call.empty()) row.handshake_floor = median(handshake_c.seconds_per_call);
  if (auto g = peer_c.find("grpc"); g != peer_c.end()) row.grpc = median(g->second.seconds_per_call);
  if (auto c = peer_c.find("capnp"); c != peer_c.end()) row.capnp = median(c->second.seconds_per_call);
  return row;
}

// What one caller thread runs: made on that thread (a Cap'n Proto client must
// be connected, used and destroyed on one thread), called until the stop.
using thread_call = std::function<void()>;

// Calls per second of `threads` threads, each running the call setup(thread
// index) made for it on that thread, for about `seconds`; the clock starts once
// every thread is set up, and calls finished after the stop signal are not counted.
double calls_per_second(int threads, const std::function<thread_call(int)>& setup, double seconds) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(threads), 0);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      const auto k = static_cast<std::size_t>(i);
      bool counted_ready = false;
      try {
        const thread_call call = setup(i);
        ++ready;
        counted_ready = true;
        while (!go.load() && !stop.load()) std::this_thread::yield();
        while (!stop.load()) {
          call();
          if (!stop.load()) ++counts[k];
        }
      } catch (...) {
        errors[k] = std::current_exception();
        stop = true;
        if (!counted_ready) ++ready;
      }
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  const auto start = clock_type::now();
  go = true;
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  const double elapsed = seconds_since(start);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  std::uint64_t total = 0;
  for (std::uint64_t c : counts) total += c;
  return static_cast<double>(total) / elapsed;
}

// A median of repetitions, after a warm-up, of a calls-per-second measurement.
double median_rate(const timing& t, const std::function<double(double)>& rate) {
  rate(t.warmup_seconds());
  std::vector<double> v;
  for (int r = 0; r < t.reps; ++r) v.push_back(rate(t.rep_seconds));
  return median(v);
}

void run_rates(run_state& st, transport_run& tr) {
  for (const auto& spec : rate_specs()) {
    const int threads = spec.first;  // not structured bindings: clang 14 cannot capture them in lambdas
    const int clients = spec.second;
    if (!wanted(st, rate_key(tr.name, threads, clients))) continue;
    rate_row row;
    row.transport = tr.name;
    row.threads = threads;
    row.clients = clients;
    if (tr.refwire_server) {
      std::vector<std::unique_ptr<service_client>> cs;
      for (int i = 0; i < clients; ++i) cs.push_back(std::make_unique<service_client>(tr.refwire_server->address()));
      auto setup = [&](int i) -> thread_call {
        return [&, i] {
          const int a = i * 1000 + 1;
          if (cs[static_cast<std::size_t>(i % clients)]->call<&bench_service::add>(a, 7) != a + 7)
            throw wrong_answer("refwire " + rate_key(tr.name, threads, clients) + ": add(a, 7) is not a + 7");
        };
      };
      row.refwire = median_rate(st.time, [&](double s) { return calls_per_second(threads, setup, s); });
    }
    for (const rpcbench::peer* p : st.peers) {
      const std::string name(p->name);
      auto server = tr.peer_servers.find(name);
      if (server == tr.peer_servers.end()) continue;
      const std::string address = server->second->address();
      double r = 0;
      if (p->sim_throughput) {
        r = median_rate(st.time, [&](double s) {
          const auto start = clock_type::now();
          const auto n = p->sim_throughput(address, threads, clients,
                                           std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(s)));
          return static_cast<double>(n) / seconds_since(start);
        });
      } else {
        // A client that can be shared: `clients` connections made here. One
        // that cannot (Cap'n Proto's belongs to its thread's event loop): one
        // connection per thread, made, used and destroyed on that thread.
        const bool shared = p->shared_client;
        if (!shared && threads != clients) row.note = name + ": one client per thread";
        std::vector<std::shared_ptr<rpcbench::peer_client>> cs;
        if (shared)
          for (int i = 0; i < clients; ++i) cs.push_back(p->connect(address));
        auto setup = [&](int i) -> thread_call {
          std::shared_ptr<rpcbench::peer_client> c =
              shared ? cs[static_cast<std::size_t>(i % clients)] : std::shared_ptr<rpcbench::peer_client>(p->connect(address));
          return [&, c, i] {
            const int a = i * 1000 + 1;
            if (c->add(a, 7) != a + 7)
              throw wrong_answer(name + " " + rate_key(tr.name, threads, clients) + ": add(a, 7) is not a + 7");
          };
        };
        r = median_rate(st.time, [&](double s) { return calls_per_second(threads, setup, s); });
      }
      (name == "grpc" ? row.grpc : row.capnp) = r;
    }
    st.rates.push_back(row);
  }
}

void run_transport(run_state& st, const std::string& name, const std::string& dir) {
  std::vector<const row_spec*> rows;
  for (const row_spec& r : row_specs())
    if (wanted(st, row_key(name, r.what, r.with))) rows.push_back(&r);
  bool any_rate = false;
  for (const auto& [t, c] : rate_specs()) any_rate = any_rate || wanted(st, rate_key(name, t, c));
  if (rows.empty() && !any_rate) return;

  const bool refwire_here = name != "shm" || st.shm_in_refwire;
  const bool peers_here = name == "unix" || name == "tcp";
  transport_run tr;
  tr.name = name;
  if (refwire_here) tr.refwire_server = std::make_unique<rpcbench::proc::child>(server_args(st, "refwire", name, dir));
  tr.floor_server = std::make_unique<rpcbench::proc::child>(server_args(st, "floor", name, dir));
  if (peers_here)
    for (const rpcbench::peer* p : st.peers)
      tr.peer_servers[std::string(p->name)] =
          std::make_unique<rpcbench::proc::child>(server_args(st, std::string(p->name), name, dir));

  for (const row_spec* r : rows) {
    // Without refwire here (shm before the transport exists) only the binary floors run.
    if (!refwire_here && (r->with != codec::binary || r->what == shape::conn)) continue;
    std::fprintf(stderr, "  %s\n", row_key(name, r->what, r->with).c_str());
    st.latency.push_back(run_row(st, tr, *r, dir));
  }
  if (refwire_here || peers_here) run_rates(st, tr);
}

// -- tables --

struct table {
  std::string title;
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  std::size_t text_columns = 2;  // the first columns are text (left-aligned), the rest numbers
};

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// 1234567.8 -> "1,234,568"
std::string grouped(double v) {
  std::string digits = fixed(v, 0);
  std::string out;
  const std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[i];
    if (i + 1 < n && (n - i - 1) % 3 == 0 && digits[i] != '-') out += ',';
  }
  return out;
}

std::string micros(std::optional<double> seconds) {
  if (!seconds) return "-";
  const double us = *seconds * 1e6;
  return us < 10 ? fixed(us, 2) : us < 100 ? fixed(us, 1) : grouped(us);
}

std::string ratio(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *b <= 0) return "-";
  return fixed(*a / *b, 2) + "x";
}

std::string allocs(std::optional<double> v) {
  if (!v) return "-";
  return std::fabs(*v - std::round(*v)) < 0.005 ? fixed(*v, 0) : fixed(*v, 2);
}

// Bytes8M carries 8,294,400 bytes each way: GB/s counts both directions.
std::string with_rate(shape s, std::optional<double> seconds) {
  std::string t = micros(seconds);
  if (s == shape::bytes8m && seconds) t += " (" + fixed(2.0 * rpcbench::large_bytes / *seconds / 1e9, 2) + " GB/s)";
  return t;
}

std::string floor_kind(const std::string& transport, shape s) {
  if (transport == "shm") return s == shape::bytes8m ? "shared-memory streaming, 2 rings of 1 MiB" : "futex shared-memory ping-pong";
  if (s == shape::conn) return "connect + one round trip + close";
  return transport == "tcp" ? "blocking TCP socket ping-pong (TCP_NODELAY)" : "blocking unix socket ping-pong";
}

table latency_table(const run_state& st, const std::string& transport) {
  table t{transport + ": µs per call (median of " + std::to_string(st.time.reps) + " repetitions)",
          {"shape", "codec", "refwire µs", "floor µs", "refwire/floor", "grpc µs", "grpc/refwire", "capnp µs",
           "capnp/refwire", "allocs/call client", "allocs/call server", "frame bytes req/rep"},
          {}};
  for (const latency_row& r : st.latency) {
    if (r.transport != transport) continue;
    const bool conn = r.what == shape::conn;
    t.rows.push_back({std::string(shape_name(r.what)), std::string(codec_name(r.with)), with_rate(r.what, r.refwire),
                      with_rate(r.what, r.floor), ratio(r.refwire, r.floor), with_rate(r.what, r.grpc),
                      ratio(r.grpc, r.refwire), with_rate(r.what, r.capnp), ratio(r.capnp, r.refwire),
                      allocs(r.alloc_client), allocs(r.alloc_server),
                      conn ? "-" : std::to_string(r.sizes.request) + " / " + std::to_string(r.sizes.reply)});
    if (r.handshake_floor) {  // Conn: connect, two round trips, close
      t.rows.push_back({std::string(shape_name(r.what)), "handshake floor", "-", with_rate(r.what, r.handshake_floor),
                        ratio(r.refwire, r.handshake_floor), "-", "-", "-", "-", "-", "-", "-"});
    }
    if (r.values_floor) {  // Bytes8M: the floor with a new argument, the handler's copy and a new result
      t.rows.push_back({std::string(shape_name(r.what)), "values floor", "-", with_rate(r.what, r.values_floor),
                        ratio(r.refwire, r.values_floor), "-", "-", "-", "-", "-", "-",
                        std::to_string(r.sizes.request) + " / " + std::to_string(r.sizes.reply)});
    }
  }
  return t;
}

table rate_table(const run_state& st, const std::string& transport) {
  table t{transport + ": Sim calls/s (median of " + std::to_string(st.time.reps) + " repetitions)",
          {"threads", "clients", "refwire calls/s", "vs 1 thread", "grpc calls/s", "capnp calls/s", "note"},
          {}};
  std::optional<double> one;
  for (const rate_row& r : st.rates)
    if (r.transport == transport && r.threads == 1 && r.clients == 1) one = r.refwire;
  auto rate = [](std::optional<double> v) { return v ? grouped(*v) : std::string("-"); };
  for (const rate_row& r : st.rates) {
    if (r.transport != transport) continue;
    t.rows.push_back({std::to_string(r.threads), std::to_string(r.clients), rate(r.refwire), ratio(r.refwire, one),
                      rate(r.grpc), rate(r.capnp), r.note});
  }
  return t;
}

void print_text(std::ostream& out, const table& t) {
  std::vector<std::size_t> width(t.head.size(), 0);
  // Width in characters, not bytes: "µ" is two bytes of UTF-8.
  auto chars = [](const std::string& s) {
    std::size_t n = 0;
    for (char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
    return n;
  };
  for (std::size_t i = 0; i < t.head.size(); ++i) width[i] = chars(t.head[i]);
  for (const auto& r : t.rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], chars(r[i]));
  out << "\n" << t.title << "\n";
  auto line = [&](const std::vector<std::string>& r) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      const bool last = i + 1 == r.size();
      const std::string pad(last && i < t.text_columns ? 0 : width[i] - chars(r[i]), ' ');
      out << (i == 0 ? "" : "  ") << (i < t.text_columns ? r[i] + pad : pad + r[i]);
    }
    out << "\n";
  };
  line(t.head);
  for (const auto& r : t.rows) line(r);
}

void print_markdown(std::ostream& out, const table& t) {
  out << "\n**" << t.title << "**\n\n|";
  for (const auto& h : t.head) out << " " << h << " |";
  out << "\n|";
  for (std::size_t i = 0; i < t.head.size(); ++i) out << (i < t.text_columns ? " --- |" : " ---: |");
  out << "\n";
  for (const auto& r : t.rows) {
    out << "|";
    for (const auto& c : r) out << " " << c << " |";
    out << "\n";
  }
}

// -- goals --

enum class verdict { pass, miss, not_measured, info };

struct goal {
  std::string what, where, target, measured;
  verdict result = verdict::not_measured;
};

struct goal_book {
  const run_state& st;
  std::vector<goal> goals;

  const latency_row* find(const std::string& transport, shape s, codec c = codec::binary) const {
    for (const latency_row& r : st.latency)
      if (r.transport == transport && r.what == s && r.with == c) return &r;
    return nullptr;
  }
  const rate_row* find_rate(const std::string& transport, int threads, int clients) const {
    for (const rate_row& r : st.rates)
      if (r.transport == transport && r.threads == threads && r.clients == clients) return &r;
    return nullptr;
  }

  // Why a figure is missing, for the goal's measured column.
  [[nodiscard]] std::string missing(const std::string& transport, bool needs_peer) const {
    if (needs_peer && st.peers.empty()) return "n/a: built without the peers (bench/rpc/peers.cmake)";
    if (needs_peer && transport != "unix" && transport != "tcp") return "n/a: the peers run over unix and tcp only";
    if (transport == "shm" && !st.shm_in_refwire) return "n/a: refwire has no shm:// transport in this build";
    return "n/a: not measured in this run (--filter)";
  }

  // value = a / b (as measured), checked against limit (at most, or at least).
  void ratio_goal(std::string what, const std::string& where, std::optional<double> a, std::optional<double> b,
                  double limit, bool at_most, bool needs_peer, const std::string& basis) {
    goal g{std::move(what), where, (at_most ? "<= " : ">= ") + fixed(limit, 2) + "x " + basis, "", verdict::not_measured};
    if (a && b && *b > 0) {
      const double v = *a / *b;
      g.measured = fixed(v, 2) + "x";
      g.result = (at_most ? v <= limit : v >= limit) ? verdict::pass : verdict::miss;
    } else {
      g.measured = missing(where, needs_peer);
    }
    goals.push_back(std::move(g));
  }

  void alloc_goal(const std::string& where, shape s) {
    const latency_row* r = find(where, s);
    goal g{"allocations per call, both processes", where + " " + std::string(shape_name(s)), "", "",
           verdict::not_measured};
    const alloc_budget b = budget_of(s, st.fix);
    g.target = b.client || b.server ? "client <= " + std::to_string(b.client) + ", server <= " +
                                          std::to_string(b.server) + " (the fresh values' own)"
                                    : "0";
    if (!r || !r->alloc_client || !r->alloc_server) {
      g.measured = missing(where, false);
    } else {
      g.measured = "client " + allocs(r->alloc_client) + ", server " + allocs(r->alloc_server);
      const bool ok = *r->alloc_client <= static_cast<double>(b.client) + 0.005 &&
                      *r->alloc_server <= static_cast<double>(b.server) + 0.005;
      g.result = ok ? verdict::pass : verdict::miss;
    }
    goals.push_back(std::move(g));
  }

  std::optional<double> value(const latency_row* r, std::optional<double> latency_row::*col) const {
    return r ? r->*col : std::nullopt;
  }

  void evaluate() {
    using L = latency_row;
    for (const std::string t : {"unix", "tcp"}) {
      const L* sim = find(t, shape::sim);
      ratio_goal("Sim within 1.2x of the raw floor", t, value(sim, &L::refwire), value(sim, &L::floor), 1.2, true, false,
                 "refwire/floor");
      for (shape s : {shape::void_, shape::str}) {
        const L* r = find(t, s);
        ratio_goal(std::string(shape_name(s)) + " within 1.25x of the raw floor", t, value(r, &L::refwire),
                   value(r, &L::floor), 1.25, true, false, "refwire/floor");
      }
      for (shape s : {shape::rg, shape::cxout}) {
        const L* r = find(t, s);
        ratio_goal(std::string(shape_name(s)) + " within 1.5x of Sim", t, value(r, &L::refwire), value(sim, &L::refwire),
                   1.5, true, false, std::string(shape_name(s)) + "/Sim");
      }
    }
    const L* shm_sim = find("shm", shape::sim);
    ratio_goal("Sim over shm within 1.3x of the futex floor", "shm", value(shm_sim, &L::refwire),
               value(shm_sim, &L::floor), 1.3, true, false, "refwire/floor");
    ratio_goal("Sim over shm at most 0.8x of Sim over unix", "shm", value(shm_sim, &L::refwire),
               value(find("unix", shape::sim), &L::refwire), 0.8, true, false, "shm/unix");
    for (const auto& [t, grpc, capnp] : {std::tuple{"unix", 6.0, 3.0}, std::tuple{"tcp", 5.0, 2.5}}) {
      const L* sim = find(t, shape::sim);
      ratio_goal("Sim faster than gRPC", t, value(sim, &L::grpc), value(sim, &L::refwire), grpc, false, true,
                 "grpc/refwire");
      ratio_goal("Sim faster than Cap'n Proto", t, value(sim, &L::capnp), value(sim, &L::refwire), capnp, false, true,
                 "capnp/refwire");
    }
    for (const std::string t : {"unix", "tcp", "shm"}) {
      const L* b = find(t, shape::bytes8m);
      ratio_goal(t == "shm" ? "Bytes8M at least 0.8x of the streaming floor's GB/s"
                            : "Bytes8M at least 0.8x of the raw socket's GB/s",
                 t, value(b, &L::floor), value(b, &L::refwire), 0.8, false, false, "refwire GB/s / floor GB/s");
      if (t != "shm") {  // not one of the goals: what the call's values cost at least, for scale
        ratio_goal("Bytes8M against the floor with fresh values", t, value(b, &L::values_floor), value(b, &L::refwire),
                   0.8, false, false, "refwire GB/s / values floor GB/s");
        if (goals.back().result != verdict::not_measured) goals.back().result = verdict::info;
      }
    }
    for (const std::string t : {"unix", "tcp"}) {
      const L* c = find(t, shape::conn);
      ratio_goal("Conn within 2x of raw connect + one round trip", t, value(c, &L::refwire), value(c, &L::floor), 2.0,
                 true, false, "refwire/floor");
      // not one of the goals: the floor of a protocol with a handshake, for scale
      ratio_goal("Conn against raw connect + two round trips", t, value(c, &L::refwire), value(c, &L::handshake_floor),
                 2.0, true, false, "refwire/handshake floor");
      if (goals.back().result != verdict::not_measured) goals.back().result = verdict::info;
    }
    for (const std::string t : {"unix", "tcp", "shm"}) {
      const rate_row* one = find_rate(t, 1, 1);
      const rate_row* eight = find_rate(t, 8, 1);
      ratio_goal("8 callers sharing one client vs 1 caller", t, eight ? eight->refwire : std::nullopt,
                 one ? one->refwire : std::nullopt, 3.0, false, false, "calls/s");
      if (t == "shm") continue;
      std::optional<double> grpc_best;
      for (const rate_row* r : {eight, find_rate(t, 8, 8)})
        if (r && r->grpc) grpc_best = std::max(grpc_best.value_or(0), *r->grpc);
      std::optional<double> ours;
      for (const rate_row* r : {eight, find_rate(t, 8, 8)})
        if (r && r->refwire) ours = std::max(ours.value_or(0), *r->refwire);
      ratio_goal("8 threads: refwire vs gRPC's best (calls/s)", t, ours, grpc_best, 5.0, false, true,
                 "refwire/grpc");
    }
    for (const std::string t : {"unix", "tcp"}) {
      const L* bin = find(t, shape::sim);
      for (codec c : {codec::json, codec::protobuf}) {
        const L* r = find(t, shape::sim, c);
        ratio_goal("Sim with " + std::string(codec_name(c)) + " within 1.3x of binary", t, value(r, &L::refwire),
                   value(bin, &L::refwire), 1.3, true, false, std::string(codec_name(c)) + "/binary");
      }
      const L* rg = find(t, shape::rg, codec::json);
      ratio_goal("Rg with json within 3x of binary", t, value(rg, &L::refwire), value(find(t, shape::rg), &L::refwire),
                 3.0, true, false, "json/binary");
    }
    for (const std::string t : {"unix", "tcp", "shm"})
      for (shape s : {shape::sim, shape::void_, shape::str, shape::bytes25, shape::rg, shape::cxout}) alloc_goal(t, s);
  }

  [[nodiscard]] table to_table() const {
    table t{"goals (same run; ratios of medians)", {"status", "goal", "where", "target", "measured"}, {}, 5};
    for (const goal& g : goals)
      t.rows.push_back({g.result == verdict::pass   ? "PASS"
                        : g.result == verdict::miss ? "MISS"
                        : g.result == verdict::info ? "info"
                                                    : "n/a",
                        g.what, g.where,
                        g.target, g.measured});
    return t;
  }
  [[nodiscard]] int missed() const {
    return static_cast<int>(std::count_if(goals.begin(), goals.end(), [](const goal& g) { return g.result == verdict::miss; }));
  }
};

bool refwire_knows_shm() {
  try {
    (void)refwire::transports::parse_uri("shm://x");
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::string placement_text(const run_state& st) {
  switch (st.opt.where) {
    case placement::same: return "same CPU (client and servers pinned to CPU " + std::to_string(st.cpus[0]) + ")";
    case placement::split:
      return "split (client on CPU " + std::to_string(st.cpus[0]) + ", servers on CPU " + std::to_string(st.cpus[1]) + ")";
    case placement::none: break;
  }
  return "none (not pinned; the scheduler places both)";
}

int run_driver(const options& opt) {
  rpcbench::proc::start_cleanup_thread();
  signal(SIGPIPE, SIG_IGN);  // a server that died is an error from write, not a silent exit
  run_state st;
  st.opt = opt;
  st.time = {opt.rep_seconds, opt.reps};
  const std::vector<int> allowed = rpcbench::proc::allowed_cpus();
  if (opt.where == placement::same && !allowed.empty()) st.cpus = {allowed[0], allowed[0]};
  if (opt.where == placement::split) {
    if (allowed.size() < 2) usage("--placement=split needs two CPUs; this process may use " + std::to_string(allowed.size()));
    st.cpus = {allowed[0], allowed[1]};
  }
  if (!st.cpus.empty()) rpcbench::proc::pin_to_cpu(st.cpus[0]);
  st.shm_in_refwire = refwire_knows_shm();

  std::printf("bench_rpc: placement %s; %d repetitions of %.3g s, medians\n", placement_text(st).c_str(), st.time.reps,
              st.time.rep_seconds);
  std::printf("peers: %s\n", st.peers.empty() ? "none (built without bench/rpc/peers.cmake)" : "grpc, capnp");
  if (!st.shm_in_refwire)
    std::printf("note: refwire::transports::parse_uri refuses shm://, so the shm rows have the floors only\n");
  std::fflush(stdout);

  rpcbench::proc::temp_dir dir;
  // The transports, data-driven: refwire's shm rows run once parse_uri knows shm://.
  const std::vector<std::string> transports = {"unix", "tcp", "shm"};
  std::vector<table> tables;
  for (const std::string& t : transports) {
    std::fprintf(stderr, "%s:\n", t.c_str());
    run_transport(st, t, dir.path());
    if (std::any_of(st.latency.begin(), st.latency.end(), [&](const latency_row& r) { return r.transport == t; })) {
      tables.push_back(latency_table(st, t));
      print_text(std::cout, tables.back());
    }
    if (std::any_of(st.rates.begin(), st.rates.end(), [&](const rate_row& r) { return r.transport == t; })) {
      tables.push_back(rate_table(st, t));
      print_text(std::cout, tables.back());
    }
    std::cout.flush();
  }
  goal_book book{st, {}};
  book.evaluate();
  tables.push_back(book.to_table());
  print_text(std::cout, tables.back());
  std::cout << "\nfloors: unix and tcp: " << floor_kind("unix", shape::sim) << " / " << floor_kind("tcp", shape::sim)
            << ", same bytes as refwire's frames; Conn: " << floor_kind("tcp", shape::conn)
            << "; shm: " << floor_kind("shm", shape::sim) << ", Bytes8M " << floor_kind("shm", shape::bytes8m)
            << " (shm_ring_size " << rpcbench::floors::shm_ring_size << ")\n"
            << book.missed() << " of " << book.goals.size() << " goals missed\n";

  if (opt.markdown) {
    std::ostringstream md;
    md << "Placement: " << placement_text(st) << ". Medians of " << st.time.reps << " repetitions of "
       << st.time.rep_seconds << " s.\n";
    for (const table& t : tables) print_markdown(md, t);
    if (opt.markdown_file.empty()) {
      std::cout << "\n" << md.str();
    } else {
      std::ofstream f(opt.markdown_file);
      f << md.str();
      if (!f) throw std::runtime_error("cannot write " + opt.markdown_file);
    }
  }
  return opt.check_goals && book.missed() > 0 ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const options opt = parse_options(argc, argv);
  try {
    if (!opt.serve.empty()) return run_server(opt);
    return run_driver(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_rpc%s: %s\n", opt.serve.empty() ? "" : (" --serve=" + opt.serve).c_str(), e.what());
    return 1;
  }
}
