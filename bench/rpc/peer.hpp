#pragma once
// bench/rpc/peer.hpp: what a peer library (gRPC, Cap'n Proto) supplies to
// bench_rpc. The driver (bench_rpc.cpp) owns processes, timing and tables; a
// peer only serves the shapes and calls them.
//
// Servers run in a separate process: the driver re-executes its own program as
//   bench_rpc --serve=<peer> --transport=<unix|tcp> --dir=<private temp dir>
// which calls peer::serve. serve listens (a unix socket file inside dir, or
// 127.0.0.1 on a free port), prints exactly one line "ready <address>\n" on
// stdout and flushes, serves until its standard input reaches end of file (the
// driver holds the pipe), then stops and returns main's exit status (0). The
// address is what peer::connect takes ("unix:/dir/grpc.sock", "127.0.0.1:41234",
// whatever the peer's own API wants). Nothing may start threads before serve is
// called (gRPC must not be forked after its threads start: the driver spawns a
// fresh exec, never a fork of a process that used gRPC).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "shapes.hpp"

namespace rpcbench {

/// One connection to a peer's server: the calls of bench_service, made through
/// the peer's own stubs. Calls throw std::runtime_error on failure.
using peer_client = bench_service;

struct peer {
  std::string_view name;  ///< "grpc", "capnp": the column and the --serve= value
  /// Runs the server for transport "unix" or "tcp" in dir (see above).
  std::function<int(std::string_view transport, const std::string& dir)> serve;
  /// Connects (and does whatever a first call needs: a Conn sample is connect + add(1, 2) + destroy).
  std::function<std::unique_ptr<peer_client>(const std::string& address)> connect;
  /// True when one peer_client may be used by several threads at once.
  bool shared_client = false;
  /// Optional: the peer's best way to run Sim at volume (gRPC: its callback API).
  /// Runs add() calls from `threads` caller threads over `clients` connections
  /// for about `duration`; returns the number of calls completed. Empty: the
  /// driver runs connect/add itself.
  std::function<std::uint64_t(const std::string& address, int threads, int clients,
                              std::chrono::nanoseconds duration)>
      sim_throughput;
};

/// Defined in peer_grpc.cpp and peer_capnp.cpp.
const peer& grpc_peer();
const peer& capnp_peer();

}  // namespace rpcbench
