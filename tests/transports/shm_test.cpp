// shm:// on its own: the rendezvous directory and its checks, stale and live
// sockets, the listener's ring size, frames larger than the ring, a peer
// process that dies, and hostile peers that write into the mapping directly
// (indices that cannot be, a bad control block, a bad memfd).
#include "helpers.hpp"
#include "internal.hpp"
#include "shm_ring.hpp"

#include <refwire/transports/transport.hpp>

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace refwire::transports::test {
namespace {

namespace shm = detail::shm;
using detail::fd_guard;

constexpr std::size_t ring = 65536;

class ShmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("XDG_RUNTIME_DIR", runtime.path().c_str(), 1);
    static std::atomic<int> next{0};
    name = "shm-test-" + std::to_string(::getpid()) + "-" + std::to_string(next++);
    uri = "shm://" + name;
    dir = runtime.path() + "/refwire";
    path = dir + "/" + name;
  }
  void TearDown() override { ::unsetenv("XDG_RUNTIME_DIR"); }

  boost::asio::io_context io;
  temp_dir runtime;
  std::string name, uri, dir, path;
};

/// The text of a transport_error thrown by f, "" (and a failure) if it throws none or another code.
template <class F>
std::string error_of(errc expected, F&& f) {
  std::string message;
  const errc got = code_of(std::forward<F>(f), &message);
  EXPECT_EQ(got, expected) << message;
  return message;
}

/// Whether fd reads end of stream within the limit.
bool sees_end_of_stream(int fd, std::chrono::milliseconds limit = 2000ms) {
  const auto end = clock::now() + limit;
  char buf[64];
  while (clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0) return true;
  }
  return false;
}

TEST_F(ShmTest, TheRendezvousSocketIsInADirectoryOfMode0700) {
  auto l = listen(io, parse_uri(uri));
  EXPECT_EQ(l->uri(), uri);
  EXPECT_EQ(shm::rendezvous_path(name), path);
  struct stat st {};
  ASSERT_EQ(::lstat(dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0700U);
  EXPECT_EQ(st.st_uid, ::geteuid());
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));

  auto client = connect(io, parse_uri(uri), in(2s));
  auto server = accept_one(io, *l);
  ASSERT_NE(server, nullptr);
  write_bytes(*client, bytes("ping"), in(2s));
  EXPECT_EQ(read_exact(*server, 4, in(2s)), bytes("ping"));
  for (const stream* s : {client.get(), server.get()}) {
    EXPECT_EQ(s->peer().address, uri);
    EXPECT_EQ(s->peer().uid, static_cast<std::uint32_t>(::getuid()));
    EXPECT_EQ(s->peer().pid, static_cast<std::uint32_t>(::getpid()));
    int domain = 0;
    socklen_t n = sizeof domain;
    ASSERT_EQ(::getsockopt(s->native_handle(), SOL_SOCKET, SO_DOMAIN, &domain, &n), 0);
    EXPECT_EQ(domain, AF_UNIX);  // the setup socket
  }
  l->close();
  EXPECT_NE(::lstat(path.c_str(), &st), 0) << "the socket file outlived its listener";

  ::unsetenv("XDG_RUNTIME_DIR");
  EXPECT_EQ(shm::rendezvous_directory(), "/tmp/refwire-" + std::to_string(::geteuid()));
  ::setenv("XDG_RUNTIME_DIR", "relative/dir", 1);  // not absolute: not used
  EXPECT_EQ(shm::rendezvous_directory(), "/tmp/refwire-" + std::to_string(::geteuid()));
}

