#pragma once
// refwire/serialization/detail/timestamp_format.hpp: the JSON timestamp form,
// on its own so that options.hpp can name it. Users include
// <refwire/serialization/options.hpp> (or the umbrella header).

#include <cstdint>

namespace refwire {

/// How JSON writes timestamps (encode_options::timestamps) and which unit a
/// number read for a timestamp is in (decode_options::timestamps). Binary
/// and protobuf ignore it. The reader always takes an RFC 3339 string; a
/// number is read in decode_options::timestamps' unit (with the default,
/// rfc3339, a number is an error). See docs/json-format.md, "Timestamps".
///
///   refwire::to_json(t, {.timestamps = refwire::timestamp_format::epoch_milliseconds});  // 1796118449123.456789
///   refwire::from_json<refwire::timestamp>("1796118449123", {.timestamps = refwire::timestamp_format::epoch_milliseconds});
enum class timestamp_format : std::uint8_t {
  rfc3339 = 0,             ///< "2026-12-01T09:47:29.123456789Z" (the default)
  epoch_seconds = 1,       ///< 1796118449.123456789: seconds since 1970-01-01T00:00:00Z
  epoch_milliseconds = 2,  ///< 1796118449123.456789
  epoch_microseconds = 3,  ///< 1796118449123456.789
  epoch_nanoseconds = 4,   ///< 1796118449123456789
};

}  // namespace refwire
