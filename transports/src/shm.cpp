// shm://name: two byte rings in a memfd shared with a process on this machine.
//
// Setup: the listener is a unix socket at the rendezvous path (shm_ring.hpp).
// For each accepted connection it makes a memfd (sealed: no shrinking, so the
// peer cannot make our mapping fault) and a socket pair, and sends the memfd
// and one end of the pair on the accepted socket. connect() returns as soon as
// the unix socket is connected; the connecting side takes the setup message
// on its first operation (a listener accepts on its own io_context, maybe in
// this very thread).
//
// Wake-ups: a side that is about to sleep sets its wants_data (or wants_room)
// flag, then looks at the ring once more; the other side, after publishing
// (or taking) bytes, looks at the flag and, only when it is set, clears it and
// wakes the sleeper. So the kernel is entered only when the peer sleeps. The
// flag says how to wake:
//   - sleeping_futex: a blocking call (read_some, write_all) waits on the flag
//     word itself (FUTEX_WAIT, shared: the word is in the mapping), in slices
//     of at most futex_slice: between slices it looks at its socket, so a
//     peer that died is seen within a slice;
//   - sleeping_socket: an asynchronous call waits on the io_context for a
//     byte on a socket, which the waker sends: "data for you" on the setup
//     socket, "room for you" on the pair. The same sockets end with end of
//     stream when the peer closes or its process dies, which wakes it at once.
// Sockets rather than eventfds for what asio waits on: an eventfd passed to
// the peer shares its file status flags, so a hostile peer could clear
// O_NONBLOCK and fill the counter, and a wake-up would block; send() with
// MSG_DONTWAIT cannot be made to block, and FUTEX_WAKE never blocks. A blocking
// sleeper spins for a few microseconds first, but only when the peer last ran
// on another CPU and there are several (a cross-CPU wake-up costs far more).
//
// The mapping is shared with a process that may be hostile: indices are read
// once into locals and checked against this side's own copies; a bad one
// fails the stream with io_error naming it. Garbage inside a ring is just bytes.
#include "internal.hpp"
#include "shm_ring.hpp"

#include <refwire/transports/transport.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/system/error_code.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/futex.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

