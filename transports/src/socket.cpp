// Unix sockets and TCP: descriptors made here (non-blocking, close-on-exec),
// blocking operations through poll() with a deadline, asynchronous ones through
// a boost::asio::posix::stream_descriptor on the owner's io_context.
#include "internal.hpp"

#include <refwire/transports/transport.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/system/error_code.hpp>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace refwire::transports::detail {

/// Waits until fd has one of events or the deadline passes (false).
bool wait_fd(int fd, short events, time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, poll_timeout_ms(deadline));
    if (r > 0) return true;
    if (r == 0) {
      if (clock::now() >= deadline) return false;
      continue;
    }
    if (errno != EINTR) fail_errno(errc::io_error, "poll", errno);
  }
}

namespace {

namespace asio = boost::asio;


std::string format_address(const sockaddr_storage& a) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    sockaddr_in v4{};
    std::memcpy(&v4, &a, sizeof v4);
    ::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    return "tcp://" + std::string(text) + ":" + std::to_string(ntohs(v4.sin_port));
  }
  if (a.ss_family == AF_INET6) {
    sockaddr_in6 v6{};
    std::memcpy(&v6, &a, sizeof v6);
    ::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    return "tcp://[" + std::string(text) + "]:" + std::to_string(ntohs(v6.sin6_port));
  }
  return "tcp://unknown:0";
}

std::string local_address(int fd) {
  sockaddr_storage a{};
  socklen_t n = sizeof a;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n) != 0) fail_errno(errc::io_error, "getsockname", errno);
  return format_address(a);
}

std::string remote_address(int fd) {
  sockaddr_storage a{};
  socklen_t n = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &n) != 0) return "tcp://unknown:0";
  return format_address(a);
}

void set_nodelay(int fd) {
  const int one = 1;
  if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
    fail_errno(errc::io_error, "setsockopt(TCP_NODELAY)", errno);
  }
}

peer_identity tcp_peer(int fd) { return peer_identity{remote_address(fd), std::nullopt, std::nullopt}; }

sockaddr_un unix_address(const std::string& path, const std::string& uri) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) {
    fail(errc::invalid_uri, uri + ": the unix path is " + std::to_string(path.size()) + " bytes long, at most " +
                                std::to_string(sizeof a.sun_path - 1) + " fit");
  }
  std::memcpy(a.sun_path, path.data(), path.size());
  return a;
}

constexpr int max_iov = IOV_MAX;

/// One sendmsg of what gather holds from its position (at most IOV_MAX parts):
/// the byte count, or -1 with errno. Never raises SIGPIPE.
ssize_t send_once(int fd, const gather& g) {
  iovec iov[max_iov];
  msghdr m{};
  m.msg_iov = iov;
  m.msg_iovlen = static_cast<std::size_t>(g.fill(iov, max_iov));
  return ::sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
}

class socket_stream final : public stream {
 public:
  socket_stream(asio::io_context& io, int fd, peer_identity peer) : fd_(fd), io_(io), peer_(std::move(peer)) {}
  socket_stream(const socket_stream&) = delete;
  socket_stream& operator=(const socket_stream&) = delete;
  ~socket_stream() override {
    close();
    if (!descriptor_) ::close(fd_);  // else descriptor_ closes it after this
  }

  std::size_t read_some(std::span<std::byte> into, time_point deadline) override {
    if (into.empty()) fail(errc::io_error, peer_.address + ": read into an empty buffer");
    for (;;) {
      if (closed_->load()) fail_closed();
      const ssize_t n = ::recv(fd_, into.data(), into.size(), MSG_DONTWAIT);
      if (n > 0) return static_cast<std::size_t>(n);
      if (n == 0) {
        if (closed_->load()) fail_closed();
        return 0;
      }
      const int err = errno;
      if (err == EINTR) continue;
      if (err == EAGAIN || err == EWOULDBLOCK) {
        if (!wait_fd(fd_, POLLIN, deadline)) fail(errc::timed_out, peer_.address + ": read timed out");
        continue;
      }
      if (closed_->load()) fail_closed();
      fail_errno(errc::io_error, peer_.address + ": read", err);
    }
  }

