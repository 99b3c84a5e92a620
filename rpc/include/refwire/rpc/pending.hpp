#pragma once
// refwire/rpc/pending.hpp: the reply of an async_call, to be collected later.
//
//   refwire::rpc::pending<int> f = calc.async_call<&calculator::add>(2, 3);
//   do_other_work();
//   if (f.wait_for(std::chrono::milliseconds(50))) use(f.get());   // get() throws what call() would
//
// A pending keeps what it needs of its client alive; a client destroyed
// first completes it with unavailable. With a stats sink (client_options::stats)
// the call is recorded once: when get() has its result or failure (the latency
// ends when the reply arrived), when it is cancelled, or when the pending is
// dropped without get() (as cancelled if no reply had come). Out-parameters are written into the
// caller's arguments by get(), so they must outlive the pending.

#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

#include <refwire/rpc/detail/client_core.hpp>
#include <refwire/rpc/error.hpp>

namespace refwire::rpc {

template <class T>
class pending {
 public:
  pending() = default;
  pending(pending&&) noexcept = default;
  pending& operator=(pending&&) noexcept = default;

  /// Waits for the reply (within the call's deadline) and returns the result,
  /// or throws the call's rpc_error. Once only.
  ///   int r = f.get();
  T get() {
    check();
    while (!detail::async_wait(*state_, std::chrono::steady_clock::time_point::max())) {
    }
    // state_ itself stays (until the pending goes): cancel() on another thread may be using it.
    auto finish = std::exchange(finish_, nullptr);
    return finish(*state_);
  }

  /// Waits at most d; true when the reply (or the call's failure) is in and get() will not block.
  ///   while (!f.wait_for(10ms)) spin_ui();
  template <class Rep, class Period>
  [[nodiscard]] bool wait_for(std::chrono::duration<Rep, Period> d) {
    check();
    return detail::async_wait(*state_, std::chrono::steady_clock::now() +
                                           std::chrono::duration_cast<std::chrono::steady_clock::duration>(d));
  }

  /// True when get() will not block.
  [[nodiscard]] bool ready() const noexcept { return valid() && detail::async_ready(*state_); }
  /// Whether this pending still holds a call (false after get(), or default-constructed).
  [[nodiscard]] bool valid() const noexcept { return state_ != nullptr && finish_ != nullptr; }

  /// Gives up on the call: get() then throws rpc_error(cancelled); the server
  /// is told (a cancel frame), and a late reply is dropped. Safe to call from
  /// another thread than one blocked in get() or wait_for() on this call:
  /// that thread returns with cancelled at once when another caller is
  /// reading the connection; when it is itself the one reading (blocked in
  /// the socket read), cancel() also sends a ping, and it returns as soon as
  /// the server's pong (or any other frame) arrives. From a server that
  /// answers nothing it returns at its wait_for() bound or the call's
  /// deadline, whichever comes first.
  ///   if (user_pressed_stop) f.cancel();
  void cancel() noexcept {
    if (state_) detail::async_cancel(*state_);
  }

  /// Made by client<I>::async_call.
  using finish_fn = std::function<T(detail::async_state&)>;
  pending(std::shared_ptr<detail::async_state> state, finish_fn finish) noexcept
      : state_(std::move(state)), finish_(std::move(finish)) {}

 private:
  void check() const {
    if (!valid()) throw rpc_error(status_code::invalid_argument, "refwire::rpc::pending: no call (get() was already called, or it was moved from)");
  }

  std::shared_ptr<detail::async_state> state_;
  finish_fn finish_;
};

}  // namespace refwire::rpc
