#pragma once
// refwire/serialization/options.hpp: limits that make decoding untrusted bytes safe.
//
//   refwire::decode_options strict{.max_depth = 16, .max_alloc_bytes = 1 << 20};
//   auto p = refwire::deserialize<point>(bytes, strict);

#include <cstddef>
#include <cstdint>

namespace refwire {

/// Limits for every decode path. The defaults accept anything a program is
/// likely to have written itself and stop hostile input early: a length is
/// always checked against the bytes left before anything is allocated, and
/// these bound what a small input can make the decoder do.
struct decode_options {
  /// Deepest nesting of structs, containers, optionals, pointers and variants.
  std::uint32_t max_depth = 128;
  /// Container elements in one decode, summed over all containers.
  std::uint64_t max_elements = std::uint64_t{1} << 26;
  /// Bytes the decoded value may allocate (container storage, strings,
  /// pointees), summed over the whole value.
  std::uint64_t max_alloc_bytes = std::uint64_t{1} << 30;
};

}  // namespace refwire