  void write_all(buffer_list parts, time_point deadline) override {
    gather g(parts);
    while (!g.done()) {
      if (closed_->load()) fail_closed();
      const ssize_t n = send_once(fd_, g);
      if (n >= 0) {
        g.advance(static_cast<std::size_t>(n));
        continue;
      }
      const int err = errno;
      if (err == EINTR) continue;
      if (err == EAGAIN || err == EWOULDBLOCK) {
        if (!wait_fd(fd_, POLLOUT, deadline)) fail(errc::timed_out, peer_.address + ": write timed out");
        continue;
      }
      if (closed_->load()) fail_closed();
      fail_errno(errc::io_error, peer_.address + ": write", err);
    }
  }

  std::size_t try_write(buffer_list parts) override {
    gather g(parts);
    std::size_t total = 0;
    while (!g.done()) {
      if (closed_->load()) fail_closed();
      const ssize_t n = send_once(fd_, g);
      if (n >= 0) {
        g.advance(static_cast<std::size_t>(n));
        total += static_cast<std::size_t>(n);
        continue;
      }
      const int err = errno;
      if (err == EINTR) continue;
      if (err == EAGAIN || err == EWOULDBLOCK || total > 0) break;  // an error after bytes: next call reports it
      if (closed_->load()) fail_closed();
      fail_errno(errc::io_error, peer_.address + ": write", err);
    }
    return total;
  }

  void async_read_some(std::span<std::byte> into, std::function<void(errc, std::size_t)> done) override {
    std::lock_guard lock(mutex_);
    if (closed_->load() || into.empty()) {
      const errc c = into.empty() && !closed_->load() ? errc::io_error : errc::closed;
      asio::post(io_.get_executor(), [done = std::move(done), c] { done(c, 0); });
      return;
    }
    descriptor().async_read_some(asio::buffer(into.data(), into.size()),
                                [closed = closed_, done = std::move(done)](const boost::system::error_code& ec,
                                                                           std::size_t n) {
                                  if (closed->load() || ec == asio::error::eof ||
                                      ec == asio::error::operation_aborted) {
                                    done(errc::closed, 0);
                                  } else if (ec || n == 0) {
                                    done(errc::io_error, 0);
                                  } else {
                                    done(errc::ok, n);
                                  }
                                });
  }

  void async_wait_writable(std::function<void(errc)> done) override {
    std::lock_guard lock(mutex_);
    if (closed_->load()) {
      asio::post(io_.get_executor(), [done = std::move(done)] { done(errc::closed); });
      return;
    }
    descriptor().async_wait(asio::posix::stream_descriptor::wait_write,
                           [closed = closed_, done = std::move(done)](const boost::system::error_code& ec) {
                             if (closed->load() || ec == asio::error::operation_aborted) {
                               done(errc::closed);
                             } else {
                               done(ec ? errc::io_error : errc::ok);
                             }
                           });
  }

  void close() noexcept override {
    if (closed_->exchange(true)) return;
    // Wakes readers and writers blocked in poll() in other threads, and tells the peer.
    ::shutdown(fd_, SHUT_RDWR);
    std::lock_guard lock(mutex_);
    boost::system::error_code ignored;
    if (descriptor_) descriptor_->cancel(ignored);
  }

  [[nodiscard]] const peer_identity& peer() const noexcept override { return peer_; }
  [[nodiscard]] int native_handle() const noexcept override { return fd_; }

 private:
  [[noreturn]] void fail_closed() const { fail(errc::closed, peer_.address + ": the stream is closed"); }

