#pragma once
// refwire/rpc/client.hpp: calls the methods of a described interface served
// by another process (or thread).
//
//   refwire::rpc::client<calculator> calc("unix:///tmp/calc.sock", {.timeout = std::chrono::seconds(2)});
//   int r = calc.call<&calculator::add>(2, 3);                         // waits for the reply
//   auto f = calc.async_call<&calculator::add>(2, 3);  int r2 = f.get();
//   calc.notify<&calculator::log>("fire and forget");                   // one-way, void methods only
//   int s = calc.call<&calculator::add>({.timeout = std::chrono::milliseconds(100)}, 2, 3);  // this call's deadline
//
// One client is safe to share between threads; its calls share one
// connection, many in flight at once. Threading: a caller alone on the
// connection reads its own reply (no thread hop); with many callers, one of
// them reads for all and hands the others their replies. The client starts no
// thread, except with client_options::ping_interval > 0: then it owns one,
// started in the constructor and joined in the destructor, that pings a
// connection silent for ping_interval (reading the pong itself when no caller
// is reading) and breaks it when nothing arrives within ping_timeout.
//
// Every request carries the call's timeout (docs/rpc-protocol.md §5.1), so the
// server can drop work whose caller has given up. Hooks (client_options::stats
// and log, refwire/rpc/hooks.hpp): one call_record per call() and async_call()
// (not notify()); the log says when a connection opens and closes (info), why
// a frame or handshake reply from the server was refused, replies for no call
// in flight, ping timeouts and slow calls (warning). Without hooks, a call
// reads no hook clock and formats nothing.

#include <chrono>
#include <cstddef>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <refwire/rpc/detail/client_core.hpp>
#include <refwire/rpc/detail/method.hpp>
#include <refwire/rpc/error.hpp>
#include <refwire/rpc/options.hpp>
#include <refwire/rpc/pending.hpp>

namespace refwire::rpc {

/// Options of one call: call<&I::m>({.timeout = 100ms}, args...).
struct call_options {
  /// This call's deadline, from now; 0: the client's timeout.
  std::chrono::milliseconds timeout{0};
};

namespace detail {

template <class I>
std::vector<client_method> client_methods() {
  std::vector<client_method> out;
  for (const auto& m : methods_of<I>()) out.push_back({m.id, m.full_name, m.signature, m.shape});
  return out;
}

/// True when the first of A is call_options: the overload with options is meant.
template <class... A>
inline constexpr bool options_first = false;
template <class A0, class... A>
inline constexpr bool options_first<A0, A...> = std::is_same_v<std::remove_cvref_t<A0>, call_options>;

template <auto M, class... A>
constexpr void check_call() {
  using I = typename method<M>::interface;
  static_assert(std::is_invocable_v<decltype(M), I&, A...>,
                "refwire: call<&I::m>(args...): the arguments do not match the method's parameters "
                "(an out-parameter T& needs an lvalue of type T)");
}

}  // namespace detail

/// A connection to a server of interface I (a struct of pure virtual
/// functions described with BOOST_DESCRIBE_STRUCT). Connects and handshakes
/// in the constructor; throws rpc_error (unavailable when nobody listens,
/// invalid_argument when the endpoint refuses the codec, naming what it accepts).
///
///   refwire::rpc::client<calculator> calc("tcp://127.0.0.1:7000", {.codec = refwire::rpc::codec::json});
template <class I>
class client {
  static_assert(detail::is_interface_v<I>,
                "refwire: client<I>: I must be a struct of virtual member functions described with "
                "BOOST_DESCRIBE_STRUCT(I, (), (method, ...))");

 public:
  explicit client(std::string_view uri, const client_options& options = {})
      : core_(uri, options, detail::interface_name_v<I>, detail::client_methods<I>()) {}

  /// Calls M with args and waits for its result (void methods too wait for the
  /// reply). Out-parameters (non-const T&) receive the server's values.
  /// Throws rpc_error (deadline_exceeded, unavailable, unimplemented, ...) or
  /// remote_error (the handler threw).
  ///   std::vector<point> v = calc.call<&calculator::range>(10);
  template <auto M, class... A>
    requires(!detail::options_first<A...>)
  typename detail::method<M>::result call(A&&... args) {
    detail::check_call<M, A...>();
    return do_call<M>(core_.options().timeout, args...);
  }

