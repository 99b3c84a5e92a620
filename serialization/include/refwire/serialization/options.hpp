#pragma once
// refwire/serialization/options.hpp: how to encode, and the limits that make
// decoding untrusted bytes safe.
//
//   refwire::decode_options strict{.max_depth = 16, .max_alloc_bytes = 1 << 20};
//   auto p = refwire::deserialize<point>(bytes, strict);
//   auto text = refwire::serialize<refwire::json>(p, {.pretty = true});

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <refwire/serialization/detail/compression_method.hpp>
#include <refwire/serialization/detail/core/naming.hpp>
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
  /// JSON, with pretty: spaces of indentation per nesting level (0: new lines only).
  ///   refwire::to_json(v, {.pretty = true, .indent = 4});
  std::uint32_t indent = 2;
  /// JSON, with pretty: an array holding only numbers is written on one line,
  /// `[1, 2, 3]`, when its indentation plus its one-line form fits in this many
  /// columns (the key before it not counted); a longer one breaks per element.
  /// 0 (the default): every non-empty array breaks per element.
  ///   refwire::to_json(v, {.pretty = true, .short_array_width = 80});
  std::uint32_t short_array_width = 0;
  /// JSON: an empty std::optional / std::unique_ptr field is left out instead
  /// of written as `null` (decoding then keeps the field's default).
  ///   refwire::to_json(v, {.omit_null = true});                 // {"id":1} instead of {"id":1,"note":null}
  bool omit_null = false;
  /// JSON: a field equal (operator==) to the same field of a value-initialized
  /// T is left out (decoding into a default T restores it). Fields whose type
  /// has no operator==, and fields of types that are not default
  /// constructible, are always written.
  ///   refwire::to_json(v, {.omit_defaults = true});             // {} for a default-constructed v
  bool omit_defaults = false;
  /// JSON: the naming policy of the keys of types that set none of their own
  /// (type_attr::naming); a field's rename always wins. Two fields that the
  /// policy gives one key are an encode_error naming both.
  ///   refwire::to_json(v, {.naming = refwire::naming::camel_case});   // user_id -> "userId"
  refwire::naming naming = refwire::naming::as_declared;
  /// JSON: how variants are written, where the struct holding them sets no
  /// type_attr::variants of its own (docs/json-format.md, "Options").
  ///   refwire::to_json(v, {.variants = refwire::variant_form::by_name});   // {"circle":{"r":2}}
  refwire::variant_form variants = refwire::variant_form::by_index;
  /// JSON, with variant_form::internally_tagged: the key naming the alternative.
  ///   refwire::to_json(v, {.variants = refwire::variant_form::internally_tagged, .variant_tag = "kind"});
  std::string_view variant_tag = "type";

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
  /// input does not mention is an error instead of keeping its default. Text
  /// written with encode_options::omit_null or omit_defaults leaves fields out,
  /// so it fails this check.
  bool require_all_fields = false;
  /// Snapshots only (load_snapshot, decode_snapshot): load a JSON or protobuf
  /// snapshot whose type gained or lost fields since it was written: the
  /// schema fingerprint is not compared (magic, checksums, format and type
  /// version still are). A binary snapshot is then a snapshot_error
  /// (snapshot_errc::tolerant_binary): binary is positional.
  ///   auto s = refwire::load_snapshot<settings>("settings.rfw", {.tolerant_snapshot = true});
  bool tolerant_snapshot = false;
  /// JSON: the naming policy of the keys of types that set none of their own
  /// (encode_options::naming); must match what the writer used.
  ///   auto v = refwire::from_json<user>(text, {.naming = refwire::naming::camel_case});
  refwire::naming naming = refwire::naming::as_declared;
  /// JSON: how variants are read, where the struct holding them sets no
  /// type_attr::variants of its own (encode_options::variants).
  ///   auto v = refwire::from_json<drawing>(text, {.variants = refwire::variant_form::by_name});
  refwire::variant_form variants = refwire::variant_form::by_index;
  /// JSON, with variant_form::internally_tagged: the key naming the
  /// alternative (anywhere in the object).
  std::string_view variant_tag = "type";

  /// JSON: the unit of a number read for a timestamp (an RFC 3339 string is
  /// always read). With the default, rfc3339, a number is an error.
  ///   refwire::from_json<T>(text, {.timestamps = refwire::timestamp_format::epoch_milliseconds});
  refwire::timestamp_format timestamps = refwire::timestamp_format::rfc3339;
};

}  // namespace refwire