  /// The asio descriptor, made at the first asynchronous operation (mutex_
  /// held): a stream used only through its blocking calls (a client's)
  /// never registers with the event loop, and a loop that has none makes
  /// no epoll, timer or event descriptors of its own.
  asio::posix::stream_descriptor& descriptor() {
    if (!descriptor_) descriptor_.emplace(io_, fd_);
    return *descriptor_;
  }

  int fd_;
  asio::io_context& io_;
  std::mutex mutex_;  // the descriptor's asynchronous operations: initiation and cancel
  std::optional<asio::posix::stream_descriptor> descriptor_;
  std::shared_ptr<std::atomic<bool>> closed_ = std::make_shared<std::atomic<bool>>(false);
  peer_identity peer_;
};

/// What a listener's pending accept needs after the listener is gone.
struct listener_state {
  listener_state(asio::io_context& context, int fd) : io(context), descriptor(context, fd) {}
  asio::io_context& io;
  std::mutex mutex;  // descriptor, closed
  asio::posix::stream_descriptor descriptor;
  bool closed = false;
  bool is_unix = false;
  std::string uri;
  std::string unix_path;  // unix: the socket file, removed on close while it is still ours
  dev_t unix_dev = 0;
  ino_t unix_ino = 0;
  make_accepted make;  // unix: what an accepted socket becomes (empty: a socket_stream)
};

using accept_handler = std::function<void(errc, std::unique_ptr<stream>)>;

void arm_accept(const std::shared_ptr<listener_state>& s, accept_handler done);

void on_acceptable(const std::shared_ptr<listener_state>& s, accept_handler done,
                   const boost::system::error_code& ec) {
  std::unique_lock lock(s->mutex);
  if (s->closed || ec == asio::error::operation_aborted) {
    lock.unlock();
    done(errc::closed, nullptr);
    return;
  }
  if (ec) {
    lock.unlock();
    done(errc::io_error, nullptr);
    return;
  }
  const int fd = ::accept4(s->descriptor.native_handle(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR || err == ECONNABORTED || err == EPROTO) {
      s->descriptor.async_wait(asio::posix::stream_descriptor::wait_read,
                               [s, done = std::move(done)](const boost::system::error_code& e) mutable {
                                 on_acceptable(s, std::move(done), e);
                               });
      return;
    }
    lock.unlock();
    done(errc::io_error, nullptr);
    return;
  }
  fd_guard guard(fd);
  const bool is_unix = s->is_unix;
  const std::string uri = s->uri;
  const make_accepted make = s->make;
  lock.unlock();
  std::unique_ptr<stream> accepted;
  if (make) {
    // A connection whose setup fails is dropped (the peer sees the end of the
    // stream); the accept goes on waiting for the next one.
    try {
      accepted = make(s->io, guard.release());
    } catch (const std::exception&) {
      accepted = nullptr;
    }
    if (accepted == nullptr) {
      arm_accept(s, std::move(done));
      return;
    }
  } else if (is_unix) {
    accepted = std::make_unique<socket_stream>(s->io, fd, unix_peer(fd, uri));
  } else {
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    accepted = std::make_unique<socket_stream>(s->io, fd, tcp_peer(fd));
  }
  guard.release();
  done(errc::ok, std::move(accepted));
}

void arm_accept(const std::shared_ptr<listener_state>& s, accept_handler done) {
  std::lock_guard lock(s->mutex);
  if (s->closed) {
    asio::post(s->io, [done = std::move(done)] { done(errc::closed, nullptr); });
    return;
  }
  s->descriptor.async_wait(asio::posix::stream_descriptor::wait_read,
                           [s, done = std::move(done)](const boost::system::error_code& ec) mutable {
                             on_acceptable(s, std::move(done), ec);
                           });
}

class socket_listener final : public listener {
 public:
  explicit socket_listener(std::shared_ptr<listener_state> s) : s_(std::move(s)) {}
  socket_listener(const socket_listener&) = delete;
  socket_listener& operator=(const socket_listener&) = delete;
  ~socket_listener() override { close(); }

