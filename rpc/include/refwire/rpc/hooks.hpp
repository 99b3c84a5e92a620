#pragma once
// refwire/rpc/hooks.hpp: instrumentation a client or a server can be given:
// a stats sink (per method: calls, errors by status code, latency, bytes) and
// a logger (connections opened and closed, refused frames, limits hit, slow
// calls). Both are optional; with neither set, a call reads no clock for
// them and formats nothing.
//
//   auto stats = std::make_shared<refwire::rpc::memory_stats>();
//   auto log = std::make_shared<refwire::rpc::stream_logger>(stderr, refwire::rpc::log_level::info);
//   refwire::rpc::server server({.handler_threads = 4, .stats = stats, .log = log});
//   ...
//   std::fputs(stats->table().c_str(), stdout);
//
// method         calls  errors      p50      p90      p99      max  req B/call  resp B/call
// calc.v1.add    10000       4  9.50 µs  9.50 µs  12.5 µs  1.20 ms          16            8
//   errors: deadline_exceeded 3, unavailable 1
// calc.v1.log        2       0   500 ns   500 ns   500 ns   700 ns          24            0
// calc.v1.range      4       0  1.47 ms   2.49 s   2.49 s   2.50 s           4      3009000

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <refwire/rpc/status.hpp>

namespace refwire::rpc {

/// Which end of a call a hook is told about.
enum class call_side : std::uint8_t { client, server };

/// One finished call, as a stats sink is told about it.
struct call_record {
  call_side side = call_side::client;
  std::string_view method;          ///< "calc.v1.add" (valid during record() only)
  std::uint32_t method_id = 0;
  status_code code = status_code::ok;
  /// Client: from call() (or async_call()) to the reply decoded or the
  /// failure. Server: from the request read to its reply handed to the
  /// transport (queueing for a handler thread included).
  std::chrono::nanoseconds latency{0};
  std::size_t request_bytes = 0;    ///< the request frame's payload as sent (after compression)
  std::size_t response_bytes = 0;   ///< the reply frame's payload (0 when none arrived)
};

/// Receives one call_record per finished call (one_way calls: on the server
/// only, with code ok or the failure). Called on the thread that finished the
/// call, from many threads at once: implementations must be thread-safe, fast
/// and must not throw.
class stats_sink {
 public:
  virtual ~stats_sink() = default;
  virtual void record(const call_record& r) noexcept = 0;
};

/// A ready stats_sink that keeps per-method counters and a latency
/// histogram in memory, and prints them as a table.
class memory_stats final : public stats_sink {
 public:
  /// Log-linear latency buckets: one below 1 µs, then 8 equal ones per
  /// doubling from 1 µs ([1, 1.125) µs, [1.125, 1.25) µs, ...), the last one
  /// open-ended (past about 62 min). A percentile is the middle of the bucket
  /// holding its rank (never more than max; max itself in the last bucket):
  /// within 7 % of the true value from 1 µs to there. max is exact.
  static constexpr std::size_t bucket_count = 256;
  /// Enough for every status_code value (indexed by its number).
  static constexpr std::size_t code_slots = 17;

  struct method_summary {
    std::string method;                              ///< "calc.v1.add"
    call_side side = call_side::client;
    std::uint64_t calls = 0;                         ///< every finished call, failures included
    std::array<std::uint64_t, code_slots> by_code{}; ///< calls by status_code number (by_code[0]: ok)
    std::uint64_t request_bytes = 0;                 ///< sums
    std::uint64_t response_bytes = 0;
    std::chrono::nanoseconds p50{0}, p90{0}, p99{0}, max{0};
    [[nodiscard]] std::uint64_t errors() const noexcept { return calls - by_code[0]; }
    [[nodiscard]] std::uint64_t count(status_code c) const noexcept {
      return by_code[static_cast<std::size_t>(c) % code_slots];
    }
  };