namespace refwire::transports::detail {
namespace shm {
namespace {

namespace asio = boost::asio;
using read_handler = std::function<void(errc, std::size_t)>;
using wait_handler = std::function<void(errc)>;

constexpr auto spin_limit = std::chrono::microseconds(5);
constexpr auto futex_slice = std::chrono::milliseconds(50);  // how late a blocked call may see a dead peer

// The values of side_line::wants_data and wants_room.
constexpr std::uint32_t awake = 0;
constexpr std::uint32_t sleeping_socket = 1;  // wake with a byte on the socket
constexpr std::uint32_t sleeping_futex = 2;   // wake with FUTEX_WAKE on the flag

std::uint32_t* futex_word(std::atomic<std::uint32_t>& flag) noexcept { return reinterpret_cast<std::uint32_t*>(&flag); }

void futex_wake(std::atomic<std::uint32_t>& flag) noexcept {
  (void)::syscall(SYS_futex, futex_word(flag), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

/// Wakes the peer sleeping on flag (if it still is), the way the flag says.
void wake(std::atomic<std::uint32_t>& flag, int fd) noexcept;

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

bool several_cpus() {
  static const bool several = std::thread::hardware_concurrency() > 1;
  return several;
}

/// One wake-up byte; never blocks, never raises SIGPIPE. A full socket already
/// holds a wake-up; a peer gone is seen by the sleeper's end of stream.
void send_wake(int fd) noexcept {
  const char one = 1;
  (void)::send(fd, &one, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void wake(std::atomic<std::uint32_t>& flag, int fd) noexcept {
  if (flag.load(std::memory_order_relaxed) == awake) return;
  const std::uint32_t was = flag.exchange(awake);
  if (was == sleeping_futex) {
    futex_wake(flag);
  } else if (was != awake) {
    send_wake(fd);
  }
}

/// Reads the wake-up bytes waiting on fd; true at end of stream (the peer closed or died).
bool drain(int fd) noexcept {
  char buf[64];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) continue;
    if (n == 0) return true;
    if (errno == EINTR) continue;
    return errno != EAGAIN && errno != EWOULDBLOCK;  // a reset is an end too
  }
}

/// The mapping and everything pending operations need after the stream is gone.
class core : public std::enable_shared_from_this<core> {
 public:
  core(asio::io_context& io, int side, int data_fd, std::string address)
      : io_(io), side_(side), data_fd_(data_fd), data_desc_(io, data_fd),
        peer_(unix_peer(data_fd, address)) {}
  core(const core&) = delete;
  core& operator=(const core&) = delete;
  ~core() {
    if (base_ != nullptr) ::munmap(base_, mapped_);
  }

  // -- setup --

  /// Maps memfd (see open_stream) and adopts wake_fd; throws io_error. mutex_
  /// held, or the core not shared yet.
  void attach(int memfd, std::size_t ring_size, int wake_fd) {
    fd_guard wake(wake_fd);
    const std::string& where = peer_.address;
    if (!valid_ring_size(ring_size)) {
      fail(errc::io_error, where + ": the ring size " + std::to_string(ring_size) + " is not a power of two from " +
                               std::to_string(shm_min_ring_size) + " to " + std::to_string(shm_max_ring_size));
    }
    const std::size_t bytes = mapping_bytes(ring_size);
    struct stat st {};
    if (::fstat(memfd, &st) != 0) fail_errno(errc::io_error, where + ": fstat of the shared memory", errno);
    if (!S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) != bytes) {
      fail(errc::io_error, where + ": the shared memory is " + std::to_string(st.st_size) + " bytes, expected " +
                               std::to_string(bytes) + " for a ring size of " + std::to_string(ring_size));
    }
    const int seals = ::fcntl(memfd, F_GET_SEALS);
    if (seals < 0 || (seals & F_SEAL_SHRINK) == 0) {
      fail(errc::io_error, where + ": the shared memory is not sealed against shrinking");
    }
    void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (base == MAP_FAILED) fail_errno(errc::io_error, where + ": mmap of the shared memory", errno);
    auto* cb = static_cast<control_block*>(base);
    const auto refuse = [&](const std::string& what) {
      ::munmap(base, bytes);
      fail(errc::io_error, where + ": " + what);
    };
    const header_line h = cb->header;  // read once
    if (h.magic != magic) refuse("bad magic " + std::to_string(h.magic) + " in the shared memory's control block");
    if (h.version != version) {
      refuse("the control block's version is " + std::to_string(h.version) + ", expected " + std::to_string(version));
    }
    if (h.ring_size != ring_size) {
      refuse("the control block's ring size " + std::to_string(h.ring_size) + " is not the setup message's " +
             std::to_string(ring_size));
    }
    const std::uint64_t w = cb->write[side_].value.load(std::memory_order_acquire);
    const std::uint64_t r = cb->read[1 - side_].value.load(std::memory_order_acquire);
    if (w != 0 || r != 0) {
      refuse("this side's indices are not zero at the start (write " + std::to_string(w) + ", read " +
             std::to_string(r) + ")");
    }
    boost::system::error_code ec;
    room_desc_.assign(wake.get(), ec);
    if (ec) refuse("the wake socket: " + ec.message());
    room_fd_ = wake.release();
    base_ = base;
    mapped_ = bytes;
    cb_ = cb;
    size_ = ring_size;
    out_ = static_cast<std::byte*>(base) + control_bytes + static_cast<std::size_t>(side_) * ring_size;
    in_ = static_cast<std::byte*>(base) + control_bytes + static_cast<std::size_t>(1 - side_) * ring_size;
    if (closed_.load()) {
      cb_->side[side_].closed.store(1, std::memory_order_release);
      ::shutdown(room_fd_, SHUT_RDWR);
    }
    ready_.store(true, std::memory_order_release);
  }

  enum class setup_state { ready, waiting, ended };

  /// Connecting side: takes the setup message if it is there (never blocks). mutex_ held.
  setup_state poll_setup() {
    if (ready_.load(std::memory_order_acquire)) return setup_state::ready;
    if (setup_ended_) return setup_state::ended;
    setup_message m{};
    iovec iov{&m, sizeof m};
    alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))];
    msghdr h{};
    h.msg_iov = &iov;
    h.msg_iovlen = 1;
    h.msg_control = control;
    h.msg_controllen = sizeof control;
    ssize_t n;
    do {
      n = ::recvmsg(data_fd_, &h, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return setup_state::waiting;
    // Every descriptor that came is ours to close, whatever else is wrong.
    fd_guard fds[4];
    int count = 0;
    if (n > 0) {
      for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const std::size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < k && count < 4; ++i) {
          int fd;
          std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
          fds[count++].reset(fd);
        }
      }
    }
    const std::string& where = peer_.address;
    if (n <= 0) {
      if (closed_.load()) fail(errc::closed, where + ": the stream is closed");
      setup_ended_ = true;  // the listener dropped the connection before its setup
      return setup_state::ended;
    }
    const auto bad = [&](const std::string& what) {
      setup_ended_ = true;
      break_stream(where + ": " + what);
    };
    if (static_cast<std::size_t>(n) != sizeof m || count != 2 || (h.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) != 0) {
      bad("the setup message from the listener is malformed (" + std::to_string(n) + " bytes, " +
          std::to_string(count) + " descriptors; expected " + std::to_string(sizeof m) + " bytes and 2)");
    }
    if (m.magic != magic || m.version != version) bad("the setup message from the listener has a bad magic or version");
    try {
      attach(fds[0].get(), static_cast<std::size_t>(m.ring_size), fds[1].release());
    } catch (const transport_error& e) {
      setup_ended_ = true;
      break_stream(e.what());
    }
    return setup_state::ready;
  }

