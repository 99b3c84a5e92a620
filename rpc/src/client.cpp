// The client's connection: connect and handshake, request ids, the calls in
// flight, and the reader role that one waiting caller at a time takes
// (docs/rpc.md, "Threading"). A caller alone on the connection reads its own
// reply and decodes it straight from the read buffer; with many callers, the
// reader copies each other reply into its caller's buffer and wakes it.

#include <algorithm>
#include <array>
#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <mutex>
#include <refwire/rpc/detail/client_core.hpp>
#include <refwire/rpc/detail/protocol.hpp>
#include <refwire/rpc/error.hpp>
#include <refwire/serialization/compression.hpp>
#include <refwire/transports/transport.hpp>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "frames.hpp"

namespace refwire::rpc::detail {

namespace {

using clock = std::chrono::steady_clock;
using time_point = clock::time_point;

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

/// One call waiting for its reply. Guarded by client_state::mutex except
/// where noted.
struct slot {
  std::uint32_t id = 0;
  std::size_t method = 0;
  bool done = false;
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
};

/// Buffers of the calling thread, kept between calls (no allocation per call
/// in steady state).
struct thread_buffers {
  std::vector<std::byte> request;
  std::vector<std::byte> compressed;
  std::vector<std::byte> reply;
  std::vector<std::byte> inflated;
};

thread_buffers& buffers() {
  thread_local thread_buffers b;
  return b;
}

time_point deadline_after(std::chrono::milliseconds d) {
  const time_point now = clock::now();
  if (d.count() <= 0) return now;
  if (d >= std::chrono::duration_cast<std::chrono::milliseconds>(time_point::max() - now)) return time_point::max();
  return now + d;
}

/// The largest table of calls in flight (max_calls_in_flight is clamped to half of it).
constexpr std::uint32_t max_table = 1u << 21;

std::uint32_t next_power_of_two(std::uint32_t v) {
  std::uint32_t p = 16;
  while (p < v && p < (1u << 30)) p <<= 1;
  return p;
}

}  // namespace

/// One connection to the server, with what its handshake agreed.
struct connection {
  std::unique_ptr<transports::stream> stream;
  deadline_mutex write_mutex;  // a caller waits for it only until its deadline
  frame_reader reader;           // only the thread in the reader role touches it
  rpc::codec codec = rpc::codec::binary;
  refwire::compression compression = refwire::compression::none;
  std::uint32_t threshold = 0;
  std::uint32_t send_limit = 0;
  std::vector<method_reply> methods;
  // guarded by client_state::mutex
  std::vector<slot*> table;
  std::uint32_t mask = 0;
  std::uint32_t next_id = 1;
  std::uint32_t in_flight = 0;
  std::uint32_t max_in_flight = 1;  // client_options::max_calls_in_flight, clamped to the table
  bool reading = false;
  bool broken = false;
  std::vector<slot*> waiting;  // callers blocked until a reply or the reader role is theirs
};

struct client_state {
  std::string uri;
  transports::endpoint where;
  client_options options;
  std::string interface_name;
  std::vector<client_method> methods;
  boost::asio::io_context io;  // the client's own event loop: connecting
  deadline_mutex connect_mutex;
  std::mutex mutex;
  std::shared_ptr<connection> current;
  bool failed_once = false;
  bool closed = false;
  std::string last_failure;
};

struct async_state {
  std::shared_ptr<client_state> owner;
  std::shared_ptr<connection> conn;
  slot s;
  std::vector<std::byte> payload;
  time_point deadline;
  bool finished = false;
  ~async_state();
};

namespace {

[[noreturn]] void fail(status_code code, const std::string& message) { throw rpc_error(code, message); }

std::string method_name(const client_state& st, std::size_t method) { return st.methods[method].full_name; }

/// Completes every call in flight with unavailable and closes the stream.
/// Call with st.mutex held.
void break_locked(client_state& st, connection& c, const std::string& reason) {
  if (c.broken) return;
  c.broken = true;
  st.failed_once = true;
  st.last_failure = reason;
  for (slot*& s : c.table) {
    if (s == nullptr) continue;
    s->done = true;
    s->code = status_code::unavailable;
    s->message = method_name(st, s->method) + ": " + reason;
    s->cv.notify_one();
    s = nullptr;
  }
  c.in_flight = 0;
  for (slot* w : c.waiting) w->cv.notify_one();
  c.stream->close();
}

void break_connection(client_state& st, connection& c, const std::string& reason) {
  std::lock_guard lock(st.mutex);
  break_locked(st, c, reason);
}

/// Writes one frame (header and payload in one gather write). Returns false,
/// having written nothing, when another caller's write holds the stream past
/// the deadline.
[[nodiscard]] bool write_frame(connection& c, const frame_header& h, std::span<const std::byte> payload,
                               time_point deadline) {
  std::array<std::byte, header_size> head{};
  write_header(h, head);
  const std::span<const std::byte> parts[] = {head, payload};
  deadline_guard lock(c.write_mutex, deadline);
  if (!lock.owns()) return false;
  c.stream->write_all(std::span<const std::span<const std::byte>>(parts, payload.empty() ? 1 : 2), deadline);
  return true;
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
std::shared_ptr<connection> connect_once(client_state& st, time_point call_deadline) {
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
    if (!write_frame(*c, head, payload, deadline)) fail(status_code::deadline_exceeded, "handshake: no time left");
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
  c->mask = next_power_of_two(c->max_in_flight * 2) - 1;
  c->table.assign(static_cast<std::size_t>(c->mask) + 1, nullptr);
  return c;
}

/// The current connection, connecting (again) when there is none, before the deadline.
std::shared_ptr<connection> acquire(client_state& st, time_point deadline) {
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
  std::lock_guard lock(st.mutex);
  st.current = c;
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

/// Encodes the request into the calling thread's buffers; returns the payload and flags.
std::span<const std::byte> encode_request(const client_state& st, const connection& c, std::size_t method,
                                          encode_fn encode, std::uint8_t& flags) {
  thread_buffers& b = buffers();
  encode(c.codec, b.request);
  std::span<const std::byte> payload = b.request;
  flags = 0;
  if (c.compression == refwire::compression::lz4 && payload.size() >= c.threshold) {
    b.compressed.clear();
    refwire::compress(payload, b.compressed, {.compression_threshold = 0});
    payload = b.compressed;
    flags = flag_compressed;
  }
  if (payload.size() > c.send_limit) {
    fail(status_code::resource_exhausted,
         method_name(st, method) + ": the request of " + std::to_string(payload.size()) +
             " bytes is longer than max_frame_size (" + std::to_string(c.send_limit) + ")");
  }
  return payload;
}

/// Puts s into the table under a fresh request id.
void enroll(client_state& st, connection& c, slot& s) {
  std::lock_guard lock(st.mutex);
  if (c.broken) fail(status_code::unavailable, method_name(st, s.method) + ": " + st.last_failure);
  if (c.in_flight >= c.max_in_flight) {
    fail(status_code::resource_exhausted, method_name(st, s.method) + ": " + std::to_string(c.in_flight) +
                                              " calls are in flight on this connection (max_calls_in_flight)");
  }
  std::uint32_t id = c.next_id;
  while (id == 0 || c.table[id & c.mask] != nullptr) ++id;
  c.next_id = id + 1;
  s.id = id;
  c.table[id & c.mask] = &s;
  ++c.in_flight;
}

/// Removes s from the table if it is still there. Call with st.mutex held.
void withdraw_locked(connection& c, slot& s) {
  slot*& entry = c.table[s.id & c.mask];
  if (entry == &s) {
    entry = nullptr;
    --c.in_flight;
  }
}

/// Sends the enrolled call; a failure to send breaks the connection.
void send_request(client_state& st, connection& c, slot& s, frame_kind kind, std::uint8_t flags,
                  std::span<const std::byte> payload, time_point deadline) {
  frame_header h;
  h.kind = kind;
  h.flags = flags;
  h.codec = static_cast<std::uint8_t>(c.codec);
  h.length = static_cast<std::uint32_t>(payload.size());
  h.request_id = s.id;
  h.method_id = st.methods[s.method].id;
  try {
    if (!write_frame(c, h, payload, deadline)) {
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
        break_connection(st, c, reason);
        return false;
      }
      std::unique_lock lock(st.mutex);
      slot* s = c.table[f.header.request_id & c.mask];
      if (s == nullptr || s->id != f.header.request_id) return true;  // cancelled or timed out: dropped
      withdraw_locked(c, *s);
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
            own.decode_failure = (*decode_own)(c.codec, bytes);
          } catch (const std::exception& e) {  // std::bad_alloc filling the result, say
            own.decode_failure = refwire::error(refwire::errc::invalid_value, 0, "$", e.what());
          }
          own.decoded = true;
          lock.lock();
        } else {
          s->payload->assign(bytes.begin(), bytes.end());
        }
      }
      s->done = true;
      if (s != &own) s->cv.notify_one();
      return true;
    }
    case frame_kind::pong:
      return true;
    case frame_kind::ping: {
      frame_header h;
      h.kind = frame_kind::pong;
      h.request_id = f.header.request_id;
      try {
        // the reader never waits for a caller's write: a pong is dropped instead
        (void)write_frame(c, h, {}, clock::now());
      } catch (const transports::transport_error& e) {
        break_connection(st, c, std::string("answering a ping failed: ") + e.what());
        return false;
      }
      return true;
    }
    default:
      break_connection(st, c, "the server sent an unexpected " + std::string(to_string(f.header.kind)) + " frame");
      return false;
  }
}

