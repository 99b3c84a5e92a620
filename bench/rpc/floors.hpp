#pragma once
// bench/rpc/floors.hpp: the raw floors bench_rpc compares refwire with. No
// framing, no serialization: a client writes a request of N bytes, the floor
// server reads exactly N bytes and writes back the first M bytes of what it
// read (so an echo when N == M). N and M are the sizes of refwire's own frames
// for the same call, so the floor moves the same bytes through the same kernel
// paths (or the same shared memory) with nothing else on top.
//
// The server is this program run as `bench_rpc --serve=floor --transport=T`:
//   unix, tcp: blocking sockets (TCP_NODELAY), one thread per long session;
//   shm: a memfd mapping with two single-producer single-consumer rings of
//        shm_ring_size bytes, futex wait / wake (the ping-pong and the 8 MB
//        streaming floors).
//
//   rpcbench::floors::client c("unix", address);
//   c.use(28, 20);                  // refwire's Sim request and reply sizes
//   c.round_trip();                 // 28 bytes there, 20 back
//   rpcbench::floors::connect_round_trip_close("tcp", address, 28, 20);   // the Conn floor
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <refwire/transports/transport.hpp>

namespace rpcbench::floors {

/// The ring size of the shared-memory floors: the shm transport's default
/// ring (refwire::transports::shm_default_ring_size, one MiB per direction).
inline constexpr std::size_t shm_ring_size = refwire::transports::shm_default_ring_size;

/// Runs the floor server (see above): prints "ready <address>", serves until
/// standard input reaches end of file. Returns main's exit status.
int serve(std::string_view transport, const std::string& dir);

/// A byte stream to the floor server: a socket or the shared-memory rings.
class byte_pipe {
 public:
  virtual ~byte_pipe() = default;
  virtual void write_all(const std::byte* p, std::size_t n) = 0;
  /// Reads exactly n bytes; false at end of stream before the first byte.
  virtual bool read_exact(std::byte* p, std::size_t n) = 0;
};

/// One session with a floor server, reused across request / reply sizes.
class client {
 public:
  client(std::string_view transport, const std::string& address);
  ~client();
  client(const client&) = delete;
  client& operator=(const client&) = delete;
  /// Round trips from now on send request bytes and receive reply bytes;
  /// with values, into new vectors on both sides and through a copy on the
  /// server, as an RPC call's fresh argument, handler and result must.
  void use(std::size_t request, std::size_t reply, bool values = false);
  /// One round trip; the reply is in reply() (its first bytes are the request's).
  void round_trip();
  [[nodiscard]] const std::vector<std::byte>& reply() const noexcept { return reply_; }
  [[nodiscard]] std::vector<std::byte>& request() noexcept { return request_; }

 private:
  std::string transport_;
  std::string address_;
  std::unique_ptr<byte_pipe> pipe_;  // connected by the first use(), which sends its header at once
  bool in_session_ = false;
  bool values_ = false;
  std::vector<std::byte> request_;
  std::vector<std::byte> reply_;
};

/// The Conn floor: connect, send the request, read the reply, close. With
/// round_trips 2, a second round trip before the close (a handshake's and a
/// call's: what refwire's Conn does at least).
void connect_round_trip_close(std::string_view transport, const std::string& address, std::size_t request,
                              std::size_t reply, int round_trips = 1);

}  // namespace rpcbench::floors
