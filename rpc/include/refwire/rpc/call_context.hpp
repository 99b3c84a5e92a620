#pragma once
// refwire/rpc/call_context.hpp: what a handler can know about the call it is
// running: who called, until when the caller waits, whether it gave up.
//
//   std::vector<row> report_impl::scan(int days) {
//     const auto* call = refwire::rpc::call_context::current();   // nullptr outside a handler
//     for (int d = 0; d < days; ++d) {
//       if (call && call->cancelled()) throw refwire::rpc::rpc_error(refwire::rpc::status_code::cancelled, "scan: given up");
//       ...
//     }
//   }

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>

#include <refwire/transports/transport.hpp>

namespace refwire::rpc {

class call_context {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  /// The call the handler running on this thread serves; nullptr on a thread
  /// that is not running a handler.
  [[nodiscard]] static const call_context* current() noexcept;

  /// When the caller gives up: its timeout (sent with the request), counted
  /// from when the server read the request; time_point::max() when it sent none.
  [[nodiscard]] time_point deadline() const noexcept { return deadline_; }
  /// True once the caller cancelled the call, its deadline passed, or the
  /// server stopped and its drain_timeout ran out. A long handler polls it.
  [[nodiscard]] bool cancelled() const noexcept {
    return cancelled_.load(std::memory_order_relaxed) ||
           (deadline_ != time_point::max() && std::chrono::steady_clock::now() >= deadline_);
  }
  /// The connection's peer: address, and uid and pid over unix sockets.
  [[nodiscard]] const transports::peer_identity& peer() const noexcept { return *peer_; }
  /// "calc.v1.add".
  [[nodiscard]] std::string_view method() const noexcept { return method_; }
  /// The request id on its connection (0 for a one_way call).
  [[nodiscard]] std::uint32_t request_id() const noexcept { return request_id_; }
  /// True for a notify (one_way) call: nobody waits for its result.
  [[nodiscard]] bool one_way() const noexcept { return one_way_; }

  // Made by the server, one per call; not for users.
  call_context(const transports::peer_identity& peer, std::string_view method, std::uint32_t request_id,
               bool one_way, time_point deadline) noexcept
      : peer_(&peer), method_(method), request_id_(request_id), one_way_(one_way), deadline_(deadline) {}
  call_context(const call_context&) = delete;
  call_context& operator=(const call_context&) = delete;
  /// Marks the call cancelled (the server: a cancel frame, or the drain timeout).
  void cancel() noexcept { cancelled_.store(true, std::memory_order_relaxed); }

  /// Makes ctx current() on this thread until destroyed (the server, around a handler).
  class scope {
   public:
    explicit scope(const call_context& ctx) noexcept;
    ~scope();
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;

   private:
    const call_context* previous_;
  };

 private:
  const transports::peer_identity* peer_;
  std::string_view method_;
  std::uint32_t request_id_;
  bool one_way_;
  time_point deadline_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace refwire::rpc
