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
// Threading: server_options::io_threads threads run the event loop; a
// handler runs on the IO thread that read its request, so a connection's
// requests are answered in order. Handlers of different connections run at
// once when io_threads > 1: an implementation shared by them must be thread-safe.

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

  /// Listens on uri ("unix:///path", "tcp://host:port", "inproc://name") with
  /// the codecs and compressions of options; returns the bound URI (the real
  /// port for "tcp://127.0.0.1:0"). May be called before or after start().
  /// Throws rpc_error (invalid_argument for a malformed URI, unavailable when
  /// the address is in use).
  std::string listen(std::string_view uri, const endpoint_options& options = {});

  /// Starts the IO threads and returns at once.
  void start();
  /// start(), then blocks until stop() is called (from another thread).
  void run();
  /// Stops accepting, lets the handlers running finish and their replies go
  /// out, closes every connection, joins the threads. Idempotent.
  void stop();

  [[nodiscard]] const server_options& options() const noexcept;

 private:
  void add(std::vector<detail::served_method> methods);

  std::unique_ptr<detail::server_state> state_;
};

}  // namespace refwire::rpc
