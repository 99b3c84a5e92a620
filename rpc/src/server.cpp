// The server: listeners, connections and dispatch on an event loop that
// server_options::io_threads threads run. A connection reads, parses every
// whole frame it has, runs each request's handler right there and writes the
// reply (one gather write per frame; what the socket does not take now waits
// in the connection's backlog and goes out when it is writable).

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

/// While a connection's unsent replies exceed this, it stops reading requests.
constexpr std::size_t backlog_pause_bytes = 8u << 20;

std::string hex_id(std::uint32_t id) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", id);
  return text;
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

}  // namespace

struct endpoint_entry {
  explicit endpoint_entry(boost::asio::io_context& io) : retry(io) {}
  boost::asio::steady_timer retry;  // accept failed (out of descriptors, say): try again a little later
  std::unique_ptr<transports::listener> listener;
  endpoint_options options;
  std::string uri;
};

struct server_connection;

struct server_state {
  explicit server_state(const server_options& o) : options(o) {}

  server_options options;
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
  std::vector<std::thread> threads;
  bool started = false;
  bool stopping = false;
  bool stopped = false;

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

  void accept(endpoint_entry& e);
  void forget(server_connection* c);
};

struct server_connection : std::enable_shared_from_this<server_connection> {
  server_connection(server_state& s, endpoint_entry& e, std::unique_ptr<transports::stream> st)
      : server(s), endpoint(e), stream(std::move(st)), handshake_timer(s.io) {}

  server_state& server;
  endpoint_entry& endpoint;
  std::unique_ptr<transports::stream> stream;
  boost::asio::steady_timer handshake_timer;
  frame_reader reader;

  // Agreed in the handshake.
  bool ready = false;
  rpc::codec codec = rpc::codec::binary;
  refwire::compression compression = refwire::compression::none;
  std::uint32_t threshold = 0;
  std::uint32_t send_limit = 0;
  /// Per served method: "" when this connection may call it, else why not.
  std::vector<std::string> refusals;

  std::vector<std::byte> reply;       // the reply payload being built
  std::vector<std::byte> compressed;  // its lz4 envelope
  std::vector<std::byte> control;     // handshake replies and error payloads
  std::vector<std::byte> inflated;    // a compressed request's arguments

  std::mutex busy;  // held while a batch of frames is handled (stop() waits for it)
  std::mutex write_mutex;
  std::vector<std::byte> backlog;  // bytes the socket did not take yet
  std::size_t backlog_sent = 0;
  bool waiting_writable = false;
  bool paused = false;  // not reading until the backlog drains
  bool close_after_flush = false;
  std::atomic<bool> closed{false};  // read by send() under write_mutex, set under busy

  void begin() {
    auto self = shared_from_this();
    std::unique_lock guard(busy);  // stop() may close the connection (and cancel the timer) meanwhile
    handshake_timer.expires_after(server.options.handshake_timeout);
    handshake_timer.async_wait([self](const boost::system::error_code& ec) {
      if (ec) return;
      {
        std::lock_guard lock(self->busy);
        if (self->ready) return;
        self->close_now();
      }
      self->maybe_forget();
    });
    read();
    guard.unlock();
    maybe_forget();  // stop() may have closed it already
  }

  // The completions capture `this` alone (so std::function keeps them without
  // allocating); the connection stays in server_state::connections until it is
  // closed and no operation is outstanding.
  std::atomic<int> outstanding{0};

  void read() {
    if (closed) return;
    outstanding.fetch_add(1);
    stream->async_read_some(reader.space(), [this](transports::errc e, std::size_t n) {
      on_read(e, n);
      release();
    });
  }

  void wait_writable() {
    outstanding.fetch_add(1);
    stream->async_wait_writable([this](transports::errc e) {
      flush(e);
      release();
    });
  }

  /// The end of an operation's completion. Only the completion that takes the
  /// count to 0 may still use the connection (another thread may drop it
  /// right after its own decrement).
  void release() {
    server_state& owner = server;
    const bool was_closed = closed.load();
    if (outstanding.fetch_sub(1) == 1 && was_closed) owner.forget(this);
  }

  /// Drops the connection once it is closed and nothing of it is outstanding.
  /// For callers that hold a reference to it (not completions: release()).
  void maybe_forget() {
    if (closed && outstanding.load() == 0) server.forget(this);
  }

  void close_now() {
    if (closed.exchange(true)) return;
    handshake_timer.cancel();
    stream->close();
  }

  /// Closes after the backlog has gone out. Call with busy held.
  void close_gracefully() {
    std::lock_guard lock(write_mutex);
    if (backlog.size() == backlog_sent) {
      close_now();
    } else {
      close_after_flush = true;
    }
  }

