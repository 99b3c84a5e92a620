#pragma once
// alloc_watch.hpp: replaces the global operator new / delete of the test
// program that includes it (include it from exactly one source file of a test
// executable), so a test can assert that a decode made no large allocation, or
// none at all:
//
//   refwire_test::alloc_watch w;               // counts from here to its end
//   auto e = refwire::deserialize<refwire::binary>(lying_bytes, v);
//   EXPECT_LT(w.largest(), 4096U);             // a 2^40-element claim allocated nothing big
//
// Deallocation goes straight to free; ASan still checks every byte read,
// because malloc is what it instruments.

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace refwire_test::detail {
inline std::atomic<bool> watching{false};
inline std::atomic<std::size_t> largest{0};
inline std::atomic<std::size_t> count{0};
// Out of line so that g++ does not see free() paired with operator new at the
// inlined call sites (-Wmismatched-new-delete).
[[gnu::noinline]] inline void release(void* p) noexcept { std::free(p); }
}  // namespace refwire_test::detail

void* operator new(std::size_t n) {
  namespace d = refwire_test::detail;
  if (d::watching.load(std::memory_order_relaxed)) {
    d::count.fetch_add(1, std::memory_order_relaxed);
    std::size_t prev = d::largest.load(std::memory_order_relaxed);
    while (n > prev && !d::largest.compare_exchange_weak(prev, n)) {
    }
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// The nothrow form too (simdjson allocates with it): else it would come from
// the default allocator and be released by the free() below.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { refwire_test::detail::release(p); }
void operator delete(void* p, std::size_t) noexcept { refwire_test::detail::release(p); }

namespace refwire_test {

/// Watches the allocations made while it lives (on any thread).
class alloc_watch {
 public:
  alloc_watch() {
    detail::largest = 0;
    detail::count = 0;
    detail::watching = true;
  }
  ~alloc_watch() { detail::watching = false; }
  alloc_watch(const alloc_watch&) = delete;
  alloc_watch& operator=(const alloc_watch&) = delete;

  /// The largest single allocation so far, in bytes.
  [[nodiscard]] std::size_t largest() const { return detail::largest.load(); }
  /// How many allocations so far.
  [[nodiscard]] std::size_t count() const { return detail::count.load(); }
};

}  // namespace refwire_test