  setup_state setup_now() {
    if (ready_.load(std::memory_order_acquire)) return setup_state::ready;
    std::lock_guard lock(mutex_);
    return poll_setup();
  }

  /// Blocking: poll_setup until ready or ended, or the deadline (timed_out).
  bool wait_setup(time_point deadline, std::string_view what) {
    for (;;) {
      check_usable();
      const setup_state s = setup_now();
      if (s == setup_state::ready) return true;
      if (s == setup_state::ended) return false;
      if (!wait_fd(data_fd_, POLLIN, deadline)) fail(errc::timed_out, peer_.address + ": " + std::string(what) + " timed out");
    }
  }

  // -- blocking --

  std::size_t read_some(std::span<std::byte> into, time_point deadline) {
    if (into.empty()) fail(errc::io_error, peer_.address + ": read into an empty buffer");
    if (!wait_setup(deadline, "read")) return 0;
    note_cpu();
    bool spun = false;
    for (;;) {
      check_usable();
      if (const std::size_t n = take(into); n > 0) return n;
      if (peer_gone()) return take(into);  // what it wrote before it went, then end of stream
      if (!spun) {
        spun = true;
        if (spin([&] { return data_ready(); })) continue;
      }
      mine().wants_data.store(sleeping_futex, std::memory_order_seq_cst);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      if (data_ready() || peer_gone() || closed_.load()) {
        mine().wants_data.store(awake, std::memory_order_relaxed);
        continue;
      }
      if (!sleep_on(mine().wants_data, data_fd_, data_eof_, deadline)) {
        mine().wants_data.store(awake, std::memory_order_relaxed);
        check_usable();
        fail(errc::timed_out, peer_.address + ": read timed out");
      }
    }
  }

  void write_all(buffer_list parts, time_point deadline) {
    gather g(parts);
    if (g.done()) return;
    if (!wait_setup(deadline, "write")) fail_broken_pipe();
    note_cpu();
    bool spun = false;
    while (!g.done()) {
      check_usable();
      if (peer_gone()) fail_broken_pipe();
      if (put(g) > 0) continue;
      if (!spun) {
        spun = true;
        if (spin([&] { return room_ready(); })) continue;
      }
      mine().wants_room.store(sleeping_futex, std::memory_order_seq_cst);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      if (room_ready() || peer_gone() || closed_.load()) {
        mine().wants_room.store(awake, std::memory_order_relaxed);
        continue;
      }
      if (!sleep_on(mine().wants_room, room_fd_, room_eof_, deadline)) {
        mine().wants_room.store(awake, std::memory_order_relaxed);
        check_usable();
        fail(errc::timed_out, peer_.address + ": write timed out");
      }
    }
  }

  std::size_t try_write(buffer_list parts) {
    check_usable();
    const setup_state s = setup_now();
    check_usable();
    if (s == setup_state::waiting) return 0;
    if (s == setup_state::ended || peer_gone()) fail_broken_pipe();
    note_cpu();
    gather g(parts);
    return g.done() ? 0 : put(g);
  }

