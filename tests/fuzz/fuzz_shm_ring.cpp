// libFuzzer target for the shm:// reading and writing side against a hostile
// peer that owns the mapping: fuzzed control-block values, indices and ring
// bytes.
//
// Per input, the first byte picks the memfd and the setup (a good one, or a
// bad magic, version, control-block ring size, an undersized or unsealed
// memfd, a ring size in the setup message that cannot be); the stream of the
// connecting side is made over it (transports/src/shm_ring.hpp, open_stream)
// with socket pairs whose other ends the target keeps. The rest is a list of
// commands: set or advance the peer's write index or read index (any 64-bit
// value), write bytes anywhere into the incoming ring, set the peer's flags,
// and read_some / write_all with a deadline that has passed, try_write. What
// must hold: no crash, no hang (every call returns: its deadline has passed),
// every failure a transport_error that is timed_out, or io_error with a
// message naming the stream, and once the stream broke, every later call
// fails the same way; bytes read are bytes of the ring.
//
//   fuzz_shm_ring -max_len=2048 -max_total_time=60 <scratch dir> tests/fuzz/corpus/shm_ring
#include "shm_ring.hpp"

#include <refwire/transports/transport.hpp>

#include <boost/asio/io_context.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace {

namespace rt = refwire::transports;
namespace shm = refwire::transports::detail::shm;
using refwire::transports::detail::fd_guard;

constexpr std::size_t ring = 4096;
const std::string address = "shm://fuzz";

struct input {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t at = 0;
  [[nodiscard]] bool done() const { return at >= size; }
  std::uint8_t byte() { return at < size ? data[at++] : 0; }
  std::uint64_t number(int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = v << 8 | byte();
    return v;
  }
};

[[noreturn]] void fault(const std::string& what) {
  std::fprintf(stderr, "fuzz_shm_ring: %s\n", what.c_str());
  std::abort();
}

/// A failure must be timed_out, or io_error/closed naming the stream.
void check_failure(const rt::transport_error& e, std::string& broken) {
  const std::string what = e.what();
  if (what.rfind(address + ": ", 0) != 0) fault("a message that does not name the stream: " + what);
  if (e.code() == rt::errc::timed_out) return;
  if (e.code() != rt::errc::io_error) fault("unexpected code " + std::string(rt::to_string(e.code())) + ": " + what);
  if (what == address + ": write: broken pipe") return;
  if (!broken.empty() && what != broken) fault("a broken stream changed its message: " + broken + " / " + what);
  broken = what;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  input in{data, size};
  const std::uint8_t setup = in.byte();
  // The memfd.
  std::size_t bytes = shm::mapping_bytes(ring);
  bool sealed = true;
  std::size_t message_ring = ring;
  if (setup % 8 == 4) bytes = shm::control_bytes + ring;  // undersized
  if (setup % 8 == 5) sealed = false;
  if (setup % 8 == 6) message_ring = ring + 1;
  fd_guard memfd(::memfd_create("fuzz", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (memfd.get() < 0 || ::ftruncate(memfd.get(), static_cast<off_t>(bytes)) != 0) return 0;
  shm::header_line h{shm::magic, shm::version, ring};
  if (setup % 8 == 1) h.magic = 0;
  if (setup % 8 == 2) h.version = 9;
  if (setup % 8 == 3) h.ring_size = 2 * ring;
  if (::pwrite(memfd.get(), &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h)) return 0;
  if (sealed && ::fcntl(memfd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0) return 0;
  void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memfd.get(), 0);
  if (base == MAP_FAILED) return 0;
  auto* cb = static_cast<shm::control_block*>(base);
  auto* incoming = static_cast<std::byte*>(base) + shm::control_bytes;  // ring 0: the peer's (side 0) bytes

  int data_pair[2], wake_pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, data_pair) != 0) return 0;
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, wake_pair) != 0) return 0;
  fd_guard peer_data(data_pair[1]), peer_wake(wake_pair[1]);

  boost::asio::io_context io;
  std::unique_ptr<rt::stream> s;
  try {
    s = shm::open_stream(io, 1, memfd.get(), message_ring, data_pair[0], wake_pair[0], address);
  } catch (const rt::transport_error& e) {
    if (e.code() != rt::errc::io_error || std::string(e.what()).rfind(address + ": ", 0) != 0) {
      fault(std::string("open_stream: ") + e.what());
    }
    ::munmap(base, bytes);
    return 0;
  }
  if (setup % 8 != 0 && setup % 8 != 7) fault("a bad mapping was accepted");

  std::string broken;
  std::vector<std::byte> buf(ring + 16);
  const std::vector<std::byte> out(2 * ring, std::byte{0x5a});
  const auto past = rt::clock::now() - std::chrono::seconds(1);
  for (int step = 0; step < 256 && !in.done(); ++step) {
    const std::uint8_t command = in.byte();
    try {
      switch (command % 10) {
        case 0: cb->write[0].value.store(in.number(8)); break;
        case 1: cb->write[0].value.fetch_add(in.number(2)); break;
        case 2: cb->read[1].value.store(in.number(8)); break;
        case 3: cb->read[1].value.fetch_add(in.number(2)); break;
        case 4: {
          const std::size_t at = in.number(2) % ring;
          const std::size_t n = std::min<std::size_t>(in.byte(), ring - at);
          for (std::size_t i = 0; i < n; ++i) incoming[at + i] = static_cast<std::byte>(in.byte());
          break;
        }
        case 5: {
          const std::size_t n = in.number(2) % buf.size() + 1;
          const std::size_t got = s->read_some(std::span(buf).first(n), past);
          if (got > n) fault("read_some returned more than asked");
          break;
        }
        case 6: {
          const std::size_t n = in.number(2) % out.size();
          const std::span<const std::byte> parts[] = {std::span(out).first(n)};
          if (s->try_write(parts) > n) fault("try_write took more than given");
          break;
        }
        case 7: {
          const std::span<const std::byte> parts[] = {std::span(out).first(in.number(2) % out.size())};
          s->write_all(parts, past);
          break;
        }
        case 8: {
          const std::uint8_t f = in.byte();
          cb->side[0].wants_data.store(f & 1);
          cb->side[0].wants_room.store(f >> 1 & 1);
          cb->side[0].closed.store(f >> 2 & 1);
          cb->side[0].cpu.store(static_cast<std::int32_t>(f >> 3) - 1);
          break;
        }
        default: {
          // The peer's end: a wake-up byte, or the end of its stream.
          if (command & 0x80) {
            peer_data.reset();
          } else {
            const char one = 1;
            (void)::send(peer_data.get(), &one, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
          }
          break;
        }
      }
    } catch (const rt::transport_error& e) {
      check_failure(e, broken);
    }
  }
  s.reset();
  ::munmap(base, bytes);
  return 0;
}
