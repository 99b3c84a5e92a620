#pragma once
// Little-endian loads and stores: the byte order of every fixed-width value
// refwire writes (binary scalars, protobuf fixed32/fixed64, and later RPC frame headers).

#include <bit>
#include <cstddef>
#include <cstring>

namespace refwire::detail::wire {

/// Stores v at p, least significant byte first (p need not be aligned).
template <class T>
inline void store_le(std::byte* p, T v) noexcept {
  if constexpr (std::endian::native == std::endian::little || sizeof(T) == 1) {
    std::memcpy(p, &v, sizeof(T));
  } else {
    std::byte tmp[sizeof(T)];
    std::memcpy(tmp, &v, sizeof(T));
    for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = tmp[sizeof(T) - 1 - i];
  }
}

/// Loads a T stored by store_le at p (p need not be aligned).
template <class T>
inline T load_le(const std::byte* p) noexcept {
  T v;
  if constexpr (std::endian::native == std::endian::little || sizeof(T) == 1) {
    std::memcpy(&v, p, sizeof(T));
  } else {
    std::byte tmp[sizeof(T)];
    for (std::size_t i = 0; i < sizeof(T); ++i) tmp[i] = p[sizeof(T) - 1 - i];
    std::memcpy(&v, tmp, sizeof(T));
  }
  return v;
}

}  // namespace refwire::detail::wire
