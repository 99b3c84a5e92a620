// bench/rpc/floors.cpp: the raw floors (floors.hpp).
//
// The session protocol, shared by every floor transport: the client sends a
// 12-byte header (u32 request size, u32 reply size, u32 flags; flag 1: one
// round trip, then the server closes, two with flag 4 as well; flag 2: values,
// below), then requests
// of exactly `request` bytes. The server answers each with the first `reply` bytes of it (zeros
// past the request). A request whose first byte is 0xff ends the session
// without a reply; the next header, or end of stream, follows. With flag 2
// each side handles the bytes as an RPC call's values at least must be: the
// server reads each request into a new vector, copies its first `reply` bytes
// into another (a handler returning what it got) and sends that; the client
// reads each reply into a new vector.
#include "floors.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <thread>

namespace rpcbench::floors {
namespace {

constexpr std::uint32_t flag_one_shot = 1;
constexpr std::uint32_t flag_values = 2;
constexpr std::uint32_t flag_twice = 4;  // with flag_one_shot: two round trips, then close
constexpr std::byte end_of_session{0xff};
constexpr std::size_t max_message = std::size_t{64} << 20;  // the server refuses a header asking for more
constexpr auto client_wait = std::chrono::seconds(10);      // a floor server that does not answer by then is broken

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("floor: " + what + ": " + std::strerror(errno)); }

struct header {
  std::uint32_t request = 0;
  std::uint32_t reply = 0;
  std::uint32_t flags = 0;
};

// -- sockets --

class socket_pipe final : public byte_pipe {
 public:
  explicit socket_pipe(int fd) : fd_(fd) {}
  ~socket_pipe() override { close(fd_); }
  socket_pipe(const socket_pipe&) = delete;
  socket_pipe& operator=(const socket_pipe&) = delete;

  void write_all(const std::byte* p, std::size_t n) override {
    while (n > 0) {
      const ssize_t k = send(fd_, p, n, MSG_NOSIGNAL);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) fail("send");
      p += k;
      n -= static_cast<std::size_t>(k);
    }
  }
  bool read_exact(std::byte* p, std::size_t n) override {
    std::size_t got = 0;
    while (got < n) {
      const ssize_t k = recv(fd_, p + got, n - got, 0);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        errno = ETIMEDOUT;
        fail("no reply within 10 s");
      }
      if (k < 0) fail("recv");
      if (k == 0) {
        if (got == 0) return false;
        errno = ECONNRESET;
        fail("end of stream inside a message");
      }
      got += static_cast<std::size_t>(k);
    }
    return true;
  }

 private:
  int fd_;
};

int connect_socket(std::string_view transport, const std::string& address) {
  int fd = -1;
  if (transport == "unix") {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    if (address.size() >= sizeof a.sun_path) throw std::runtime_error("floor: socket path too long: " + address);
    std::memcpy(a.sun_path, address.c_str(), address.size() + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) fail("socket");
    if (connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
      close(fd);
      fail("connect " + address);
    }
  } else {
    const auto colon = address.rfind(':');
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(std::atoi(address.c_str() + colon + 1)));
    if (colon == std::string::npos || inet_pton(AF_INET, address.substr(0, colon).c_str(), &a.sin_addr) != 1)
      throw std::runtime_error("floor: not an IPv4 address:port: " + address);
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) fail("socket");
    if (connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
      close(fd);
      fail("connect " + address);
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  timeval tv{};
  tv.tv_sec = std::chrono::duration_cast<std::chrono::seconds>(client_wait).count();
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

// -- shared memory: two rings, futex wake-ups --

using word = std::atomic<std::uint32_t>;
static_assert(sizeof(word) == 4 && word::is_always_lock_free, "a futex word is 32 bits");
static_assert((shm_ring_size & (shm_ring_size - 1)) == 0 && shm_ring_size <= (std::size_t{1} << 31),
              "positions are counted modulo 2^32, so the ring size must divide it");

// Positions count bytes modulo 2^32; head - tail is what the ring holds.
// A side about to sleep counts itself in *_waiters first, so the other side
// makes the wake syscall only when somebody sleeps (the seq_cst store of the
// position and load of the waiters on one side, and the increment and reload
// on the other, cannot both miss).
struct ring {
  alignas(64) word head{0};
  word head_waiters{0};
  alignas(64) word tail{0};
  word tail_waiters{0};
  alignas(64) std::byte data[shm_ring_size];
};

struct region {
  ring to_server;
  ring to_client;
};

void futex_wake(word& w) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&w), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

