#pragma once
// refwire/serialization/options.hpp: how to encode, and the limits that make
// decoding untrusted bytes safe.
//
//   refwire::decode_options strict{.max_depth = 16, .max_alloc_bytes = 1 << 20};
//   auto p = refwire::deserialize<point>(bytes, strict);
//   auto text = refwire::serialize<refwire::json>(p, {.pretty = true});

#include <cstddef>
#include <cstdint>

#include <refwire/serialization/detail/compression_method.hpp>
#include <refwire/serialization/detail/timestamp_format.hpp>

namespace refwire {

/// How serialize writes a value. Members a format has no use for are ignored
/// by it (binary has no layout to pretty-print).
///
///   refwire::serialize<refwire::json>(p, buffer, {.pretty = true});
struct encode_options {
  /// Compress the encoded bytes (every format): refwire::compression::lz4 wraps
  /// them in the envelope of docs/formats.md ("Compression"); the reader must
  /// pass the same value in decode_options::compression.
  ///   refwire::serialize<refwire::json>(v, {.compression = refwire::compression::lz4});
  refwire::compression compression = refwire::compression::none;
  /// With compression: encodings shorter than this many bytes are stored
  /// uncompressed inside the envelope (lz4 rarely pays off on small inputs).
  std::size_t compression_threshold = 512;
  /// JSON: newlines and two-space indentation instead of the compact form.
  bool pretty = false;

  /// JSON: how timestamps are written, RFC 3339 text (the default) or a
  /// number of seconds, milliseconds, microseconds or nanoseconds since the
  /// Unix epoch, exact (a fraction only when the value has one).
  ///   refwire::to_json(t, {.timestamps = refwire::timestamp_format::epoch_seconds});  // 1796118449.5
  refwire::timestamp_format timestamps = refwire::timestamp_format::rfc3339;
};

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
  /// The input was written with this compression (encode_options::compression).
  /// An lz4 envelope's claimed original size is checked against
  /// max_alloc_bytes before the decompression buffer is allocated.
  ///   auto v = refwire::deserialize<T>(bytes, {.compression = refwire::compression::lz4});
  refwire::compression compression = refwire::compression::none;
  /// Formats that identify fields by name or number (JSON, protobuf): a field
  /// the type does not have is an error instead of being skipped.
  bool reject_unknown_fields = false;
  /// Formats that identify fields by name (JSON): a field of the type that the
  /// input does not mention is an error instead of keeping its default.
  bool require_all_fields = false;

  /// JSON: the unit of a number read for a timestamp (an RFC 3339 string is
  /// always read). With the default, rfc3339, a number is an error.
  ///   refwire::from_json<T>(text, {.timestamps = refwire::timestamp_format::epoch_milliseconds});
  refwire::timestamp_format timestamps = refwire::timestamp_format::rfc3339;
};

}  // namespace refwire
