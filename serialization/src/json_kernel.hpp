// Shared by the simdjson kernel (src/json_kernel.ipp) and src/json_read.cpp;
// not installed.
#pragma once

#include <refwire/serialization/detail/json_reader.hpp>

#include <cstddef>

namespace refwire::detail::json {

/// The per-thread parser state (the kernel derives its own).
struct kernel_state {
  bool in_use = false;
};

/// Where the first JSON value in [p, p + n) ends (just past it), found by a
/// string-aware bracket scan; n when it does not end inside the input.
std::size_t scan_value_end(const char* p, std::size_t n) noexcept;
/// Offset of the first byte of [p, p + n) that is not valid UTF-8 (n if none).
std::size_t first_invalid_utf8(const char* p, std::size_t n) noexcept;

}  // namespace refwire::detail::json
