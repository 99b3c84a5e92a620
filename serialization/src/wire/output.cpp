// Output appends shared by the formats' writers (detail/wire/output.hpp).
#include <refwire/serialization/detail/wire/output.hpp>

namespace refwire::detail::wire {

void append_bytes(std::vector<std::byte>& out, const std::byte* p, std::size_t n) {
  if (n == 0) return;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"  // a false positive of g++ 12 -O2 on a range insert
#endif
  out.insert(out.end(), p, p + n);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
}

}  // namespace refwire::detail::wire