  void on_read(transports::errc e, std::size_t n) {
    {
      std::lock_guard lock(busy);
      if (e != transports::errc::ok || closed) {
        close_now();
      } else {
        reader.commit(n);
        handle_frames();
        bool stopping = false;
        {
          std::lock_guard s(server.mutex);
          stopping = server.stopping;
        }
        if (!closed && stopping) close_gracefully();
        if (!closed && !close_after_flush) {
          std::lock_guard w(write_mutex);
          if (backlog.size() - backlog_sent > backlog_pause_bytes) {
            paused = true;
          } else {
            read();
            return;
          }
        }
      }
    }
  }

  void handle_frames() {
    while (!closed && !close_after_flush) {
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
      handle(frame);
      reader.consume(frame);
    }
  }

  /// Sends a connection-level error (request id 0) and closes.
  void refuse(status_code code, const std::string& message) {
    encode_error(code, "", message);
    send(frame_kind::error, 0, 0, 0, control);
    close_gracefully();
  }

  /// The error payload into control, its message cut to fit the peer's
  /// max_frame_size (a handler's exception text can be any length).
  void encode_error(status_code code, const std::string& type, const std::string& message) {
    control.clear();
    encode(error_payload{code, type, message}, control);
    const std::size_t limit = send_limit == 0 ? server.options.max_frame_size : send_limit;
    if (control.size() <= limit) return;
    const std::size_t keep = limit > type.size() + 64 ? (limit - type.size() - 64) / 2 : 0;
    control.clear();
    encode(error_payload{code, type.substr(0, keep), message.substr(0, keep) + " [cut]"}, control);
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
        return;  // requests run to completion as they are read: nothing is queued to drop
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
    control.clear();
    encode(r, control);
    ready = true;
    handshake_timer.cancel();
    send(frame_kind::handshake_reply, 0, 0, 0, control);
  }

  void handle_request(const frame_view& f) {
    const bool one_way = f.header.kind == frame_kind::one_way;
    const std::uint32_t id = f.header.request_id;
    const std::int32_t at = server.find(f.header.method_id);
    if (at < 0) {
      if (!one_way)
        fail_call(id, f.header.method_id, status_code::unimplemented,
                  "no method with id " + hex_id(f.header.method_id) + " is served here");
      return;
    }
    const served_method& m = server.methods[static_cast<std::size_t>(at)];
    if (!refusals[static_cast<std::size_t>(at)].empty()) {
      if (!one_way)
        fail_call(id, f.header.method_id, status_code::unimplemented, refusals[static_cast<std::size_t>(at)]);
      return;
    }
    if (f.header.codec != static_cast<std::uint8_t>(codec)) {
      if (!one_way) {
        fail_call(id, f.header.method_id, status_code::invalid_argument,
                  m.info.full_name + ": the request is in codec " + std::to_string(f.header.codec) +
                      ", the handshake agreed on " + std::string(to_string(codec)));
      }
      return;
    }
    std::span<const std::byte> args = f.payload;
    if ((f.header.flags & flag_compressed) != 0) {
      inflated.clear();
      decode_options o;
      o.max_alloc_bytes = server.options.max_frame_size;
      if (refwire::error e = refwire::decompress(f.payload, inflated, o)) {
        if (!one_way)
          fail_call(id, f.header.method_id, status_code::invalid_argument,
                    m.info.full_name + ": the compressed arguments do not open: " + e.message());
        return;
      }
      args = inflated;
    }
    call_outcome outcome;
    m.invoke(m.impl, codec, args, reply, outcome);
    if (one_way) return;
    if (outcome.code != status_code::ok) {
      encode_error(outcome.code, outcome.type, outcome.message);
      send(frame_kind::error, id, f.header.method_id, 0, control);
      return;
    }
    std::span<const std::byte> out = reply;
    std::uint8_t flags = 0;
    if (compression == refwire::compression::lz4 && reply.size() >= threshold) {
      compressed.clear();
      refwire::compress(reply, compressed, {.compression_threshold = 0});
      out = compressed;
      flags = flag_compressed;
    }
    if (out.size() > send_limit) {
      fail_call(id, f.header.method_id, status_code::resource_exhausted,
                m.info.full_name + ": the reply of " + std::to_string(out.size()) +
                    " bytes is longer than max_frame_size (" + std::to_string(send_limit) + ")");
      return;
    }
    send(frame_kind::response, id, f.header.method_id, flags, out, static_cast<std::uint8_t>(codec));
  }

  void fail_call(std::uint32_t id, std::uint32_t method, status_code code, const std::string& message) {
    encode_error(code, "", message);
    send(frame_kind::error, id, method, 0, control);
  }