  /// Thread-safe (one mutex). Allocates only on a method's (and side's)
  /// first record, for its entry; without memory for it, that record is dropped.
  void record(const call_record& r) noexcept override;
  /// One entry per method and side seen, sorted by method name then side.
  [[nodiscard]] std::vector<method_summary> snapshot() const;
  /// The snapshot as a text table (the header comment shows it): durations
  /// with 3 significant digits in ns, µs, ms or s; bytes per call are means,
  /// rounded. A side column (client, server) is added when the sink holds
  /// both sides. The errors by code, in code order, follow each row that has
  /// any ("  errors: deadline_exceeded 3, unavailable 1").
  [[nodiscard]] std::string table() const;
  /// Forgets every call. The methods' entries are kept (zeroed, and left out
  /// of snapshot() until called again), so recording stays allocation-free.
  void reset() noexcept;

 private:
  struct entry {
    std::string method;
    std::uint32_t method_id = 0;
    call_side side = call_side::client;
    std::uint64_t calls = 0;
    std::array<std::uint64_t, code_slots> by_code{};
    std::uint64_t request_bytes = 0;
    std::uint64_t response_bytes = 0;
    std::chrono::nanoseconds max{0};
    std::array<std::uint64_t, bucket_count> buckets{};
  };
  mutable std::mutex mutex_;
  std::vector<entry> entries_;
};

enum class log_level : std::uint8_t { debug = 0, info = 1, warning = 2, error = 3, off = 4 };

/// "debug", "info", "warning", "error", "off".
[[nodiscard]] std::string_view to_string(log_level l) noexcept;

/// Receives log lines. The library formats a message only when enabled(level)
/// is true. What is logged, and at which level (docs/rpc.md, "Hooks"):
///   info:    a connection opened or closed, with the peer and why it closed;
///   warning: a refused frame or handshake, with why; a limit hit
///            (max_connections, max_calls_in_flight, idle_timeout,
///            write_timeout, drain_timeout); a reply for no call in flight;
///            a call slower than slow_call();
///   error:   a handler's reply that could not be encoded or sent.
/// write() is called from many threads at once: implementations must be
/// thread-safe and must not throw.
class logger {
 public:
  /// slow_call: calls taking at least this long are logged at warning
  /// (0: never; only then does the library read the clock for it).
  explicit logger(log_level level = log_level::info, std::chrono::microseconds slow_call = {}) noexcept
      : level_(level), slow_call_(slow_call) {}
  virtual ~logger() = default;
  logger(const logger&) = delete;
  logger& operator=(const logger&) = delete;

  /// message has no trailing newline, e.g.
  /// "server: connection from unix:///run/calc.sock (pid 4242, uid 1000) closed: the peer closed"
  virtual void write(log_level level, std::string_view message) noexcept = 0;

  [[nodiscard]] bool enabled(log_level l) const noexcept { return l >= level_ && l != log_level::off; }
  [[nodiscard]] log_level level() const noexcept { return level_; }
  [[nodiscard]] std::chrono::microseconds slow_call() const noexcept { return slow_call_; }

 private:
  log_level level_;
  std::chrono::microseconds slow_call_;
};

/// A ready logger: one line per message to a FILE*,
/// "refwire rpc <level>: <message>\n", each written whole (one fwrite, then
/// fflush, under a lock). Messages below its level are dropped.
class stream_logger final : public logger {
 public:
  explicit stream_logger(std::FILE* out = stderr, log_level level = log_level::info,
                         std::chrono::microseconds slow_call = {}) noexcept
      : logger(level, slow_call), out_(out) {}
  void write(log_level level, std::string_view message) noexcept override;

 private:
  std::mutex mutex_;
  std::FILE* out_;
};

namespace detail {

/// The clock every hook reads (stats latencies, slow-call logging) and
/// nothing else does: deadlines read std::chrono::steady_clock directly.
/// Tests replace it with a counting clock to show that, with no hook set, a
/// call reads it not at all.
using hook_clock_fn = std::chrono::steady_clock::time_point (*)() noexcept;
void set_hook_clock(hook_clock_fn f) noexcept;  ///< nullptr: steady_clock::now again
[[nodiscard]] std::chrono::steady_clock::time_point hook_now() noexcept;

}  // namespace detail

}  // namespace refwire::rpc
