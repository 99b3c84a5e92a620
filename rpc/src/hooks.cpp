// The hooks' clock (replaceable by tests), memory_stats and stream_logger.

#include <atomic>
#include <refwire/rpc/hooks.hpp>

namespace refwire::rpc {

namespace detail {

namespace {

std::chrono::steady_clock::time_point steady_now() noexcept { return std::chrono::steady_clock::now(); }

std::atomic<hook_clock_fn> hook_clock{&steady_now};

}  // namespace

void set_hook_clock(hook_clock_fn f) noexcept { hook_clock.store(f != nullptr ? f : &steady_now); }

std::chrono::steady_clock::time_point hook_now() noexcept { return hook_clock.load(std::memory_order_relaxed)(); }

}  // namespace detail

}  // namespace refwire::rpc
