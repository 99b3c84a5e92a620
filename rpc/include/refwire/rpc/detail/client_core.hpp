#pragma once
// The non-template part of client<I> (compiled once, in rpc/src/client.cpp):
// the connection, the handshake, request ids, the table of calls in flight and
// the reader hand-over. client<I> only encodes and decodes.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <refwire/rpc/detail/function_ref.hpp>
#include <refwire/rpc/detail/method.hpp>
#include <refwire/rpc/options.hpp>
#include <refwire/serialization/error.hpp>

namespace refwire::rpc::detail {

/// What the client sends of each method in its handshake (client<I> builds it from methods_of<I>()).
struct client_method {
  std::uint32_t id = 0;
  std::string full_name;  ///< "calc.v1.add"
  std::string signature;
  std::string shape;
};

/// Encodes the request into out (cleared first); with the binary codec and a
/// gather list, large blobs stay in the arguments (encode_request_gathered).
using encode_fn = function_ref<void(rpc::codec, std::vector<std::byte>&, gather_list*)>;
/// Decodes a reply of which the span is the beginning; a non-null source
/// holds the rest (decode_response_from).
using decode_fn = function_ref<refwire::error(rpc::codec, std::span<const std::byte>, blob_source*)>;

struct client_state;
struct async_state;

/// Waits until the call has completed or `until` passed (its own deadline
/// still applies); true when it has completed.
[[nodiscard]] bool async_wait(async_state& s, std::chrono::steady_clock::time_point until);
/// After async_wait returned true: decodes the reply with decode, or throws
/// the call's rpc_error. Once only.
void async_finish(async_state& s, decode_fn decode);
/// Gives up on the call: a cancel frame goes to the server, the call
/// completes with cancelled (a thread waiting for it wakes; one reading the
/// socket for it wakes with the pong of a ping sent with the cancel), and a
/// late reply is dropped.
void async_cancel(async_state& s) noexcept;
[[nodiscard]] bool async_ready(const async_state& s) noexcept;

class client_core {
 public:
  /// Connects and completes the handshake (throws rpc_error: unavailable,
  /// deadline_exceeded, invalid_argument when the endpoint refuses the codec);
  /// then starts the ping thread when options.ping_interval > 0.
  client_core(std::string_view uri, const client_options& options, std::string_view interface_name,
              std::vector<client_method> methods);
  /// Breaks the connection (calls in flight fail with unavailable) and joins the ping thread.
  ~client_core();
  client_core(const client_core&) = delete;
  client_core& operator=(const client_core&) = delete;

  /// One call: sends the request, waits for its reply (reading it on this
  /// thread when no other caller is), decodes it; throws rpc_error.
  void call(std::size_t method, std::chrono::milliseconds timeout, encode_fn encode, decode_fn decode);
  /// A one-way call: sent, never answered.
  void notify(std::size_t method, encode_fn encode);
  /// Sends a call whose reply is waited for later (pending<T>).
  [[nodiscard]] std::shared_ptr<async_state> start(std::size_t method, std::chrono::milliseconds timeout,
                                                   encode_fn encode);

  [[nodiscard]] const client_options& options() const noexcept;
  [[nodiscard]] const std::string& uri() const noexcept;

 private:
  std::shared_ptr<client_state> state_;
};

}  // namespace refwire::rpc::detail