  // -- asynchronous --

  void async_read_some(std::span<std::byte> into, read_handler done) {
    std::unique_lock lock(mutex_);
    errc code = errc::ok;
    std::size_t n = 0;
    if (!read_step(into, done, code, n)) return;
    lock.unlock();
    asio::post(io_, [done = std::move(done), code, n] { done(code, n); });
  }

  void async_wait_writable(wait_handler done) {
    std::unique_lock lock(mutex_);
    errc code = errc::ok;
    if (!room_step(done, code)) return;
    lock.unlock();
    asio::post(io_, [done = std::move(done), code] { done(code); });
  }

  void close() noexcept {
    if (closed_.exchange(true)) return;
    std::lock_guard lock(mutex_);
    if (cb_ != nullptr) {
      cb_->side[side_].closed.store(1, std::memory_order_release);
      wake_own_sleepers();
    }
    // Wakes this side's sleepers in poll() and tells the peer (end of stream on both sockets).
    ::shutdown(data_fd_, SHUT_RDWR);
    if (room_fd_ >= 0) ::shutdown(room_fd_, SHUT_RDWR);
    boost::system::error_code ignored;
    data_desc_.cancel(ignored);
    room_desc_.cancel(ignored);
  }

  [[nodiscard]] const peer_identity& peer() const noexcept { return peer_; }
  [[nodiscard]] int native_handle() const noexcept { return data_fd_; }

 private:
  side_line& mine() noexcept { return cb_->side[side_]; }
  side_line& theirs() noexcept { return cb_->side[1 - side_]; }

  /// Wakes both sides' sleepers once this side is closed or broken: its own
  /// blocking calls, and the peer's (a futex sleeper does not watch the socket
  /// whose end tells it; it would see it only after its slice).
  void wake_own_sleepers() noexcept {
    mine().wants_data.store(awake);
    mine().wants_room.store(awake);
    futex_wake(mine().wants_data);
    futex_wake(mine().wants_room);
    wake(theirs().wants_data, data_fd_);
    wake(theirs().wants_room, room_fd_);
  }

