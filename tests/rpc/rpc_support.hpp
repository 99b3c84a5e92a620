#pragma once
// Test support: endpoints of each transport in a fresh temporary directory,
// a raw connection for speaking the protocol by hand, and hooks that capture
// what they are told (a logger, a stats sink).

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <refwire/rpc/detail/protocol.hpp>
#include <refwire/rpc/error.hpp>
#include <refwire/rpc/hooks.hpp>
#include <refwire/transports/transport.hpp>

namespace rpctest {

/// Expects f() to throw refwire::rpc::rpc_error with this code and a message containing text.
template <class F>
void expect_rpc_error(F&& f, refwire::rpc::status_code code, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no rpc_error thrown (expected " << refwire::rpc::to_string(code) << ")";
  } catch (const refwire::rpc::rpc_error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << "message: " << e.what() << "\nexpected: " << text;
  }
}

/// A logger that keeps every line it is given.
class capture_log final : public refwire::rpc::logger {
 public:
  explicit capture_log(refwire::rpc::log_level level = refwire::rpc::log_level::debug,
                       std::chrono::microseconds slow_call = {})
      : logger(level, slow_call) {}

  struct line {
    refwire::rpc::log_level level;
    std::string message;
  };

  void write(refwire::rpc::log_level level, std::string_view message) noexcept override {
    std::lock_guard lock(mutex_);
    lines_.push_back({level, std::string(message)});
    changed_.notify_all();
  }

