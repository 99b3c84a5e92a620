#pragma once
// A non-owning reference to a callable, for passing a template's encode and
// decode steps to the code compiled once in src/ without allocating.

#include <memory>
#include <type_traits>
#include <utility>

namespace refwire::rpc::detail {

template <class Signature>
class function_ref;

template <class R, class... Args>
class function_ref<R(Args...)> {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, function_ref> && std::is_invocable_r_v<R, F&, Args...>)
  function_ref(F& f) noexcept  // NOLINT(google-explicit-constructor): built at the call site
      : object_(static_cast<void*>(std::addressof(f))), call_(&invoke<F>) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  template <class F>
  static R invoke(void* object, Args... args) {
    return (*static_cast<F*>(object))(std::forward<Args>(args)...);
  }

  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace refwire::rpc::detail
