// call_context::current(): the context of the handler running on this thread.

#include <refwire/rpc/call_context.hpp>

namespace refwire::rpc {

namespace {
thread_local const call_context* current_context = nullptr;
}  // namespace

const call_context* call_context::current() noexcept { return current_context; }

call_context::scope::scope(const call_context& ctx) noexcept : previous_(current_context) { current_context = &ctx; }

call_context::scope::~scope() { current_context = previous_; }

}  // namespace refwire::rpc
