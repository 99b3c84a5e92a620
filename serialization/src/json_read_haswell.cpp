// The simdjson on-demand kernel compiled for AVX2 CPUs (simdjson's "haswell"
// implementation), chosen at run time by active_kernel() when the CPU has
// AVX2, BMI1 and PCLMULQDQ (the library still runs on any x86-64).
//
// simdjson's on-demand code is only built for SIMDJSON_BUILTIN_IMPLEMENTATION,
// so this file sets it to haswell and compiles simdjson.h and the kernel in a
// target region. Every standard header simdjson.h uses is included before
// the region, so no standard-library code is compiled for AVX2 here; the
// AVX2 code is simdjson's (all in simdjson::haswell or always inlined) and
// this kernel's (an anonymous namespace), reached only after the CPU check.
#include "json_kernel.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cfloat>
#include <cinttypes>
#include <climits>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <ostream>
#include <ranges>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>
#include <immintrin.h>

#include <refwire/serialization/json.hpp>

#define SIMDJSON_BUILTIN_IMPLEMENTATION haswell
// Plain inline instead of always_inline: standard templates (defined outside
// the region, e.g. std::pair's constructors) may then call simdjson's AVX2
// functions out of line instead of failing to inline them.
#define simdjson_inline inline
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi,pclmul,lzcnt"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi,pclmul,lzcnt")
#endif

#include <simdjson.h>

#define REFWIRE_JSON_KERNEL haswell_avx2
#define REFWIRE_JSON_KERNEL_NAME "haswell"
#include "json_kernel.ipp"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace refwire::detail::json {
const kernel_ops* haswell_kernel() noexcept { return &haswell_avx2::ops; }
}  // namespace refwire::detail::json

#else

namespace refwire::detail::json {
const kernel_ops* haswell_kernel() noexcept { return nullptr; }
}  // namespace refwire::detail::json

#endif