TEST_F(ShmTest, ADirectoryOpenToOthersOrNotOursIsRefused) {
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  const std::string open_message =
      uri + ": the rendezvous directory " + dir + " has mode 0755 (group and others must have no access: 0700)";
  EXPECT_EQ(error_of(errc::io_error, [&] { (void)listen(io, parse_uri(uri)); }), open_message);
  EXPECT_EQ(error_of(errc::io_error, [&] { (void)connect(io, parse_uri(uri), in(1s)); }), open_message);
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(dir.c_str(), 4242, static_cast<gid_t>(-1)), 0);
    EXPECT_EQ(error_of(errc::io_error, [&] { (void)listen(io, parse_uri(uri)); }),
              uri + ": the rendezvous directory " + dir + " belongs to uid 4242, not to this process's uid 0");
    ASSERT_EQ(::chown(dir.c_str(), 0, static_cast<gid_t>(-1)), 0);
  }
  ASSERT_EQ(::rmdir(dir.c_str()), 0);
  ASSERT_EQ(::symlink(runtime.path().c_str(), dir.c_str()), 0);
  EXPECT_EQ(error_of(errc::io_error, [&] { (void)listen(io, parse_uri(uri)); }),
            uri + ": the rendezvous directory " + dir + " is not a directory");
}

TEST_F(ShmTest, ConnectingWithNobodyListeningIsRefused) {
  EXPECT_EQ(error_of(errc::connection_refused, [&] { (void)connect(io, parse_uri(uri), in(1s)); }),
            uri + ": no rendezvous directory " + dir);
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  EXPECT_EQ(error_of(errc::connection_refused, [&] { (void)connect(io, parse_uri(uri), in(1s)); }),
            uri + ": no socket file at " + path);
}

TEST_F(ShmTest, AStaleSocketIsTakenOverAndALiveOneIsAddressInUse) {
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  {
    fd_guard stale(::socket(AF_UNIX, SOCK_STREAM, 0));
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, path.data(), path.size());
    ASSERT_EQ(::bind(stale.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a), 0);
  }  // closed without listening: a stale file stays
  auto l = listen(io, parse_uri(uri));
  EXPECT_EQ(error_of(errc::address_in_use, [&] { (void)listen(io, parse_uri(uri)); }),
            uri + ": another listener is live on " + path);
  auto client = connect(io, parse_uri(uri), in(2s));
  auto server = accept_one(io, *l);
  ASSERT_NE(server, nullptr);
  write_bytes(*server, bytes("taken over"), in(2s));
  EXPECT_EQ(read_exact(*client, 10, in(2s)), bytes("taken over"));
}

TEST_F(ShmTest, TheListenersRingSizeDecidesAndLargeFramesStreamThrough) {
  auto l = listen(io, parse_uri(uri + "?ring_size=4096"));
  auto client = connect(io, parse_uri(uri + "?ring_size=1048576"), in(2s));  // ignored: the listener decides
  auto server = accept_one(io, *l);
  ASSERT_NE(server, nullptr);
  const std::vector<std::byte> big = pattern(8u << 20, 5);
  const std::span<const std::byte> parts[] = {big};
  EXPECT_EQ(client->try_write(parts), 4096U);  // takes what fits
  EXPECT_EQ(client->try_write(parts), 0U);
  EXPECT_EQ(read_exact(*server, 4096, in(2s)), std::vector<std::byte>(big.begin(), big.begin() + 4096));
  EXPECT_EQ(server->try_write(parts), 4096U);
  EXPECT_EQ(read_exact(*client, 4096, in(2s)), std::vector<std::byte>(big.begin(), big.begin() + 4096));

  // 8 MB through a 4 KiB ring, both ways at once.
  std::optional<errc> up, down;
  std::thread writer([&] { up = code_of([&] { client->write_all(parts, in(20s)); }); });
  std::thread back([&] { down = code_of([&] { server->write_all(parts, in(20s)); }); });
  std::vector<std::byte> at_client;
  std::thread reader([&] { at_client = read_exact(*client, big.size(), in(20s)); });
  const std::vector<std::byte> at_server = read_exact(*server, big.size(), in(20s));
  writer.join();
  back.join();
  reader.join();
  EXPECT_EQ(up, errc::ok);
  EXPECT_EQ(down, errc::ok);
  EXPECT_TRUE(at_server == big) << at_server.size() << " bytes";
  EXPECT_TRUE(at_client == big) << at_client.size() << " bytes";
}