  /// Sleeps on flag (set to sleeping_futex) for one slice, at most until the
  /// deadline (false once it has passed). A slice nobody woke ends with a look
  /// at fd: its end of stream is a peer that died (eof).
  bool sleep_on(std::atomic<std::uint32_t>& flag, int fd, std::atomic<bool>& eof, time_point deadline) {
    const auto now = clock::now();
    if (now >= deadline) return false;
    const auto slice = std::chrono::duration_cast<std::chrono::nanoseconds>(
        deadline - now < futex_slice ? deadline - now : clock::duration(futex_slice));
    timespec ts{static_cast<time_t>(slice.count() / 1000000000), static_cast<long>(slice.count() % 1000000000)};
    const long r = ::syscall(SYS_futex, futex_word(flag), FUTEX_WAIT, sleeping_futex, &ts, nullptr, 0);
    if (r != 0 && errno == ETIMEDOUT) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 0) > 0 && drain(fd)) eof.store(true);
    }
    return true;
  }

  [[noreturn]] void fail_broken_pipe() const { fail(errc::io_error, peer_.address + ": write: broken pipe"); }

  /// Throws closed after close(), io_error once the stream broke.
  void check_usable() const {
    if (closed_.load()) fail(errc::closed, peer_.address + ": the stream is closed");
    if (broken_.load(std::memory_order_acquire)) {
      std::lock_guard lock(broken_mutex_);
      fail(errc::io_error, broken_what_);
    }
  }

  /// A peer that broke the rules: the stream fails from now on (the peer sees it end).
  [[noreturn]] void break_stream(const std::string& what) {
    {
      std::lock_guard lock(broken_mutex_);
      if (!broken_.load()) {
        broken_what_ = what;
        broken_.store(true, std::memory_order_release);
      }
    }
    ::shutdown(data_fd_, SHUT_RDWR);
    if (room_fd_ >= 0) ::shutdown(room_fd_, SHUT_RDWR);
    if (cb_ != nullptr) {
      mine().closed.store(1, std::memory_order_release);  // to the peer it is closed
      wake_own_sleepers();
    }
    fail(errc::io_error, what);
  }

  /// The peer closed or died (no more bytes will come; writes are a broken pipe).
  bool peer_gone() const noexcept {
    return data_eof_.load() || room_eof_.load() || cb_->side[1 - side_].closed.load(std::memory_order_acquire) != 0;
  }

  void note_cpu() noexcept {
    const int cpu = ::sched_getcpu();
    if (cpu != last_cpu_.load(std::memory_order_relaxed)) {
      last_cpu_.store(cpu, std::memory_order_relaxed);
      mine().cpu.store(cpu, std::memory_order_relaxed);
    }
  }

  /// Spins for up to spin_limit while the peer runs on another CPU; pred()'s last value.
  template <class Pred>
  bool spin(Pred pred) {
    const int peer_cpu = theirs().cpu.load(std::memory_order_relaxed);
    if (!several_cpus() || peer_cpu < 0 || peer_cpu == last_cpu_.load(std::memory_order_relaxed)) return false;
    const auto end = clock::now() + spin_limit;
    for (;;) {
      for (int i = 0; i < 64; ++i) {
        if (pred()) return true;
        cpu_relax();
      }
      if (clock::now() >= end) return pred();
    }
  }

  /// Bytes (or a change to look at) in the incoming ring.
  bool data_ready() const noexcept {
    return cb_->write[1 - side_].value.load(std::memory_order_acquire) != seen_write_ || seen_write_ != read_pos_;
  }
  /// Room (or a change to look at) in the outgoing ring.
  bool room_ready() const noexcept {
    const std::uint64_t r = cb_->read[side_].value.load(std::memory_order_acquire);
    return r != seen_read_ || write_pos_ - seen_read_ < size_;
  }

  /// Takes what the incoming ring holds, up to into.size(); the reader's only.
  std::size_t take(std::span<std::byte> into) {
    const std::uint64_t w = cb_->write[1 - side_].value.load(std::memory_order_acquire);  // once
    if (w < seen_write_) {
      break_stream(peer_.address + ": the peer's write index " + std::to_string(w) + " moved backwards (from " +
                   std::to_string(seen_write_) + ")");
    }
    if (w - read_pos_ > size_) {
      break_stream(peer_.address + ": the peer's write index " + std::to_string(w) + " is more than the ring size (" +
                   std::to_string(size_) + ") ahead of the read index " + std::to_string(read_pos_));
    }
    seen_write_ = w;
    const std::size_t n = std::min<std::uint64_t>(w - read_pos_, into.size());
    if (n == 0) return 0;
    const std::size_t at = static_cast<std::size_t>(read_pos_ & (size_ - 1));
    const std::size_t first = std::min(n, size_ - at);
    std::memcpy(into.data(), in_ + at, first);
    std::memcpy(into.data() + first, in_, n - first);
    read_pos_ += n;
    cb_->read[1 - side_].value.store(read_pos_, std::memory_order_release);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    wake(theirs().wants_room, room_fd_);
    return n;
  }

  /// Puts what fits of g into the outgoing ring; the writer's only.
  std::size_t put(gather& g) {
    const std::uint64_t r = cb_->read[side_].value.load(std::memory_order_acquire);  // once
    if (r < seen_read_) {
      break_stream(peer_.address + ": the peer's read index " + std::to_string(r) + " moved backwards (from " +
                   std::to_string(seen_read_) + ")");
    }
    if (r > write_pos_) {
      break_stream(peer_.address + ": the peer's read index " + std::to_string(r) + " is ahead of the write index " +
                   std::to_string(write_pos_));
    }
    seen_read_ = r;
    std::size_t room = size_ - static_cast<std::size_t>(write_pos_ - r);
    std::size_t total = 0;
    while (room > 0 && !g.done()) {
      iovec iov[16];
      const int k = g.fill(iov, 16);
      std::size_t taken = 0;
      for (int i = 0; i < k && room > 0; ++i) {
        const std::size_t n = std::min(iov[i].iov_len, room);
        const std::size_t at = static_cast<std::size_t>((write_pos_ + total + taken) & (size_ - 1));
        const std::size_t first = std::min(n, size_ - at);
        const auto* from = static_cast<const std::byte*>(iov[i].iov_base);
        std::memcpy(out_ + at, from, first);
        std::memcpy(out_, from + first, n - first);
        taken += n;
        room -= n;
      }
      g.advance(taken);
      total += taken;
    }
    if (total == 0) return 0;
    write_pos_ += total;
    cb_->write[side_].value.store(write_pos_, std::memory_order_release);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    wake(theirs().wants_data, data_fd_);
    return total;
  }

  /// Not yet set up (connecting side): waits for the setup message on the io_context.
  /// asio's wait is edge-triggered: a message that came before the wait was queued
  /// would be missed, so the socket is looked at once more and the wait cancelled
  /// (its handler tries again) when it is readable already. mutex_ held.
  template <class Handler>
  void arm_setup_wait(Handler handler) {
    data_desc_.async_wait(asio::posix::stream_descriptor::wait_read, std::move(handler));
    pollfd p{data_fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) > 0) {
      boost::system::error_code ignored;
      data_desc_.cancel(ignored);
    }
  }

  /// One step of an asynchronous read (mutex_ held): true with code and n when it
  /// is finished, false when a wait was armed (and done moved into it).
  bool read_step(std::span<std::byte> into, read_handler& done, errc& code, std::size_t& n) {
    n = 0;
    try {
      check_usable();
      if (into.empty()) fail(errc::io_error, peer_.address + ": read into an empty buffer");
      const setup_state s = poll_setup();
      if (s == setup_state::ended) {
        code = errc::closed;
        return true;
      }
      if (s == setup_state::waiting) {
        arm_setup_wait([self = shared_from_this(), into, done = std::move(done)](
                           const boost::system::error_code&) mutable { self->resume_read(into, done, false); });
        return false;
      }
      note_cpu();
      n = take(into);
      if (n == 0 && !peer_gone()) {
        mine().wants_data.store(sleeping_socket, std::memory_order_seq_cst);
        std::atomic_thread_fence(std::memory_order_seq_cst);
        n = take(into);
        if (n == 0 && !peer_gone()) {
          data_desc_.async_read_some(asio::buffer(data_drain_),
                                     [self = shared_from_this(), into, done = std::move(done)](
                                         const boost::system::error_code& ec, std::size_t) mutable {
                                       self->resume_read(into, done, ec && ec != asio::error::operation_aborted);
                                     });
          return false;
        }
        mine().wants_data.store(awake, std::memory_order_relaxed);
      }
      if (n == 0) n = take(into);  // the peer is gone: what it wrote before, then end of stream
      code = n > 0 ? errc::ok : errc::closed;
    } catch (const transport_error& e) {
      code = e.code() == errc::closed ? errc::closed : errc::io_error;
      n = 0;
    }
    return true;
  }

  void resume_read(std::span<std::byte> into, read_handler& done, bool ended) {
    std::unique_lock lock(mutex_);
    if (ended && ready_.load(std::memory_order_acquire)) data_eof_.store(true);
    errc code = errc::ok;
    std::size_t n = 0;
    if (!read_step(into, done, code, n)) return;
    lock.unlock();
    done(code, n);
  }

  /// One step of an asynchronous wait for room (mutex_ held), as read_step.
  bool room_step(wait_handler& done, errc& code) {
    try {
      check_usable();
      const setup_state s = poll_setup();
      if (s == setup_state::waiting) {
        arm_setup_wait([self = shared_from_this(), done = std::move(done)](const boost::system::error_code&) mutable {
          self->resume_room(done, false);
        });
        return false;
      }
      code = errc::ok;  // ended or gone: the next try_write says broken pipe
      if (s == setup_state::ended || peer_gone() || room_ready()) return true;
      mine().wants_room.store(sleeping_socket, std::memory_order_seq_cst);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      if (room_ready() || peer_gone()) {
        mine().wants_room.store(awake, std::memory_order_relaxed);
        return true;
      }
      room_desc_.async_read_some(asio::buffer(room_drain_), [self = shared_from_this(), done = std::move(done)](
                                                                const boost::system::error_code& ec, std::size_t) mutable {
        self->resume_room(done, ec && ec != asio::error::operation_aborted);
      });
      return false;
    } catch (const transport_error& e) {
      code = e.code() == errc::closed ? errc::closed : errc::io_error;
    }
    return true;
  }

  void resume_room(wait_handler& done, bool ended) {
    std::unique_lock lock(mutex_);
    if (ended) room_eof_.store(true);
    errc code = errc::ok;
    if (!room_step(done, code)) return;
    lock.unlock();
    done(code);
  }

  asio::io_context& io_;
  const int side_;
  const int data_fd_;  // the setup socket: data wake-ups, and the peer's end
  int room_fd_ = -1;   // the pair's end: room wake-ups (set by attach)
  std::mutex mutex_;   // the descriptors' asynchronous operations (initiation, cancel) and the setup
  asio::posix::stream_descriptor data_desc_;
  asio::posix::stream_descriptor room_desc_{io_};
  peer_identity peer_;

  bool setup_ended_ = false;  // the connecting side got no setup message (mutex_)
  std::atomic<bool> ready_{false};
  void* base_ = nullptr;
  std::size_t mapped_ = 0;
  control_block* cb_ = nullptr;
  std::size_t size_ = 0;  // the ring size, from this side's own check (never read again from the mapping)
  std::byte* out_ = nullptr;
  std::byte* in_ = nullptr;

  std::atomic<bool> closed_{false};
  std::atomic<bool> broken_{false};
  mutable std::mutex broken_mutex_;
  std::string broken_what_;
  std::atomic<bool> data_eof_{false};
  std::atomic<bool> room_eof_{false};
  std::atomic<int> last_cpu_{-1};

  // The reader's own (read_some, async_read_some): never read back from the mapping.
  std::uint64_t read_pos_ = 0;
  std::uint64_t seen_write_ = 0;
  // The writer's own.
  std::uint64_t write_pos_ = 0;
  std::uint64_t seen_read_ = 0;

  std::byte data_drain_[64];  // wake-up bytes read by the pending asynchronous read
  std::byte room_drain_[64];  // ... and by the pending wait for room
};

