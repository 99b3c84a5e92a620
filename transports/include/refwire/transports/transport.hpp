#pragma once
// refwire/transports/transport.hpp: byte streams and listeners over unix
// sockets, TCP, shared memory between processes and in-process pipes. Knows
// nothing of rpc or formats.
//
//   boost::asio::io_context io;                        // the owner's event loop
//   auto where = refwire::transports::parse_uri("tcp://127.0.0.1:0");
//   auto l = refwire::transports::listen(io, where);   // l->uri(): "tcp://127.0.0.1:41234"
//   auto s = refwire::transports::connect(io, refwire::transports::parse_uri(l->uri()),
//                                         refwire::transports::clock::now() + std::chrono::seconds(1));
//   std::span<const std::byte> parts[] = {header, payload};
//   s->write_all(parts, deadline);                     // one writev when the kernel takes it all
//
// Every stream offers two ways in: blocking calls with a deadline (a client's
// calling thread reads its own reply) and non-blocking/asynchronous ones that
// complete on the io_context the stream was made with (a server's IO threads).
// Nothing here starts a thread; the io_context's owner runs it.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace refwire::transports {

/// The clock of every deadline: monotonic.
///   time_point deadline = clock::now() + std::chrono::milliseconds(500);
using clock = std::chrono::steady_clock;
/// A deadline: an instant of clock.
using time_point = clock::time_point;
/// A deadline that never comes.
///   s->read_some(buf, no_deadline);  // waits for bytes, end of stream or close()
inline constexpr time_point no_deadline = time_point::max();

/// What went wrong with a transport operation.
enum class errc : std::uint8_t {
  ok = 0,
  invalid_uri,         ///< the URI does not parse; the message says what is wrong
  address_in_use,      ///< listen: another listener holds the address (a live unix socket, a bound port, an inproc name)
  connection_refused,  ///< connect: nobody listens there (also: no unix socket file, no inproc listener by that name)
  not_found,           ///< connect: the host name does not resolve
  timed_out,           ///< the deadline passed
  closed,              ///< the stream or listener was closed (by close(), or the peer closed: end of stream)
  io_error,            ///< any other failure of the system call; the message has strerror's text
};

/// "invalid_uri", "address_in_use", ...
///   std::cerr << to_string(e.code());  // "timed_out"
[[nodiscard]] std::string_view to_string(errc c) noexcept;

/// The one exception type of this component.
///   try { connect(io, where, deadline); } catch (const transport_error& e) { if (e.code() == errc::timed_out) ...; }
class transport_error : public std::runtime_error {
 public:
  transport_error(errc code, const std::string& what);
  [[nodiscard]] errc code() const noexcept { return code_; }

 private:
  errc code_;
};

/// The transport a URI names: unix:// (a unix socket file), tcp://, inproc://
/// (this process), shm:// (shared memory with a process on this machine).
///   if (parse_uri(text).scheme == scheme::shm) ...
enum class scheme : std::uint8_t { unix_socket, tcp, inproc, shm };

/// shm: the bytes of each direction's ring when the URI names none (1 MiB).
///   parse_uri("shm://calc").ring_size == 0  // listen uses shm_default_ring_size
inline constexpr std::size_t shm_default_ring_size = std::size_t{1} << 20;
/// shm: the smallest ring size a URI may ask for (4 KiB); sizes are powers of two.
///   parse_uri("shm://calc?ring_size=4096")  // the smallest
inline constexpr std::size_t shm_min_ring_size = std::size_t{1} << 12;
/// shm: the largest ring size a URI may ask for (1 GiB).
///   parse_uri("shm://calc?ring_size=1073741824")  // the largest
inline constexpr std::size_t shm_max_ring_size = std::size_t{1} << 30;

/// A parsed endpoint URI.
///   endpoint e = parse_uri("tcp://[::1]:7000");  // e.host == "::1", e.port == 7000
struct endpoint {
  transports::scheme scheme = transports::scheme::tcp;
  std::string host;         ///< tcp: a name or an address (IPv6 without its brackets)
  std::uint16_t port = 0;   ///< tcp: 0 asks listen for any free port
  std::string path;         ///< unix: the socket file path; inproc and shm: the name
  /// shm: the bytes of each direction's ring ("shm://name?ring_size=4194304"), a
  /// power of two from shm_min_ring_size to shm_max_ring_size; 0: the default
  /// (shm_default_ring_size). The listener's value decides; connect ignores it.
  std::size_t ring_size = 0;
  /// The URI again: "tcp://127.0.0.1:41234", "tcp://[::1]:80", "unix:///tmp/x.sock", "inproc://name",
  /// "shm://name", "shm://name?ring_size=65536".
  [[nodiscard]] std::string uri() const;
};

/// Parses "unix:///path", "tcp://host:port" (IPv4, [IPv6], or a name such as
/// localhost), "inproc://name", "shm://name" and "shm://name?ring_size=N" (a
/// name of letters, digits, '.', '_' and '-', at most 100 bytes). Throws transport_error(errc::invalid_uri) with
/// a message that quotes the URI and names what is wrong:
///   parse_uri("tcp://localhost")  // tcp://localhost: missing port (write tcp://host:port)
[[nodiscard]] endpoint parse_uri(std::string_view uri);

/// Who is on the other end of a stream.
///   s->peer().address  // "unix:///run/app.sock"; s->peer().uid: the connecting process's uid
struct peer_identity {
  std::string address;                 ///< "tcp://127.0.0.1:50412", "unix:///tmp/x.sock", "inproc://name", "shm://name"
  std::optional<std::uint32_t> uid;    ///< unix sockets and shm (SO_PEERCRED), inproc (this process)
  std::optional<std::uint32_t> pid;
};