TEST_F(ShmTest, APeerThatClosesWakesABlockedReadAndABlockedWrite) {
  auto l = listen(io, parse_uri(uri + "?ring_size=4096"));
  auto client = connect(io, parse_uri(uri), in(2s));
  auto server = accept_one(io, *l);
  ASSERT_NE(server, nullptr);
  std::optional<std::size_t> got;
  std::optional<errc> wrote;
  std::string message;
  std::thread reader([&] {
    std::byte buf[8];
    got = server->read_some(buf, in(10s));
  });
  std::thread writer([&] {
    const std::vector<std::byte> big(1u << 20);
    wrote = code_of([&] { write_bytes(*server, big, in(10s)); }, &message);
  });
  std::this_thread::sleep_for(100ms);  // both asleep: nothing to read, the 4 KiB ring full
  const auto start = clock::now();
  client->close();
  reader.join();
  writer.join();
  EXPECT_LT(clock::now() - start, 1s);
  EXPECT_EQ(got, 0U);
  EXPECT_EQ(wrote, errc::io_error);
  EXPECT_EQ(message, uri + ": write: broken pipe");
}

/// Starts transports_shm_peer: it connects to name, writes "hello", and dies by SIGKILL after ms.
pid_t spawn_peer(const std::string& name, int ms) {
  std::string program = REFWIRE_SHM_PEER, delay = std::to_string(ms);
  char* argv[] = {program.data(), const_cast<char*>(name.c_str()), delay.data(), nullptr};
  pid_t pid = -1;
  EXPECT_EQ(::posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv, environ), 0);
  return pid;
}

void expect_killed(pid_t pid) {
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
}

TEST_F(ShmTest, APeerProcessThatDiesEndsABlockedWriteAndReadsEndOfStream) {
  auto l = listen(io, parse_uri(uri + "?ring_size=65536"));
  const pid_t pid = spawn_peer(name, 300);
  auto server = accept_one(io, *l);
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(server->peer().pid, static_cast<std::uint32_t>(pid));
  EXPECT_EQ(read_exact(*server, 5, in(5s)), bytes("hello"));
  // The peer never reads: the write fills its ring and blocks until it dies.
  const std::vector<std::byte> big(1u << 20);
  const auto start = clock::now();
  EXPECT_EQ(error_of(errc::io_error, [&] { write_bytes(*server, big, in(10s)); }), uri + ": write: broken pipe");
  EXPECT_LT(clock::now() - start, 3s);
  std::byte buf[8];
  EXPECT_EQ(server->read_some(buf, in(2s)), 0U);
  std::optional<errc> read;
  server->async_read_some(buf, [&](errc c, std::size_t) { read = c; });
  ASSERT_TRUE(run_until(io, [&] { return read.has_value(); }));
  EXPECT_EQ(*read, errc::closed);
  expect_killed(pid);
}

TEST_F(ShmTest, APeerProcessThatDiesEndsAPendingAsyncReadAndABlockedRead) {
  auto l = listen(io, parse_uri(uri));
  const pid_t first = spawn_peer(name, 100);
  auto a = accept_one(io, *l);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(read_exact(*a, 5, in(5s)), bytes("hello"));
  std::byte buf[8];
  std::optional<errc> read;
  const auto start = clock::now();
  a->async_read_some(buf, [&](errc c, std::size_t) { read = c; });
  ASSERT_TRUE(run_until(io, [&] { return read.has_value(); }, 3s));
  EXPECT_EQ(*read, errc::closed);
  EXPECT_LT(clock::now() - start, 3s);
  expect_killed(first);

  const pid_t second = spawn_peer(name, 100);
  auto b = accept_one(io, *l);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(read_exact(*b, 5, in(5s)), bytes("hello"));
  EXPECT_EQ(b->read_some(buf, in(3s)), 0U);  // not timed_out: the death ends it
  expect_killed(second);
}

