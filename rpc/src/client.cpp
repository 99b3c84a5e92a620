// The client's connection: connect and handshake, request ids, the calls in
// flight, and the reader role that one waiting caller at a time takes
// (docs/rpc.md, "Threading"). A caller alone on the connection reads its own
// reply and decodes it straight from the read buffer; with many callers, the
// reader copies each other reply into its caller's buffer and wakes it.
//
// Every request carries its deadline (docs/rpc-protocol.md §5.1). With
// client_options::ping_interval set, the client owns one thread: it pings a
// connection with no call in flight that has been silent that long, taking the reader role like a
// caller when nobody reads, and breaks the connection when nothing arrives
// within ping_timeout. Hooks (stats, log) read the hook clock and format
// messages only when set.

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <refwire/rpc/detail/client_core.hpp>
#include <refwire/rpc/detail/protocol.hpp>
#include <refwire/rpc/error.hpp>
#include <refwire/rpc/hooks.hpp>
#include <refwire/serialization/compression.hpp>
#include <refwire/transports/transport.hpp>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "frames.hpp"
#include "write_queue.hpp"

namespace refwire::rpc::detail {

namespace {

using clock = std::chrono::steady_clock;
using time_point = clock::time_point;

/// Every request carries the caller's deadline (flag_deadline, a u32le prefix
/// of milliseconds: docs/rpc-protocol.md §5.1), so that a server can drop work
/// whose caller has given up.
constexpr bool send_deadline = true;

/// A lock that a caller waits for only until its deadline. (std::timed_mutex
/// would do, but ThreadSanitizer does not see its pthread_mutex_clocklock.)
class deadline_mutex {
 public:
  [[nodiscard]] bool lock_until(time_point deadline) {
    std::unique_lock lock(mutex_);
    if (deadline == time_point::max()) {
      free_.wait(lock, [&] { return !held_; });
    } else if (!free_.wait_until(lock, deadline, [&] { return !held_; })) {
      return false;
    }
    held_ = true;
    return true;
  }
  void unlock() {
    {
      std::lock_guard lock(mutex_);
      held_ = false;
    }
    free_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable free_;
  bool held_ = false;
};

/// Holds a deadline_mutex taken with lock_until.
class deadline_guard {
 public:
  deadline_guard(deadline_mutex& m, time_point deadline) : mutex_(m), owns_(m.lock_until(deadline)) {}
  ~deadline_guard() {
    if (owns_) mutex_.unlock();
  }
  deadline_guard(const deadline_guard&) = delete;
  deadline_guard& operator=(const deadline_guard&) = delete;
  [[nodiscard]] bool owns() const noexcept { return owns_; }