// Sleeps while w == seen (up to 100 ms per sleep); throws past the deadline.
void wait_change(word& w, word& waiters, std::uint32_t seen, std::chrono::steady_clock::time_point deadline) {
  waiters.fetch_add(1, std::memory_order_seq_cst);
  if (w.load(std::memory_order_seq_cst) == seen) {
    const timespec slice{0, 100'000'000};
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&w), FUTEX_WAIT, seen, &slice, nullptr, 0);
  }
  waiters.fetch_sub(1, std::memory_order_seq_cst);
  if (std::chrono::steady_clock::now() > deadline) {
    errno = ETIMEDOUT;
    fail("shared memory: no progress within 10 s");
  }
}

class shm_pipe final : public byte_pipe {
 public:
  shm_pipe(region* r, bool server) : region_(r), out_(server ? r->to_client : r->to_server),
                                     in_(server ? r->to_server : r->to_client), server_(server) {}
  ~shm_pipe() override { munmap(region_, sizeof(region)); }
  shm_pipe(const shm_pipe&) = delete;
  shm_pipe& operator=(const shm_pipe&) = delete;

  void write_all(const std::byte* p, std::size_t n) override {
    const auto deadline = next_deadline();
    while (n > 0) {
      const std::uint32_t h = out_.head.load(std::memory_order_relaxed);
      const std::uint32_t t = out_.tail.load(std::memory_order_acquire);
      const std::size_t space = shm_ring_size - static_cast<std::uint32_t>(h - t);
      if (space == 0) {
        wait_change(out_.tail, out_.tail_waiters, t, deadline);
        continue;
      }
      const std::size_t k = std::min(space, n);
      const std::size_t at = h % shm_ring_size;
      const std::size_t first = std::min(k, shm_ring_size - at);
      std::memcpy(out_.data + at, p, first);
      std::memcpy(out_.data, p + first, k - first);
      out_.head.store(h + static_cast<std::uint32_t>(k), std::memory_order_seq_cst);
      if (out_.head_waiters.load(std::memory_order_seq_cst) != 0) futex_wake(out_.head);
      p += k;
      n -= k;
    }
  }
  bool read_exact(std::byte* p, std::size_t n) override {
    const auto deadline = next_deadline();
    while (n > 0) {
      const std::uint32_t t = in_.tail.load(std::memory_order_relaxed);
      const std::uint32_t h = in_.head.load(std::memory_order_acquire);
      const std::size_t avail = static_cast<std::uint32_t>(h - t);
      if (avail > shm_ring_size) {
        errno = EPROTO;
        fail("shared memory: ring indices that cannot be");
      }
      if (avail == 0) {
        wait_change(in_.head, in_.head_waiters, h, deadline);
        continue;
      }
      const std::size_t k = std::min(avail, n);
      const std::size_t at = t % shm_ring_size;
      const std::size_t first = std::min(k, shm_ring_size - at);
      std::memcpy(p, in_.data + at, first);
      std::memcpy(p + first, in_.data, k - first);
      in_.tail.store(t + static_cast<std::uint32_t>(k), std::memory_order_seq_cst);
      if (in_.tail_waiters.load(std::memory_order_seq_cst) != 0) futex_wake(in_.tail);
      p += k;
      n -= k;
    }
    return true;
  }