/// A gather list: written in order, as one writev when the kernel takes it all.
///   std::span<const std::byte> parts[] = {header, payload};  s->write_all(parts, deadline);
using buffer_list = std::span<const std::span<const std::byte>>;

/// A connected byte stream (non-copyable; closing is idempotent and thread-safe).
///
///   std::byte buf[4096];
///   std::size_t n = s.read_some(buf, clock::now() + 2s);   // 0: the peer closed
class stream {
 public:
  stream() = default;
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  virtual ~stream() = default;

  // -- blocking, with a deadline: for one thread at a time per direction --

  /// Reads at least one byte (at most into.size()); returns the count, or 0
  /// when the peer has closed its side. Throws transport_error: timed_out at
  /// the deadline, closed after close(), io_error.
  virtual std::size_t read_some(std::span<std::byte> into, time_point deadline) = 0;
  /// Writes every byte of parts, in order. Throws timed_out (some bytes may
  /// have been written), closed, io_error (a peer that went away: EPIPE is
  /// io_error "broken pipe"; SIGPIPE is never raised).
  virtual void write_all(buffer_list parts, time_point deadline) = 0;

  // -- non-blocking and asynchronous, completing on the stream's io_context --

  /// Writes what the kernel takes now, never blocks; returns the byte count
  /// (possibly 0). Throws closed or io_error.
  virtual std::size_t try_write(buffer_list parts) = 0;
  /// done(errc::ok, n) with n > 0 once bytes are in `into` (which must stay
  /// valid until then); done(errc::closed, 0) at end of stream or after close();
  /// done(errc::io_error, 0) on failure. One read outstanding at a time.
  virtual void async_read_some(std::span<std::byte> into, std::function<void(errc, std::size_t)> done) = 0;
  /// done(errc::ok) once the stream can take more bytes (after try_write
  /// returned short); done(errc::closed) after close().
  virtual void async_wait_writable(std::function<void(errc)> done) = 0;

  /// Shuts both directions: blocked and pending operations (in any thread)
  /// end with errc::closed. The descriptor itself is released by the destructor.
  virtual void close() noexcept = 0;
  /// The other end: its address, and for unix sockets and inproc its uid and pid.
  ///   if (s.peer().uid != getuid()) s.close();
  [[nodiscard]] virtual const peer_identity& peer() const noexcept = 0;
  /// The socket descriptor, for getsockopt and diagnostics (shm: the setup
  /// socket, a unix socket); -1 for inproc.
  /// The stream owns it: never read, write or close it.
  ///   int one = 0; socklen_t n = sizeof one; getsockopt(s.native_handle(), IPPROTO_TCP, TCP_NODELAY, &one, &n);
  [[nodiscard]] virtual int native_handle() const noexcept { return -1; }
};

/// How many bytes an inproc stream buffers per direction: try_write takes what
/// fits, write_all waits for the reader to make room.
///   s->try_write(parts);  // at most inproc_buffer_bytes queued before the peer reads
inline constexpr std::size_t inproc_buffer_bytes = std::size_t{4} << 20;

/// How to listen (designated initializers: listen(io, where, {.unix_mode = 0600})).
struct listen_options {
  /// unix: the socket file's mode (chmod after bind), e.g. 0600; default: as the umask leaves it.
  std::optional<std::uint32_t> unix_mode{};
  /// Connections queued before accept (inproc: connects beyond it are refused).
  int backlog = 128;
};

/// Accepts streams (non-copyable). Destroying it closes it.
///   l->async_accept([&](errc c, std::unique_ptr<stream> s) { if (c == errc::ok) serve(std::move(s)); });
class listener {
 public:
  listener() = default;
  listener(const listener&) = delete;
  listener& operator=(const listener&) = delete;
  virtual ~listener() = default;

  /// The bound endpoint as a URI, with the real port for "tcp://host:0".
  [[nodiscard]] virtual const std::string& uri() const noexcept = 0;
  /// done(errc::ok, stream) on the io_context for the next connection;
  /// done(errc::closed, nullptr) after close(). One accept outstanding at a time.
  virtual void async_accept(std::function<void(errc, std::unique_ptr<stream>)> done) = 0;
  /// Stops accepting (a pending accept ends with closed); a unix listener
  /// removes its socket file, an inproc one its name. Idempotent, thread-safe.
  virtual void close() noexcept = 0;
};

/// Binds and listens. TCP: SO_REUSEADDR; unix: a socket file nobody listens on
/// (stale) is replaced, a live one is errc::address_in_use; inproc: the name
/// must be free in this process; shm: a unix socket at the rendezvous path
/// ($XDG_RUNTIME_DIR/refwire/<name>, else /tmp/refwire-<uid>/<name>, the
/// directory made with mode 0700 and refused if it is not ours or is open to
/// group or others), stale and live files as for unix. Throws transport_error.
[[nodiscard]] std::unique_ptr<listener> listen(boost::asio::io_context& io, const endpoint& where,
                                               const listen_options& options = {});

/// Connects before the deadline (TCP: every resolved address in turn,
/// TCP_NODELAY set). The stream's asynchronous operations complete on io.
/// Runs no event loop of its own beyond this call. Throws transport_error:
/// connection_refused, not_found, timed_out, invalid_uri, io_error.
[[nodiscard]] std::unique_ptr<stream> connect(boost::asio::io_context& io, const endpoint& where,
                                              time_point deadline);

}  // namespace refwire::transports
