#pragma once
// Test support for the client's tests: a scripted fake server over a raw
// transports listener. Its thread accepts one connection at a time and runs
// the test's script on it (script(peer, n): n counts the connections from 0),
// so a test can make the first connection misbehave and the next one serve
// well. Every frame a peer reads is kept, with its raw bytes, for the test to
// compare. A well-behaved peer (serve_calculator) answers pings and the
// calculator's add and echo over the binary codec.

#include <filesystem>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <refwire/rpc/detail/protocol.hpp>
#include <refwire/serialization.hpp>
#include <refwire/transports/transport.hpp>

#include "rpc_support.hpp"

namespace rpctest {

/// Threads of this process (/proc/self/task entries); open_fds() and
/// eventually() come from rpc_support.hpp.
inline int threads() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

/// One frame as a fake peer read it.
struct seen_frame {
  int connection = 0;
  refwire::rpc::detail::frame_header header;
  std::vector<std::byte> payload;
  std::vector<std::byte> raw;  ///< header and payload, exactly as they came
};

class fake_server;

/// One accepted connection, spoken to by hand from the script.
class fake_peer {
 public:
  fake_peer(std::unique_ptr<refwire::transports::stream> s, fake_server& server, int n)
      : stream_(std::move(s)), server_(server), n_(n) {}

  /// The next frame; nullopt when the client closed (or reset) the connection
  /// or nothing came within the time (timed_out() then says so).
  std::optional<seen_frame> read_frame(std::chrono::milliseconds within = std::chrono::seconds(5));
  [[nodiscard]] bool timed_out() const { return timed_out_; }

  void send_bytes(std::span<const std::byte> bytes) {
    const std::span<const std::byte> parts[] = {bytes};
    try {
      stream_->write_all(parts, raw_peer::deadline());
    } catch (const refwire::transports::transport_error&) {  // the client went away: nothing to tell
    }
  }
  /// Sends h (its length set to the payload's unless keep_length) and the payload.
  void send_frame(refwire::rpc::detail::frame_header h, std::span<const std::byte> payload = {},
                  bool keep_length = false) {
    if (!keep_length) h.length = static_cast<std::uint32_t>(payload.size());
    std::vector<std::byte> bytes(refwire::rpc::detail::header_size);
    refwire::rpc::detail::write_header(
        h, std::span<std::byte, refwire::rpc::detail::header_size>(bytes.data(), bytes.size()));
    bytes.insert(bytes.end(), payload.begin(), payload.end());
    send_bytes(bytes);
  }
  void send_error(std::uint32_t request_id, std::uint32_t method_id, refwire::rpc::status_code code,
                  const std::string& message) {
    std::vector<std::byte> payload;
    refwire::rpc::detail::encode(refwire::rpc::detail::error_payload{code, "", message}, payload);
    refwire::rpc::detail::frame_header h;
    h.kind = refwire::rpc::detail::frame_kind::error;
    h.request_id = request_id;
    h.method_id = method_id;
    send_frame(h, payload);
  }
  /// A response to `to` with this payload (binary codec).
  void respond(const seen_frame& to, std::span<const std::byte> payload) {
    refwire::rpc::detail::frame_header h;
    h.kind = refwire::rpc::detail::frame_kind::response;
    h.codec = to.header.codec;
    h.request_id = to.header.request_id;
    h.method_id = to.header.method_id;
    send_frame(h, payload);
  }

  /// Reads the client's handshake and answers it: every method ok, the
  /// client's codec and compression, 16 MiB frames; edit may change the reply
  /// first. Returns the handshake (empty methods when none came).
  refwire::rpc::detail::handshake answer_handshake(std::function<void(refwire::rpc::detail::handshake_reply&)> edit = {}) {
    namespace d = refwire::rpc::detail;
    auto f = read_frame();
    if (!f || f->header.kind != d::frame_kind::handshake) {
      ADD_FAILURE() << "fake server: no handshake";
      return {};
    }
    std::string why;
    if (!d::parse(f->payload, hello_, why)) ADD_FAILURE() << "fake server: bad handshake: " << why;
    d::handshake_reply r;
    r.codec = hello_.codec;
    r.compression = hello_.compression;
    r.max_frame_size = 16u << 20;
    r.methods.resize(hello_.methods.size());
    if (edit) edit(r);
    std::vector<std::byte> payload;
    d::encode(r, payload);
    d::frame_header h;
    h.kind = d::frame_kind::handshake_reply;
    send_frame(h, payload);
    return hello_;
  }