 private:
  // The server waits for its client as long as it takes; the client gives up after client_wait.
  [[nodiscard]] std::chrono::steady_clock::time_point next_deadline() const {
    return server_ ? std::chrono::steady_clock::time_point::max() : std::chrono::steady_clock::now() + client_wait;
  }
  region* region_;
  ring& out_;
  ring& in_;
  bool server_;
};

region* map_region(int fd) {
  void* p = mmap(nullptr, sizeof(region), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) fail("mmap");
  return static_cast<region*>(p);
}

// -- the server --

// Runs sessions on p until end of stream. One-shot sessions end the connection.
void serve_pipe(byte_pipe& p) {
  std::vector<std::byte> buf;
  header h;
  while (p.read_exact(reinterpret_cast<std::byte*>(&h), sizeof h)) {
    if (h.request == 0 || h.request > max_message || h.reply > max_message) return;
    buf.assign(std::max(h.request, h.reply), std::byte{0});
    if ((h.flags & flag_values) != 0 && h.reply <= h.request) {
      for (;;) {
        std::vector<std::byte> in(h.request);
        if (!p.read_exact(in.data(), h.request)) return;
        if (in[0] == end_of_session) break;
        const std::vector<std::byte> out(in.begin(), in.begin() + h.reply);
        p.write_all(out.data(), out.size());
      }
      continue;
    }
    int round_trips = 0;
    for (;;) {
      if (!p.read_exact(buf.data(), h.request)) return;
      if (buf[0] == end_of_session) break;
      p.write_all(buf.data(), h.reply);
      ++round_trips;
      if ((h.flags & flag_one_shot) != 0 && round_trips == ((h.flags & flag_twice) != 0 ? 2 : 1)) return;
    }
  }
}

void serve_sockets(int listener) {
  for (;;) {
    const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // fails harmlessly on unix sockets
    // Peek at the header: a one-shot connection (the Conn floor) is served on
    // this thread, as refwire's IO thread would; a long session gets a thread.
    header h;
    ssize_t k = 0;
    do {
      k = recv(fd, &h, sizeof h, MSG_PEEK | MSG_WAITALL);
    } while (k < 0 && errno == EINTR);
    if (k == static_cast<ssize_t>(sizeof h) && (h.flags & flag_one_shot) != 0) {
      socket_pipe p(fd);
      try {
        serve_pipe(p);
      } catch (const std::exception&) {
      }
    } else {
      std::thread([fd] {
        socket_pipe p(fd);
        try {
          serve_pipe(p);
        } catch (const std::exception&) {
        }
      }).detach();
    }
  }
}

}  // namespace

int serve(std::string_view transport, const std::string& dir) {
  std::string address;
  std::string socket_file;
  if (transport == "unix" || transport == "tcp") {
    int fd = -1;
    if (transport == "unix") {
      socket_file = dir + "/floor.sock";
      sockaddr_un a{};
      a.sun_family = AF_UNIX;
      if (socket_file.size() >= sizeof a.sun_path) throw std::runtime_error("floor: socket path too long: " + socket_file);
      std::memcpy(a.sun_path, socket_file.c_str(), socket_file.size() + 1);
      fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0 || bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) fail("bind " + socket_file);
      address = socket_file;
    } else {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      const int one = 1;
      if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      socklen_t len = sizeof a;
      if (fd < 0 || bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 ||
          getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
        fail("bind 127.0.0.1:0");
      address = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
    }
    if (listen(fd, 512) != 0) fail("listen");
    std::thread(serve_sockets, fd).detach();
  } else if (transport == "shm") {
    // The driver maps the same memory by opening /proc/<pid>/fd/<fd>: nothing
    // is left in the file system, whatever happens to either process.
    const int fd = memfd_create("refwire-rpc-floor", 0);
    if (fd < 0 || ftruncate(fd, sizeof(region)) != 0) fail("memfd_create");
    region* r = new (map_region(fd)) region;
    address = "/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(fd);
    std::thread([r] {
      shm_pipe p(r, true);
      try {
        serve_pipe(p);
      } catch (const std::exception&) {
      }
    }).detach();
  } else {
    std::fprintf(stderr, "bench_rpc --serve=floor: unknown transport %.*s (unix, tcp or shm)\n",
                 static_cast<int>(transport.size()), transport.data());
    return 1;
  }
  std::printf("ready %s\n", address.c_str());
  std::fflush(stdout);
  char line[128];
  while (std::fgets(line, sizeof line, stdin)) {
  }
  if (!socket_file.empty()) unlink(socket_file.c_str());
  // The serving threads are blocked in reads; end the process without unwinding them.
  std::fflush(stdout);
  std::_Exit(0);
}

