// In-process streams: two bounded byte queues (a mutex and a condition
// variable each), no descriptor and no thread. Asynchronous completions are
// posted to the io_context of the side that asked.
#include "internal.hpp"

#include <refwire/transports/transport.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace refwire::transports::detail {
namespace {

namespace asio = boost::asio;

/// A ring of bytes that grows on demand up to its capacity.
class ring {
 public:
  explicit ring(std::size_t capacity) noexcept : capacity_(capacity) {}
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] std::size_t room() const noexcept { return capacity_ - count_; }

  /// Appends what fits of from; returns the count.
  std::size_t push(std::span<const std::byte> from) {
    const std::size_t n = std::min(from.size(), room());
    if (n == 0) return 0;
    if (count_ + n > data_.size()) grow(count_ + n);
    const std::size_t tail = (head_ + count_) % data_.size();
    const std::size_t first = std::min(n, data_.size() - tail);
    std::memcpy(data_.data() + tail, from.data(), first);
    std::memcpy(data_.data(), from.data() + first, n - first);
    count_ += n;
    return n;
  }

  /// Moves up to into.size() bytes out; returns the count.
  std::size_t pop(std::span<std::byte> into) noexcept {
    const std::size_t n = std::min(into.size(), count_);
    if (n == 0) return 0;
    const std::size_t first = std::min(n, data_.size() - head_);
    std::memcpy(into.data(), data_.data() + head_, first);
    std::memcpy(into.data() + first, data_.data(), n - first);
    head_ = (head_ + n) % data_.size();
    count_ -= n;
    return n;
  }

  void clear() noexcept {
    std::vector<std::byte>().swap(data_);
    head_ = 0;
    count_ = 0;
  }

 private:
  void grow(std::size_t needed) {
    const std::size_t size = std::min(capacity_, std::max({needed, data_.size() * 2, std::size_t{4096}}));
    std::vector<std::byte> bigger(size);
    const std::size_t moved = count_;
    pop(bigger);
    data_.swap(bigger);
    head_ = 0;
    count_ = moved;
  }

  std::size_t capacity_;
  std::vector<std::byte> data_;
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

struct pending_read {
  asio::io_context* io;
  std::span<std::byte> into;
  std::function<void(errc, std::size_t)> done;
};

struct pending_wait {
  asio::io_context* io;
  std::function<void(errc)> done;
};

/// The bytes flowing to one side.
struct channel {
  std::mutex mutex;
  std::condition_variable changed;  // bytes, room or a close: wakes the reader and the writer
  ring bytes{inproc_buffer_bytes};
  bool reader_closed = false;  // the receiving side closed: its reads end, writes to it are a broken pipe
  bool writer_closed = false;  // the sending side closed: reads drain, then end of stream
  std::optional<pending_read> read;
  std::optional<pending_wait> writable;
};

struct pipe_pair {
  channel to[2];
};

void post_read(pending_read& r, errc c, std::size_t n) {
  asio::post(*r.io, [done = std::move(r.done), c, n] { done(c, n); });
}

void post_wait(pending_wait& w, errc c) {
  asio::post(*w.io, [done = std::move(w.done), c] { done(c); });
}

/// After bytes were added to ch (its mutex held).
void bytes_added(channel& ch) {
  ch.changed.notify_all();
  if (ch.read && ch.bytes.size() > 0) {
    const std::size_t n = ch.bytes.pop(ch.read->into);
    post_read(*ch.read, errc::ok, n);
    ch.read.reset();
  }
}

/// After bytes were taken from ch (its mutex held).
void room_made(channel& ch) {
  ch.changed.notify_all();
  if (ch.writable && ch.bytes.room() > 0) {
    post_wait(*ch.writable, errc::ok);
    ch.writable.reset();
  }
}

/// Waits on ch.changed until the deadline; false once it has passed.
bool wait_until(channel& ch, std::unique_lock<std::mutex>& lock, time_point deadline) {
  if (deadline == no_deadline) {
    ch.changed.wait(lock);
    return true;
  }
  return ch.changed.wait_until(lock, deadline) == std::cv_status::no_timeout || clock::now() < deadline;
}

class inproc_stream final : public stream {
 public:
  inproc_stream(asio::io_context& io, std::shared_ptr<pipe_pair> pipe, int side, const std::string& uri)
      : io_(io),
        pipe_(std::move(pipe)),
        side_(side),
        peer_{uri, static_cast<std::uint32_t>(::getuid()), static_cast<std::uint32_t>(::getpid())} {}
  inproc_stream(const inproc_stream&) = delete;
  inproc_stream& operator=(const inproc_stream&) = delete;
  ~inproc_stream() override { close(); }