class shm_stream final : public stream {
 public:
  explicit shm_stream(std::shared_ptr<core> c) : c_(std::move(c)) {}
  shm_stream(const shm_stream&) = delete;
  shm_stream& operator=(const shm_stream&) = delete;
  ~shm_stream() override { c_->close(); }  // the mapping goes with the last pending handler

  std::size_t read_some(std::span<std::byte> into, time_point deadline) override {
    return c_->read_some(into, deadline);
  }
  void write_all(buffer_list parts, time_point deadline) override { c_->write_all(parts, deadline); }
  std::size_t try_write(buffer_list parts) override { return c_->try_write(parts); }
  void async_read_some(std::span<std::byte> into, read_handler done) override {
    c_->async_read_some(into, std::move(done));
  }
  void async_wait_writable(wait_handler done) override { c_->async_wait_writable(std::move(done)); }
  void close() noexcept override { c_->close(); }
  [[nodiscard]] const peer_identity& peer() const noexcept override { return c_->peer(); }
  [[nodiscard]] int native_handle() const noexcept override { return c_->native_handle(); }

 private:
  std::shared_ptr<core> c_;
};

/// Makes (listen) or checks (both) the rendezvous directory: a directory of
/// ours that group and others cannot use.
void check_directory(const std::string& dir, const std::string& uri, bool create) {
  if (create && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    fail_errno(errc::io_error, uri + ": creating the rendezvous directory " + dir, errno);
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (!create && errno == ENOENT) fail(errc::connection_refused, uri + ": no rendezvous directory " + dir);
    fail_errno(errc::io_error, uri + ": the rendezvous directory " + dir, errno);
  }
  if (!S_ISDIR(st.st_mode)) fail(errc::io_error, uri + ": the rendezvous directory " + dir + " is not a directory");
  if (st.st_uid != ::geteuid()) {
    fail(errc::io_error, uri + ": the rendezvous directory " + dir + " belongs to uid " + std::to_string(st.st_uid) +
                             ", not to this process's uid " + std::to_string(::geteuid()));
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    fail(errc::io_error, uri + ": the rendezvous directory " + dir + " has mode " + mode +
                             " (group and others must have no access: 0700)");
  }
}

