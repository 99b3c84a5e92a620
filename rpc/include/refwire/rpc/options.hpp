#pragma once
// refwire/rpc/options.hpp: the option structs of clients, servers and endpoints.
// Members are in the order of DESIGN.md §3; use designated initializers:
//
//   refwire::rpc::client<calculator> c("unix:///tmp/calc.sock",
//       {.codec = refwire::rpc::codec::json, .timeout = std::chrono::seconds(2)});
//   refwire::rpc::server s({.io_threads = 2});
//   s.listen("tcp://0.0.0.0:7000", {.codecs = {refwire::rpc::codec::json}});

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <refwire/rpc/hooks.hpp>
#include <refwire/rpc/status.hpp>
#include <refwire/serialization/options.hpp>  // refwire::compression

namespace refwire::rpc {

/// The default longest frame payload, both ways: 16 MiB.
inline constexpr std::uint32_t default_max_frame_size = 16u << 20;

struct client_options {
  /// The serializer for arguments and results; the endpoint must accept it.
  refwire::rpc::codec codec = refwire::rpc::codec::binary;
  /// lz4 for payloads of at least compression_threshold bytes (both ways).
  refwire::compression compression = refwire::compression::none;
  /// Per call, from the moment it is made until its reply has been read.
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
  /// Connecting and the handshake together.
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(5);
  /// After a failed connection the next call connects again at once; false:
  /// every later call fails with unavailable.
  bool reconnect = true;
  /// The longest payload sent or accepted.
  std::uint32_t max_frame_size = default_max_frame_size;
  /// Calls waiting for a reply on the connection; past it a call fails with
  /// resource_exhausted without being sent.
  std::uint32_t max_calls_in_flight = 4096;
  /// With compression::lz4: payloads shorter than this travel as they are.
  std::uint32_t compression_threshold = 1024;
  /// 0 (the default): no pings. Otherwise a connection with no call in
  /// flight that has received nothing for this long is sent a ping, by a
  /// thread the client then owns. (A call in flight is bounded by its own
  /// deadline; a server whose handler runs on its IO thread answers no ping
  /// until the handler returns.)
  std::chrono::milliseconds ping_interval = std::chrono::milliseconds(0);
  /// No frame within this after a ping: the connection is taken for dead,
  /// the calls in flight fail with unavailable, the next call connects again.
  /// So a dead peer behind a silent network is found within
  /// ping_interval + ping_timeout of the connection going idle.
  std::chrono::milliseconds ping_timeout = std::chrono::seconds(5);
  /// Hooks (refwire/rpc/hooks.hpp): none by default, and then they cost nothing.
  std::shared_ptr<refwire::rpc::stats_sink> stats = nullptr;
  std::shared_ptr<refwire::rpc::logger> log = nullptr;
};

struct server_options {
  /// Threads that run the event loop: they read requests (and run the
  /// handlers when handler_threads is 0).
  unsigned io_threads = 1;
  /// The longest payload accepted or sent (a longer reply becomes a resource_exhausted error reply).
  std::uint32_t max_frame_size = default_max_frame_size;
  /// Requests of one connection read and not yet answered (queued for or
  /// running on a handler thread); past it a new request gets a
  /// resource_exhausted error reply and the connection stays.
  std::uint32_t max_calls_in_flight = 1024;
  /// A connection that has not completed its handshake by then is closed.
  std::chrono::milliseconds handshake_timeout = std::chrono::seconds(10);
  /// A connection that has sent nothing for this long, with no call of it in
  /// flight, is closed (0, the default: never).
  std::chrono::milliseconds idle_timeout = std::chrono::milliseconds(0);
  /// A connection whose replies wait to be written and that has taken none of
  /// their bytes for this long (a peer that stopped reading) is closed.
  std::chrono::milliseconds write_timeout = std::chrono::seconds(30);
  /// stop() waits this long for the running handlers; then their calls and
  /// the queued ones fail with unavailable (the handlers see cancelled()).
  std::chrono::milliseconds drain_timeout = std::chrono::seconds(5);
  /// Open connections, every endpoint together; past it a new connection is
  /// sent an error frame (resource_exhausted, saying why) and closed.
  std::uint32_t max_connections = 1024;
  /// 0 (the default): a handler runs on the IO thread that read its request,
  /// and one connection's requests are answered in order. Otherwise a pool of
  /// this many threads runs them: a slow handler delays no other call, and
  /// replies may come out of order.
  unsigned handler_threads = 0;
  /// Hooks (refwire/rpc/hooks.hpp): none by default, and then they cost nothing.
  std::shared_ptr<refwire::rpc::stats_sink> stats = nullptr;
  std::shared_ptr<refwire::rpc::logger> log = nullptr;
};

struct endpoint_options {
  /// The codecs a client may choose here (default: every codec).
  std::vector<refwire::rpc::codec> codecs = {refwire::rpc::codec::binary, refwire::rpc::codec::json,
                                             refwire::rpc::codec::protobuf};
  /// The compressions a client may choose here (default: both).
  std::vector<refwire::compression> compressions = {refwire::compression::none, refwire::compression::lz4};
  /// unix: the socket file's mode, e.g. 0600 (default: as the umask leaves it).
  std::optional<std::uint32_t> unix_mode = std::nullopt;
};

}  // namespace refwire::rpc