/// The reader role: reads and dispatches frames until own is done, the
/// deadline passes or the connection breaks.
void read_until(client_state& st, connection& c, slot& own, time_point deadline, decode_fn* decode_own) {
  for (;;) {
    for (;;) {
      std::string why;
      auto f = c.reader.next(st.options.max_frame_size, why);
      if (!why.empty()) {
        break_connection(st, c, "the server sent a bad frame: " + why);
        return;
      }
      if (!f) break;
      const frame_view frame = *f;
      const bool alive = dispatch(st, c, frame, own, decode_own);
      c.reader.consume(frame);
      if (!alive) return;
      std::lock_guard lock(st.mutex);
      if (own.done) return;
    }
    std::size_t n = 0;
    try {
      n = c.stream->read_some(c.reader.space(), deadline);
    } catch (const transports::transport_error& e) {
      if (e.code() == transports::errc::timed_out) return;
      break_connection(st, c, std::string("reading failed: ") + e.what());
      return;
    }
    if (n == 0) {
      break_connection(st, c, "the server closed the connection");
      return;
    }
    c.reader.commit(n);
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
      s.done = true;
      s.code = status_code::unavailable;
      s.message = method_name(st, s.method) + ": " + st.last_failure;
      break;
    }
    if (!c.reading) {
      c.reading = true;
      lock.unlock();
      try {
        read_until(st, c, s, until, decode_own);
      } catch (...) {  // not a transport error (those break the connection inside): give the role back
        lock.lock();
        c.reading = false;
        withdraw_locked(c, s);
        break_locked(st, c, "the reader failed");
        throw;
      }
      lock.lock();
      c.reading = false;
      if (!c.waiting.empty()) c.waiting.front()->cv.notify_one();  // the role passes on
    } else {
      c.waiting.push_back(&s);
      s.cv.wait_until(lock, until);
      c.waiting.erase(std::find(c.waiting.begin(), c.waiting.end(), &s));
    }
    if (!s.done && clock::now() >= until) {
      if (!fail_at_end) {
        if (!c.reading && !c.waiting.empty()) c.waiting.front()->cv.notify_one();
        return false;
      }
      withdraw_locked(c, s);
      s.done = true;
      s.code = status_code::deadline_exceeded;
      s.message = method_name(st, s.method) + ": no reply before the deadline";
    }
  }
  // Woken to take over reading but done already: pass the role on.
  if (!c.reading && !c.waiting.empty()) c.waiting.front()->cv.notify_one();
  return true;
}