  std::size_t read_some(std::span<std::byte> into, time_point deadline) override {
    if (into.empty()) fail(errc::io_error, peer_.address + ": read into an empty buffer");
    channel& in = incoming();
    std::unique_lock lock(in.mutex);
    for (;;) {
      if (in.reader_closed) fail_closed();
      if (in.bytes.size() > 0) {
        const std::size_t n = in.bytes.pop(into);
        room_made(in);
        return n;
      }
      if (in.writer_closed) return 0;
      if (!wait_until(in, lock, deadline)) fail(errc::timed_out, peer_.address + ": read timed out");
    }
  }

  void write_all(buffer_list parts, time_point deadline) override {
    channel& out = outgoing();
    std::unique_lock lock(out.mutex);
    for (auto part : parts) {
      while (!part.empty()) {
        check_writable(out);
        const std::size_t n = out.bytes.push(part);
        if (n > 0) {
          part = part.subspan(n);
          bytes_added(out);
          continue;
        }
        if (!wait_until(out, lock, deadline)) fail(errc::timed_out, peer_.address + ": write timed out");
      }
    }
    check_writable(out);
  }

  std::size_t try_write(buffer_list parts) override {
    channel& out = outgoing();
    std::lock_guard lock(out.mutex);
    check_writable(out);
    std::size_t total = 0;
    for (auto part : parts) {
      const std::size_t n = out.bytes.push(part);
      total += n;
      if (n < part.size()) break;
    }
    if (total > 0) bytes_added(out);
    return total;
  }

  void async_read_some(std::span<std::byte> into, std::function<void(errc, std::size_t)> done) override {
    channel& in = incoming();
    std::lock_guard lock(in.mutex);
    pending_read r{&io_, into, std::move(done)};
    if (in.reader_closed) {
      post_read(r, errc::closed, 0);
    } else if (into.empty()) {
      post_read(r, errc::io_error, 0);
    } else if (in.bytes.size() > 0) {
      const std::size_t n = in.bytes.pop(into);
      post_read(r, errc::ok, n);
      room_made(in);
    } else if (in.writer_closed) {
      post_read(r, errc::closed, 0);
    } else if (in.read) {
      post_read(r, errc::io_error, 0);  // one read outstanding at a time
    } else {
      in.read = std::move(r);
    }
  }

  void async_wait_writable(std::function<void(errc)> done) override {
    channel& out = outgoing();
    std::lock_guard lock(out.mutex);
    pending_wait w{&io_, std::move(done)};
    if (out.writer_closed) {
      post_wait(w, errc::closed);
    } else if (out.reader_closed || out.bytes.room() > 0) {
      post_wait(w, errc::ok);  // a peer that closed: the next write reports the broken pipe
    } else if (out.writable) {
      post_wait(w, errc::io_error);  // one wait outstanding at a time
    } else {
      out.writable = std::move(w);
    }
  }

  void close() noexcept override {
    {
      channel& in = incoming();
      std::lock_guard lock(in.mutex);
      if (!in.reader_closed) {
        in.reader_closed = true;
        in.bytes.clear();
        in.changed.notify_all();
        if (in.read) post_read(*in.read, errc::closed, 0);
        in.read.reset();
        if (in.writable) post_wait(*in.writable, errc::ok);  // the peer's write then reports the broken pipe
        in.writable.reset();
      }
    }
    channel& out = outgoing();
    std::lock_guard lock(out.mutex);
    if (!out.writer_closed) {
      out.writer_closed = true;
      out.changed.notify_all();
      if (out.writable) post_wait(*out.writable, errc::closed);
      out.writable.reset();
      if (out.read) post_read(*out.read, errc::closed, 0);  // the peer's pending read: end of stream
      out.read.reset();
    }
  }

  [[nodiscard]] const peer_identity& peer() const noexcept override { return peer_; }

 private:
  channel& incoming() noexcept { return pipe_->to[side_]; }
  channel& outgoing() noexcept { return pipe_->to[1 - side_]; }

  [[noreturn]] void fail_closed() const { fail(errc::closed, peer_.address + ": the stream is closed"); }

  void check_writable(const channel& out) const {
    if (out.writer_closed) fail_closed();
    if (out.reader_closed) fail(errc::io_error, peer_.address + ": write: broken pipe");
  }

