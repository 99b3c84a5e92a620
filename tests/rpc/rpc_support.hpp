#pragma once
// Test support: endpoints of each transport in a fresh temporary directory,
// and a raw connection for speaking the protocol by hand.

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <refwire/rpc/detail/protocol.hpp>
#include <refwire/rpc/error.hpp>
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

enum class transport { inproc, unix_socket, tcp };

inline std::string to_string(transport t) {
  switch (t) {
    case transport::inproc: return "inproc";
    case transport::unix_socket: return "unix";
    case transport::tcp: return "tcp";
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

  struct frame {
    refwire::rpc::detail::frame_header header;
    std::vector<std::byte> payload;
  };

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