[[noreturn]] void throw_failure(const client_state& st, const slot& s) {
  if (s.remote) throw remote_error(s.code, s.type, method_name(st, s.method) + ": " + s.message);
  throw rpc_error(s.code, s.message);
}

void check_decoded(const client_state& st, std::size_t method, const refwire::error& e) {
  if (e) fail(status_code::internal, method_name(st, method) + ": the reply does not decode: " + e.message());
}

}  // namespace

async_state::~async_state() {
  if (!conn) return;
  std::lock_guard lock(owner->mutex);
  if (!s.done) withdraw_locked(*conn, s);
}

client_core::client_core(std::string_view uri, const client_options& options, std::string_view interface_name,
                         std::vector<client_method> methods)
    : state_(std::make_shared<client_state>()) {
  client_state& st = *state_;
  st.uri = std::string(uri);
  st.options = options;
  st.interface_name = std::string(interface_name);
  st.methods = std::move(methods);
  try {
    st.where = transports::parse_uri(uri);
  } catch (const transports::transport_error& e) {
    fail(status_code::invalid_argument, e.what());
  }
  st.uri = st.where.uri();
  st.current = connect_once(st, time_point::max());
}

client_core::~client_core() {
  std::lock_guard lock(state_->mutex);
  state_->closed = true;
  if (state_->current) break_locked(*state_, *state_->current, "the client was destroyed");
}