  /// The same with options for this call.
  ///   calc.call<&calculator::add>({.timeout = std::chrono::milliseconds(50)}, 2, 3);
  template <auto M, class... A>
  typename detail::method<M>::result call(const call_options& options, A&&... args) {
    detail::check_call<M, A...>();
    return do_call<M>(timeout_of(options), args...);
  }

  /// Sends the call and returns at once; the pending collects the reply.
  /// Out-parameters are written by pending::get(): keep them alive until then.
  ///   auto f = calc.async_call<&calculator::add>(2, 3);  ...  int r = f.get();
  template <auto M, class... A>
    requires(!detail::options_first<A...>)
  pending<typename detail::method<M>::result> async_call(A&&... args) {
    return async_call<M>(call_options{}, std::forward<A>(args)...);
  }

  template <auto M, class... A>
  pending<typename detail::method<M>::result> async_call(const call_options& options, A&&... args) {
    detail::check_call<M, A...>();
    using R = typename detail::method<M>::result;
    auto encode = [&](rpc::codec c, std::vector<std::byte>& out, detail::gather_list* g) {
      detail::encode_request_gathered<M>(c, out, g, args...);
    };
    auto state = core_.start(detail::method<M>::index, timeout_of(options), encode);
    // The finisher keeps pointers to the caller's arguments for the out-parameters.
    auto finish = [refs = std::tuple<std::remove_reference_t<A>*...>(std::addressof(args)...)](
                      detail::async_state& s) -> R {
      detail::result_storage<M> result;
      auto decode = [&](rpc::codec c, std::span<const std::byte> in, detail::blob_source* source) {
        return std::apply([&](auto*... p) { return detail::decode_response_from<M>(c, in, source, result, *p...); },
                          refs);
      };
      detail::async_finish(s, decode);
      if constexpr (!std::is_void_v<R>) return std::move(result.value);
    };
    return pending<R>(std::move(state), std::move(finish));
  }

  /// A one-way call to a void method without out-parameters: sent, never
  /// answered; a handler's failure is not reported back. Throws rpc_error
  /// only when it cannot be sent.
  ///   calc.notify<&calculator::log>("started");
  template <auto M, class... A>
  void notify(A&&... args) {
    static_assert(detail::method<M>::one_way_ok,
                  "refwire: notify<&I::m>: only void methods without out-parameters can be one-way");
    detail::check_call<M, A...>();
    auto encode = [&](rpc::codec c, std::vector<std::byte>& out, detail::gather_list* g) {
      detail::encode_request_gathered<M>(c, out, g, args...);
    };
    core_.notify(detail::method<M>::index, encode);
  }

  /// The endpoint this client talks to.
  [[nodiscard]] const std::string& uri() const noexcept { return core_.uri(); }
  [[nodiscard]] const client_options& options() const noexcept { return core_.options(); }

 private:
  template <auto M, class... A>
  typename detail::method<M>::result do_call(std::chrono::milliseconds timeout, A&... args) {
    using R = typename detail::method<M>::result;
    detail::result_storage<M> result;
    auto encode = [&](rpc::codec c, std::vector<std::byte>& out, detail::gather_list* g) {
      detail::encode_request_gathered<M>(c, out, g, args...);
    };
    auto decode = [&](rpc::codec c, std::span<const std::byte> in, detail::blob_source* source) {
      return detail::decode_response_from<M>(c, in, source, result, args...);
    };
    core_.call(detail::method<M>::index, timeout, encode, decode);
    if constexpr (!std::is_void_v<R>) return std::move(result.value);
  }

  std::chrono::milliseconds timeout_of(const call_options& o) const noexcept {
    return o.timeout.count() > 0 ? o.timeout : core_.options().timeout;
  }

  detail::client_core core_;
};

}  // namespace refwire::rpc