std::unique_ptr<stream> accept_shm(asio::io_context& io, int fd, std::size_t ring_size, const std::string& address) {
  fd_guard conn(fd);
  fd_guard memfd = create_memfd(ring_size, address);
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0) {
    fail_errno(errc::io_error, address + ": socketpair", errno);
  }
  fd_guard mine(pair[0]), theirs(pair[1]);
  auto s = open_stream(io, 0, memfd.get(), ring_size, conn.release(), mine.release(), address);
  send_setup(fd, memfd.get(), theirs.get(), ring_size, address);
  return s;  // memfd and the peer's end of the pair are closed here: the peer holds them now
}

}  // namespace

std::string rendezvous_directory() {
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/refwire";
  return "/tmp/refwire-" + std::to_string(::geteuid());
}

std::string rendezvous_path(const std::string& name) { return rendezvous_directory() + "/" + name; }

fd_guard create_memfd(std::size_t ring_size, const std::string& uri) {
  fd_guard fd(::memfd_create("refwire-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd.get() < 0) fail_errno(errc::io_error, uri + ": memfd_create", errno);
  if (::ftruncate(fd.get(), static_cast<off_t>(mapping_bytes(ring_size))) != 0) {
    fail_errno(errc::io_error, uri + ": sizing the shared memory", errno);
  }
  // The control block's first state, written through the descriptor: zero
  // indices and flags (ftruncate's zeros), no CPU known yet.
  alignas(control_block) std::byte image[sizeof(control_block)] = {};
  auto* cb = new (image) control_block{};
  cb->header.magic = magic;
  cb->header.version = version;
  cb->header.ring_size = ring_size;
  cb->side[0].cpu.store(-1);
  cb->side[1].cpu.store(-1);
  if (::pwrite(fd.get(), image, sizeof image, 0) != static_cast<ssize_t>(sizeof image)) {
    fail_errno(errc::io_error, uri + ": writing the control block", errno);
  }
  if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    fail_errno(errc::io_error, uri + ": sealing the shared memory", errno);
  }
  return fd;
}

void send_setup(int fd, int memfd, int wake_fd, std::size_t ring_size, const std::string& uri) {
  setup_message m{magic, version, ring_size};
  iovec iov{&m, sizeof m};
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
  msghdr h{};
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  h.msg_control = control;
  h.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&h);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(2 * sizeof(int));
  const int fds[2] = {memfd, wake_fd};
  std::memcpy(CMSG_DATA(c), fds, sizeof fds);
  ssize_t n;
  do {
    n = ::sendmsg(fd, &h, MSG_DONTWAIT | MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) fail_errno(errc::io_error, uri + ": sending the shared memory", errno);
  if (static_cast<std::size_t>(n) != sizeof m) fail(errc::io_error, uri + ": the setup message was cut short");
}

std::unique_ptr<stream> open_stream(asio::io_context& io, int side, int memfd, std::size_t ring_size, int data_fd,
                                    int wake_fd, const std::string& address) {
  fd_guard data(data_fd), wake(wake_fd);
  auto c = std::make_shared<core>(io, side, data.get(), address);
  data.release();  // the core's descriptor owns it now
  c->attach(memfd, ring_size, wake.release());
  return std::make_unique<shm_stream>(std::move(c));
}

}  // namespace shm

std::unique_ptr<listener> listen_shm(boost::asio::io_context& io, const endpoint& where,
                                     const listen_options& options) {
  const std::string uri = where.uri();
  const std::string dir = shm::rendezvous_directory();
  shm::check_directory(dir, uri, true);
  const std::size_t ring_size = where.ring_size == 0 ? shm_default_ring_size : where.ring_size;
  const std::string address = "shm://" + where.path;
  return listen_unix_path(io, dir + "/" + where.path, uri, options,
                          [ring_size, address](boost::asio::io_context& context, int fd) {
                            return shm::accept_shm(context, fd, ring_size, address);
                          });
}

std::unique_ptr<stream> connect_shm(boost::asio::io_context& io, const endpoint& where, time_point deadline) {
  const std::string uri = where.uri();
  const std::string dir = shm::rendezvous_directory();
  shm::check_directory(dir, uri, false);
  fd_guard fd(connect_unix_fd(dir + "/" + where.path, uri, deadline));
  auto c = std::make_shared<shm::core>(io, 1, fd.get(), "shm://" + where.path);
  fd.release();
  return std::make_unique<shm::shm_stream>(std::move(c));
}

}  // namespace refwire::transports::detail
