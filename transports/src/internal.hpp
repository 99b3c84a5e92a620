#pragma once
// Shared by the transports' sources; not installed.

#include <refwire/transports/transport.hpp>

#include <sys/uio.h>
#include <unistd.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace refwire::transports::detail {

/// Throws transport_error(code, what).
[[noreturn]] void fail(errc code, const std::string& what);
/// Throws transport_error(code, "<context>: <the text of err>"); EPIPE reads "broken pipe".
[[noreturn]] void fail_errno(errc code, std::string_view context, int err);
/// The text of an errno value ("Connection refused"; EPIPE: "broken pipe").
[[nodiscard]] std::string errno_text(int err);
/// poll()'s timeout for a deadline: -1 for no_deadline, 0 once it has passed, else the
/// milliseconds left rounded up.
[[nodiscard]] int poll_timeout_ms(time_point deadline) noexcept;
/// Waits until fd has one of events (POLLIN, POLLOUT) or the deadline passes
/// (false); retries on EINTR, throws io_error when poll fails.
[[nodiscard]] bool wait_fd(int fd, short events, time_point deadline);
/// Throws invalid_uri when an endpoint built by hand is not one parse_uri would return.
void check_endpoint(const endpoint& where);

/// Closes a descriptor unless released.
class fd_guard {
 public:
  fd_guard() noexcept = default;
  explicit fd_guard(int fd) noexcept : fd_(fd) {}
  fd_guard(fd_guard&& o) noexcept : fd_(o.release()) {}
  fd_guard& operator=(fd_guard&& o) noexcept {
    reset(o.release());
    return *this;
  }
  ~fd_guard() { reset(); }
  [[nodiscard]] int get() const noexcept { return fd_; }
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

/// Where a gather write is: the part and the offset in it.
class gather {
 public:
  explicit gather(buffer_list parts) noexcept : parts_(parts) { skip_empty(); }
  [[nodiscard]] bool done() const noexcept { return index_ == parts_.size(); }
  /// Fills up to max iovecs from the current position; returns how many.
  int fill(iovec* iov, int max) const noexcept {
    int n = 0;
    std::size_t offset = offset_;
    for (std::size_t i = index_; i < parts_.size() && n < max; ++i) {
      const auto part = parts_[i];
      if (part.size() == offset) {
        offset = 0;
        continue;
      }
      iov[n].iov_base = const_cast<std::byte*>(part.data() + offset);
      iov[n].iov_len = part.size() - offset;
      ++n;
      offset = 0;
    }
    return n;
  }
  void advance(std::size_t n) noexcept {
    while (n > 0) {
      const std::size_t left = parts_[index_].size() - offset_;
      if (n < left) {
        offset_ += n;
        return;
      }
      n -= left;
      ++index_;
      offset_ = 0;
    }
    skip_empty();
  }

 private:
  void skip_empty() noexcept {
    while (index_ < parts_.size() && parts_[index_].size() == offset_) {
      ++index_;
      offset_ = 0;
    }
  }
  buffer_list parts_;
  std::size_t index_ = 0;
  std::size_t offset_ = 0;
};

/// The peer of a unix socket: address, and uid and pid from SO_PEERCRED.
peer_identity unix_peer(int fd, std::string address);
/// What a unix listener makes of an accepted socket (fd is handed over: closed
/// unless the returned stream owns it); nullptr (or a throw) drops the
/// connection and the listener goes on accepting.
using make_accepted = std::function<std::unique_ptr<stream>(boost::asio::io_context&, int fd)>;
/// A unix listener on path (stale files replaced, live ones address_in_use);
/// make empty: accepted sockets are plain streams.
std::unique_ptr<listener> listen_unix_path(boost::asio::io_context& io, const std::string& path,
                                           const std::string& uri, const listen_options& options,
                                           make_accepted make);
/// A connected unix socket (non-blocking, close-on-exec), the caller's to close.
int connect_unix_fd(const std::string& path, const std::string& uri, time_point deadline);

std::unique_ptr<listener> listen_tcp(boost::asio::io_context& io, const endpoint& where,
                                     const listen_options& options);
std::unique_ptr<listener> listen_unix(boost::asio::io_context& io, const endpoint& where,
                                      const listen_options& options);
std::unique_ptr<listener> listen_inproc(boost::asio::io_context& io, const endpoint& where,
                                        const listen_options& options);
std::unique_ptr<stream> connect_tcp(boost::asio::io_context& io, const endpoint& where, time_point deadline);
std::unique_ptr<stream> connect_unix(boost::asio::io_context& io, const endpoint& where, time_point deadline);
std::unique_ptr<stream> connect_inproc(boost::asio::io_context& io, const endpoint& where);
std::unique_ptr<listener> listen_shm(boost::asio::io_context& io, const endpoint& where, const listen_options& options);
std::unique_ptr<stream> connect_shm(boost::asio::io_context& io, const endpoint& where, time_point deadline);

}  // namespace refwire::transports::detail
