#pragma once
// Appending to an output vector, shared by every format's staging writer
// (each writer stages small writes in a stack buffer of its own and appends
// them in blocks).

#include <cstddef>
#include <vector>

namespace refwire::detail::wire {

/// Appends n bytes to out without zero-filling first (compiled once, in src/wire/output.cpp).
void append_bytes(std::vector<std::byte>& out, const std::byte* p, std::size_t n);

}  // namespace refwire::detail::wire