 private:
  deadline_mutex& mutex_;
  bool owns_;
};

/// One call waiting for its reply (or the ping thread waiting for its pong).
/// Guarded by client_state::mutex except where noted.
struct slot {
  std::uint32_t id = 0;
  std::size_t method = 0;
  bool done = false;
  /// The ping thread's: completed by a pong with its id, never by a reply.
  bool ping = false;
  /// An async call with a hook that needs its latency: `finished` is stamped
  /// (hook clock) when it completes.
  bool timed = false;
  std::condition_variable cv;
  status_code code = status_code::ok;
  bool remote = false;
  std::string type;
  std::string message;
  /// Where the reader copies a reply that is not its own.
  std::vector<std::byte>* payload = nullptr;
  /// Set by the caller's own thread when it read and decoded its reply itself.
  bool decoded = false;
  refwire::error decode_failure;
  std::size_t response_bytes = 0;
  time_point finished{};
};

/// Buffers of the calling thread, kept between calls (no allocation per call
/// in steady state).
struct thread_buffers {
  std::vector<std::byte> request;
  gather_list gather;  // the request's large blobs, left in the caller's arguments
  std::vector<std::byte> compressed;
  std::vector<std::byte> reply;
  std::vector<std::byte> inflated;
  std::vector<std::byte> rest;  // a streamed reply's bytes after its first large blob
};

/// A request's arguments as they go on the wire: `bytes`, with the blobs of
/// `gather` (when set) at their places between them.
struct outgoing {
  std::span<const std::byte> bytes;
  const gather_list* gather = nullptr;
  [[nodiscard]] std::size_t size() const noexcept { return bytes.size() + (gather != nullptr ? gather->bytes : 0); }
};

thread_buffers& buffers() {
  thread_local thread_buffers b;
  return b;
}

/// now + d, saturating.
time_point deadline_from(time_point now, std::chrono::milliseconds d) {
  if (d.count() <= 0) return now;
  if (d >= std::chrono::duration_cast<std::chrono::milliseconds>(time_point::max() - now)) return time_point::max();
  return now + d;
}

time_point deadline_after(std::chrono::milliseconds d) { return deadline_from(clock::now(), d); }

/// A connection on which no call started for this long is probed (one
/// non-blocking read) before the next call is sent on it: a server that
/// closed it meanwhile (idle_timeout, a restart) is then seen before a request
/// goes into a dead socket, and the call connects again instead of failing.
constexpr std::chrono::milliseconds quiet_probe_after{1000};

/// The deadline prefix's value: milliseconds, clamped to [0, 0xffffffff].
std::uint32_t clamp_ms(std::chrono::milliseconds d) {
  if (d.count() <= 0) return 0;
  if (d.count() >= 0xffffffffLL) return 0xffffffffu;
  return static_cast<std::uint32_t>(d.count());
}

/// What is left of a deadline, rounded up to whole milliseconds.
std::uint32_t ms_left(time_point deadline) {
  if (deadline == time_point::max()) return 0xffffffffu;
  const auto left = deadline - clock::now();
  return clamp_ms(std::chrono::ceil<std::chrono::milliseconds>(left));
}

/// The largest table of calls in flight (max_calls_in_flight is clamped to half of it).
constexpr std::uint32_t max_table = 1u << 21;
/// A new connection's table of calls in flight (it doubles when more than
/// half of it would be taken).
constexpr std::uint32_t initial_table = 32;

std::uint32_t next_power_of_two(std::uint32_t v) {
  std::uint32_t p = 16;
  while (p < v && p < (1u << 30)) p <<= 1;
  return p;
}

/// "12.3 ms", or "512.0 µs" under a millisecond.
std::string ms_text(std::chrono::nanoseconds d) {
  char text[32];
  if (d < std::chrono::milliseconds(1)) {
    std::snprintf(text, sizeof text, "%.1f \u00b5s", static_cast<double>(d.count()) / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.1f ms", static_cast<double>(d.count()) / 1e6);
  }
  return text;
}

}  // namespace

/// One connection to the server, with what its handshake agreed.
struct connection {
  std::unique_ptr<transports::stream> stream;
  write_queue out;  // the writer role, and the frames queued for its holder (write_queue.hpp)
  frame_reader reader;           // only the thread in the reader role touches it
  rpc::codec codec = rpc::codec::binary;
  refwire::compression compression = refwire::compression::none;
  std::uint32_t threshold = 0;
  std::uint32_t send_limit = 0;
  std::vector<method_reply> methods;
  /// With pings on: when bytes last arrived (steady_clock ticks), written by the reader.
  std::atomic<clock::rep> last_received{0};
  /// When a call last started on it (steady_clock ticks, from the clock read
  /// its deadline needs anyway): a connection quiet for quiet_probe_after is
  /// probed before it is used (acquire()).
  std::atomic<clock::rep> last_used{0};
  // guarded by client_state::mutex
  std::vector<slot*> table;
  std::uint32_t mask = 0;
  std::uint32_t max_mask = 0;  // the mask of the largest table (twice max_calls_in_flight)
  std::uint32_t next_id = 1;
  std::uint64_t issued = 0;  // request ids handed out: tells a reply for an id never sent
  std::uint32_t in_flight = 0;
  std::uint32_t max_in_flight = 1;  // client_options::max_calls_in_flight, clamped to the table
  bool reading = false;
  slot* reader_slot = nullptr;  // the slot of the thread in the reader role
  /// The request id of a large reply that could not be decoded as it arrived
  /// (read whole instead). Only the reader touches it.
  std::uint32_t no_stream_id = 0;
  bool broken = false;
  std::vector<slot*> waiting;  // callers blocked until a reply or the reader role is theirs
};

struct client_state {
  std::string uri;
  transports::endpoint where;
  client_options options;
  std::string interface_name;
  std::vector<client_method> methods;
  /// A hook needs call latencies (a stats sink, or a logger of slow calls):
  /// only then is the hook clock read.
  bool timing = false;
  bool pinging = false;  // ping_interval > 0
  /// What the client's streams are made on. Nothing runs it: a client uses
  /// only their blocking calls, so it never makes its epoll, timer and event
  /// descriptors (a stream registers at its first asynchronous operation).
  boost::asio::io_context io;
  deadline_mutex connect_mutex;
  std::mutex mutex;
  std::shared_ptr<connection> current;
  bool failed_once = false;
  bool closed = false;
  std::string last_failure;
  std::condition_variable ping_cv;  // the ping thread sleeps on it (with mutex)
  std::thread ping_thread;
};

struct async_state {
  std::shared_ptr<client_state> owner;
  std::shared_ptr<connection> conn;
  slot s;
  std::vector<std::byte> payload;
  time_point deadline;
  bool finished = false;
  // hooks (with owner->timing): when the call was made; recorded once (guarded by owner->mutex)
  time_point started{};
  std::size_t request_bytes = 0;
  bool recorded = false;
  ~async_state();
};

namespace {

[[noreturn]] void fail(status_code code, const std::string& message) { throw rpc_error(code, message); }

std::string method_name(const client_state& st, std::size_t method) { return st.methods[method].full_name; }

/// The logger when it takes messages of level l, else nullptr (and nothing is formatted).
logger* log_at(const client_state& st, log_level l) {
  logger* g = st.options.log.get();
  return g != nullptr && g->enabled(l) ? g : nullptr;
}

/// Marks s completed (its code and message set by the caller).
void mark_done(slot& s) {
  s.done = true;
  if (s.timed) s.finished = hook_now();
}

/// Tells the hooks about one finished call (only with st.timing).
void record_call(const client_state& st, std::size_t method, status_code code, std::chrono::nanoseconds latency,
                 std::size_t request_bytes, std::size_t response_bytes) {
  const client_method& m = st.methods[method];
  if (st.options.stats) {
    call_record r;
    r.side = call_side::client;
    r.method = m.full_name;
    r.method_id = m.id;
    r.code = code;
    r.latency = latency;
    r.request_bytes = request_bytes;
    r.response_bytes = response_bytes;
    st.options.stats->record(r);
  }
  if (logger* g = log_at(st, log_level::warning)) {
    const std::chrono::nanoseconds slow = g->slow_call();
    if (slow.count() > 0 && latency >= slow) {
      g->write(log_level::warning, "client: slow call " + m.full_name + " to " + st.uri + ": " + ms_text(latency) +
                                       " (slow_call " + ms_text(slow) + "), " + std::string(to_string(code)));
    }
  }
}

/// Completes every call in flight with unavailable and closes the stream;
/// logs "client: connection to <uri> closed: <reason>" at `level`.
/// Call with st.mutex held.
void break_locked(client_state& st, connection& c, const std::string& reason, log_level level = log_level::info) {
  if (c.broken) return;
  c.broken = true;
  st.failed_once = true;
  st.last_failure = reason;
  for (slot*& s : c.table) {
    if (s == nullptr) continue;
    s->code = status_code::unavailable;
    s->message = s->ping ? reason : method_name(st, s->method) + ": " + reason;
    mark_done(*s);
    s->cv.notify_one();
    s = nullptr;
  }
  c.in_flight = 0;
  for (slot* w : c.waiting) w->cv.notify_one();
  c.stream->close();
  if (logger* g = log_at(st, level)) g->write(level, "client: connection to " + st.uri + " closed: " + reason);
  st.ping_cv.notify_all();
}

void break_connection(client_state& st, connection& c, const std::string& reason,
                      log_level level = log_level::info) {
  std::lock_guard lock(st.mutex);
  break_locked(st, c, reason, level);
}

/// Sends one frame (its parts, in order): written in one gather write with
/// the frames other callers queued meanwhile, or queued for the caller that
/// is writing (write_queue). Returns false, having handed nothing over, when
/// another caller's write holds the stream past the deadline.
[[nodiscard]] bool write_parts(connection& c, std::span<const std::span<const std::byte>> parts, time_point deadline) {
  return c.out.send(*c.stream, parts, deadline);
}

/// Writes one frame: the header, an optional prefix (the deadline) and the
/// payload (its bytes and, between them, the large blobs it left in the
/// caller's arguments), in one gather write, copying none of them.
[[nodiscard]] bool write_frame(connection& c, const frame_header& h, std::span<const std::byte> prefix,
                               const outgoing& payload, time_point deadline) {
  std::array<std::byte, header_size> head{};
  write_header(h, head);
  std::array<std::span<const std::byte>, write_queue::max_parts> parts{};
  static_assert(write_queue::max_parts >= 3 + 2 * gather_list::max_blobs);
  parts[0] = head;
  std::size_t n = 1;
  if (!prefix.empty()) parts[n++] = prefix;
  std::size_t from = 0;
  if (payload.gather != nullptr) {
    for (std::size_t k = 0; k < payload.gather->count; ++k) {
      const gather_list::blob& b = payload.gather->blobs[k];
      if (b.at > from) parts[n++] = payload.bytes.subspan(from, b.at - from);
      parts[n++] = std::span<const std::byte>(b.data, b.size);
      from = b.at;
    }
  }
  if (payload.bytes.size() > from) parts[n++] = payload.bytes.subspan(from);
  return write_parts(c, std::span<const std::span<const std::byte>>(parts.data(), n), deadline);
}

/// Reads one whole frame during the handshake (no other caller exists yet).
frame_view read_frame_blocking(connection& c, std::uint32_t limit, time_point deadline) {
  for (;;) {
    std::string why;
    auto f = c.reader.next(limit, why);
    if (!why.empty()) fail(status_code::unavailable, "handshake: " + why);
    if (f) return *f;
    const std::size_t n = c.stream->read_some(c.reader.space(), deadline);
    if (n == 0) fail(status_code::unavailable, "the server closed the connection during the handshake");
    c.reader.commit(n);
  }
}

/// Connects and handshakes before the earlier of connect_timeout and the
/// call's own deadline.
std::shared_ptr<connection> connect_unlogged(client_state& st, time_point call_deadline) {
  const time_point deadline = std::min(deadline_after(st.options.connect_timeout), call_deadline);
  auto c = std::make_shared<connection>();
  try {
    c->stream = transports::connect(st.io, st.where, deadline);
  } catch (const transports::transport_error& e) {
    if (e.code() == transports::errc::timed_out) {
      fail(status_code::deadline_exceeded, "cannot connect to " + st.uri + " within connect_timeout (" +
                                               std::to_string(st.options.connect_timeout.count()) + " ms)");
    }
    fail(status_code::unavailable, "cannot connect to " + st.uri + ": " + e.what());
  }
  handshake h;
  h.codec = st.options.codec;
  h.compression = st.options.compression;
  h.compression_threshold = st.options.compression_threshold;
  h.max_frame_size = st.options.max_frame_size;
  h.interface_name = st.interface_name;
  for (const client_method& m : st.methods) h.methods.push_back({m.id, m.full_name, m.signature, m.shape});
  std::vector<std::byte> payload;
  encode(h, payload);
  try {
    frame_header head;
    head.kind = frame_kind::handshake;
    head.length = static_cast<std::uint32_t>(payload.size());
    if (!write_frame(*c, head, {}, outgoing{payload}, deadline))
      fail(status_code::deadline_exceeded, "handshake: no time left");
    const frame_view f = read_frame_blocking(*c, st.options.max_frame_size, deadline);
    std::string why;
    if (f.header.kind == frame_kind::error) {
      error_payload e;
      if (!parse(f.payload, e, why)) fail(status_code::unavailable, st.uri + ": malformed error frame: " + why);
      fail(e.code, st.uri + " refused the connection: " + e.message);
    }
    if (f.header.kind != frame_kind::handshake_reply) {
      fail(status_code::unavailable,
           st.uri + ": expected a handshake reply, got a " + std::string(to_string(f.header.kind)) + " frame");
    }
    handshake_reply r;
    if (!parse(f.payload, r, why)) fail(status_code::unavailable, st.uri + ": malformed handshake reply: " + why);
    if (r.codec != h.codec || r.compression != h.compression) {
      fail(status_code::unavailable, st.uri + ": the server agreed to another codec or compression than asked");
    }
    if (r.methods.size() != h.methods.size()) {
      fail(status_code::unavailable, st.uri + ": the handshake reply has " + std::to_string(r.methods.size()) +
                                         " method entries for " + std::to_string(h.methods.size()) + " methods");
    }
    if (!r.extensions.empty()) {
      fail(status_code::unavailable, st.uri + ": the handshake reply carries extension " +
                                         std::to_string(r.extensions.front().type) +
                                         ", which this client does not know");
    }
    c->reader.consume(f);
    c->codec = r.codec;
    c->compression = r.compression;
    c->threshold = h.compression_threshold;
    c->send_limit = std::min(st.options.max_frame_size, r.max_frame_size);
    c->methods = std::move(r.methods);
  } catch (const transports::transport_error& e) {
    if (e.code() == transports::errc::timed_out) {
      fail(status_code::deadline_exceeded, "no handshake reply from " + st.uri + " within connect_timeout (" +
                                               std::to_string(st.options.connect_timeout.count()) + " ms)");
    }
    fail(status_code::unavailable, "handshake with " + st.uri + " failed: " + e.what());
  }
  c->max_in_flight = std::clamp<std::uint32_t>(st.options.max_calls_in_flight, 1, max_table / 2);
  // The table starts small and doubles as calls in flight need it, up to
  // twice max_calls_in_flight (a new connection touches 256 bytes, not 64 KiB).
  c->max_mask = next_power_of_two(c->max_in_flight * 2) - 1;
  c->mask = std::min<std::uint32_t>(c->max_mask, initial_table - 1);
  c->table.assign(static_cast<std::size_t>(c->mask) + 1, nullptr);
  const clock::rep connected_at = clock::now().time_since_epoch().count();
  c->last_used.store(connected_at, std::memory_order_relaxed);
  if (st.pinging) c->last_received.store(connected_at, std::memory_order_relaxed);
  return c;
}

/// connect_unlogged, logging a failure ("client: <the error>", warning).
std::shared_ptr<connection> connect_once(client_state& st, time_point call_deadline) {
  try {
    return connect_unlogged(st, call_deadline);
  } catch (const rpc_error& e) {
    if (logger* g = log_at(st, log_level::warning)) g->write(log_level::warning, std::string("client: ") + e.what());
    throw;
  }
}

/// Makes c the client's connection. Call with st.mutex held.
void install_locked(client_state& st, std::shared_ptr<connection> c) {
  st.current = std::move(c);
  if (logger* g = log_at(st, log_level::info)) g->write(log_level::info, "client: connection to " + st.uri + " opened");
  st.ping_cv.notify_all();
}

bool wait_for_reply(client_state& st, connection& c, slot& s, time_point until, bool fail_at_end,
                    decode_fn* decode_own);

/// The current connection, connecting (again) when there is none, before the
/// deadline; `connected` tells whether this call made it.
std::shared_ptr<connection> acquire(client_state& st, time_point now, time_point deadline, bool& connected) {
  connected = false;
  std::shared_ptr<connection> quiet;
  {
    std::lock_guard lock(st.mutex);
    if (st.closed) fail(status_code::unavailable, st.uri + ": the client is closed");
    if (st.current && !st.current->broken) {
      connection& c = *st.current;
      const clock::rep last = c.last_used.exchange(now.time_since_epoch().count(), std::memory_order_relaxed);
      if (c.reading || c.in_flight > 0 ||
          now.time_since_epoch().count() - last < clock::duration(quiet_probe_after).count()) {
        return st.current;
      }
      quiet = st.current;
    }
  }
  if (quiet) {
    // What the server sent while nobody read (an error frame saying why it
    // closes, its end of stream) is read now, without waiting.
    slot probe;  // never enrolled: the reader dispatches what has arrived, and returns
    probe.method = 0;
    (void)wait_for_reply(st, *quiet, probe, clock::now(), false, nullptr);
  }
  {
    std::lock_guard lock(st.mutex);
    if (st.closed) fail(status_code::unavailable, st.uri + ": the client is closed");
    if (st.current && !st.current->broken) return st.current;
    if (st.failed_once && !st.options.reconnect) {
      fail(status_code::unavailable, st.uri + ": the connection failed (" + st.last_failure + ") and reconnect is off");
    }
  }
  deadline_guard connecting(st.connect_mutex, deadline);
  if (!connecting.owns()) {
    fail(status_code::deadline_exceeded, st.uri + ": another call was still connecting at the deadline");
  }
  {
    std::lock_guard lock(st.mutex);  // another caller may have connected meanwhile
    if (st.current && !st.current->broken) return st.current;
  }
  auto c = connect_once(st, deadline);
  connected = true;
  std::lock_guard lock(st.mutex);
  if (st.closed) {  // destroyed meanwhile (a pending's call outliving its client)
    c->stream->close();
    fail(status_code::unavailable, st.uri + ": the client is closed");
  }
  install_locked(st, c);
  return c;
}

/// Why a method cannot be called on this connection, or "".
void check_method(const client_state& st, const connection& c, std::size_t method) {
  const method_reply& m = c.methods[method];
  if (m.state == method_state::ok) return;
  const client_method& mine = st.methods[method];
  if (m.state == method_state::unknown) {
    fail(status_code::unimplemented, mine.full_name + " is not served at " + st.uri);
  }
  const bool strict = c.codec == rpc::codec::binary;
  fail(status_code::unimplemented,
       mine.full_name + ": the server at " + st.uri + " has another signature: client " +
           (strict ? mine.signature : mine.shape) + ", server " + m.server_signature +
           (strict ? " (with the binary codec both sides must be built from the same interface)"
                   : " (the number or kind of parameters differs)"));
}

/// Encodes the request into the calling thread's buffers; returns the
/// arguments as they go on the wire (compressed or not) and sets flags.
/// `prefix`: the bytes that precede them in the frame (the deadline).
/// Without compression, large blobs of the arguments are not copied: they
/// stay in the caller's memory (listed in the thread's gather list) until
/// the frame is written, before the call returns.
outgoing encode_request(const client_state& st, const connection& c, std::size_t method, encode_fn encode,
                        std::size_t prefix, std::uint8_t& flags) {
  thread_buffers& b = buffers();
  const bool compressing = c.compression == refwire::compression::lz4;
  encode(c.codec, b.request, compressing ? nullptr : &b.gather);
  outgoing payload{b.request, compressing ? nullptr : &b.gather};
  flags = 0;
  if (compressing && payload.size() >= c.threshold) {
    b.compressed.clear();
    refwire::compress(payload.bytes, b.compressed, {.compression_threshold = 0});
    payload.bytes = b.compressed;
    flags = flag_compressed;
  }
  if (payload.size() + prefix > c.send_limit) {
    fail(status_code::resource_exhausted,
         method_name(st, method) + ": the request of " + std::to_string(payload.size() + prefix) +
             " bytes is longer than max_frame_size (" + std::to_string(c.send_limit) + ")");
  }
  return payload;
}

/// Puts s into the table under a fresh request id. A ping slot neither
/// counts against max_calls_in_flight nor fails: the table always has room
/// for it (it holds twice the calls allowed). Call with st.mutex held.
void enroll_locked(client_state& st, connection& c, slot& s) {
  if (!s.ping) {
    if (c.broken) fail(status_code::unavailable, method_name(st, s.method) + ": " + st.last_failure);
    if (c.in_flight >= c.max_in_flight) {
      fail(status_code::resource_exhausted, method_name(st, s.method) + ": " + std::to_string(c.in_flight) +
                                                " calls are in flight on this connection (max_calls_in_flight)");
    }
  }
  if ((c.in_flight + 2) * 2 > c.mask + 1 && c.mask < c.max_mask) {
    // twice the size: every entry keeps a slot of its own (id & the new mask
    // differ where id & the old mask did)
    std::vector<slot*> bigger(static_cast<std::size_t>(c.mask) * 2 + 2, nullptr);
    const std::uint32_t mask = c.mask * 2 + 1;
    for (slot* e : c.table) {
      if (e != nullptr) bigger[e->id & mask] = e;
    }
    c.table.swap(bigger);
    c.mask = mask;
  }
  std::uint32_t id = c.next_id;
  while (id == 0 || c.table[id & c.mask] != nullptr) ++id;
  c.next_id = id + 1;
  ++c.issued;
  s.id = id;
  c.table[id & c.mask] = &s;
  if (!s.ping) ++c.in_flight;
}

void enroll(client_state& st, connection& c, slot& s) {
  std::lock_guard lock(st.mutex);
  enroll_locked(st, c, s);
}

/// Removes s from the table if it is still there. Call with st.mutex held.
void withdraw_locked(connection& c, slot& s) {
  slot*& entry = c.table[s.id & c.mask];
  if (entry == &s) {
    entry = nullptr;
    if (!s.ping) --c.in_flight;
  }
}

/// Whether this connection has ever handed out request id `id`. Call with st.mutex held.
bool issued_locked(const connection& c, std::uint32_t id) {
  const std::uint32_t back = c.next_id - id;  // how many ids ago, modulo 2^32
  return id != 0 && back != 0 && back <= c.issued;
}

/// Sends the enrolled call; a failure to send breaks the connection. A
/// request carries `deadline_ms` in its prefix (send_deadline).
void send_request(client_state& st, connection& c, slot& s, frame_kind kind, std::uint8_t flags,
                  const outgoing& payload, time_point deadline, std::uint32_t deadline_ms) {
  std::array<std::byte, deadline_prefix_size> prefix{};
  std::span<const std::byte> prefix_part;
  if (kind == frame_kind::request && send_deadline) {
    for (std::size_t i = 0; i < deadline_prefix_size; ++i) {
      prefix[i] = static_cast<std::byte>((deadline_ms >> (8 * i)) & 0xffu);
    }
    prefix_part = prefix;
    flags |= flag_deadline;
  }
  frame_header h;
  h.kind = kind;
  h.flags = flags;
  h.codec = static_cast<std::uint8_t>(c.codec);
  h.length = static_cast<std::uint32_t>(prefix_part.size() + payload.size());
  h.request_id = s.id;
  h.method_id = st.methods[s.method].id;
  try {
    if (!write_frame(c, h, prefix_part, payload, deadline)) {
      std::lock_guard lock(st.mutex);
      withdraw_locked(c, s);
      fail(
          status_code::deadline_exceeded,
          method_name(st, s.method) + ": the request could not be sent before the deadline (another call was writing)");
    }
  } catch (const transports::transport_error& e) {
    std::unique_lock lock(st.mutex);
    const std::string reason = e.code() == transports::errc::timed_out
                                   ? std::string("the request could not be sent before the deadline")
                                   : std::string("sending failed: ") + e.what();
    withdraw_locked(c, s);
    break_locked(st, c, reason);
    lock.unlock();
    fail(e.code() == transports::errc::timed_out ? status_code::deadline_exceeded : status_code::unavailable,
         method_name(st, s.method) + ": " + reason);
  }
}

/// The reply bytes, inflated when the frame is compressed.
bool open_payload(const frame_view& f, std::uint32_t max_alloc, std::span<const std::byte>& bytes, std::string& why) {
  bytes = f.payload;
  if ((f.header.flags & flag_compressed) == 0) return true;
  std::vector<std::byte>& out = buffers().inflated;
  out.clear();
  decode_options limit;
  limit.max_alloc_bytes = max_alloc;
  if (refwire::error e = refwire::decompress(f.payload, out, limit)) {
    why = "a compressed reply does not open: " + e.message();
    return false;
  }
  bytes = out;
  return true;
}

/// Logs a reply nobody waits for (it is dropped). Call with st.mutex held.
void log_dropped_locked(const client_state& st, const connection& c, const frame_header& h, const slot* s) {
  const bool sent = issued_locked(c, h.request_id) && (s == nullptr || !s->ping);
  const log_level level = sent ? log_level::debug : log_level::warning;
  logger* g = log_at(st, level);
  if (g == nullptr) return;
  const std::string kind(to_string(h.kind));
  if (sent) {
    g->write(level, "client: " + st.uri + " sent a " + kind + " for request id " + std::to_string(h.request_id) +
                        ", no longer waited for (cancelled or past its deadline): dropped");
  } else {
    g->write(level, "client: " + st.uri + " sent a " + kind + " for request id " + std::to_string(h.request_id) +
                        ", which this client never sent: dropped");
  }
}

/// Handles one frame read by the reader. Returns false when the connection broke.
bool dispatch(client_state& st, connection& c, const frame_view& f, slot& own, decode_fn* decode_own) {
  switch (f.header.kind) {
    case frame_kind::response:
    case frame_kind::error: {
      if (f.header.request_id == 0 && f.header.kind == frame_kind::error) {
        error_payload e;
        std::string why;
        const std::string reason = parse(f.payload, e, why) ? "the server closed the connection: " + e.message
                                                            : "malformed error frame: " + why;
        break_connection(st, c, reason, log_level::warning);
        return false;
      }
      std::unique_lock lock(st.mutex);
      slot* s = c.table[f.header.request_id & c.mask];
      if (s == nullptr || s->id != f.header.request_id || s->ping) {
        log_dropped_locked(st, c, f.header, s);  // cancelled, timed out, or never sent: dropped
        return true;
      }
      withdraw_locked(c, *s);
      s->response_bytes = f.payload.size();
      if (f.header.kind == frame_kind::error) {
        error_payload e;
        std::string why;
        if (!parse(f.payload, e, why)) {
          s->code = status_code::internal;
          s->message = method_name(st, s->method) + ": malformed error reply: " + why;
        } else {
          s->code = e.code == status_code::ok ? status_code::internal : e.code;
          s->remote = !e.type.empty();
          s->type = std::move(e.type);
          s->message = std::move(e.message);
        }
      } else {
        std::span<const std::byte> bytes;
        std::string why;
        if (f.header.codec != static_cast<std::uint8_t>(c.codec)) {
          s->code = status_code::internal;
          s->message = method_name(st, s->method) + ": the reply is in codec " + std::to_string(f.header.codec) +
                       ", the handshake agreed on " + std::string(to_string(c.codec));
        } else if (!open_payload(f, st.options.max_frame_size, bytes, why)) {
          s->code = status_code::internal;
          s->message = method_name(st, s->method) + ": " + why;
        } else if (s == &own && decode_own != nullptr) {
          lock.unlock();  // own reply: decoded here, from the read buffer
          try {
            own.decode_failure = (*decode_own)(c.codec, bytes, nullptr);
          } catch (const std::exception& e) {  // std::bad_alloc filling the result, say
            own.decode_failure = refwire::error(refwire::errc::invalid_value, 0, "$", e.what());
          }
          own.decoded = true;
          lock.lock();
        } else {
          s->payload->assign(bytes.begin(), bytes.end());
        }
      }
      mark_done(*s);
      if (s != &own) s->cv.notify_one();
      return true;
    }
    case frame_kind::pong: {
      std::lock_guard lock(st.mutex);
      slot* s = c.table[f.header.request_id & c.mask];
      if (s != nullptr && s->id == f.header.request_id && s->ping) {  // the ping thread's; others are ignored
        withdraw_locked(c, *s);
        mark_done(*s);
        if (s != &own) s->cv.notify_one();
      }
      return true;
    }
    case frame_kind::ping: {
      frame_header h;
      h.kind = frame_kind::pong;
      h.request_id = f.header.request_id;
      try {
        // the reader never waits for a caller's write: the pong is queued for
        // the caller writing, or dropped when the queue is full
        (void)write_frame(c, h, {}, outgoing{}, clock::now());
      } catch (const transports::transport_error& e) {
        break_connection(st, c, std::string("answering a ping failed: ") + e.what());
        return false;
      }
      return true;
    }
    default:
      break_connection(st, c, "the server sent an unexpected " + std::string(to_string(f.header.kind)) + " frame",
                       log_level::warning);
      return false;
  }
}

/// A reply of at least this many payload bytes to the reader's own call, in
/// the binary codec and not compressed, is decoded as it arrives: its large
/// blobs, strings and vectors are read from the stream straight into the
/// result's storage (refwire::detail::bin::decode_streaming), not into the
/// read buffer first.
constexpr std::uint32_t stream_min = 256 * 1024;
/// How much of such a reply is buffered before its decode starts. The fields
/// before its first large blob must be among them; when they are not, the
/// reply is read whole and decoded from the buffer.
constexpr std::size_t stream_probe = 16 * 1024;

/// The rest of a reply decoded as it arrives: read from the connection's
/// stream before the call's deadline.
class reply_source final : public blob_source {
 public:
  reply_source(transports::stream& s, std::size_t pending, time_point deadline, std::vector<std::byte>& rest)
      : blob_source(pending), stream_(s), deadline_(deadline), rest_(rest) {}