  [[nodiscard]] const std::string& uri() const noexcept override { return s_->uri; }
  void async_accept(accept_handler done) override { arm_accept(s_, std::move(done)); }

  void close() noexcept override {
    std::lock_guard lock(s_->mutex);
    if (s_->closed) return;
    s_->closed = true;
    boost::system::error_code ignored;
    s_->descriptor.close(ignored);  // a pending accept completes with operation_aborted
    if (s_->is_unix) {
      struct stat st {};
      if (::lstat(s_->unix_path.c_str(), &st) == 0 && st.st_dev == s_->unix_dev && st.st_ino == s_->unix_ino) {
        ::unlink(s_->unix_path.c_str());
      }
    }
  }

 private:
  std::shared_ptr<listener_state> s_;
};

/// Is a listener live on the unix socket file at a? (A connect that is refused: no.)
bool unix_socket_is_live(const sockaddr_un& a, const std::string& uri) {
  fd_guard probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (probe.get() < 0) fail_errno(errc::io_error, uri + ": socket", errno);
  if (::connect(probe.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) return true;
  const int err = errno;
  if (err == ECONNREFUSED || err == ENOENT) return false;
  if (err == EAGAIN || err == EINPROGRESS) return true;  // a live listener with a full backlog
  fail_errno(errc::io_error, uri + ": connect to the existing socket file", err);
}

}  // namespace

peer_identity unix_peer(int fd, std::string address) {
  peer_identity p{std::move(address), std::nullopt, std::nullopt};
  ucred cred{};
  socklen_t n = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &n) == 0 && n == sizeof cred) {
    p.uid = static_cast<std::uint32_t>(cred.uid);
    p.pid = static_cast<std::uint32_t>(cred.pid);
  }
  return p;
}


std::unique_ptr<listener> listen_tcp(asio::io_context& io, const endpoint& where, const listen_options& options) {
  const std::string uri = where.uri();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(where.port);
  if (const int r = ::getaddrinfo(where.host.c_str(), port.c_str(), &hints, &found); r != 0) {
    fail(errc::not_found, uri + ": cannot resolve \"" + where.host + "\": " + ::gai_strerror(r));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);
  int last = 0;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    fd_guard fd(::socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) {
      last = errno;
      continue;
    }
    const int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd.get(), options.backlog) != 0) {
      last = errno;
      continue;
    }
    auto s = std::make_shared<listener_state>(io, fd.get());
    fd.release();
    s->uri = local_address(s->descriptor.native_handle());
    return std::make_unique<socket_listener>(std::move(s));
  }
  if (last == EADDRINUSE) fail(errc::address_in_use, uri + ": address in use (another listener has the port)");
  fail_errno(errc::io_error, uri + ": bind", last);
}

std::unique_ptr<listener> listen_unix_path(asio::io_context& io, const std::string& path, const std::string& uri,
                                           const listen_options& options, make_accepted make) {
  const sockaddr_un a = unix_address(path, uri);
  fd_guard fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) fail_errno(errc::io_error, uri + ": socket", errno);
  const auto bind_once = [&] { return ::bind(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0; };
  if (!bind_once()) {
    if (errno != EADDRINUSE) fail_errno(errc::io_error, uri + ": bind", errno);
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && !S_ISSOCK(st.st_mode)) {
      fail(errc::address_in_use, uri + ": " + path + " exists and is not a socket (left as it is)");
    }
    if (unix_socket_is_live(a, uri)) {
      fail(errc::address_in_use, uri + ": another listener is live on " + path);
    }
    // A stale socket file: nobody listens on it any more.
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      fail_errno(errc::io_error, uri + ": removing the stale socket file " + path, errno);
    }
    if (!bind_once()) {
      if (errno == EADDRINUSE) fail(errc::address_in_use, uri + ": another listener took " + path);
      fail_errno(errc::io_error, uri + ": bind", errno);
    }
  }
  struct stat st {};
  const bool stat_ok = ::lstat(path.c_str(), &st) == 0;
  const auto undo = [&](std::string_view what, int err) {
    if (stat_ok) ::unlink(path.c_str());
    fail_errno(errc::io_error, uri + ": " + std::string(what), err);
  };
  if (!stat_ok) undo("stat of the new socket file", errno);
  if (options.unix_mode && ::chmod(path.c_str(), static_cast<mode_t>(*options.unix_mode)) != 0) {
    undo("chmod", errno);
  }
  if (::listen(fd.get(), options.backlog) != 0) undo("listen", errno);
  auto s = std::make_shared<listener_state>(io, fd.get());
  fd.release();
  s->is_unix = true;
  s->uri = uri;
  s->unix_path = path;
  s->unix_dev = st.st_dev;
  s->unix_ino = st.st_ino;
  s->make = std::move(make);
  return std::make_unique<socket_listener>(std::move(s));
}