/// A listener of the test's own at the rendezvous path: it sends the memfd that
/// make() returns (and the ring size it says) and keeps the connection and the
/// mapping, to play a hostile peer.
struct fake_listener {
  struct offer {
    fd_guard memfd;
    std::size_t ring_size = ring;
  };

  fake_listener(boost::asio::io_context& io, const std::string& uri, std::function<offer()> make)
      : make_(std::move(make)) {
    ::mkdir(shm::rendezvous_directory().c_str(), 0700);
    l = detail::listen_unix_path(io, shm::rendezvous_path(uri.substr(6)), uri, {},
                                 [this, uri](boost::asio::io_context&, int fd) -> std::unique_ptr<stream> {
                                   conn.reset(fd);
                                   offer o = make_();
                                   if (o.memfd.get() >= 0) {
                                     struct stat st {};
                                     ::fstat(o.memfd.get(), &st);
                                     bytes = static_cast<std::size_t>(st.st_size);
                                     base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
                                                   o.memfd.get(), 0);
                                     int pair[2];
                                     ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair);
                                     wake.reset(pair[0]);
                                     fd_guard theirs(pair[1]);
                                     shm::send_setup(fd, o.memfd.get(), theirs.get(), o.ring_size, uri);
                                   } else {
                                     conn.reset();  // drops the connection before any setup
                                   }
                                   accepted = true;
                                   return nullptr;
                                 });
    l->async_accept([](errc, std::unique_ptr<stream>) {});
  }
  fake_listener(const fake_listener&) = delete;
  fake_listener& operator=(const fake_listener&) = delete;
  ~fake_listener() {
    if (base != nullptr && base != MAP_FAILED) ::munmap(base, bytes);
  }

  [[nodiscard]] shm::control_block& cb() const { return *static_cast<shm::control_block*>(base); }
  /// Ring d's bytes.
  [[nodiscard]] std::byte* ring_bytes(int d) const {
    return static_cast<std::byte*>(base) + shm::control_bytes + static_cast<std::size_t>(d) * ring;
  }

  std::function<offer()> make_;
  std::unique_ptr<listener> l;
  fd_guard conn, wake;
  void* base = nullptr;
  std::size_t bytes = 0;
  bool accepted = false;
};

fake_listener::offer good_offer() { return {shm::create_memfd(ring, "test"), ring}; }

class ShmHostile : public ShmTest {
 protected:
  /// A client connected to a fake listener that offered make().
  void start(std::function<fake_listener::offer()> make = good_offer) {
    fake = std::make_unique<fake_listener>(io, uri, std::move(make));
    client = connect(io, parse_uri(uri), in(2s));
    ASSERT_TRUE(run_until(io, [&] { return fake->accepted; }));
  }
  /// The message a read fails with, checked to be the same the next time, and the peer sees the end.
  std::string read_failure() {
    std::byte buf[16];
    const std::string first = error_of(errc::io_error, [&] { (void)client->read_some(buf, in(2s)); });
    EXPECT_EQ(error_of(errc::io_error, [&] { (void)client->read_some(buf, in(2s)); }), first);
    EXPECT_EQ(error_of(errc::io_error, [&] { write_bytes(*client, bytes("x"), in(2s)); }), first);
    if (fake->conn.get() >= 0) {
      EXPECT_TRUE(sees_end_of_stream(fake->conn.get())) << "the peer was not told";
    }
    return first;
  }

  std::unique_ptr<fake_listener> fake;
  std::unique_ptr<stream> client;
};

TEST_F(ShmHostile, AWriteIndexMoreThanTheRingAheadFailsTheStream) {
  start();
  fake->cb().write[0].value.store(ring + 9);
  EXPECT_EQ(read_failure(),
            uri + ": the peer's write index 65545 is more than the ring size (65536) ahead of the read index 0");
}

