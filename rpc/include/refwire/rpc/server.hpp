#pragma once
// refwire/rpc/server.hpp: serves implementations of described interfaces on
// one or more endpoints.
//
//   calc_impl impl;                                    // derives from calculator; outlives the server
//   refwire::rpc::server server;                       // server_options{}: one IO thread
//   server.serve<calculator>(impl);
//   std::string where = server.listen("tcp://127.0.0.1:0");     // "tcp://127.0.0.1:41234"
//   server.listen("unix:///tmp/calc.sock");                     // every codec
//   server.listen("tcp://0.0.0.0:7000", {.codecs = {refwire::rpc::codec::json}});
//   server.start();   // returns at once (or run(): blocks until stop())
//   ...
//   server.stop();    // stops accepting, finishes the calls in flight, returns
//
// Threading: server_options::io_threads threads run the event loop: they
// accept, read and parse requests. With handler_threads == 0 (the default) a
// handler runs on the IO thread that read its request, so a connection's
// requests are answered in order, one at a time. With handler_threads = N the
// server owns a pool of N threads (started by start(), joined by stop()): the
// IO thread queues each request, a pool thread runs its handler and writes
// the reply, so a slow handler delays no other call and one connection's
// replies may come out of order. Handlers of different connections (and, with
// a pool, of one connection) run at once: an implementation shared by them
// must be thread-safe.
//
// A handler can see its call through refwire::rpc::call_context::current():
// the peer, the method, the request id, the caller's deadline (the timeout it
// sent, counted from when the request was read) and cancelled(), which turns
// true when the caller cancels the call (a cancel frame), its deadline
// passes, or stop()'s drain_timeout runs out. A request whose deadline has
// passed before its handler starts is answered deadline_exceeded without
// running it; a cancelled request still queued is answered cancelled without
// running it. Every request gets exactly one reply.
//
// Limits (server_options): max_calls_in_flight per connection (past it the
// new call gets resource_exhausted and the connection stays), max_connections
// (past it a new connection is sent the reason, resource_exhausted, and
// closed), idle_timeout, write_timeout (a peer that stops reading its replies
// is closed), handshake_timeout, max_frame_size, drain_timeout (stop()).
// While a connection's unsent replies exceed 8 MiB it is not read from.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <refwire/rpc/detail/method.hpp>
#include <refwire/rpc/error.hpp>
#include <refwire/rpc/options.hpp>

namespace refwire::rpc {

namespace detail {
struct server_state;
}  // namespace detail

class server {
 public:
  /// No thread starts before start() or run().
  explicit server(const server_options& options = {});
  /// stop(), when still running.
  ~server();
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  /// Serves interface I with impl (which must outlive the server), on every
  /// endpoint. Several interfaces may be served; throws rpc_error
  /// (invalid_argument) when a method id is already taken (the same interface
  /// twice, or two method names whose ids collide), naming both methods. Call
  /// before start().
  ///   server.serve<calculator>(impl);
  template <class I>
  void serve(I& impl) {
    static_assert(detail::is_interface_v<I>,
                  "refwire: serve<I>(impl): I must be a struct of virtual member functions described with "
                  "BOOST_DESCRIBE_STRUCT(I, (), (method, ...))");
    add(detail::serve_table<I>(impl));
  }

  /// Listens on uri ("unix:///path", "tcp://host:port", "shm://name", "inproc://name") with
  /// the codecs and compressions of options; returns the bound URI (the real
  /// port for "tcp://127.0.0.1:0"). May be called before or after start().
  /// Throws rpc_error (invalid_argument for a malformed URI, unavailable when
  /// the address is in use).
  std::string listen(std::string_view uri, const endpoint_options& options = {});

  /// Starts the IO threads and returns at once.
  void start();
  /// start(), then blocks until stop() is called (from another thread).
  void run();
  /// Stops accepting and reading requests; the calls already read are served
  /// (and their replies go out) for up to drain_timeout; then each call not yet
  /// answered gets unavailable ("the server stopped before the call completed
  /// (drain_timeout 5000 ms)") and its handler sees cancelled(). Waits for the
  /// running handlers to return, closes every connection, joins the threads.
  /// Idempotent; a second stop() waits for the first.
  void stop();

  [[nodiscard]] const server_options& options() const noexcept;

 private:
  void add(std::vector<detail::served_method> methods);

  std::unique_ptr<detail::server_state> state_;
};

}  // namespace refwire::rpc