std::unique_ptr<listener> listen_unix(asio::io_context& io, const endpoint& where, const listen_options& options) {
  return listen_unix_path(io, where.path, where.uri(), options, {});
}

std::unique_ptr<stream> connect_tcp(asio::io_context& io, const endpoint& where, time_point deadline) {
  const std::string uri = where.uri();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(where.port);
  if (const int r = ::getaddrinfo(where.host.c_str(), port.c_str(), &hints, &found); r != 0) {
    fail(errc::not_found, uri + ": cannot resolve \"" + where.host + "\": " + ::gai_strerror(r));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);
  int last = 0;
  bool refused = false;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    fd_guard fd(::socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) {
      last = errno;
      continue;
    }
    int err = 0;
    if (::connect(fd.get(), a->ai_addr, a->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS || err == EINTR) {
        if (!wait_fd(fd.get(), POLLOUT, deadline)) fail(errc::timed_out, uri + ": connect timed out");
        socklen_t n = sizeof err;
        if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &n) != 0) err = errno;
      }
    }
    if (err != 0) {
      refused = refused || err == ECONNREFUSED;
      last = err;
      continue;
    }
    set_nodelay(fd.get());
    peer_identity peer = tcp_peer(fd.get());
    auto s = std::make_unique<socket_stream>(io, fd.get(), std::move(peer));
    fd.release();
    return s;
  }
  if (refused) fail(errc::connection_refused, uri + ": connection refused (nobody listens there)");
  fail_errno(errc::io_error, uri + ": connect", last);
}

int connect_unix_fd(const std::string& path, const std::string& uri, time_point deadline) {
  const sockaddr_un a = unix_address(path, uri);
  fd_guard fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) fail_errno(errc::io_error, uri + ": socket", errno);
  for (;;) {
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) break;
    const int err = errno;
    if (err == EINTR) continue;
    if (err == ENOENT) fail(errc::connection_refused, uri + ": no socket file at " + path);
    if (err == ECONNREFUSED) fail(errc::connection_refused, uri + ": connection refused (nobody listens there)");
    if (err != EAGAIN) fail_errno(errc::io_error, uri + ": connect", err);
    // The listener's backlog is full: try again until the deadline.
    const auto now = clock::now();
    if (now >= deadline) fail(errc::timed_out, uri + ": connect timed out (the listener's backlog is full)");
    std::this_thread::sleep_for(std::min<clock::duration>(std::chrono::milliseconds(2), deadline - now));
  }
  return fd.release();
}

std::unique_ptr<stream> connect_unix(asio::io_context& io, const endpoint& where, time_point deadline) {
  const std::string uri = where.uri();
  fd_guard fd(connect_unix_fd(where.path, uri, deadline));
  peer_identity peer = unix_peer(fd.get(), uri);
  auto s = std::make_unique<socket_stream>(io, fd.get(), std::move(peer));
  fd.release();
  return s;
}

}  // namespace refwire::transports::detail