  /// The method's name ("calc.v1.add") from the handshake, by id.
  [[nodiscard]] std::string method_name(std::uint32_t id) const {
    for (const auto& m : hello_.methods) {
      if (m.id == id) return m.name;
    }
    return "?";
  }

  /// A request's arguments: after the deadline prefix, inflated when compressed.
  static std::vector<std::byte> arguments(const seen_frame& f) {
    namespace d = refwire::rpc::detail;
    std::span<const std::byte> p = f.payload;
    if ((f.header.flags & d::flag_deadline) != 0) p = p.subspan(d::deadline_prefix_size);
    std::vector<std::byte> out;
    if ((f.header.flags & d::flag_compressed) != 0) {
      if (refwire::decompress(p, out)) ADD_FAILURE() << "fake server: a compressed request does not open";
      return out;
    }
    return {p.begin(), p.end()};
  }

  /// Answers one request as calculator_impl would (add, divide and echo,
  /// binary codec); any other method gets an unimplemented error reply.
  void answer_calculator(const seen_frame& f) {
    const std::string name = method_name(f.header.method_id);
    const std::vector<std::byte> args = arguments(f);
    if (name == "calc.v1.add") {
      const auto [a, b] = refwire::deserialize<std::tuple<int, int>>(args);
      respond(f, refwire::serialize(std::tuple<int>{a + b}));
    } else if (name == "calc.v1.divide") {
      const auto [a, b] = refwire::deserialize<std::tuple<int, int>>(args);
      respond(f, refwire::serialize(std::tuple<int>{b == 0 ? 0 : a / b}));
    } else if (name == "calc.v1.echo") {
      respond(f, refwire::serialize(refwire::deserialize<std::tuple<std::string>>(args)));
    } else {
      send_error(f.header.request_id, f.header.method_id, refwire::rpc::status_code::unimplemented,
                 "the fake server does not serve " + name);
    }
  }

  /// Answers pings with pongs, passes every other frame to on_frame (default:
  /// answer_calculator for requests), until the client closes.
  void serve(std::function<void(fake_peer&, const seen_frame&)> on_frame = {}, bool answer_pings = true) {
    namespace d = refwire::rpc::detail;
    for (;;) {
      auto f = read_frame(std::chrono::seconds(30));
      if (!f) return;
      if (f->header.kind == d::frame_kind::ping) {
        if (answer_pings) {
          d::frame_header h;
          h.kind = d::frame_kind::pong;
          h.request_id = f->header.request_id;
          send_frame(h);
        }
        continue;
      }
      if (on_frame) {
        on_frame(*this, *f);
      } else if (f->header.kind == d::frame_kind::request) {
        answer_calculator(*f);
      }
    }
  }

  /// The well-behaved server: the handshake, then serve().
  void serve_calculator() {
    answer_handshake();
    serve();
  }

  void close() { stream_->close(); }
  [[nodiscard]] int number() const { return n_; }

 private:
  std::unique_ptr<refwire::transports::stream> stream_;
  fake_server& server_;
  int n_;
  std::vector<std::byte> buffer_;
  bool timed_out_ = false;
  refwire::rpc::detail::handshake hello_;
};

class fake_server {
 public:
  using script = std::function<void(fake_peer&, int)>;

  /// Listens on transport t and runs script on each connection, one after another.
  fake_server(transport t, const temp_dir& dir, script s) : script_(std::move(s)) {
    listener_ = refwire::transports::listen(io_, refwire::transports::parse_uri(listen_uri(t, dir, "fake")));
    uri_ = listener_->uri();
    thread_ = std::thread([this] { run(); });
  }
  ~fake_server() { stop(); }
  fake_server(const fake_server&) = delete;
  fake_server& operator=(const fake_server&) = delete;