  bool failed = false;
  bool timed_out = false;
  std::string failure;

 protected:
  bool read_exact(std::byte* dest, std::size_t n, std::string& why) override {
    while (n > 0) {
      std::size_t got = 0;
      try {
        got = stream_.read_some(std::span<std::byte>(dest, n), deadline_);
      } catch (const transports::transport_error& e) {
        timed_out = e.code() == transports::errc::timed_out;
        failure = timed_out ? std::string("the deadline passed in the middle of a reply") : e.what();
        break;
      }
      if (got == 0) {
        failure = "the server closed the connection in the middle of a frame";
        break;
      }
      dest += got;
      n -= got;
    }
    if (n == 0) return true;
    failed = true;
    why = failure;
    return false;
  }
  std::byte* rest_buffer(std::size_t n) override {
    rest_.resize(n);
    return rest_.data();
  }

 private:
  transports::stream& stream_;
  time_point deadline_;
  std::vector<std::byte>& rest_;
};

/// What try_stream did with the frame being read.
enum class streamed : std::uint8_t {
  no_frame,  ///< no header buffered: nothing to do
  no,        ///< not a reply to stream (or it could not be): read it whole
  wait,      ///< own's large reply, but too little of it is buffered yet
  done,      ///< own is done (decoded as it arrived, or failed; the connection may have broken)
};

/// Decodes own's large reply as it arrives, when the frame being read is
/// one (stream_min); the caller holds the reader role.
streamed try_stream(client_state& st, connection& c, slot& own, time_point deadline, decode_fn& decode) {
  const std::optional<frame_view> p = c.reader.partial(st.options.max_frame_size);
  if (!p) return streamed::no_frame;
  const frame_header& h = p->header;
  if (h.kind != frame_kind::response || h.length < stream_min || (h.flags & flag_compressed) != 0 ||
      c.codec != rpc::codec::binary || h.codec != static_cast<std::uint8_t>(c.codec) || h.request_id == c.no_stream_id) {
    return streamed::no;
  }
  {
    std::lock_guard lock(st.mutex);
    if (own.done || own.ping || own.id != h.request_id || c.table[h.request_id & c.mask] != &own) return streamed::no;
  }
  if (p->payload.size() < std::min<std::size_t>(h.length, stream_probe)) return streamed::wait;
  reply_source source(*c.stream, h.length - p->payload.size(), deadline, buffers().rest);
  refwire::error e;
  std::string threw;
  try {
    e = decode(c.codec, p->payload, &source);
  } catch (const std::exception& x) {  // std::bad_alloc sizing the result, say
    threw = x.what();
  }
  if (!source.used()) {  // nothing read past the buffer: read it whole, decode it from there
    c.no_stream_id = h.request_id;
    return streamed::no;
  }
  c.reader.drop_partial();  // the rest of the frame has been read by the decode
  if (st.pinging) c.last_received.store(clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  if (source.failed || !threw.empty()) {
    std::unique_lock lock(st.mutex);
    if (source.timed_out) {
      withdraw_locked(c, own);
      own.code = status_code::deadline_exceeded;
      own.message = method_name(st, own.method) + ": no reply before the deadline (the reply was still arriving)";
      mark_done(own);
    }
    // the stream stopped in the middle of a frame: the connection cannot go on
    break_locked(st, c, source.failed ? "reading failed: " + source.failure : "decoding a reply failed: " + threw,
                 log_level::warning);
    return streamed::done;
  }
  std::lock_guard lock(st.mutex);
  withdraw_locked(c, own);
  own.response_bytes = h.length;
  own.decode_failure = e;
  own.decoded = true;
  mark_done(own);
  return streamed::done;
}

/// The reader role: reads and dispatches frames until own is done, the
/// deadline passes or the connection breaks. Every whole frame a read brought
/// is dispatched before the next read, and before the role is given up when
/// own's reply was among them: the other callers' replies in the buffer are
/// handed over at once, not left for the next reader to find.
void read_until(client_state& st, connection& c, slot& own, time_point deadline, decode_fn* decode_own) {
  for (;;) {
    bool own_done = false;
    for (;;) {
      std::string why;
      auto f = c.reader.next(st.options.max_frame_size, why);
      if (!why.empty()) {
        break_connection(st, c, "the server sent a bad frame: " + why, log_level::warning);
        return;
      }
      if (!f) break;
      const frame_view frame = *f;
      const bool alive = dispatch(st, c, frame, own, decode_own);
      c.reader.consume(frame);
      if (!alive) return;
      if (!own_done) {
        std::lock_guard lock(st.mutex);
        own_done = own.done;
      }
    }
    if (own_done) return;
    // A read takes at most frame_reader::read_max bytes unless it reads the
    // rest of a frame that goes through the buffer whole.
    streamed how = streamed::no_frame;
    if (decode_own != nullptr) {
      how = try_stream(st, c, own, deadline, *decode_own);
      if (how == streamed::done) return;
    } else if (c.reader.partial(st.options.max_frame_size)) {
      how = streamed::no;
    }
    std::span<std::byte> into = c.reader.space(how == streamed::wait ? frame_reader::read_max : SIZE_MAX);
    if (how != streamed::no && into.size() > frame_reader::read_max) into = into.first(frame_reader::read_max);
    std::size_t n = 0;
    try {
      n = c.stream->read_some(into, deadline);
    } catch (const transports::transport_error& e) {
      if (e.code() == transports::errc::timed_out) return;
      break_connection(st, c, std::string("reading failed: ") + e.what());
      return;
    }
    if (n == 0) {
      break_connection(st, c, c.reader.empty() ? "the server closed the connection"
                                               : "the server closed the connection in the middle of a frame",
                       c.reader.empty() ? log_level::info : log_level::warning);
      return;
    }
    if (st.pinging) c.last_received.store(clock::now().time_since_epoch().count(), std::memory_order_relaxed);
    c.reader.commit(n);
  }
}

/// Wakes the first waiting caller whose reply is not in to take the reader
/// role (one whose reply is in was woken by the reader already). Call with
/// st.mutex held, nobody reading.
void pass_role_locked(connection& c) {
  for (slot* w : c.waiting) {
    if (!w->done) {
      w->cv.notify_one();
      return;
    }
  }
}

/// Waits for s: as the reader when nobody reads, else until the reader hands
/// over the reply or the role. Returns true when s is done; false when
/// `until` passed first (s then stays in flight unless fail_at_end).
bool wait_for_reply(client_state& st, connection& c, slot& s, time_point until, bool fail_at_end,
                    decode_fn* decode_own) {
  std::unique_lock lock(st.mutex);
  while (!s.done) {
    if (c.broken) {
      withdraw_locked(c, s);
      s.code = status_code::unavailable;
      s.message = s.ping ? st.last_failure : method_name(st, s.method) + ": " + st.last_failure;
      mark_done(s);
      break;
    }
    if (!c.reading) {
      c.reading = true;
      c.reader_slot = &s;
      lock.unlock();
      try {
        read_until(st, c, s, until, decode_own);
      } catch (...) {  // not a transport error (those break the connection inside): give the role back
        lock.lock();
        c.reading = false;
        c.reader_slot = nullptr;
        withdraw_locked(c, s);
        break_locked(st, c, "the reader failed", log_level::error);
        throw;
      }
      lock.lock();
      c.reading = false;
      c.reader_slot = nullptr;
      pass_role_locked(c);
    } else {
      c.waiting.push_back(&s);
      s.cv.wait_until(lock, until);
      c.waiting.erase(std::find(c.waiting.begin(), c.waiting.end(), &s));
    }
    if (!s.done && clock::now() >= until) {
      if (!fail_at_end) {
        if (!c.reading) pass_role_locked(c);
        return false;
      }
      withdraw_locked(c, s);
      s.code = status_code::deadline_exceeded;
      s.message = method_name(st, s.method) + ": no reply before the deadline";
      mark_done(s);
    }
  }
  // Woken to take over reading but done already: pass the role on.
  if (!c.reading) pass_role_locked(c);
  return true;
}

/// The ping thread (client_options::ping_interval > 0): sleeps until the
/// connection has no call in flight and has received nothing for
/// ping_interval, pings it, and reads
/// the pong itself when no caller is reading (the reader role, as a caller
/// takes it); nothing received within ping_timeout breaks the connection.
void ping_loop(client_state& st) {
  const auto interval = st.options.ping_interval;
  const auto timeout = st.options.ping_timeout;
  std::unique_lock lock(st.mutex);
  while (!st.closed) {
    const std::shared_ptr<connection> c = st.current;
    if (!c || c->broken) {
      st.ping_cv.wait(lock);
      continue;
    }
    if (c->in_flight > 0) {
      // Only an idle connection is pinged: a call in flight has its own
      // deadline, and a server running its handler on the IO thread answers
      // no ping until the handler returns.
      st.ping_cv.wait_until(lock, clock::now() + interval);
      continue;
    }
    const time_point due =
        time_point(clock::duration(c->last_received.load(std::memory_order_relaxed))) + interval;
    if (clock::now() < due) {
      st.ping_cv.wait_until(lock, due);
      continue;
    }
    slot p;
    p.ping = true;
    enroll_locked(st, *c, p);
    lock.unlock();
    const time_point sent = clock::now();
    const time_point give_up = sent + timeout;
    bool answered = false;
    frame_header h;
    h.kind = frame_kind::ping;
    h.request_id = p.id;
    bool written = false;
    try {
      written = write_frame(*c, h, {}, outgoing{}, give_up);  // false: a caller's write held the stream all that time
    } catch (const transports::transport_error& e) {
      break_connection(st, *c, std::string("sending a ping failed: ") + e.what());
    }
    if (written) answered = wait_for_reply(st, *c, p, give_up, false, nullptr);
    lock.lock();
    if (!answered) {
      withdraw_locked(*c, p);
      // A call that started meanwhile (its request may be ahead of the ping,
      // or its write held the stream) leaves the connection to its deadline.
      if (!c->broken && written && c->in_flight == 0 &&
          c->last_received.load(std::memory_order_relaxed) < sent.time_since_epoch().count()) {
        break_locked(st, *c, "no reply to a ping within ping_timeout (" + std::to_string(timeout.count()) + " ms)",
                     log_level::warning);
      }
    }
  }
}

[[noreturn]] void throw_failure(const client_state& st, const slot& s) {
  if (s.remote) throw remote_error(s.code, s.type, method_name(st, s.method) + ": " + s.message);
  throw rpc_error(s.code, s.message);
}

void check_decoded(const client_state& st, std::size_t method, const refwire::error& e) {
  if (e) fail(status_code::internal, method_name(st, method) + ": the reply does not decode: " + e.message());
}

/// The deadline prefix of a call whose deadline is `deadline` (its timeout
/// from when it was made): the timeout itself, unless the call had to connect
/// first, then what is left of it. (The time spent encoding and waiting to
/// write is not subtracted: the server counts from when it reads the frame,
/// so it never gives up before the caller does.)
std::uint32_t prefix_ms(std::chrono::milliseconds timeout, time_point deadline, bool connected) {
  return connected ? ms_left(deadline) : clamp_ms(timeout);
}

}  // namespace

async_state::~async_state() {
  if (!conn) return;
  client_state& st = *owner;
  bool record = false;
  status_code code = status_code::ok;
  std::chrono::nanoseconds latency{0};
  {
    std::lock_guard lock(st.mutex);
    if (!s.done) withdraw_locked(*conn, s);
    if (st.timing && !recorded) {  // dropped without get(): recorded as it ended, or as cancelled
      recorded = record = true;
      code = s.done ? s.code : status_code::cancelled;
      latency = (s.done ? s.finished : hook_now()) - started;
    }
  }
  if (record) record_call(st, s.method, code, latency, request_bytes, s.response_bytes);
}

client_core::client_core(std::string_view uri, const client_options& options, std::string_view interface_name,
                         std::vector<client_method> methods)
    : state_(std::make_shared<client_state>()) {
  client_state& st = *state_;
  st.uri = std::string(uri);
  st.options = options;
  st.interface_name = std::string(interface_name);
  st.methods = std::move(methods);
  st.timing = st.options.stats != nullptr ||
              (st.options.log != nullptr && st.options.log->slow_call().count() > 0 &&
               st.options.log->enabled(log_level::warning));
  st.pinging = st.options.ping_interval.count() > 0;
  try {
    st.where = transports::parse_uri(uri);
  } catch (const transports::transport_error& e) {
    fail(status_code::invalid_argument, e.what());
  }
  st.uri = st.where.uri();
  auto c = connect_once(st, time_point::max());
  {
    std::lock_guard lock(st.mutex);
    install_locked(st, std::move(c));
  }
  if (st.pinging) {
    try {
      st.ping_thread = std::thread([&st] { ping_loop(st); });
    } catch (...) {
      std::lock_guard lock(st.mutex);
      st.closed = true;
      break_locked(st, *st.current, "the client could not start its ping thread");
      throw;
    }
  }
}

client_core::~client_core() {
  client_state& st = *state_;
  {
    std::lock_guard lock(st.mutex);
    st.closed = true;
    if (st.current) break_locked(st, *st.current, "the client was destroyed");
    st.ping_cv.notify_all();
  }
  if (st.ping_thread.joinable()) st.ping_thread.join();
}

const client_options& client_core::options() const noexcept { return state_->options; }
const std::string& client_core::uri() const noexcept { return state_->uri; }

void client_core::call(std::size_t method, std::chrono::milliseconds timeout, encode_fn encode, decode_fn decode) {
  client_state& st = *state_;
  const time_point now = clock::now();
  const time_point deadline = deadline_from(now, timeout);
  time_point started{};
  if (st.timing) started = hook_now();
  std::size_t request_bytes = 0;
  slot s;
  s.method = method;
  try {
    bool connected = false;
    std::shared_ptr<connection> c = acquire(st, now, deadline, connected);
    check_method(st, *c, method);
    std::uint8_t flags = 0;
    const std::size_t prefix = send_deadline ? deadline_prefix_size : 0;
    const outgoing payload = encode_request(st, *c, method, encode, prefix, flags);
    request_bytes = payload.size();
    s.payload = &buffers().reply;
    enroll(st, *c, s);
    send_request(st, *c, s, frame_kind::request, flags, payload, deadline, prefix_ms(timeout, deadline, connected));
    wait_for_reply(st, *c, s, deadline, true, &decode);
    if (s.code != status_code::ok) throw_failure(st, s);
    if (s.decoded) {
      check_decoded(st, method, s.decode_failure);
    } else {
      check_decoded(st, method, decode(c->codec, *s.payload, nullptr));
    }
  } catch (const rpc_error& e) {
    if (st.timing) record_call(st, method, e.code(), hook_now() - started, request_bytes, s.response_bytes);
    throw;
  }
  if (st.timing) record_call(st, method, status_code::ok, hook_now() - started, request_bytes, s.response_bytes);
}

void client_core::notify(std::size_t method, encode_fn encode) {
  client_state& st = *state_;
  const time_point now = clock::now();
  const time_point deadline = deadline_from(now, st.options.timeout);
  bool connected = false;
  std::shared_ptr<connection> c = acquire(st, now, deadline, connected);
  check_method(st, *c, method);
  std::uint8_t flags = 0;
  const outgoing payload = encode_request(st, *c, method, encode, 0, flags);
  slot s;  // not enrolled: a one-way call has no reply
  s.method = method;
  send_request(st, *c, s, frame_kind::one_way, flags, payload, deadline, 0);
}

std::shared_ptr<async_state> client_core::start(std::size_t method, std::chrono::milliseconds timeout,
                                                encode_fn encode) {
  client_state& st = *state_;
  auto a = std::make_shared<async_state>();
  a->owner = state_;
  const time_point now = clock::now();
  a->deadline = deadline_from(now, timeout);
  a->s.method = method;
  if (st.timing) {
    a->started = hook_now();
    a->s.timed = true;
  }
  try {
    bool connected = false;
    std::shared_ptr<connection> c = acquire(st, now, a->deadline, connected);
    check_method(st, *c, method);
    std::uint8_t flags = 0;
    const std::size_t prefix = send_deadline ? deadline_prefix_size : 0;
    const outgoing payload = encode_request(st, *c, method, encode, prefix, flags);
    a->request_bytes = payload.size();
    a->s.payload = &a->payload;
    enroll(st, *c, a->s);
    a->conn = c;
    send_request(st, *c, a->s, frame_kind::request, flags, payload, a->deadline,
                 prefix_ms(timeout, a->deadline, connected));
  } catch (const rpc_error& e) {
    if (st.timing) {
      {
        std::lock_guard lock(st.mutex);
        a->recorded = true;
      }
      record_call(st, method, e.code(), hook_now() - a->started, a->request_bytes, 0);
    }
    throw;
  }
  return a;
}

bool async_wait(async_state& a, std::chrono::steady_clock::time_point until) {
  const bool bounded = until < a.deadline;
  return wait_for_reply(*a.owner, *a.conn, a.s, bounded ? until : a.deadline, !bounded, nullptr);
}

bool async_ready(const async_state& a) noexcept {
  std::lock_guard lock(a.owner->mutex);
  return a.s.done;
}

void async_finish(async_state& a, decode_fn decode) {
  if (a.finished) fail(status_code::invalid_argument, "refwire::rpc::pending: get() was already called");
  a.finished = true;
  client_state& st = *a.owner;
  bool record = false;
  if (st.timing) {
    std::lock_guard lock(st.mutex);
    record = !a.recorded;
    a.recorded = true;
  }
  const auto latency = [&] { return a.s.finished - a.started; };
  if (a.s.code != status_code::ok) {
    if (record) record_call(st, a.s.method, a.s.code, latency(), a.request_bytes, a.s.response_bytes);
    throw_failure(st, a.s);
  }
  const refwire::error e = decode(a.conn->codec, a.payload, nullptr);
  if (record) {
    record_call(st, a.s.method, e ? status_code::internal : status_code::ok, latency(), a.request_bytes,
                a.s.response_bytes);
  }
  check_decoded(st, a.s.method, e);
}

void async_cancel(async_state& a) noexcept {
  client_state& st = *a.owner;
  bool wake_reader = false;
  bool record = false;
  {
    std::lock_guard lock(st.mutex);
    if (a.s.done) return;
    withdraw_locked(*a.conn, a.s);
    a.s.code = status_code::cancelled;
    a.s.message = method_name(st, a.s.method) + ": cancelled";
    mark_done(a.s);
    a.s.cv.notify_one();  // a thread waiting in get() or wait_for() returns at once
    // A thread reading the socket for this very call sleeps in read_some: a
    // ping after the cancel makes the server send a frame that wakes it.
    wake_reader = a.conn->reading && a.conn->reader_slot == &a.s;
    if (st.timing && !a.recorded) record = a.recorded = true;
    if (a.conn->broken) wake_reader = false;
  }
  if (record) record_call(st, a.s.method, status_code::cancelled, a.s.finished - a.started, a.request_bytes, 0);
  {
    std::lock_guard lock(st.mutex);
    if (a.conn->broken) return;
  }
  std::array<std::byte, 2 * header_size> heads{};
  frame_header h;
  h.kind = frame_kind::cancel;
  h.request_id = a.s.id;
  h.method_id = st.methods[a.s.method].id;
  write_header(h, std::span<std::byte, header_size>(heads.data(), header_size));
  frame_header ping;
  ping.kind = frame_kind::ping;
  write_header(ping, std::span<std::byte, header_size>(heads.data() + header_size, header_size));
  const std::span<const std::byte> parts[] = {
      std::span<const std::byte>(heads.data(), wake_reader ? 2 * header_size : header_size)};
  try {
    (void)write_parts(*a.conn, parts, clock::now() + std::chrono::seconds(1));  // best effort
  } catch (const transports::transport_error& e) {
    break_connection(st, *a.conn, std::string("sending a cancel failed: ") + e.what());
  }
}

}  // namespace refwire::rpc::detail