  asio::io_context& io_;
  std::shared_ptr<pipe_pair> pipe_;
  int side_;
  peer_identity peer_;
};

using accept_handler = std::function<void(errc, std::unique_ptr<stream>)>;

struct inproc_listener_state {
  inproc_listener_state(asio::io_context& context, std::string n, int queue_limit)
      : io(context), name(std::move(n)), uri("inproc://" + name), backlog(queue_limit) {}
  asio::io_context& io;
  std::string name;
  std::string uri;
  int backlog;
  std::mutex mutex;  // everything below
  bool closed = false;
  std::optional<accept_handler> pending;
  std::deque<std::unique_ptr<stream>> queued;
};

/// The process's inproc names.
struct registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<inproc_listener_state>, std::less<>> names;

  static registry& get() {
    static registry r;
    return r;
  }
};

void post_accept(asio::io_context& io, accept_handler done, errc c, std::unique_ptr<stream> s) {
  asio::post(io, [done = std::move(done), c, s = std::move(s)]() mutable { done(c, std::move(s)); });
}

class inproc_listener final : public listener {
 public:
  explicit inproc_listener(std::shared_ptr<inproc_listener_state> s) : s_(std::move(s)) {}
  inproc_listener(const inproc_listener&) = delete;
  inproc_listener& operator=(const inproc_listener&) = delete;
  ~inproc_listener() override { close(); }

  [[nodiscard]] const std::string& uri() const noexcept override { return s_->uri; }

  void async_accept(accept_handler done) override {
    std::lock_guard lock(s_->mutex);
    if (s_->closed) {
      post_accept(s_->io, std::move(done), errc::closed, nullptr);
    } else if (!s_->queued.empty()) {
      post_accept(s_->io, std::move(done), errc::ok, std::move(s_->queued.front()));
      s_->queued.pop_front();
    } else {
      s_->pending = std::move(done);
    }
  }

  void close() noexcept override {
    {
      registry& r = registry::get();
      std::lock_guard lock(r.mutex);
      if (auto it = r.names.find(s_->name); it != r.names.end() && it->second == s_) r.names.erase(it);
    }
    std::deque<std::unique_ptr<stream>> dropped;  // closed outside the lock: their clients read end of stream
    std::lock_guard lock(s_->mutex);
    if (s_->closed) return;
    s_->closed = true;
    if (s_->pending) post_accept(s_->io, std::move(*s_->pending), errc::closed, nullptr);
    s_->pending.reset();
    dropped.swap(s_->queued);
  }

 private:
  std::shared_ptr<inproc_listener_state> s_;
};

}  // namespace

std::unique_ptr<listener> listen_inproc(asio::io_context& io, const endpoint& where, const listen_options& options) {
  auto s = std::make_shared<inproc_listener_state>(io, where.path, options.backlog);
  registry& r = registry::get();
  std::lock_guard lock(r.mutex);
  if (!r.names.try_emplace(where.path, s).second) {
    fail(errc::address_in_use, s->uri + ": the name is taken by another listener in this process");
  }
  return std::make_unique<inproc_listener>(std::move(s));
}

std::unique_ptr<stream> connect_inproc(asio::io_context& io, const endpoint& where) {
  const std::string uri = where.uri();
  std::shared_ptr<inproc_listener_state> s;
  {
    registry& r = registry::get();
    std::lock_guard lock(r.mutex);
    if (auto it = r.names.find(where.path); it != r.names.end()) s = it->second;
  }
  if (!s) fail(errc::connection_refused, uri + ": no listener by that name in this process");
  auto pipe = std::make_shared<pipe_pair>();
  auto client = std::make_unique<inproc_stream>(io, pipe, 0, uri);
  auto server = std::make_unique<inproc_stream>(s->io, pipe, 1, uri);
  std::lock_guard lock(s->mutex);
  if (s->closed) fail(errc::connection_refused, uri + ": no listener by that name in this process");
  if (s->pending) {
    post_accept(s->io, std::move(*s->pending), errc::ok, std::move(server));
    s->pending.reset();
  } else {
    if (s->queued.size() >= static_cast<std::size_t>(std::max(s->backlog, 1))) {
      fail(errc::connection_refused, uri + ": the listener's backlog of " + std::to_string(s->backlog) +
                                         " connections is full");
    }
    s->queued.push_back(std::move(server));
  }
  return client;
}

}  // namespace refwire::transports::detail
