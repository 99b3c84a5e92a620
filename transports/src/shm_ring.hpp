#pragma once
// The shared memory of an shm:// connection, for the transport and for the
// tests and fuzzers that play a (hostile) peer; not installed.
//
// One memfd per connection, made, sized and sealed (no shrinking, no growing)
// by the listener and passed to the connecting process with SCM_RIGHTS:
//
//   [0, 4096)                  the control block
//   [4096, 4096 + R)           ring 0: bytes from the listener's side (side 0) to the connector's
//   [4096 + R, 4096 + 2R)      ring 1: bytes from the connector's side (side 1) to the listener's
//
// Each ring has one producer and one consumer. Its indices are free-running
// byte counts (the offset is index & (R - 1)), each written by one side only,
// each on its own cache line. A side trusts nothing it reads from the mapping:
// it keeps its own indices and the ring size in locals and checks every index
// the peer publishes against them.
//
// Wake-ups go through a futex on the sleeper's flag (blocking calls) or a byte
// on a socket (asynchronous calls): the setup socket (the accepted unix socket)
// and a second socket pair, which also end when the peer closes or dies; see
// shm.cpp.

#include "internal.hpp"

#include <refwire/transports/transport.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace refwire::transports::detail::shm {

inline constexpr std::uint32_t magic = 0x4d485352;  // "RSHM" in memory on little-endian machines
inline constexpr std::uint32_t version = 1;
inline constexpr std::size_t control_bytes = 4096;

/// The bytes of a mapping with rings of ring_size bytes.
constexpr std::size_t mapping_bytes(std::size_t ring_size) { return control_bytes + 2 * ring_size; }
/// Whether a ring size is one a mapping may have (a power of two within the bounds).
constexpr bool valid_ring_size(std::uint64_t n) {
  return n >= shm_min_ring_size && n <= shm_max_ring_size && (n & (n - 1)) == 0;
}

struct alignas(64) header_line {
  std::uint32_t magic;
  std::uint32_t version;
  std::uint64_t ring_size;  // bytes of each ring
};

struct alignas(64) index_line {
  std::atomic<std::uint64_t> value;
};

/// What one side tells the other; written by that side (the wants_ flags are
/// also cleared by the peer when it wakes it). A wants_ flag is 0 (awake), 1
/// (sleeping on the io_context: wake it with a byte on the socket) or 2
/// (sleeping on this very word: wake it with FUTEX_WAKE).
struct alignas(64) side_line {
  std::atomic<std::uint32_t> wants_data;  ///< this side's reader sleeps: wake it after publishing bytes
  std::atomic<std::uint32_t> wants_room;  ///< this side's writer sleeps: wake it after taking bytes
  std::atomic<std::int32_t> cpu;          ///< the CPU this side last ran on (sched_getcpu), -1: unknown
  std::atomic<std::uint32_t> closed;      ///< this side closed its stream
};

struct control_block {
  header_line header;
  index_line write[2];  ///< ring d: bytes written into it so far (by side d)
  index_line read[2];   ///< ring d: bytes taken from it so far (by side 1 - d)
  side_line side[2];    ///< 0: the listener's side, 1: the connector's
};
static_assert(sizeof(control_block) <= control_bytes);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free && std::atomic<std::uint32_t>::is_always_lock_free);

/// The setup message the listener sends on the accepted socket, with two
/// descriptors (SCM_RIGHTS): the memfd, then the connector's end of the wake
/// socket pair.
struct setup_message {
  std::uint32_t magic;
  std::uint32_t version;
  std::uint64_t ring_size;
};

/// The directory of the rendezvous sockets: "$XDG_RUNTIME_DIR/refwire" when
/// that is set to an absolute path, else "/tmp/refwire-<euid>".
[[nodiscard]] std::string rendezvous_directory();
/// The rendezvous socket of a name: rendezvous_directory() + "/" + name.
[[nodiscard]] std::string rendezvous_path(const std::string& name);

/// A memfd of mapping_bytes(ring_size) bytes with a fresh control block, sealed
/// against shrinking and growing. Throws io_error naming uri.
[[nodiscard]] fd_guard create_memfd(std::size_t ring_size, const std::string& uri);

/// Sends the setup message and the two descriptors on socket fd (non-blocking).
/// Throws io_error naming uri.
void send_setup(int fd, int memfd, int wake_fd, std::size_t ring_size, const std::string& uri);

/// The stream of one side over a mapping: maps memfd (kept by the caller)
/// after checking it (its size for ring_size, the shrink seal, the control
/// block's magic, version, ring size and this side's indices) and takes over
/// data_fd (the setup socket) and wake_fd, closing them if it throws.
/// peer().address is address. Throws io_error naming what is wrong.
[[nodiscard]] std::unique_ptr<stream> open_stream(boost::asio::io_context& io, int side, int memfd,
                                                  std::size_t ring_size, int data_fd, int wake_fd,
                                                  const std::string& address);

}  // namespace refwire::transports::detail::shm
