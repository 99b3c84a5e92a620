// The server: listeners, connections and dispatch on an event loop that
// server_options::io_threads threads run. A connection reads, parses every
// whole frame it has and, with handler_threads == 0, runs each request's
// handler right there and writes the reply; with a handler pool it queues the
// request for a pool thread, which runs the handler and writes the reply
// itself. Writes coalesce: the replies to a batch of requests that one read
// brought go out together after the last of them (inline handlers), and a
// reply finished while another thread writes is queued for that thread to
// send with its own (a pool). What the socket does not take now waits in the
// connection's backlog and goes out when it is writable.
//
// A call is a call_job from the moment its request is parsed until it is
// answered: tracked by its connection (the in-flight list, and by request id
// for cancel frames and the reuse check), answered exactly once (its reply,
// an error, or unavailable at the drain timeout), then recycled.

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <refwire/rpc/call_context.hpp>
#include <refwire/rpc/detail/protocol.hpp>
#include <refwire/rpc/server.hpp>
#include <refwire/serialization/compression.hpp>
#include <refwire/transports/transport.hpp>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "frames.hpp"

namespace refwire::rpc {
namespace detail {

namespace {

using steady = std::chrono::steady_clock;

/// While a connection's unsent replies exceed this, it stops reading requests.
constexpr std::size_t backlog_pause_bytes = 8u << 20;
/// A reply up to this size, finished while its batch goes on (or while
/// another thread writes), is copied into the queue; a larger one is written
/// at once, with what is queued ahead of it, from its own buffer.
constexpr std::size_t queue_copy_max = 4096;
/// The replies of a batch are written when they reach this many bytes, if
/// the batch is not over by then.
constexpr std::size_t queue_flush_bytes = 64u << 10;
/// A request of at least this many payload bytes, in the binary codec and
/// not compressed, is read as it arrives: once its beginning is in, the
/// method's probe finds where its first large run (a blob, a string, a
/// vector of arithmetic values) starts, and that run is read from the socket
/// straight into a buffer of its own that becomes the argument's storage (a
/// std::vector<std::byte> takes it over; other types copy it once), instead
/// of the whole frame going through the read buffer.
constexpr std::uint32_t stream_min = 256 * 1024;
/// How much of such a request is read before its probe (the arguments
/// before the first large run must be in it, else it is read whole).
constexpr std::size_t stream_probe = 16 * 1024;

/// The rest of a streamed request, replayed to the decoder from memory: its
/// first large run (handed over to a std::vector<std::byte> argument, copied
/// into others), then the bytes after it.
class replay_source final : public blob_source {
 public:
  replay_source(std::vector<std::byte>& run, std::span<const std::byte> rest)
      : blob_source(run.size() + rest.size()), run_(run), rest_(rest) {}

  bool fill_vector(refwire::detail::byte_reader& r, std::vector<std::byte>& v, std::size_t n) override {
    if (!taken_ && at_ == 0 && r.left() == 0 && n == run_.size()) {
      v = std::move(run_);  // the buffer the run was read into becomes the argument
      taken_ = true;
      at_ = n;
      return advance(r, n);
    }
    return blob_source::fill_vector(r, v, n);
  }

 protected:
  bool read_exact(std::byte* dest, std::size_t n, std::string& why) override {
    const std::size_t run_size = taken_ ? at_ : run_.size();
    while (n > 0) {
      std::span<const std::byte> from;
      if (at_ < run_size) {
        from = std::span<const std::byte>(run_).subspan(at_);
      } else if (at_ - run_size < rest_.size()) {
        from = rest_.subspan(at_ - run_size);
      } else {
        why = "the request ended";
        return false;
      }
      const std::size_t k = std::min(n, from.size());
      std::memcpy(dest, from.data(), k);
      dest += k;
      n -= k;
      at_ += k;
    }
    return true;
  }
  std::byte* rest_buffer(std::size_t n) override {
    buffer_.resize(n);
    return buffer_.data();
  }