TEST_F(ShmHostile, AWriteIndexThatMovesBackwardsFailsTheStream) {
  start();
  std::memcpy(fake->ring_bytes(0), "hello", 5);
  fake->cb().write[0].value.store(5);
  EXPECT_EQ(read_exact(*client, 5, in(2s)), bytes("hello"));
  EXPECT_EQ(fake->cb().read[0].value.load(), 5U);  // the client published what it took
  fake->cb().write[0].value.store(3);
  EXPECT_EQ(read_failure(), uri + ": the peer's write index 3 moved backwards (from 5)");
}

TEST_F(ShmHostile, AReadIndexAheadOfTheWriteIndexFailsTheStream) {
  start();
  fake->cb().read[1].value.store(100);
  EXPECT_EQ(error_of(errc::io_error, [&] { write_bytes(*client, bytes("x"), in(2s)); }),
            uri + ": the peer's read index 100 is ahead of the write index 0");
  const std::vector<std::byte> one = bytes("y");
  const std::span<const std::byte> parts[] = {one};
  EXPECT_EQ(error_of(errc::io_error, [&] { (void)client->try_write(parts); }),
            uri + ": the peer's read index 100 is ahead of the write index 0");
}

TEST_F(ShmHostile, GarbageInTheRingIsJustBytesAcrossTheWrap) {
  start();
  // The client takes 60000 bytes, then 20000 that wrap around the end of the ring.
  const std::vector<std::byte> first = pattern(60000, 7), second = pattern(20000, 9);
  std::memcpy(fake->ring_bytes(0), first.data(), first.size());
  fake->cb().write[0].value.store(60000);
  EXPECT_EQ(read_exact(*client, 60000, in(2s)), first);
  std::memcpy(fake->ring_bytes(0) + 60000, second.data(), ring - 60000);
  std::memcpy(fake->ring_bytes(0), second.data() + (ring - 60000), second.size() - (ring - 60000));
  fake->cb().write[0].value.store(80000);
  EXPECT_EQ(read_exact(*client, 20000, in(2s)), second);
  // And the client's own bytes land where the layout says.
  write_bytes(*client, bytes("abc"), in(2s));
  EXPECT_EQ(fake->cb().write[1].value.load(), 3U);
  EXPECT_EQ(std::memcmp(fake->ring_bytes(1), "abc", 3), 0);
}

struct bad_offer {
  const char* what;
  std::function<fake_listener::offer()> make;
  std::string message;  // after "shm://<name>: "
};

fake_listener::offer patched(std::size_t offset, const void* value, std::size_t n) {
  fake_listener::offer o = good_offer();
  EXPECT_EQ(::pwrite(o.memfd.get(), value, n, static_cast<off_t>(offset)), static_cast<ssize_t>(n));
  return o;
}