client::client(std::string_view transport, const std::string& address) : transport_(transport), address_(address) {}

client::~client() = default;

void client::use(std::size_t request, std::size_t reply, bool values) {
  // Connecting here, just before the header, keeps the server's accept thread
  // from waiting on a connection that has not said what it is yet.
  if (!pipe_ && transport_ == "shm") {
    const int fd = open(address_.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) fail("open " + address_);
    region* r = map_region(fd);
    close(fd);
    pipe_ = std::make_unique<shm_pipe>(r, false);
  } else if (!pipe_) {
    pipe_ = std::make_unique<socket_pipe>(connect_socket(transport_, address_));
  }
  if (in_session_ && request == request_.size() && reply == reply_.size() && values == values_) return;
  if (in_session_) {
    request_[0] = end_of_session;
    pipe_->write_all(request_.data(), request_.size());
  }
  const header h{static_cast<std::uint32_t>(request), static_cast<std::uint32_t>(reply), values ? flag_values : 0};
  pipe_->write_all(reinterpret_cast<const std::byte*>(&h), sizeof h);
  request_.assign(request, std::byte{0});
  for (std::size_t i = 1; i < request; ++i) request_[i] = static_cast<std::byte>(i * 131 + 7);
  reply_.assign(reply, std::byte{0});
  in_session_ = true;
  values_ = values;
}

void client::round_trip() {
  request_[0] = std::byte{0};
  pipe_->write_all(request_.data(), request_.size());
  if (values_) {  // a new vector for each reply, kept in reply_ until the next
    std::vector<std::byte> fresh(reply_.size());
    const bool got = pipe_->read_exact(fresh.data(), fresh.size());
    reply_.swap(fresh);
    if (got || reply_.empty()) return;
    errno = ECONNRESET;
    fail("the server closed the session");
  }
  if (!pipe_->read_exact(reply_.data(), reply_.size()) && !reply_.empty()) {
    errno = ECONNRESET;
    fail("the server closed the session");
  }
}

void connect_round_trip_close(std::string_view transport, const std::string& address, std::size_t request,
                              std::size_t reply, int round_trips) {
  // Header and request in one write, as a client would send its first call.
  std::byte buf[512]{};
  if (sizeof(header) + request > sizeof buf || reply > sizeof buf)
    throw std::runtime_error("floor: the Conn floor takes messages of at most 500 bytes");
  const header h{static_cast<std::uint32_t>(request), static_cast<std::uint32_t>(reply),
                 flag_one_shot | (round_trips == 2 ? flag_twice : 0)};
  std::memcpy(buf, &h, sizeof h);
  socket_pipe p(connect_socket(transport, address));
  p.write_all(buf, sizeof h + request);
  if (!p.read_exact(buf, reply)) {
    errno = ECONNRESET;
    fail("the server closed before its reply");
  }
  if (round_trips == 2) {
    std::memset(buf, 0, request);
    p.write_all(buf, request);
    if (!p.read_exact(buf, reply)) {
      errno = ECONNRESET;
      fail("the server closed before its second reply");
    }
  }
}

}  // namespace rpcbench::floors