 private:
  std::vector<std::byte>& run_;
  std::span<const std::byte> rest_;
  std::vector<std::byte> buffer_;
  std::size_t at_ = 0;  // in the replayed input: the run's bytes, then rest's
  bool taken_ = false;
};

/// A reply whose unsent rest is at least this large is kept in the buffer it
/// was encoded in (swapped into the backlog) instead of copied there.
constexpr std::size_t swap_min = 64 * 1024;
/// A recycled call keeps an argument buffer up to this size (a larger one is freed).
constexpr std::size_t job_keep_bytes = 256u << 10;
/// The argument buffer a job made at start() has already.
constexpr std::size_t job_warm_bytes = 1024;
/// How long a connection refused for max_connections is kept open at most,
/// so that its client reads the reason before the socket goes.
constexpr std::chrono::milliseconds refused_linger{1000};

std::string hex_id(std::uint32_t id) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", id);
  return text;
}

std::string ms_text(std::chrono::milliseconds d) { return std::to_string(d.count()) + " ms"; }

/// "120.4 ms", "35.0 µs", "2.10 s".
std::string duration_text(std::chrono::nanoseconds d) {
  char text[32];
  const double ns = static_cast<double>(d.count());
  if (ns >= 1e9) {
    std::snprintf(text, sizeof text, "%.2f s", ns / 1e9);
  } else if (ns >= 1e6) {
    std::snprintf(text, sizeof text, "%.1f ms", ns / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%.1f \xc2\xb5s", ns / 1e3);
  }
  return text;
}

/// "unix:///run/calc.sock (pid 4242, uid 1000)", "tcp://127.0.0.1:50412".
std::string describe(const transports::peer_identity& p) {
  std::string s = p.address.empty() ? std::string("an unnamed peer") : p.address;
  if (p.pid || p.uid) {
    s += " (";
    if (p.pid) s += "pid " + std::to_string(*p.pid);
    if (p.pid && p.uid) s += ", ";
    if (p.uid) s += "uid " + std::to_string(*p.uid);
    s += ")";
  }
  return s;
}

template <class T, class Name>
std::string list_of(const std::vector<T>& items, Name name) {
  std::string out;
  for (const T& item : items) {
    if (!out.empty()) out += ", ";
    out += name(item);
  }
  return out.empty() ? std::string("nothing") : out;
}

std::uint32_t read_u32le(std::span<const std::byte> p) noexcept {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

}  // namespace

/// The buffers one thread builds replies in (an IO thread's connection, or a pool thread).
struct call_buffers {
  std::vector<std::byte> reply;       // the reply payload being built
  std::vector<std::byte> compressed;  // its lz4 envelope
  std::vector<std::byte> control;     // handshake replies and error payloads
  std::vector<std::byte> inflated;    // a compressed request's arguments
};

struct server_connection;

/// One call, from its request parsed to its answer; recycled after.
struct call_job {
  enum class phase : std::uint8_t { queued, running };

  call_job* next = nullptr;  // the pool's queue, or the free list
  call_job* prev_in_conn = nullptr;  // the connection's in-flight list
  call_job* next_in_conn = nullptr;
  server_connection* conn = nullptr;
  std::int32_t method = -1;  // position in server_state::methods
  std::uint32_t id = 0;
  std::uint32_t method_id = 0;
  std::uint32_t deadline_ms = 0;
  bool one_way = false;
  bool compressed = false;
  bool answered = false;  // under the connection's calls_mutex: answered (or given up) and untracked
  bool cancelled_queued = false;  // under calls_mutex: cancelled while queued, still in the pool's queue
  phase state = phase::queued;
  steady::time_point deadline = steady::time_point::max();
  steady::time_point read_at{};  // the hook clock when the request was read (only when a hook needs it)
  std::size_t request_bytes = 0;
  std::vector<std::byte> args;       // pool: the arguments as received (compressed or not)
  std::span<const std::byte> view;   // what run() decodes: args, or the read buffer (inline)
  // A large request read as it arrived (streamed): view is the arguments up
  // to their first large run, which is in `run`; the bytes after it in `rest`.
  bool streamed = false;
  std::vector<std::byte> run;
  std::vector<std::byte> rest;
  std::optional<call_context> ctx;
};

struct endpoint_entry {
  explicit endpoint_entry(boost::asio::io_context& io) : retry(io) {}
  boost::asio::steady_timer retry;  // accept failed (out of descriptors, say): try again a little later
  std::unique_ptr<transports::listener> listener;
  endpoint_options options;
  std::string uri;
};

struct server_state {
  explicit server_state(const server_options& o)
      : options(o),
        need_clock(o.stats != nullptr ||
                   (o.log != nullptr && o.log->slow_call().count() > 0 && o.log->enabled(log_level::warning))),
        max_in_flight(std::max<std::uint32_t>(o.max_calls_in_flight, 1)) {}

  server_options options;
  const bool need_clock;  // a hook reads the hook clock around each call
  const std::uint32_t max_in_flight;
  boost::asio::io_context io;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
  std::vector<served_method> methods;
  std::vector<std::int32_t> index;  // open addressing by method id: position in methods, or -1
  std::uint32_t index_mask = 0;

  std::mutex stop_mutex;  // held through stop(): a second stop() waits for the first
  std::mutex mutex;       // everything below
  std::condition_variable changed;
  std::vector<std::unique_ptr<endpoint_entry>> endpoints;
  std::map<server_connection*, std::shared_ptr<server_connection>> connections;
  std::uint32_t admitted = 0;  // connections that count against max_connections
  std::vector<std::thread> threads;
  bool started = false;
  bool stopping = false;
  bool stopped = false;
  std::atomic<bool> draining{false};  // stopping, readable without the mutex

  // The handler pool (handler_threads > 0).
  std::mutex pool_mutex;  // the queue, the free list, pool_stop
  std::condition_variable pool_wake;
  call_job* queue_head = nullptr;
  call_job* queue_tail = nullptr;
  call_job* free_jobs = nullptr;
  std::vector<std::unique_ptr<call_job>> jobs;  // every job ever made (they are recycled)
  bool pool_stop = false;
  std::vector<std::thread> pool;

  [[nodiscard]] bool pooled() const noexcept { return options.handler_threads > 0; }
  [[nodiscard]] bool logs(log_level l) const noexcept { return options.log && options.log->enabled(l); }
  void log(log_level l, const std::string& message) const noexcept { options.log->write(l, message); }

  /// The position of the served method with this id, or -1.
  [[nodiscard]] std::int32_t find(std::uint32_t id) const noexcept {
    if (index.empty()) return -1;
    for (std::uint32_t i = id & index_mask;; i = (i + 1) & index_mask) {
      const std::int32_t at = index[i];
      if (at < 0) return -1;
      if (methods[static_cast<std::size_t>(at)].info.id == id) return at;
    }
  }

  void rebuild_index() {
    std::uint32_t size = 16;
    while (size < methods.size() * 2) size <<= 1;
    index.assign(size, -1);
    index_mask = size - 1;
    for (std::size_t k = 0; k < methods.size(); ++k) {
      std::uint32_t i = methods[k].info.id & index_mask;
      while (index[i] >= 0) i = (i + 1) & index_mask;
      index[i] = static_cast<std::int32_t>(k);
    }
  }

  /// A job from the free list (a new one when it is empty). Under pool_mutex.
  call_job* take_job() {
    if (free_jobs == nullptr) {
      jobs.push_back(std::make_unique<call_job>());
      return jobs.back().get();
    }
    call_job* j = free_jobs;
    free_jobs = j->next;
    j->next = nullptr;
    return j;
  }

  void recycle(call_job* j) {
    j->ctx.reset();
    j->view = {};
    j->streamed = false;
    std::vector<std::byte>().swap(j->run);
    std::vector<std::byte>().swap(j->rest);
    if (j->args.capacity() > job_keep_bytes) {
      std::vector<std::byte>().swap(j->args);
    } else {
      j->args.clear();
    }
    std::lock_guard lock(pool_mutex);
    j->next = free_jobs;
    free_jobs = j;
  }

  void enqueue(call_job* j) {
    {
      std::lock_guard lock(pool_mutex);
      j->next = nullptr;
      if (queue_tail != nullptr) {
        queue_tail->next = j;
      } else {
        queue_head = j;
      }
      queue_tail = j;
    }
    pool_wake.notify_one();
  }

  void run_pool();
  void accept(endpoint_entry& e);
  void forget(server_connection* c);
  /// forget(c) when c is still known, closed, and nothing of it is outstanding.
  void forget_if_done(server_connection* c);
};

struct server_connection : std::enable_shared_from_this<server_connection> {
  server_connection(server_state& s, endpoint_entry& e, std::unique_ptr<transports::stream> st)
      : server(s), endpoint(e), stream(std::move(st)), handshake_timer(s.io), idle_timer(s.io), write_timer(s.io) {
    if (server.options.log) peer_text = describe(stream->peer());  // before any other thread can see it
  }

  server_state& server;
  endpoint_entry& endpoint;
  std::unique_ptr<transports::stream> stream;
  boost::asio::steady_timer handshake_timer;  // under busy
  boost::asio::steady_timer idle_timer;       // under busy
  boost::asio::steady_timer write_timer;      // under timer_mutex
  frame_reader reader;
  std::string peer_text;  // describe(peer), made only when there is a logger
  bool counted = false;   // counts against max_connections
  bool refused = false;   // refused at accept (max_connections): reads are dropped until the peer closes (set before it is shared)

  // Agreed in the handshake (then read-only: pool threads read them).
  bool ready = false;
  rpc::codec codec = rpc::codec::binary;
  refwire::compression compression = refwire::compression::none;
  std::uint32_t threshold = 0;
  std::uint32_t send_limit = 0;
  /// Per served method: "" when this connection may call it, else why not.
  std::vector<std::string> refusals;

  call_buffers buffers;  // the IO thread's (inline calls and control frames)

  /// The large request being read as it arrives (stream_min), under busy:
  /// its header, its payload up to its first large run (`head`), the run and
  /// the bytes after it, each read straight into its own buffer.
  struct streamed_request {
    bool active = false;
    frame_header header;
    std::vector<std::byte> head;
    std::vector<std::byte> run;
    std::size_t run_read = 0;
    std::vector<std::byte> rest;
    std::size_t rest_read = 0;
  } streaming;
  /// The frame being read was looked at and is read whole (under busy;
  /// cleared when a frame is consumed).
  bool stream_declined = false;

  std::mutex busy;  // held while a batch of frames is handled (and around closing)
  steady::time_point last_frame{};  // idle_timeout > 0: when a read last brought bytes (under busy)
  // The read batch being handled (under busy): its clock readings, taken when first needed.
  std::optional<steady::time_point> batch_read_at;
  std::optional<steady::time_point> batch_hook_at;
  bool handler_ran = false;  // since batch_read_at was read
  std::string closing_reason;  // close_gracefully's reason, for the log when it happens

  // The calls in flight (queued for or running on a handler thread, or the inline one).
  std::mutex calls_mutex;
  call_job* in_flight_head = nullptr;
  std::uint32_t in_flight = 0;
  std::uint32_t replying = 0;  // answers untracked whose frame is not written or queued yet
  /// Calls cancelled while queued and not yet taken off the pool's queue: they
  /// still count against max_calls_in_flight (else request + cancel, repeated,
  /// would grow the queue without bound).
  std::uint32_t cancelled_queued = 0;
  std::vector<call_job*> by_id;  // pool: open addressing by request id (requests only)
  std::uint32_t by_id_count = 0;
  call_job inline_job;     // handler_threads == 0: the call the IO thread runs

  // The writing side. One thread at a time holds the writer role (`writing`)
  // and calls try_write outside write_mutex; frames sent meanwhile are queued
  // in `back` and written by it before it gives the role up. Unsent bytes
  // are front (from front_sent), then back.
  std::mutex write_mutex;
  std::vector<std::byte> front;  // being written, or waiting for the socket: only the writer touches it
  std::size_t front_sent = 0;
  std::vector<std::byte> back;  // frames queued behind front (under write_mutex)
  std::atomic<std::size_t> backlog_left{0};  // unsent(), for a look without the lock
  bool writing = false;  // a thread holds the writer role
  bool corked = false;   // inline handlers: the IO thread's batch goes on; its replies queue in back
  bool waiting_writable = false;
  bool paused = false;  // not reading until the backlog drains
  bool close_after_flush = false;
  bool sealed = false;  // under write_mutex: an error frame with request id 0 went out or is queued
  bool write_timer_armed = false;
  steady::time_point last_progress{};  // when the socket last took backlog bytes
  std::mutex timer_mutex;              // the write timer object (taken last)
  std::atomic<bool> closed{false};

  // ---------------------------------------------------------------- lifetime

  void begin(std::string refusal) {
    auto self = shared_from_this();
    std::unique_lock guard(busy);  // stop() may close the connection (and cancel the timer) meanwhile
    auto linger = server.options.handshake_timeout;
    if (refused) {
      // max_connections: the reason now, without waiting for the handshake; the
      // socket stays open (its input dropped) until the client has read it.
      if (server.logs(log_level::warning))
        server.log(log_level::warning, "server: connection from " + peer_text + " refused: " + refusal);
      encode_error(buffers.control, status_code::resource_exhausted, "", refusal);
      send(frame_kind::error, 0, 0, 0, buffers.control);
      linger = std::min<std::chrono::milliseconds>(linger, refused_linger);
    } else if (server.logs(log_level::info)) {
      server.log(log_level::info, "server: connection from " + peer_text + " opened on " + endpoint.uri);
    }
    handshake_timer.expires_after(linger);
    handshake_timer.async_wait([self](const boost::system::error_code& ec) {
      if (ec) return;
      {
        std::lock_guard lock(self->busy);
        if (self->ready) return;
        if (!self->refused && !self->closed && self->server.logs(log_level::warning)) {
          self->server.log(log_level::warning, "server: connection from " + self->peer_text +
                                                   ": no handshake within handshake_timeout (" +
                                                   ms_text(self->server.options.handshake_timeout) + ")");
        }
        self->close_now([&] { return "no handshake within handshake_timeout (" +
                                     ms_text(self->server.options.handshake_timeout) + ")"; });
      }
      self->maybe_forget();
    });
    read();
    guard.unlock();
    maybe_forget();  // stop() may have closed it already
  }

  // The completions capture `this` alone (so std::function keeps them without
  // allocating); the connection stays in server_state::connections until it is
  // closed and nothing is outstanding (reads, waits, timers, calls in flight).
  std::atomic<int> outstanding{0};

  void read() {
    if (closed) return;
    bool probing = false;  // a large request whose beginning is not all in yet
    if (streaming.active || start_streaming(probing)) {
      // the run goes past what was buffered (the probe's condition): something is left to read
      std::span<std::byte> into = streaming.run_read < streaming.run.size()
                                      ? std::span<std::byte>(streaming.run).subspan(streaming.run_read)
                                      : std::span<std::byte>(streaming.rest).subspan(streaming.rest_read);
      outstanding.fetch_add(1);
      stream->async_read_some(into, [this](transports::errc e, std::size_t n) {
        on_streamed_read(e, n);
        release();
      });
      return;
    }
    // A read takes at most frame_reader::read_max bytes unless it reads the
    // rest of a frame that goes through the buffer whole.
    const bool whole = !probing && reader.partial(server.options.max_frame_size).has_value();
    std::span<std::byte> into = reader.space(whole ? SIZE_MAX : frame_reader::read_max);
    if (!whole && into.size() > frame_reader::read_max) into = into.first(frame_reader::read_max);
    outstanding.fetch_add(1);
    stream->async_read_some(into, [this](transports::errc e, std::size_t n) {
      on_read(e, n);
      release();
    });
  }

  /// Whether the frame being read is a large request to read as it arrives
  /// (stream_min); if so, sets streaming up (under busy). Declines (the frame
  /// is then read whole) when it is not one, or when its probe finds no large
  /// run past what is buffered; `probing` when it may be one but too little
  /// of it is in yet.
  bool start_streaming(bool& probing) {
    probing = false;
    if (!ready || stream_declined || refused) return false;
    const std::optional<frame_view> p = reader.partial(server.options.max_frame_size);
    if (!p) return false;
    const frame_header& h = p->header;
    const bool candidate = (h.kind == frame_kind::request || h.kind == frame_kind::one_way) &&
                           h.length >= stream_min && (h.flags & flag_compressed) == 0 &&
                           codec == rpc::codec::binary && h.codec == static_cast<std::uint8_t>(codec);
    const std::int32_t at = candidate ? server.find(h.method_id) : -1;
    if (at < 0 || !refusals[static_cast<std::size_t>(at)].empty() ||
        server.methods[static_cast<std::size_t>(at)].probe == nullptr) {
      stream_declined = true;
      return false;
    }
    if (p->payload.size() < std::min<std::size_t>(h.length, stream_probe)) {
      probing = true;  // not yet: read on
      return false;
    }
    const std::size_t prefix = (h.flags & flag_deadline) != 0 ? deadline_prefix_size : 0;
    const std::span<const std::byte> args = p->payload.subspan(prefix);
    std::size_t run_at = 0;
    std::size_t run_size = 0;
    if (!server.methods[static_cast<std::size_t>(at)].probe(args, h.length - prefix, run_at, run_size)) {
      stream_declined = true;
      return false;
    }
    streaming.active = true;
    streaming.header = h;
    streaming.head.assign(p->payload.begin(), p->payload.begin() + static_cast<std::ptrdiff_t>(prefix + run_at));
    const std::span<const std::byte> buffered = args.subspan(run_at);  // the run's first bytes (fewer than run_size)
    streaming.run.clear();
    streaming.run.resize(run_size);
    std::memcpy(streaming.run.data(), buffered.data(), buffered.size());
    streaming.run_read = buffered.size();
    streaming.rest.clear();
    streaming.rest.resize(h.length - prefix - run_at - run_size);
    streaming.rest_read = 0;
    reader.drop_partial();
    return true;
  }

  void on_streamed_read(transports::errc e, std::size_t n) {
    std::lock_guard lock(busy);
    if (e != transports::errc::ok || closed) {
      close_now([e] { return e == transports::errc::closed ? "the peer closed" : "a read failed"; });
      return;
    }
    if (server.options.idle_timeout.count() > 0) last_frame = steady::now();
    if (streaming.run_read < streaming.run.size()) {
      streaming.run_read += n;
    } else {
      streaming.rest_read += n;
    }
    if (streaming.run_read == streaming.run.size() && streaming.rest_read == streaming.rest.size()) finish_streaming();
    after_batch();
  }

  /// The streamed request is all in: handled like a frame read whole.
  void finish_streaming() {
    streaming.active = false;
    batch_read_at.reset();
    batch_hook_at.reset();
    handle_request(frame_view{streaming.header, streaming.head}, &streaming);
    // what the call did not take (a request refused before it ran) is not kept
    std::vector<std::byte>().swap(streaming.run);
    std::vector<std::byte>().swap(streaming.rest);
  }

  void wait_writable() {
    outstanding.fetch_add(1);
    stream->async_wait_writable([this](transports::errc e) {
      flush(e);
      release();
    });
  }

  /// The end of an operation's completion (or of a call). Only the one that
  /// takes the count to 0 may still use the connection (another thread may
  /// drop it right after its own decrement).
  void release() {
    server_state& owner = server;
    if (outstanding.fetch_sub(1, std::memory_order_acq_rel) == 1) owner.forget_if_done(this);
  }

  /// Drops the connection once it is closed and nothing of it is outstanding.
  /// For callers that hold a reference to it (not completions: release()).
  void maybe_forget() { server.forget_if_done(this); }

  /// Marks the connection closed and closes the stream (any thread); logs why
  /// (why() is called only when the log wants it). False when it already was.
  template <class Why>
  bool mark_closed(Why&& why) {
    if (closed.exchange(true)) return false;
    stream->close();
    if (!refused && server.logs(log_level::info))
      server.log(log_level::info, "server: connection from " + peer_text + " closed: " + std::string(why()));
    return true;
  }

  /// Closes now and stops the timers. Call with busy held.
  template <class Why>
  void close_now(Why&& why) {
    mark_closed(why);
    handshake_timer.cancel();
    idle_timer.cancel();
    std::lock_guard t(timer_mutex);
    write_timer.cancel();
  }
  void close_now() {
    close_now([] { return std::string("the connection failed"); });
  }

  /// Bytes not yet written (front and back). Under write_mutex.
  [[nodiscard]] std::size_t unsent() const noexcept { return front.size() - front_sent + back.size(); }

  /// Closes after the backlog has gone out. Call with busy held.
  template <class Why>
  void close_gracefully(Why&& why) {
    std::unique_lock lock(write_mutex);
    if (unsent() == 0 && !writing) {
      lock.unlock();
      close_now(why);
    } else {
      if (!close_after_flush && server.logs(log_level::info)) closing_reason = why();
      close_after_flush = true;
    }
  }

  /// A failure outside busy (a write on a pool thread): closed now, the timers
  /// stopped on the IO thread.
  template <class Why>
  void fail_outside_busy(Why&& why) {
    outstanding.fetch_add(1);  // first: once closed, a completion elsewhere may drop the connection
    if (!mark_closed(why)) {
      release();
      return;
    }
    boost::asio::post(server.io, [this] {
      {
        std::lock_guard lock(busy);
        close_now();
      }
      release();
    });
  }

  // ------------------------------------------------------------------ reading

  void on_read(transports::errc e, std::size_t n) {
    std::lock_guard lock(busy);
    if (e != transports::errc::ok || closed) {
      close_now([e] { return e == transports::errc::closed ? "the peer closed" : "a read failed"; });
      return;
    }
    if (refused) {  // max_connections: the client's handshake is not looked at
      read();
      return;
    }
    reader.commit(n);
    if (server.options.idle_timeout.count() > 0) last_frame = steady::now();
    batch_read_at.reset();
    batch_hook_at.reset();
    handle_frames();
    after_batch();
  }

  /// After a batch of frames (under busy): reads on, or waits (a backlog, the
  /// server draining), or closes.
  void after_batch() {
    if (closed) {
      close_now();
      return;
    }
    if (close_after_flush) return;
    if (server.draining) {
      close_if_drained();
      return;
    }
    {
      std::lock_guard w(write_mutex);
      if (paused) return;
      if (unsent() > backlog_pause_bytes) {
        paused = true;
        return;
      }
    }
    read();
  }

  /// While draining (under busy): closes once no call is in flight.
  void close_if_drained() {
    if (closed || close_after_flush) return;
    bool idle = false;
    {
      std::lock_guard c(calls_mutex);
      idle = in_flight == 0 && replying == 0;
    }
    if (idle) close_gracefully([] { return std::string("the server stopped"); });
  }

  /// Handles every whole frame read (under busy). With inline handlers,
  /// while another whole frame follows the one being handled the connection
  /// is corked: the replies queue, and go out in one write with the reply to
  /// the last request of the batch (or once queue_flush_bytes are queued).
  void handle_frames() {
    bool corked_here = false;
    handle_batch(corked_here);
    if (corked_here) uncork();
  }

  void handle_batch(bool& corked_here) {
    while (!closed && !close_after_flush) {
      if (backlog_left.load(std::memory_order_relaxed) > backlog_pause_bytes) {
        std::lock_guard w(write_mutex);
        if (unsent() > backlog_pause_bytes) {
          paused = true;  // the rest of the buffer waits until the peer reads its replies
          return;
        }
      }
      std::string why;
      auto f = reader.next(server.options.max_frame_size, why);
      if (!why.empty()) {
        // another protocol version (or bytes that are no frame at all): nothing after byte 0 can be trusted
        status_code code = status_code::invalid_argument;
        if (reader.version() != protocol_version) {
          code = status_code::unimplemented;
        } else if (reader.length() > server.options.max_frame_size) {
          code = status_code::resource_exhausted;
        }
        refuse(code, why);
        return;
      }
      if (!f) return;
      const frame_view frame = *f;
      if (!server.pooled()) {
        const bool more = reader.has_frame_after(frame);
        if (more != corked_here) {
          std::lock_guard w(write_mutex);
          corked = corked_here = more;
        }
      }
      handle(frame);
      reader.consume(frame);
      stream_declined = false;
    }
  }

  /// The batch is over: what its replies left queued goes out now (under busy).
  void uncork() {
    std::unique_lock lock(write_mutex);
    corked = false;
    if (writing || waiting_writable || back.empty()) return;
    writing = true;
    if (!write_queued_locked(lock)) return;
    if (close_after_flush && unsent() == 0) {
      lock.unlock();
      close_now([this] { return closing_reason.empty() ? std::string("closed") : closing_reason; });
    }
  }

  /// Sends a connection-level error (request id 0), logs it and closes.
  void refuse(status_code code, const std::string& message) {
    if (server.logs(log_level::warning))
      server.log(log_level::warning, "server: connection from " + peer_text + " refused: " + message);
    encode_error(buffers.control, code, "", message);
    send(frame_kind::error, 0, 0, 0, buffers.control);
    close_gracefully([&] { return message; });
  }

  /// The error payload into out, its message cut to fit the peer's
  /// max_frame_size (a handler's exception text can be any length).
  void encode_error(std::vector<std::byte>& out, status_code code, const std::string& type,
                    const std::string& message) const {
    out.clear();
    encode(error_payload{code, type, message}, out);
    const std::size_t limit = send_limit == 0 ? server.options.max_frame_size : send_limit;
    if (out.size() <= limit) return;
    const std::size_t keep = limit > type.size() + 64 ? (limit - type.size() - 64) / 2 : 0;
    out.clear();
    encode(error_payload{code, type.substr(0, keep), message.substr(0, keep) + " [cut]"}, out);
  }

  void handle(const frame_view& f) {
    if (!ready) {
      if (f.header.kind != frame_kind::handshake) {
        refuse(status_code::invalid_argument,
               "expected a handshake first, got a " + std::string(to_string(f.header.kind)) + " frame");
        return;
      }
      handle_handshake(f);
      return;
    }
    switch (f.header.kind) {
      case frame_kind::request:
      case frame_kind::one_way:
        handle_request(f);
        return;
      case frame_kind::cancel:
        handle_cancel(f.header.request_id);
        return;
      case frame_kind::ping:
        send(frame_kind::pong, f.header.request_id, 0, 0, {});
        return;
      case frame_kind::pong:
        return;
      case frame_kind::handshake:
        refuse(status_code::invalid_argument, "a second handshake on the same connection");
        return;
      default:
        refuse(status_code::invalid_argument,
               "a client does not send " + std::string(to_string(f.header.kind)) + " frames");
        return;
    }
  }

  void handle_handshake(const frame_view& f) {
    handshake h;
    std::string why;
    if (!parse(f.payload, h, why)) {
      refuse(status_code::invalid_argument, "malformed handshake: " + why);
      return;
    }
    if (h.version != protocol_version) {
      refuse(status_code::unimplemented, "protocol version " + std::to_string(h.version) +
                                             " is not supported (this server speaks version " +
                                             std::to_string(protocol_version) + ")");
      return;
    }
    const endpoint_options& eo = endpoint.options;
    if (std::find(eo.codecs.begin(), eo.codecs.end(), h.codec) == eo.codecs.end()) {
      refuse(status_code::invalid_argument,
             "codec " + std::string(to_string(h.codec)) + " is not accepted at " + endpoint.uri + ", which accepts " +
                 list_of(eo.codecs, [](rpc::codec c) { return std::string(to_string(c)); }));
      return;
    }
    if (std::find(eo.compressions.begin(), eo.compressions.end(), h.compression) == eo.compressions.end()) {
      refuse(status_code::invalid_argument,
             "compression " + std::string(refwire::to_string(h.compression)) + " is not accepted at " + endpoint.uri +
                 ", which accepts " +
                 list_of(eo.compressions, [](refwire::compression c) { return std::string(refwire::to_string(c)); }));
      return;
    }
    if (!h.extensions.empty()) {
      refuse(status_code::unimplemented,
             "handshake extension " + std::to_string(h.extensions.front().type) + " is not known to this server");
      return;
    }
    codec = h.codec;
    compression = h.compression;
    threshold = h.compression_threshold;
    send_limit = std::min(server.options.max_frame_size, h.max_frame_size);
    const bool strict = codec == rpc::codec::binary;
    refusals.assign(server.methods.size(), "");
    std::vector<bool> declared(server.methods.size(), false);
    handshake_reply r;
    r.codec = codec;
    r.compression = compression;
    r.max_frame_size = server.options.max_frame_size;
    for (const method_entry& m : h.methods) {
      const std::int32_t at = server.find(m.id);
      method_reply mr;
      if (at < 0 || server.methods[static_cast<std::size_t>(at)].info.full_name != m.name) {
        mr.state = method_state::unknown;
      } else {
        const method_info& mine = server.methods[static_cast<std::size_t>(at)].info;
        const std::string& ours = strict ? mine.signature : mine.shape;
        const std::string& theirs = strict ? m.signature : m.shape;
        declared[static_cast<std::size_t>(at)] = true;
        if (ours != theirs) {
          mr.state = method_state::mismatch;
          mr.server_signature = ours;
          refusals[static_cast<std::size_t>(at)] =
              mine.full_name + ": the client's signature " + theirs + " differs from the server's " + ours;
        }
      }
      r.methods.push_back(std::move(mr));
    }
    for (std::size_t k = 0; k < declared.size(); ++k) {
      if (!declared[k]) {
        refusals[k] = server.methods[k].info.full_name + " was not in this connection's handshake";
      }
    }
    if (server.pooled()) by_id.assign(64, nullptr);
    {
      // Room for a few queued replies before the first one is queued (the
      // queue then keeps its capacity: no allocation per call).
      std::lock_guard w(write_mutex);
      front.reserve(queue_copy_max);
      back.reserve(queue_copy_max);
    }
    buffers.control.clear();
    encode(r, buffers.control);
    ready = true;
    handshake_timer.cancel();
    if (server.options.idle_timeout.count() > 0) arm_idle(last_frame + server.options.idle_timeout);
    send(frame_kind::handshake_reply, 0, 0, 0, buffers.control);
  }

  // -------------------------------------------------------------- the clocks

  /// When this read batch arrived (read once per batch, when a frame needs it).
  steady::time_point batch_time() {
    if (!batch_read_at) {
      batch_read_at = steady::now();
      handler_ran = false;
    }
    return *batch_read_at;
  }

  steady::time_point batch_hook_time() {
    if (!batch_hook_at) batch_hook_at = hook_now();
    return *batch_hook_at;
  }

  // ------------------------------------------------------------- the calls

  /// A call that failed before it got a job (refused, or past a limit): its
  /// error reply and its hooks.
  void fail_early(const frame_view& f, std::int32_t at, status_code code, const std::string& message) {
    const bool one_way = f.header.kind == frame_kind::one_way;
    if (server.logs(log_level::warning))
      server.log(log_level::warning, "server: connection from " + peer_text + ": " + message);
    std::size_t sent = 0;
    if (!one_way) {
      encode_error(buffers.control, code, "", message);
      send(frame_kind::error, f.header.request_id, f.header.method_id, 0, buffers.control);
      sent = buffers.control.size();
    }
    if (server.need_clock && at >= 0) {
      report(server.methods[static_cast<std::size_t>(at)], code, batch_hook_time(), f.header.length, sent);
    }
  }

  /// `big`: the request was read as it arrived (f.payload is its head; the
  /// run and the rest are big's, taken over by the call).
  void handle_request(const frame_view& f, streamed_request* big = nullptr) {
    const bool one_way = f.header.kind == frame_kind::one_way;
    const std::uint32_t id = f.header.request_id;
    if (id == 0 && !one_way) {  // its reply would read as about the connection
      refuse(status_code::invalid_argument, "a request with request id 0, which is the connection's");
      return;
    }
    const std::int32_t at = server.find(f.header.method_id);
    if (at < 0) {
      fail_early(f, at, status_code::unimplemented,
                 "no method with id " + hex_id(f.header.method_id) + " is served here");
      return;
    }
    const served_method& m = server.methods[static_cast<std::size_t>(at)];
    if (!refusals[static_cast<std::size_t>(at)].empty()) {
      fail_early(f, at, status_code::unimplemented, refusals[static_cast<std::size_t>(at)]);
      return;
    }
    if (f.header.codec != static_cast<std::uint8_t>(codec)) {
      fail_early(f, at, status_code::invalid_argument,
                 m.info.full_name + ": the request is in codec " + std::to_string(f.header.codec) +
                     ", the handshake agreed on " + std::string(to_string(codec)));
      return;
    }
    std::span<const std::byte> args = f.payload;
    std::uint32_t deadline_ms = 0;
    steady::time_point deadline = steady::time_point::max();
    if ((f.header.flags & flag_deadline) != 0) {  // parse_header checked the prefix is there
      deadline_ms = read_u32le(args);
      args = args.subspan(deadline_prefix_size);
      deadline = batch_time() + std::chrono::milliseconds(deadline_ms);
    }
    call_job* j = nullptr;
    if (server.pooled()) {
      std::string violation;
      std::uint32_t busy_calls = 0;
      {
        std::lock_guard c(calls_mutex);
        if (!one_way && find_call(id) != nullptr) {
          violation = "request id " + std::to_string(id) + " is already in flight on this connection";
        } else if (in_flight + cancelled_queued >= server.max_in_flight) {
          busy_calls = in_flight + cancelled_queued;
        } else {
          {
            std::lock_guard p(server.pool_mutex);
            j = server.take_job();
          }
          j->args.assign(args.begin(), args.end());
          j->view = j->args;
          take_streamed(*j, big);
          fill(*j, f, at, m, deadline, deadline_ms);
          track(*j);
        }
      }
      if (!violation.empty()) {
        refuse(status_code::invalid_argument, violation);
        return;
      }
      if (j == nullptr) {
        fail_early(f, at, status_code::resource_exhausted,
                   m.info.full_name + ": " + std::to_string(busy_calls) +
                       " calls are in flight on this connection (max_calls_in_flight " +
                       std::to_string(server.max_in_flight) + ")");
        return;
      }
      outstanding.fetch_add(1);  // released by the pool thread that answers it
      server.enqueue(j);
      return;
    }
    // Inline: the handler runs here, now.
    j = &inline_job;
    j->view = args;
    take_streamed(*j, big);
    {
      std::lock_guard c(calls_mutex);
      fill(*j, f, at, m, deadline, deadline_ms);
      track(*j);
      j->state = call_job::phase::running;
    }
    const steady::time_point* known_now = nullptr;
    if (deadline != steady::time_point::max() && !handler_ran) known_now = &*batch_read_at;
    run(*j, buffers, known_now);
    handler_ran = true;
    if (j->streamed) {  // what the argument did not take over is not kept
      j->streamed = false;
      std::vector<std::byte>().swap(j->run);
      std::vector<std::byte>().swap(j->rest);
    }
    {
      std::lock_guard c(calls_mutex);  // the drain timeout may read it until it is answered
      j->ctx.reset();
    }
  }

  /// Gives the job a streamed request's run and rest (nothing when big is nullptr).
  static void take_streamed(call_job& j, streamed_request* big) {
    j.streamed = big != nullptr;
    if (big == nullptr) return;
    j.run.swap(big->run);
    j.rest.swap(big->rest);
  }

  void fill(call_job& j, const frame_view& f, std::int32_t at, const served_method& m, steady::time_point deadline,
            std::uint32_t deadline_ms) {
    j.conn = this;
    j.method = at;
    j.id = f.header.request_id;
    j.method_id = f.header.method_id;
    j.one_way = f.header.kind == frame_kind::one_way;
    j.compressed = (f.header.flags & flag_compressed) != 0;
    j.deadline = deadline;
    j.deadline_ms = deadline_ms;
    j.request_bytes = f.header.length - ((f.header.flags & flag_deadline) != 0 ? deadline_prefix_size : 0);
    j.answered = false;
    j.state = call_job::phase::queued;
    if (server.need_clock) j.read_at = batch_hook_time();
    j.ctx.emplace(stream->peer(), m.info.full_name, j.one_way ? 0 : j.id, j.one_way, deadline);
  }

  /// Runs a call (its handler, unless its deadline has passed) and answers it.
  void run(call_job& j, call_buffers& b, const steady::time_point* known_now) {
    const served_method& m = server.methods[static_cast<std::size_t>(j.method)];
    if (j.deadline != steady::time_point::max() && (known_now ? *known_now : steady::now()) >= j.deadline) {
      answer_error(j, b, status_code::deadline_exceeded,
                   m.info.full_name + ": the caller's deadline (" + std::to_string(j.deadline_ms) +
                       " ms) passed before the call started");
      return;
    }
    std::span<const std::byte> args = j.view;
    if (j.compressed) {
      b.inflated.clear();
      decode_options o;
      o.max_alloc_bytes = server.options.max_frame_size;
      if (refwire::error e = refwire::decompress(args, b.inflated, o)) {
        answer_error(j, b, status_code::invalid_argument,
                     m.info.full_name + ": the compressed arguments do not open: " + e.message());
        return;
      }
      args = b.inflated;
    }
    call_outcome outcome;
    {
      call_context::scope in_call(*j.ctx);
      if (j.streamed) {
        replay_source rest(j.run, j.rest);
        m.invoke_from(m.impl, codec, args, rest, b.reply, outcome);
      } else {
        m.invoke(m.impl, codec, args, b.reply, outcome);
      }
    }
    if (outcome.code != status_code::ok && (outcome.type.empty() || outcome.type == "refwire::encode_error")) {
      // not the handler's own failure: arguments that do not decode (a refused
      // frame), or a reply that does not encode
      const log_level level = outcome.type.empty() ? log_level::warning : log_level::error;
      if (server.logs(level)) server.log(level, "server: connection from " + peer_text + ": " + outcome.message);
    }
    if (j.one_way) {
      answer(j, outcome.code, frame_kind::one_way, 0, {}, 0);
      return;
    }
    if (outcome.code != status_code::ok) {
      encode_error(b.control, outcome.code, outcome.type, outcome.message);
      answer(j, outcome.code, frame_kind::error, 0, b.control, 0);
      return;
    }
    std::span<const std::byte> out = b.reply;
    std::uint8_t flags = 0;
    if (compression == refwire::compression::lz4 && b.reply.size() >= threshold) {
      b.compressed.clear();
      refwire::compress(b.reply, b.compressed, {.compression_threshold = 0});
      out = b.compressed;
      flags = flag_compressed;
    }
    if (out.size() > send_limit) {
      const std::string message = m.info.full_name + ": the reply of " + std::to_string(out.size()) +
                                  " bytes is longer than max_frame_size (" + std::to_string(send_limit) + ")";
      if (server.logs(log_level::error))
        server.log(log_level::error, "server: connection from " + peer_text + ": " + message);
      answer_error(j, b, status_code::resource_exhausted, message);
      return;
    }
    answer(j, status_code::ok, frame_kind::response, flags, out, static_cast<std::uint8_t>(codec),
           flags == 0 ? &b.reply : &b.compressed);
  }

  void answer_error(call_job& j, call_buffers& b, status_code code, const std::string& message) {
    encode_error(b.control, code, "", message);
    answer(j, code, frame_kind::error, 0, b.control, 0);
  }

  /// Sends j's answer (none for one_way) unless it has been answered already
  /// (the drain timeout); then the hooks.
  void answer(call_job& j, status_code code, frame_kind kind, std::uint8_t flags, std::span<const std::byte> payload,
              std::uint8_t codec_id, std::vector<std::byte>* owner = nullptr) {
    {
      std::lock_guard c(calls_mutex);
      if (j.answered) return;
      // Untracked before the reply goes: the client may reuse the id, and
      // make its next call, as soon as it has the reply. But `replying` keeps
      // the connection open until the reply is written or queued: a drain
      // check (stop(), on another thread) or the idle timeout that saw no
      // call in flight would close it, and the reply would be lost.
      untrack(j);
      ++replying;
    }
    if (!j.one_way) send(kind, j.id, j.method_id, flags, payload, codec_id, owner);
    {
      std::lock_guard c(calls_mutex);
      --replying;
    }
    if (server.need_clock)
      report(server.methods[static_cast<std::size_t>(j.method)], code, j.read_at, j.request_bytes,
             j.one_way ? 0 : payload.size());
  }

  /// The hooks of one finished call (need_clock is true).
  void report(const served_method& m, status_code code, steady::time_point read_at, std::size_t request_bytes,
              std::size_t response_bytes) {
    const auto latency = std::chrono::duration_cast<std::chrono::nanoseconds>(hook_now() - read_at);
    if (server.options.stats) {
      call_record r;
      r.side = call_side::server;
      r.method = m.info.full_name;
      r.method_id = m.info.id;
      r.code = code;
      r.latency = latency;
      r.request_bytes = request_bytes;
      r.response_bytes = response_bytes;
      server.options.stats->record(r);
    }
    const logger* log = server.options.log.get();
    if (log != nullptr && log->slow_call().count() > 0 && latency >= log->slow_call() &&
        log->enabled(log_level::warning)) {
      server.log(log_level::warning, "server: connection from " + peer_text + ": " + m.info.full_name + " took " +
                                         duration_text(latency) + " (slow_call " +
                                         duration_text(log->slow_call()) + ")");
    }
  }

  // The in-flight list and the request-id table (under calls_mutex).

  static std::uint32_t slot_of(std::uint32_t id, std::uint32_t mask) noexcept {
    std::uint32_t h = id * 0x9e3779b1U;
    h ^= h >> 15;
    return h & mask;
  }

  [[nodiscard]] call_job* find_call(std::uint32_t id) const noexcept {
    if (by_id.empty()) return nullptr;
    const auto mask = static_cast<std::uint32_t>(by_id.size() - 1);
    for (std::uint32_t i = slot_of(id, mask);; i = (i + 1) & mask) {
      call_job* j = by_id[i];
      if (j == nullptr) return nullptr;
      if (j->id == id) return j;
    }
  }

  void insert_call(call_job* j) {
    if ((by_id_count + 1) * 2 > by_id.size()) {  // grows to the high-water mark once
      std::vector<call_job*> old(by_id.size() * 2, nullptr);
      old.swap(by_id);
      by_id_count = 0;
      for (call_job* o : old)
        if (o != nullptr) insert_call(o);
    }
    const auto mask = static_cast<std::uint32_t>(by_id.size() - 1);
    std::uint32_t i = slot_of(j->id, mask);
    while (by_id[i] != nullptr) i = (i + 1) & mask;
    by_id[i] = j;
    ++by_id_count;
  }

  void erase_call(std::uint32_t id) noexcept {
    const auto mask = static_cast<std::uint32_t>(by_id.size() - 1);
    std::uint32_t i = slot_of(id, mask);
    while (by_id[i] != nullptr && by_id[i]->id != id) i = (i + 1) & mask;
    if (by_id[i] == nullptr) return;
    // Backward-shift deletion: later entries of the run move up into the hole.
    for (std::uint32_t k = (i + 1) & mask; by_id[k] != nullptr; k = (k + 1) & mask) {
      const std::uint32_t home = slot_of(by_id[k]->id, mask);
      const bool stays = i <= k ? (i < home && home <= k) : (i < home || home <= k);
      if (stays) continue;
      by_id[i] = by_id[k];
      i = k;
    }
    by_id[i] = nullptr;
    --by_id_count;
  }

  void track(call_job& j) {
    j.prev_in_conn = nullptr;
    j.next_in_conn = in_flight_head;
    if (in_flight_head != nullptr) in_flight_head->prev_in_conn = &j;
    in_flight_head = &j;
    ++in_flight;
    if (server.pooled() && !j.one_way) insert_call(&j);
  }

  void untrack(call_job& j) {
    j.answered = true;
    if (j.prev_in_conn != nullptr) {
      j.prev_in_conn->next_in_conn = j.next_in_conn;
    } else {
      in_flight_head = j.next_in_conn;
    }
    if (j.next_in_conn != nullptr) j.next_in_conn->prev_in_conn = j.prev_in_conn;
    j.prev_in_conn = j.next_in_conn = nullptr;
    --in_flight;
    if (server.pooled() && !j.one_way) erase_call(j.id);
  }

  void handle_cancel(std::uint32_t id) {
    call_job* j = nullptr;
    bool dropped = false;
    std::int32_t method = -1;
    std::uint32_t method_id = 0;
    steady::time_point read_at{};
    std::size_t request_bytes = 0;
    if (server.pooled()) {
      std::lock_guard c(calls_mutex);
      j = find_call(id);
      if (j != nullptr && j->state == call_job::phase::queued) {
        untrack(*j);  // its pool thread will drop it
        j->cancelled_queued = true;
        ++cancelled_queued;
        dropped = true;
        method = j->method;
        method_id = j->method_id;
        read_at = j->read_at;
        request_bytes = j->request_bytes;
      } else if (j != nullptr) {
        j->ctx->cancel();  // running: its reply still goes out (the client drops it)
      }
    }
    if (j == nullptr) {
      if (server.logs(log_level::debug)) {
        server.log(log_level::debug, "server: connection from " + peer_text + ": a cancel for request id " +
                                         std::to_string(id) + ", which is not in flight (ignored)");
      }
      return;
    }
    if (!dropped) return;
    const served_method& m = server.methods[static_cast<std::size_t>(method)];
    encode_error(buffers.control, status_code::cancelled, "",
                 m.info.full_name + ": cancelled by the caller before it started");
    send(frame_kind::error, id, method_id, 0, buffers.control);
    if (server.need_clock) report(m, status_code::cancelled, read_at, request_bytes, buffers.control.size());
  }

  /// The drain timeout: every call still in flight is answered unavailable
  /// now (a running handler is told through its context and its reply is
  /// dropped), and the connection closes. Returns how many calls that was.
  std::size_t abandon() {
    struct owed {
      std::int32_t method;
      std::uint32_t id, method_id;
      bool one_way;
      steady::time_point read_at;
      std::size_t request_bytes;
    };
    std::vector<owed> calls;
    {
      std::lock_guard c(calls_mutex);
      for (call_job* j = in_flight_head; j != nullptr;) {
        call_job* next = j->next_in_conn;
        if (j->state == call_job::phase::running && j->ctx) j->ctx->cancel();
        calls.push_back({j->method, j->id, j->method_id, j->one_way, j->read_at, j->request_bytes});
        untrack(*j);
        j = next;
      }
      // Until the errors below are sent, `replying` keeps the connection
      // open: the cancelled handler's pool thread returns at once and checks
      // whether the connection is drained (no call in flight), and would
      // close it before these replies go out.
      replying += static_cast<std::uint32_t>(calls.size());
    }
    const std::string why = "the server stopped before the call completed (drain_timeout " +
                            ms_text(server.options.drain_timeout) + ")";
    std::vector<std::byte> payload;
    for (const owed& o : calls) {
      const served_method& m = server.methods[static_cast<std::size_t>(o.method)];
      std::size_t sent = 0;
      if (!o.one_way) {
        encode_error(payload, status_code::unavailable, "", m.info.full_name + ": " + why);
        send(frame_kind::error, o.id, o.method_id, 0, payload);
        sent = payload.size();
      }
      if (server.need_clock) report(m, status_code::unavailable, o.read_at, o.request_bytes, sent);
    }
    {
      std::lock_guard c(calls_mutex);
      replying -= static_cast<std::uint32_t>(calls.size());
    }
    fail_outside_busy([&] { return why; });
    return calls.size();
  }

  // ------------------------------------------------------------------ timers

  void arm_idle(steady::time_point at) {  // under busy
    outstanding.fetch_add(1);
    idle_timer.expires_at(at);
    idle_timer.async_wait([this](const boost::system::error_code& ec) {
      on_idle(ec);
      release();
    });
  }

  void on_idle(const boost::system::error_code& ec) {
    if (ec) return;
    std::lock_guard lock(busy);
    if (closed) return;
    const auto idle = server.options.idle_timeout;
    const auto now = steady::now();
    bool active = false;
    {
      std::lock_guard c(calls_mutex);
      active = in_flight > 0 || replying > 0;
    }
    {
      std::lock_guard w(write_mutex);
      active = active || unsent() != 0 || writing;
    }
    if (active) {
      arm_idle(now + idle);
    } else if (now - last_frame >= idle) {
      if (server.logs(log_level::warning)) {
        server.log(log_level::warning,
                   "server: connection from " + peer_text + ": idle_timeout (" + ms_text(idle) + ") passed with no frame");
      }
      // Told first (an error frame with request id 0), so that a client that
      // reads it, or finds it before its next call, connects again.
      const std::string why = "idle_timeout (" + ms_text(idle) + ") passed with no frame";
      encode_error(buffers.control, status_code::unavailable, "", why);
      send(frame_kind::error, 0, 0, 0, buffers.control);
      close_gracefully([&] { return why; });
    } else {
      arm_idle(last_frame + idle);
    }
  }

  void arm_write_timer(steady::time_point at) {  // under write_mutex
    write_timer_armed = true;
    outstanding.fetch_add(1);
    std::lock_guard t(timer_mutex);
    write_timer.expires_at(at);
    write_timer.async_wait([this](const boost::system::error_code& ec) {
      on_write_timer(ec);
      release();
    });
  }

  void on_write_timer(const boost::system::error_code& ec) {
    std::lock_guard lock(busy);
    std::unique_lock w(write_mutex);
    write_timer_armed = false;
    if (ec || closed || unsent() == 0) return;
    const auto limit = server.options.write_timeout;
    if (steady::now() - last_progress < limit) {
      arm_write_timer(last_progress + limit);
      return;
    }
    const std::size_t left = unsent();
    w.unlock();
    if (server.logs(log_level::warning)) {
      server.log(log_level::warning, "server: connection from " + peer_text + ": write_timeout (" + ms_text(limit) +
                                         ") passed with " + std::to_string(left) +
                                         " bytes of replies unsent (the peer does not read)");
    }
    close_now([&] { return "write_timeout (" + ms_text(limit) + ") passed with replies unsent"; });
  }

  // ------------------------------------------------------------------ writing

  /// Writes one frame now, or queues it: behind what waits for the socket,
  /// for the thread that holds the writer role, or until the end of a
  /// corked batch. Any thread.
  /// `owner`, when set, is the buffer that holds exactly the payload: a
  /// large rest the socket does not take at once is then kept by swapping
  /// buffers with it, not copied (the owner gets an empty one back, with the
  /// capacity of the last reply that went that way).
  void send(frame_kind kind, std::uint32_t id, std::uint32_t method, std::uint8_t flags,
            std::span<const std::byte> payload, std::uint8_t codec_id = 0, std::vector<std::byte>* owner = nullptr) {
    frame_header h;
    h.kind = kind;
    h.flags = flags;
    h.codec = codec_id;
    h.length = static_cast<std::uint32_t>(payload.size());
    h.request_id = id;
    h.method_id = method;
    std::array<std::byte, header_size> head{};
    write_header(h, head);
    std::unique_lock lock(write_mutex);
    if (closed || sealed) return;
    // An error about the connection (request id 0) is the last frame it
    // sends: a pool thread's reply finishing meanwhile is dropped.
    if (kind == frame_kind::error && id == 0) sealed = true;
    const std::size_t size = header_size + payload.size();
    const bool small = size <= queue_copy_max && back.size() + size <= queue_flush_bytes;
    if (writing || waiting_writable || (corked && small)) {
      back.insert(back.end(), head.begin(), head.end());
      back.insert(back.end(), payload.begin(), payload.end());
      backlog_left.store(unsent(), std::memory_order_relaxed);
      return;
    }
    // This thread writes: what is queued (a corked batch's replies) first,
    // then this frame from its own buffer, in one gather write.
    writing = true;
    front.swap(back);  // front was empty: nothing waits for the socket
    const std::span<const std::byte> parts[] = {front, head, payload};
    const std::size_t first = front.empty() ? 1 : 0;
    const std::size_t count = payload.empty() ? 2 - first : 3 - first;
    lock.unlock();
    std::size_t written = 0;
    try {
      written = stream->try_write(std::span<const std::span<const std::byte>>(parts + first, count));
    } catch (const transports::transport_error& e) {
      write_failed(lock, std::string("a ") + std::string(to_string(kind)) + " frame for request id " +
                             std::to_string(id) + " could not be sent: ",
                   e);
      return;
    }
    lock.lock();
    // What the socket did not take stays in front: the rest of the queued
    // frames, then a copy of the rest of this one.
    const std::size_t queued = front.size();
    if (written < queued) {
      front_sent = written;
      front.insert(front.end(), head.begin(), head.end());
      front.insert(front.end(), payload.begin(), payload.end());
    } else {
      front.clear();
      front_sent = 0;
      const std::size_t own = written - queued;
      if (own < header_size) {
        front.insert(front.end(), head.begin() + static_cast<std::ptrdiff_t>(own), head.end());
        front.insert(front.end(), payload.begin(), payload.end());
      } else if (owner != nullptr && payload.size() - (own - header_size) >= swap_min &&
                 owner->data() == payload.data() && owner->size() == payload.size()) {
        front.swap(*owner);  // the rest stays where it was encoded
        front_sent = own - header_size;
      } else {
        front.insert(front.end(), payload.begin() + static_cast<std::ptrdiff_t>(own - header_size), payload.end());
      }
    }
    if (!write_queued_locked(lock)) return;
    if (close_after_flush && unsent() == 0) close_later();
  }

  /// The writer role's loop (write_mutex held as `lock`, the role taken):
  /// writes front, then what was queued in back meanwhile, until nothing is
  /// left or the socket is full (then it waits to be writable, and the write
  /// timer runs); gives the role up. False when a write failed (the
  /// connection is then closing; lock is released).
  bool write_queued_locked(std::unique_lock<std::mutex>& lock) {
    for (;;) {
      if (front_sent == front.size()) {
        front.clear();
        front_sent = 0;
        if (back.empty()) break;
        front.swap(back);
      }
      const std::span<const std::byte> parts[] = {std::span<const std::byte>(front).subspan(front_sent)};
      lock.unlock();
      std::size_t n = 0;
      try {
        n = stream->try_write(parts);
      } catch (const transports::transport_error& e) {
        write_failed(lock, "replies could not be sent: ", e);
        return false;
      }
      lock.lock();
      front_sent += n;
      if (front_sent < front.size()) {  // the socket is full: the rest waits until it is writable
        if (server.options.write_timeout.count() > 0) {
          if (n > 0 || !write_timer_armed) last_progress = steady::now();
          if (!write_timer_armed) arm_write_timer(last_progress + server.options.write_timeout);
        }
        waiting_writable = true;
        wait_writable();
        break;
      }
    }
    writing = false;
    backlog_left.store(unsent(), std::memory_order_relaxed);
    return true;
  }

  /// A write failed (the writer role held, write_mutex not): logs, gives
  /// the role up, drops what is queued and closes.
  void write_failed(std::unique_lock<std::mutex>& lock, const std::string& what, const transports::transport_error& e) {
    lock.lock();
    writing = false;
    front.clear();
    front_sent = 0;
    back.clear();
    backlog_left.store(0, std::memory_order_relaxed);
    lock.unlock();
    if (server.logs(log_level::error)) server.log(log_level::error, "server: connection from " + peer_text + ": " + what + e.what());
    fail_outside_busy([&] { return std::string("a write failed: ") + e.what(); });
  }

  /// close_gracefully's close, once its backlog has gone out on a thread
  /// that may not take busy (a pool thread): done on an IO thread.
  void close_later() {
    outstanding.fetch_add(1);
    boost::asio::post(server.io, [this] {
      {
        std::lock_guard lock(busy);
        close_now([this] { return closing_reason.empty() ? std::string("closed") : closing_reason; });
      }
      release();
    });
  }

  void flush(transports::errc e) {
    bool resume = false;
    bool done = false;
    {
      std::unique_lock lock(write_mutex);
      waiting_writable = false;
      if (e != transports::errc::ok || closed) {
        lock.unlock();
        fail_outside_busy([] { return std::string("the connection failed while replies waited to be written"); });
        return;
      }
      writing = true;  // nobody holds the role while the backlog waits for the socket
      if (!write_queued_locked(lock)) return;
      if (waiting_writable) return;
      if (close_after_flush) {
        done = true;
      } else if (paused) {
        paused = false;
        resume = true;
      }
    }
    if (done) {
      std::lock_guard lock(busy);
      close_now([this] { return closing_reason.empty() ? std::string("closed") : closing_reason; });
      return;
    }
    if (resume) {
      std::lock_guard lock(busy);
      if (closed) return;
      batch_read_at.reset();
      batch_hook_at.reset();
      handle_frames();  // what was read before the pause
      after_batch();
    }
  }
};

void server_state::run_pool() {
  call_buffers buffers;  // this thread's: replies are built here, not in the connection
  // Whichever thread takes a call, its usual reply fits at once (no thread
  // meets its first larger reply long after the others have).
  buffers.reply.reserve(job_warm_bytes * 4);
  buffers.control.reserve(job_warm_bytes);
  for (;;) {
    call_job* j = nullptr;
    {
      std::unique_lock lock(pool_mutex);
      pool_wake.wait(lock, [&] { return pool_stop || queue_head != nullptr; });
      if (queue_head == nullptr) return;  // stopping, and nothing left
      j = queue_head;
      queue_head = j->next;
      if (queue_head == nullptr) queue_tail = nullptr;
    }
    server_connection& c = *j->conn;
    bool run = false;
    {
      std::lock_guard lock(c.calls_mutex);
      if (j->cancelled_queued) {
        j->cancelled_queued = false;
        --c.cancelled_queued;
      }
      if (!j->answered) {  // else: cancelled while queued, or given up at the drain timeout
        j->state = call_job::phase::running;
        run = true;
      }
    }
    if (run) c.run(*j, buffers, nullptr);
    recycle(j);
    if (draining.load()) {
      std::lock_guard lock(c.busy);
      c.close_if_drained();
    }
    c.release();
  }
}

void server_state::accept(endpoint_entry& e) {
  e.listener->async_accept([this, &e](transports::errc ec, std::unique_ptr<transports::stream> s) {
    if (ec == transports::errc::closed) return;
    if (ec == transports::errc::ok && s) {
      auto c = std::make_shared<server_connection>(*this, e, std::move(s));
      std::string refusal;
      {
        std::lock_guard lock(mutex);
        if (stopping) {
          c->stream->close();
          return;
        }
        if (admitted >= options.max_connections) {
          refusal = "the server has " + std::to_string(admitted) + " connections open (max_connections " +
                    std::to_string(options.max_connections) + ")";
          c->refused = true;  // before another thread can see it
        } else {
          ++admitted;
          c->counted = true;
        }
        connections.emplace(c.get(), c);
      }
      c->begin(std::move(refusal));
      accept(e);
      return;
    }
    // Not a connection (EMFILE, ENFILE...): the listener stays readable, so
    // accepting again at once would spin; wait a little first.
    e.retry.expires_after(std::chrono::milliseconds(50));
    e.retry.async_wait([this, &e](const boost::system::error_code& wait) {
      if (!wait) accept(e);
    });
  });
}

void server_state::forget_if_done(server_connection* c) {
  {
    // Looked up first: the map's shared_ptr keeps c alive while it is read.
    std::lock_guard lock(mutex);
    auto at = connections.find(c);
    if (at == connections.end() || !c->closed.load() || c->outstanding.load() != 0) return;
  }
  forget(c);
}

void server_state::forget(server_connection* c) {
  std::shared_ptr<server_connection> last;
  {
    std::lock_guard lock(mutex);
    auto at = connections.find(c);
    if (at == connections.end()) return;
    last = std::move(at->second);
    connections.erase(at);
    if (last->counted) --admitted;
    changed.notify_all();
  }
  // Destroyed by a later handler, not inside the completion that called this.
  boost::asio::post(io, [last = std::move(last)] {});
}

}  // namespace detail

server::server(const server_options& options) : state_(std::make_unique<detail::server_state>(options)) {
  if (state_->options.io_threads == 0) state_->options.io_threads = 1;
}

server::~server() { stop(); }

const server_options& server::options() const noexcept { return state_->options; }

void server::add(std::vector<detail::served_method> methods) {
  detail::server_state& st = *state_;
  std::lock_guard lock(st.mutex);
  if (st.started) {
    throw rpc_error(status_code::invalid_argument, "serve<I>: call it before start()");
  }
  for (std::size_t i = 0; i < methods.size(); ++i) {
    const std::uint32_t id = methods[i].info.id;
    auto clash = [&](const std::string& other) {
      throw rpc_error(status_code::invalid_argument,
                      "serve<I>: " + methods[i].info.full_name + " has the method id " + detail::hex_id(id) + " of " +
                          other + (other == methods[i].info.full_name ? ", which is already served" : ""));
    };
    const std::int32_t at = st.find(id);
    if (at >= 0) clash(st.methods[static_cast<std::size_t>(at)].info.full_name);
    for (std::size_t j = 0; j < i; ++j) {
      if (methods[j].info.id == id) clash(methods[j].info.full_name);
    }
  }
  for (auto& m : methods) st.methods.push_back(std::move(m));
  st.rebuild_index();
}

std::string server::listen(std::string_view uri, const endpoint_options& options) {
  detail::server_state& st = *state_;
  transports::endpoint where;
  try {
    where = transports::parse_uri(uri);
  } catch (const transports::transport_error& e) {
    throw rpc_error(status_code::invalid_argument, e.what());
  }
  if (options.codecs.empty()) {
    throw rpc_error(status_code::invalid_argument,
                    "listen(" + std::string(uri) + "): endpoint_options::codecs is empty");
  }
  if (options.compressions.empty()) {
    throw rpc_error(status_code::invalid_argument,
                    "listen(" + std::string(uri) + "): endpoint_options::compressions is empty");
  }
  auto e = std::make_unique<detail::endpoint_entry>(st.io);
  e->options = options;
  try {
    e->listener = transports::listen(st.io, where, {.unix_mode = options.unix_mode});
  } catch (const transports::transport_error& err) {
    throw rpc_error(
        err.code() == transports::errc::invalid_uri ? status_code::invalid_argument : status_code::unavailable,
        err.what());
  }
  e->uri = e->listener->uri();
  std::string bound = e->uri;
  std::lock_guard lock(st.mutex);
  if (st.stopping)
    throw rpc_error(status_code::unavailable, "listen(" + std::string(uri) + "): the server is stopping");
  st.endpoints.push_back(std::move(e));
  st.accept(*st.endpoints.back());
  return bound;
}

void server::start() {
  detail::server_state& st = *state_;
  std::lock_guard lock(st.mutex);
  if (st.started) return;
  if (st.stopping) throw rpc_error(status_code::unavailable, "start(): the server was stopped");
  st.started = true;
  st.work.emplace(st.io.get_executor());
  for (unsigned i = 0; i < st.options.io_threads; ++i) {
    st.threads.emplace_back([&st] { st.io.run(); });
  }
  if (st.options.handler_threads > 0) {
    // Jobs for the calls in flight and for those answered but not yet
    // recycled by their thread: made now, so that a call does not allocate
    // when that race first goes one deeper.
    std::lock_guard pool(st.pool_mutex);
    for (unsigned i = 0; i < 2 * st.options.handler_threads + 2; ++i) {
      st.jobs.push_back(std::make_unique<detail::call_job>());
      st.jobs.back()->args.reserve(detail::job_warm_bytes);
      st.jobs.back()->next = st.free_jobs;
      st.free_jobs = st.jobs.back().get();
    }
  }
  for (unsigned i = 0; i < st.options.handler_threads; ++i) {
    st.pool.emplace_back([&st] { st.run_pool(); });
  }
}

void server::run() {
  start();
  detail::server_state& st = *state_;
  std::unique_lock lock(st.mutex);
  st.changed.wait(lock, [&] { return st.stopped; });
}

void server::stop() {
  detail::server_state& st = *state_;
  std::lock_guard stopping(st.stop_mutex);
  std::vector<std::shared_ptr<detail::server_connection>> connections;
  bool started = false;
  {
    std::lock_guard lock(st.mutex);
    if (st.stopping) {
      return;
    }
    st.stopping = true;
    st.draining = true;
    started = st.started;
    for (auto& e : st.endpoints) {
      e->listener->close();
      e->retry.cancel();
    }
    for (auto& [raw, c] : st.connections) connections.push_back(c);
  }
  // No more requests are read; each connection closes once its calls are
  // answered and its replies written. The check runs on an IO thread, after
  // the batch a connection may be handling (an inline handler running).
  for (auto& c : connections) {
    boost::asio::post(st.io, [c] {  // c may be forgotten meanwhile: this keeps it alive
      {
        std::lock_guard busy(c->busy);
        c->close_if_drained();
      }
      c->maybe_forget();
    });
  }
  connections.clear();
  {
    std::unique_lock lock(st.mutex);
    if (started) {
      st.changed.wait_for(lock, st.options.drain_timeout, [&] { return st.connections.empty(); });
    }
    for (auto& [raw, c] : st.connections) connections.push_back(c);
  }
  if (!connections.empty()) {  // the drain timeout: what is still in flight fails with unavailable
    std::size_t calls = 0;
    for (auto& c : connections) calls += c->abandon();
    if (st.logs(log_level::warning)) {
      st.log(log_level::warning, "server: drain_timeout (" + detail::ms_text(st.options.drain_timeout) +
                                     ") passed with " + std::to_string(calls) + " calls unanswered on " +
                                     std::to_string(connections.size()) +
                                     " connections: they fail with unavailable");
    }
  }
  // The pool ends once its running handlers have returned (their replies are
  // dropped when the drain timeout answered them) and its queue is empty.
  std::vector<std::thread> pool;
  {
    std::lock_guard lock(st.pool_mutex);
    st.pool_stop = true;
    pool = std::move(st.pool);
  }
  st.pool_wake.notify_all();
  for (auto& t : pool) t.join();
  connections.clear();
  {
    std::unique_lock lock(st.mutex);
    if (started) {
      st.changed.wait_for(lock, std::chrono::seconds(1), [&] { return st.connections.empty(); });
    }
    for (auto& [raw, c] : st.connections) connections.push_back(c);
  }
  for (auto& c : connections) {  // closed, operations still completing: close what is left
    {
      std::lock_guard busy(c->busy);  // an inline handler still running: wait for it
      c->close_now([] { return std::string("the server stopped"); });
    }
    c->maybe_forget();
  }
  connections.clear();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(st.mutex);
    st.work.reset();
    threads = std::move(st.threads);
  }
  st.io.stop();
  for (auto& t : threads) t.join();
  {
    std::lock_guard lock(st.mutex);
    st.connections.clear();
    st.endpoints.clear();
    st.stopped = true;
  }
  st.changed.notify_all();
}

}  // namespace refwire::rpc