  /// Stops accepting, closes the connection being served and joins the thread.
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      if (current_ != nullptr) current_->close();
    }
    listener_->close();
    if (thread_.joinable()) thread_.join();
  }

  [[nodiscard]] const std::string& uri() const { return uri_; }
  /// Connections accepted so far.
  [[nodiscard]] int connections() {
    std::lock_guard lock(mutex_);
    return accepted_;
  }
  /// Every frame read so far, in order.
  [[nodiscard]] std::vector<seen_frame> frames() {
    std::lock_guard lock(mutex_);
    return frames_;
  }
  /// The frames of one kind read so far.
  [[nodiscard]] std::vector<seen_frame> frames(refwire::rpc::detail::frame_kind k) {
    std::vector<seen_frame> out;
    for (auto& f : frames()) {
      if (f.header.kind == k) out.push_back(std::move(f));
    }
    return out;
  }

  void saw(seen_frame f) {
    std::lock_guard lock(mutex_);
    frames_.push_back(std::move(f));
  }

 private:
  void run() {
    for (int n = 0;; ++n) {
      refwire::transports::errc code = refwire::transports::errc::closed;
      std::unique_ptr<refwire::transports::stream> s;
      // io_.run() returns once the accept completes (an inproc listener keeps a waiting accept as no work of io_)
      auto work = boost::asio::make_work_guard(io_);
      listener_->async_accept([&](refwire::transports::errc c, std::unique_ptr<refwire::transports::stream> st) {
        code = c;
        s = std::move(st);
        work.reset();
      });
      io_.restart();
      io_.run();
      if (code != refwire::transports::errc::ok) return;
      auto peer = std::make_unique<fake_peer>(std::move(s), *this, n);
      {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        ++accepted_;
        current_ = peer.get();
      }
      try {
        script_(*peer, n);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "fake server script: " << e.what();
      }
      std::lock_guard lock(mutex_);
      peer->close();
      current_ = nullptr;
    }
  }

  boost::asio::io_context io_;
  std::unique_ptr<refwire::transports::listener> listener_;
  std::string uri_;
  script script_;
  std::mutex mutex_;
  bool stopping_ = false;
  int accepted_ = 0;
  fake_peer* current_ = nullptr;
  std::vector<seen_frame> frames_;
  std::thread thread_;
};

inline std::optional<seen_frame> fake_peer::read_frame(std::chrono::milliseconds within) {
  namespace d = refwire::rpc::detail;
  timed_out_ = false;
  const auto until = raw_peer::deadline(within);
  for (;;) {
    if (buffer_.size() >= d::header_size) {
      std::string why;
      auto h = d::parse_header(std::span<const std::byte, d::header_size>(buffer_.data(), d::header_size), 1u << 30,
                               why);
      if (!h) throw std::runtime_error("bad frame from the client: " + why);
      const std::size_t total = d::header_size + h->length;
      if (buffer_.size() >= total) {
        seen_frame f;
        f.connection = n_;
        f.header = *h;
        f.raw.assign(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(total));
        f.payload.assign(f.raw.begin() + d::header_size, f.raw.end());
        buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(total));
        server_.saw(f);
        return f;
      }
    }
    std::byte chunk[65536];
    std::size_t n = 0;
    try {
      n = stream_->read_some(chunk, until);
    } catch (const refwire::transports::transport_error& e) {
      timed_out_ = e.code() == refwire::transports::errc::timed_out;
      return std::nullopt;
    }
    if (n == 0) return std::nullopt;
    buffer_.insert(buffer_.end(), chunk, chunk + n);
  }
}

/// A bound on a test's leaks: the open descriptors and threads when it was
/// made, compared with check() (called after the client and the fake server
/// are gone).
class leak_check {
 public:
  leak_check() {
    std::thread([] {}).join();  // a sanitizer runtime starts its own thread with the first one: before counting
    fds_ = open_fds();
    // A thread just joined can still be listed in /proc/self/task for a
    // moment: the baseline is the fewest seen over a few milliseconds, or
    // check() would wait for a count that includes it and fail.
    threads_ = threads();
    for (int i = 0; i < 20; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      threads_ = std::min(threads_, threads());
    }
  }
  void check() const {
    EXPECT_TRUE(eventually([&] { return threads() == threads_; })) << threads() << " threads, " << threads_ << " before";
    EXPECT_EQ(open_fds(), fds_) << "descriptors left open";
  }

 private:
  int fds_ = 0;
  int threads_ = 0;
};

}  // namespace rpctest
