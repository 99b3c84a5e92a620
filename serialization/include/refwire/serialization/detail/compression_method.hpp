#pragma once
// refwire/serialization/detail/compression_method.hpp: the compression enum,
// on its own so that options.hpp can name it. Users include
// <refwire/serialization/compression.hpp> (or the umbrella header).

#include <cstdint>

namespace refwire {

/// Compression applied over a format's bytes (encode_options::compression,
/// decode_options::compression, snapshot flags). See compression.hpp.
///
///   auto bytes = refwire::serialize(v, {.compression = refwire::compression::lz4});
///   auto back = refwire::deserialize<T>(bytes, {.compression = refwire::compression::lz4});
enum class compression : std::uint8_t {
  none = 0,  ///< the format's bytes as they are, no envelope
  lz4 = 1,   ///< the lz4 envelope: stored or lz4 block, by size (docs/formats.md)
};

}  // namespace refwire