  /// Writes one frame now, or queues what the socket does not take.
  void send(frame_kind kind, std::uint32_t id, std::uint32_t method, std::uint8_t flags,
            std::span<const std::byte> payload, std::uint8_t codec_id = 0) {
    frame_header h;
    h.kind = kind;
    h.flags = flags;
    h.codec = codec_id;
    h.length = static_cast<std::uint32_t>(payload.size());
    h.request_id = id;
    h.method_id = method;
    std::array<std::byte, header_size> head{};
    write_header(h, head);
    std::lock_guard lock(write_mutex);
    if (closed) return;
    std::size_t written = 0;
    if (backlog.size() == backlog_sent) {
      const std::span<const std::byte> parts[] = {head, payload};
      try {
        written = stream->try_write(std::span<const std::span<const std::byte>>(parts, payload.empty() ? 1 : 2));
      } catch (const transports::transport_error&) {
        closed = true;
        stream->close();
        return;
      }
      if (written == header_size + payload.size()) return;
      backlog.clear();
      backlog_sent = 0;
    }
    // Queue the rest of this frame.
    if (written < header_size) {
      backlog.insert(backlog.end(), head.begin() + static_cast<std::ptrdiff_t>(written), head.end());
      backlog.insert(backlog.end(), payload.begin(), payload.end());
    } else {
      backlog.insert(backlog.end(), payload.begin() + static_cast<std::ptrdiff_t>(written - header_size),
                     payload.end());
    }
    if (!waiting_writable) {
      waiting_writable = true;
      wait_writable();
    }
  }

  void flush(transports::errc e) {
    bool resume = false;
    bool done = false;
    bool lost = false;
    {
      std::lock_guard lock(write_mutex);
      waiting_writable = false;
      if (e != transports::errc::ok || closed) {
        closed = true;
        stream->close();
        lost = true;
      }
      const std::span<const std::byte> parts[] = {std::span<const std::byte>(backlog).subspan(backlog_sent)};
      if (!lost) {
        try {
          backlog_sent += stream->try_write(parts);
        } catch (const transports::transport_error&) {
          closed = true;
          stream->close();
          lost = true;
        }
      }
      if (lost) {
        // the connection is gone: forgotten below (a read outstanding, if any, completes with closed)
      } else if (backlog_sent < backlog.size()) {
        waiting_writable = true;
        wait_writable();
        return;
      } else {
        backlog.clear();
        backlog_sent = 0;
        if (close_after_flush) {
          done = true;
        } else if (paused) {
          paused = false;
          resume = true;
        }
      }
    }
    if (lost) return;  // release() forgets the connection
    if (done) {
      std::lock_guard lock(busy);
      close_now();
      return;
    }
    if (resume) {
      std::lock_guard lock(busy);
      if (!closed) read();
    }
  }
};

void server_state::accept(endpoint_entry& e) {
  e.listener->async_accept([this, &e](transports::errc ec, std::unique_ptr<transports::stream> s) {
    if (ec == transports::errc::closed) return;
    if (ec == transports::errc::ok && s) {
      auto c = std::make_shared<server_connection>(*this, e, std::move(s));
      {
        std::lock_guard lock(mutex);
        if (stopping) {
          c->stream->close();
          return;
        }
        connections.emplace(c.get(), c);
      }
      c->begin();
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

void server_state::forget(server_connection* c) {
  std::shared_ptr<server_connection> last;
  {
    std::lock_guard lock(mutex);
    auto at = connections.find(c);
    if (at == connections.end()) return;
    last = std::move(at->second);
    connections.erase(at);
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
  {
    std::lock_guard lock(st.mutex);
    if (st.stopping) {
      return;
    }
    st.stopping = true;
    for (auto& e : st.endpoints) {
      e->listener->close();
      e->retry.cancel();
    }
    for (auto& [raw, c] : st.connections) connections.push_back(c);
  }
  // Each connection closes once the batch it is handling (a handler running) is done.
  for (auto& c : connections) {
    {
      std::lock_guard busy(c->busy);
      c->close_gracefully();
    }
    c->maybe_forget();
  }
  {
    std::unique_lock lock(st.mutex);
    if (st.started) {
      st.changed.wait_for(lock, std::chrono::seconds(10), [&] { return st.connections.empty(); });
    }
    connections.clear();
    for (auto& [raw, c] : st.connections) connections.push_back(c);
  }
  for (auto& c : connections) {  // a backlog that did not drain in time
    {
      std::lock_guard busy(c->busy);
      std::lock_guard w(c->write_mutex);
      c->close_now();
    }
    c->maybe_forget();
  }
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