fake_listener::offer raw_memfd(std::size_t size, bool sealed) {
  fake_listener::offer o{fd_guard(::memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING)), ring};
  EXPECT_EQ(::ftruncate(o.memfd.get(), static_cast<off_t>(size)), 0);
  const shm::header_line h{shm::magic, shm::version, ring};
  EXPECT_EQ(::pwrite(o.memfd.get(), &h, sizeof h, 0), static_cast<ssize_t>(sizeof h));
  if (sealed) {
    EXPECT_EQ(::fcntl(o.memfd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
  }
  return o;
}

TEST_F(ShmHostile, ABadControlBlockOrMemfdIsRefused) {
  const std::uint32_t zero = 0, two = 2;
  const std::uint64_t small = 8192, seven = 7;
  const bad_offer cases[] = {
      {"magic", [&] { return patched(0, &zero, 4); }, "bad magic 0 in the shared memory's control block"},
      {"version", [&] { return patched(4, &two, 4); }, "the control block's version is 2, expected 1"},
      {"ring size", [&] { return patched(8, &small, 8); },
       "the control block's ring size 8192 is not the setup message's 65536"},
      {"index", [&] { return patched(offsetof(shm::control_block, write) + 64, &seven, 8); },
       "this side's indices are not zero at the start (write 7, read 0)"},
      {"undersized", [] { return raw_memfd(shm::control_bytes + ring, true); },
       "the shared memory is 69632 bytes, expected 135168 for a ring size of 65536"},
      {"unsealed", [] { return raw_memfd(shm::mapping_bytes(ring), false); },
       "the shared memory is not sealed against shrinking"},
      {"message size", [] { return fake_listener::offer{shm::create_memfd(ring, "test"), ring + 1}; },
       "the ring size 65537 is not a power of two from 4096 to 1073741824"},
  };
  for (const bad_offer& c : cases) {
    SCOPED_TRACE(c.what);
    start(c.make);
    EXPECT_EQ(read_failure(), uri + ": " + c.message);
    client.reset();
    fake.reset();
  }
}

TEST_F(ShmHostile, AListenerThatDropsTheConnectionBeforeTheSetupIsEndOfStream) {
  start([] { return fake_listener::offer{}; });
  std::byte buf[8];
  EXPECT_EQ(client->read_some(buf, in(2s)), 0U);
  EXPECT_EQ(error_of(errc::io_error, [&] { write_bytes(*client, bytes("x"), in(2s)); }), uri + ": write: broken pipe");
  std::optional<errc> read;
  client->async_read_some(buf, [&](errc c, std::size_t) { read = c; });
  ASSERT_TRUE(run_until(io, [&] { return read.has_value(); }));
  EXPECT_EQ(*read, errc::closed);
}

TEST_F(ShmHostile, AConnectorWithAnImpossibleIndexFailsTheListenersPendingRead) {
  auto l = listen(io, parse_uri(uri));
  fd_guard conn(detail::connect_unix_fd(path, uri, in(2s)));
  auto server = accept_one(io, *l);
  ASSERT_NE(server, nullptr);
  // Take the setup message as a connector would, and map the memfd.
  shm::setup_message m{};
  iovec iov{&m, sizeof m};
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))];
  msghdr h{};
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  h.msg_control = control;
  h.msg_controllen = sizeof control;
  ASSERT_EQ(::recvmsg(conn.get(), &h, MSG_CMSG_CLOEXEC), static_cast<ssize_t>(sizeof m));
  EXPECT_EQ(m.magic, shm::magic);
  EXPECT_EQ(m.ring_size, shm_default_ring_size);
  int fds[2];
  std::memcpy(fds, CMSG_DATA(CMSG_FIRSTHDR(&h)), sizeof fds);
  fd_guard memfd(fds[0]), wake(fds[1]);
  const std::size_t bytes = shm::mapping_bytes(m.ring_size);
  void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memfd.get(), 0);
  ASSERT_NE(base, MAP_FAILED);
  auto& cb = *static_cast<shm::control_block*>(base);
  EXPECT_EQ(::fcntl(memfd.get(), F_GET_SEALS) & (F_SEAL_SHRINK | F_SEAL_GROW), F_SEAL_SHRINK | F_SEAL_GROW);

  std::byte buf[16];
  std::optional<errc> read;
  server->async_read_some(buf, [&](errc c, std::size_t) { read = c; });
  run_until(io, [&] { return read.has_value(); }, 30ms);
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(cb.side[0].wants_data.load(), 1U);  // the listener's reader sleeps
  cb.write[1].value.store(std::uint64_t{1} << 40);
  const char one = 1;
  ASSERT_EQ(::send(conn.get(), &one, 1, MSG_NOSIGNAL), 1);  // wake it
  ASSERT_TRUE(run_until(io, [&] { return read.has_value(); }));
  EXPECT_EQ(*read, errc::io_error);
  EXPECT_EQ(error_of(errc::io_error, [&] { (void)server->read_some(buf, in(1s)); }),
            uri + ": the peer's write index 1099511627776 is more than the ring size (1048576) ahead of the read index 0");
  EXPECT_TRUE(sees_end_of_stream(conn.get()));
  ::munmap(base, bytes);
}

}  // namespace
}  // namespace refwire::transports::test