const client_options& client_core::options() const noexcept { return state_->options; }
const std::string& client_core::uri() const noexcept { return state_->uri; }

void client_core::call(std::size_t method, std::chrono::milliseconds timeout, encode_fn encode, decode_fn decode) {
  client_state& st = *state_;
  const time_point deadline = deadline_after(timeout);
  std::shared_ptr<connection> c = acquire(st, deadline);
  check_method(st, *c, method);
  std::uint8_t flags = 0;
  const std::span<const std::byte> payload = encode_request(st, *c, method, encode, flags);
  slot s;
  s.method = method;
  s.payload = &buffers().reply;
  enroll(st, *c, s);
  send_request(st, *c, s, frame_kind::request, flags, payload, deadline);
  wait_for_reply(st, *c, s, deadline, true, &decode);
  if (s.code != status_code::ok) throw_failure(st, s);
  if (s.decoded) {
    check_decoded(st, method, s.decode_failure);
    return;
  }
  check_decoded(st, method, decode(c->codec, *s.payload));
}

void client_core::notify(std::size_t method, encode_fn encode) {
  client_state& st = *state_;
  const time_point deadline = deadline_after(st.options.timeout);
  std::shared_ptr<connection> c = acquire(st, deadline);
  check_method(st, *c, method);
  std::uint8_t flags = 0;
  const std::span<const std::byte> payload = encode_request(st, *c, method, encode, flags);
  slot s;  // not enrolled: a one-way call has no reply
  s.method = method;
  send_request(st, *c, s, frame_kind::one_way, flags, payload, deadline);
}

std::shared_ptr<async_state> client_core::start(std::size_t method, std::chrono::milliseconds timeout,
                                                encode_fn encode) {
  client_state& st = *state_;
  auto a = std::make_shared<async_state>();
  a->owner = state_;
  a->deadline = deadline_after(timeout);
  std::shared_ptr<connection> c = acquire(st, a->deadline);
  check_method(st, *c, method);
  std::uint8_t flags = 0;
  const std::span<const std::byte> payload = encode_request(st, *c, method, encode, flags);
  a->s.method = method;
  a->s.payload = &a->payload;
  enroll(st, *c, a->s);
  a->conn = c;
  send_request(st, *c, a->s, frame_kind::request, flags, payload, a->deadline);
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
  if (a.s.code != status_code::ok) throw_failure(*a.owner, a.s);
  check_decoded(*a.owner, a.s.method, decode(a.conn->codec, a.payload));
}

void async_cancel(async_state& a) noexcept {
  client_state& st = *a.owner;
  {
    std::lock_guard lock(st.mutex);
    if (a.s.done) return;
    withdraw_locked(*a.conn, a.s);
    a.s.done = true;
    a.s.code = status_code::cancelled;
    a.s.message = method_name(st, a.s.method) + ": cancelled";
    if (a.conn->broken) return;
  }
  frame_header h;
  h.kind = frame_kind::cancel;
  h.request_id = a.s.id;
  h.method_id = st.methods[a.s.method].id;
  try {
    (void)write_frame(*a.conn, h, {}, clock::now() + std::chrono::seconds(1));  // best effort
  } catch (const transports::transport_error& e) {
    break_connection(st, *a.conn, std::string("sending a cancel failed: ") + e.what());
  }
}

}  // namespace refwire::rpc::detail