  [[nodiscard]] std::vector<line> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }
  /// Whether a line of this level is exactly text.
  [[nodiscard]] bool has(refwire::rpc::log_level level, std::string_view text) const {
    std::lock_guard lock(mutex_);
    for (const line& l : lines_) {
      if (l.level == level && l.message == text) return true;
    }
    return false;
  }
  /// Lines at this level containing text.
  [[nodiscard]] std::size_t count(refwire::rpc::log_level level, std::string_view text) const {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const line& l : lines_) {
      if (l.level == level && l.message.find(text) != std::string::npos) ++n;
    }
    return n;
  }
  /// The first line at this level containing text, waiting for it up to `within`; "" when none came.
  [[nodiscard]] std::string wait_for(refwire::rpc::log_level level, std::string_view text,
                                     std::chrono::milliseconds within = std::chrono::seconds(3)) const {
    std::unique_lock lock(mutex_);
    std::string found;
    changed_.wait_for(lock, within, [&] {
      for (const line& l : lines_) {
        if (l.level == level && l.message.find(text) != std::string::npos) {
          found = l.message;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  /// Every line, one per row, for failure messages.
  [[nodiscard]] std::string dump() const {
    std::lock_guard lock(mutex_);
    std::string out;
    static constexpr const char* names[] = {"debug", "info", "warning", "error", "off"};
    for (const line& l : lines_) out += std::string(names[static_cast<int>(l.level) % 5]) + ": " + l.message + "\n";
    return out;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<line> lines_;
};

/// A stats sink that keeps every record (with its method name copied).
class capture_stats final : public refwire::rpc::stats_sink {
 public:
  struct record_copy {
    refwire::rpc::call_side side;
    std::string method;
    std::uint32_t method_id;
    refwire::rpc::status_code code;
    std::chrono::nanoseconds latency;
    std::size_t request_bytes;
    std::size_t response_bytes;
  };

  explicit capture_stats(bool keep = true) : keep_(keep) {}

  void record(const refwire::rpc::call_record& r) noexcept override {
    calls_.fetch_add(1);
    if (!keep_) return;
    std::lock_guard lock(mutex_);
    records_.push_back(
        {r.side, std::string(r.method), r.method_id, r.code, r.latency, r.request_bytes, r.response_bytes});
  }
  [[nodiscard]] std::vector<record_copy> records() const {
    std::lock_guard lock(mutex_);
    return records_;
  }
  [[nodiscard]] long calls() const noexcept { return calls_.load(); }
  /// Waits until at least n records came, up to `within`.
  bool wait_calls(long n, std::chrono::milliseconds within = std::chrono::seconds(3)) const {
    const auto until = std::chrono::steady_clock::now() + within;
    while (calls_.load() < n) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
  }

 private:
  bool keep_;
  std::atomic<long> calls_{0};
  mutable std::mutex mutex_;
  std::vector<record_copy> records_;
};

/// While it lives, the hooks' clock (detail::set_hook_clock) is one that
/// counts its reads and advances 1 ms on each (so every timed call "takes" a
/// few ms).
class counting_hook_clock {
 public:
  counting_hook_clock() {
    reads_ = 0;
    refwire::rpc::detail::set_hook_clock(&now);
  }
  ~counting_hook_clock() { refwire::rpc::detail::set_hook_clock(nullptr); }
  counting_hook_clock(const counting_hook_clock&) = delete;
  counting_hook_clock& operator=(const counting_hook_clock&) = delete;
  [[nodiscard]] static long reads() noexcept { return reads_.load(); }
  static void reset() noexcept { reads_ = 0; }

 private:
  static std::chrono::steady_clock::time_point now() noexcept {
    return std::chrono::steady_clock::time_point(std::chrono::milliseconds(reads_.fetch_add(1)));
  }
  static inline std::atomic<long> reads_{0};
};

/// The descriptors this process has open (/proc/self/fd).
inline int open_fds() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

/// Waits until pred() holds, up to `within`; returns pred().
template <class P>
bool eventually(P pred, std::chrono::milliseconds within = std::chrono::seconds(3)) {
  const auto until = std::chrono::steady_clock::now() + within;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > until) return pred();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

/// A temporary directory, removed with everything in it.
class temp_dir {
 public:
  temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "refwire-rpc-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

enum class transport { inproc, unix_socket, tcp, shm };

inline std::string to_string(transport t) {
  switch (t) {
    case transport::inproc: return "inproc";
    case transport::unix_socket: return "unix";
    case transport::tcp: return "tcp";
    case transport::shm: return "shm";
  }
  return "?";
}

/// A URI to listen on for transport t (tcp: port 0, the server returns the bound one).
inline std::string listen_uri(transport t, const temp_dir& dir, const std::string& name = "s") {
  static std::atomic<int> counter{0};
  switch (t) {
    case transport::inproc:
      return "inproc://rpc-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" + name;
    case transport::unix_socket: return "unix://" + (dir.path() / (name + ".sock")).string();
    case transport::tcp: return "tcp://127.0.0.1:0";
    case transport::shm:
      return "shm://rpc-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" + name;
  }
  return {};
}

/// A connection that sends and reads frames by hand (a bad peer, a fake client).
class raw_peer {
 public:
  explicit raw_peer(const std::string& uri)
      : stream_(refwire::transports::connect(io_, refwire::transports::parse_uri(uri), deadline())) {}

  static refwire::transports::time_point deadline(std::chrono::milliseconds d = std::chrono::seconds(5)) {
    return refwire::transports::clock::now() + d;
  }

  void send_bytes(std::span<const std::byte> bytes) {
    const std::span<const std::byte> parts[] = {bytes};
    stream_->write_all(parts, deadline());
  }

  /// Sends h (its length set to the payload's unless keep_length) and the payload.
  void send_frame(refwire::rpc::detail::frame_header h, std::span<const std::byte> payload, bool keep_length = false) {
    if (!keep_length) h.length = static_cast<std::uint32_t>(payload.size());
    std::vector<std::byte> bytes(refwire::rpc::detail::header_size);
    refwire::rpc::detail::write_header(h, std::span<std::byte, refwire::rpc::detail::header_size>(bytes.data(),
                                                                                                  bytes.size()));
    bytes.insert(bytes.end(), payload.begin(), payload.end());
    send_bytes(bytes);
  }

  /// Sends a valid handshake for the given methods.
  void handshake(std::vector<refwire::rpc::detail::method_entry> methods = {},
                 refwire::rpc::codec codec = refwire::rpc::codec::binary, std::uint32_t version = 1,
                 std::vector<refwire::rpc::detail::extension> extensions = {}) {
    refwire::rpc::detail::handshake h;
    h.extensions = std::move(extensions);
    h.version = version;
    h.codec = codec;
    h.max_frame_size = 1u << 20;
    h.methods = std::move(methods);
    std::vector<std::byte> payload;
    refwire::rpc::detail::encode(h, payload);
    refwire::rpc::detail::frame_header head;
    head.kind = refwire::rpc::detail::frame_kind::handshake;
    head.length = static_cast<std::uint32_t>(payload.size());
    send_frame(head, payload);
  }

  /// Sends a request (kind request, or one_way) for method_id with these
  /// argument bytes; with deadline_ms, the deadline prefix (flag_deadline) first.
  void send_request(std::uint32_t request_id, std::uint32_t method_id, std::span<const std::byte> args,
                    std::optional<std::uint32_t> deadline_ms = std::nullopt, bool one_way = false,
                    refwire::rpc::codec codec = refwire::rpc::codec::binary) {
    refwire::rpc::detail::frame_header h;
    h.kind = one_way ? refwire::rpc::detail::frame_kind::one_way : refwire::rpc::detail::frame_kind::request;
    h.codec = static_cast<std::uint8_t>(codec);
    h.request_id = request_id;
    h.method_id = method_id;
    const std::vector<std::byte> payload = request_payload(h, args, deadline_ms);  // sets the flag in h first
    send_frame(h, payload);
  }

  /// A request's payload: the deadline prefix (setting flag_deadline in h) when
  /// deadline_ms is given, then args.
  static std::vector<std::byte> request_payload(refwire::rpc::detail::frame_header& h,
                                                std::span<const std::byte> args,
                                                std::optional<std::uint32_t> deadline_ms) {
    const std::size_t prefix = deadline_ms ? refwire::rpc::detail::deadline_prefix_size : 0;
    std::vector<std::byte> payload(prefix + args.size());
    if (deadline_ms) {
      h.flags |= refwire::rpc::detail::flag_deadline;
      for (std::size_t i = 0; i < 4; ++i) payload[i] = static_cast<std::byte>((*deadline_ms >> (8 * i)) & 0xff);
    }
    if (!args.empty()) std::memcpy(payload.data() + prefix, args.data(), args.size());
    return payload;
  }

  /// Sends a frame of this kind without payload (cancel, ping).
  void send_control(refwire::rpc::detail::frame_kind kind, std::uint32_t request_id, std::uint32_t method_id = 0) {
    refwire::rpc::detail::frame_header h;
    h.kind = kind;
    h.request_id = request_id;
    h.method_id = method_id;
    send_frame(h, {});
  }

  struct frame {
    refwire::rpc::detail::frame_header header;
    std::vector<std::byte> payload;
  };

  /// The error payload of f (which must be an error frame).
  static refwire::rpc::detail::error_payload error_of(const frame& f) {
    if (f.header.kind != refwire::rpc::detail::frame_kind::error) {
      throw std::runtime_error("expected an error frame, got " +
                               std::string(refwire::rpc::detail::to_string(f.header.kind)));
    }
    refwire::rpc::detail::error_payload e;
    std::string why;
    if (!refwire::rpc::detail::parse(f.payload, e, why)) throw std::runtime_error("malformed error payload: " + why);
    return e;
  }

  /// True when the server answers a ping on this connection (it is still open and reading).
  bool answers_ping(std::uint32_t id = 0x7e57) {
    send_control(refwire::rpc::detail::frame_kind::ping, id);
    auto f = read_frame(std::chrono::seconds(3));
    return f && f->header.kind == refwire::rpc::detail::frame_kind::pong && f->header.request_id == id;
  }

  /// The next frame, or nullopt when the server closed the connection first.
  std::optional<frame> read_frame(std::chrono::milliseconds within = std::chrono::seconds(5)) {
    const auto until = deadline(within);
    while (true) {
      if (buffer_.size() >= refwire::rpc::detail::header_size) {
        std::string why;
        auto h = refwire::rpc::detail::parse_header(
            std::span<const std::byte, refwire::rpc::detail::header_size>(buffer_.data(),
                                                                          refwire::rpc::detail::header_size),
            1u << 30, why);
        if (!h) throw std::runtime_error("bad frame from the server: " + why);
        if (buffer_.size() >= refwire::rpc::detail::header_size + h->length) {
          frame f{*h, std::vector<std::byte>(buffer_.begin() + refwire::rpc::detail::header_size,
                                             buffer_.begin() + static_cast<std::ptrdiff_t>(
                                                                   refwire::rpc::detail::header_size + h->length))};
          buffer_.erase(buffer_.begin(),
                        buffer_.begin() + static_cast<std::ptrdiff_t>(refwire::rpc::detail::header_size + h->length));
          return f;
        }
      }
      std::byte chunk[65536];
      std::size_t n = 0;
      try {
        n = stream_->read_some(chunk, until);
      } catch (const refwire::transports::transport_error& e) {
        if (e.code() == refwire::transports::errc::timed_out) throw;
        return std::nullopt;  // reset by the peer: closed
      }
      if (n == 0) return std::nullopt;
      buffer_.insert(buffer_.end(), chunk, chunk + n);
    }
  }

  /// True when the server closes the connection (after any frames it sends first) within the time.
  bool closed_by_server(std::chrono::milliseconds within = std::chrono::seconds(5)) {
    while (true) {
      auto f = read_frame(within);
      if (!f) return true;
    }
  }

  /// Reads the next frame, which must be an error; returns its payload.
  refwire::rpc::detail::error_payload read_error() {
    auto f = read_frame();
    if (!f) throw std::runtime_error("the server closed the connection instead of sending an error frame");
    if (f->header.kind != refwire::rpc::detail::frame_kind::error) {
      throw std::runtime_error("expected an error frame, got " +
                               std::string(refwire::rpc::detail::to_string(f->header.kind)));
    }
    refwire::rpc::detail::error_payload e;
    std::string why;
    if (!refwire::rpc::detail::parse(f->payload, e, why)) throw std::runtime_error("malformed error payload: " + why);
    return e;
  }

 private:
  boost::asio::io_context io_;
  std::unique_ptr<refwire::transports::stream> stream_;
  std::vector<std::byte> buffer_;
};

}  // namespace rpctest
