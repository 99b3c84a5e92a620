#pragma once
// refwire/serialization/json.hpp: JSON text from described structs.
//
//   struct point { int x; double y; std::string name; };
//   BOOST_DESCRIBE_STRUCT(point, (), (x, y, name))
//
//   std::string s = refwire::to_json(point{1, 2.5, "a"});     // {"x":1,"y":2.5,"name":"a"}
//   point p = refwire::from_json<point>(s);                   // throws refwire::decode_error
//   std::vector<std::byte> j = refwire::serialize<refwire::json>(p, {.pretty = true});
//
// Written with std::to_chars and a fast escape scan, read with simdjson's
// on-demand parser straight into the struct (no DOM). Every convention (enums
// by name, uuid, RFC 3339 timestamps, base64 blobs, variants, maps, limits)
// is in docs/json-format.md.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <refwire/serialization/detail/json/cursor.hpp>
#include <refwire/serialization/detail/json/read.hpp>
#include <refwire/serialization/detail/json/write.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/options.hpp>
#include <refwire/serialization/reflect.hpp>
#include <refwire/serialization/serialize.hpp>

namespace refwire {

/// The JSON format: a format tag for serialize / deserialize. Names fields by
/// their (renamed) member names, so types must be described with
/// BOOST_DESCRIBE_STRUCT / BOOST_DESCRIBE_CLASS.
///
///   std::vector<std::byte> text = refwire::serialize<refwire::json>(p);
///   point q = refwire::deserialize<point, refwire::json>(text);
struct json {
 private:
  template <class T>
  static bool decode_again(detail::json::reader& r, void* out) {
    return r.start(false) && detail::json::read(r, *static_cast<T*>(out));
  }

 public:
  static constexpr std::string_view name = "json";
  /// The format's id in snapshot headers (and later in RPC frames).
  static constexpr std::uint8_t id = 2;
  /// Named: fields are identified by their keys, in any order.
  static constexpr bool positional = false;

  /// Appends the UTF-8 JSON text of v to out (compact, or indented with
  /// options.pretty). Throws encode_error, naming the path, for NaN, infinity,
  /// a string that is not valid UTF-8, or a duration outside int64 nanoseconds.
  ///
  ///   refwire::json::encode(p, buffer, {.pretty = true});
  template <serializable T>
  static void encode(const T& v, std::vector<std::byte>& out, const encode_options& options) {
    detail::json::encode(v, out, options.pretty, options.timestamps);
  }

  /// Decodes a T from the JSON text in into out. With consumed == nullptr the
  /// value must span the whole input (anything but whitespace after it is an
  /// error); otherwise the bytes up to the next token after the value are stored there.
  /// A UTF-8 byte-order mark opening the input is skipped (and counted in
  /// offsets and in consumed). A failure carries its line and column; out is
  /// then left in an unspecified (valid) state.
  ///
  ///   point p;
  ///   if (refwire::error e = refwire::json::decode(bytes, p, {}, nullptr)) log(e.message());
  template <serializable T>
  static error decode(std::span<const std::byte> in, T& out, const decode_options& options,
                      std::size_t* consumed) {
    detail::json::reader r(in, options);
    if (!r.start(consumed != nullptr) || !detail::json::read(r, out) || !r.finish(consumed)) [[unlikely]] {
      return detail::json::make_error(r, &decode_again<T>, &out, options);
    }
    return {};
  }
};

/// The JSON text of v as a std::string.
///
///   std::string s = refwire::to_json(p);                      // {"x":1,"y":2.5,"name":"a"}
///   std::string pretty = refwire::to_json(p, {.pretty = true});
template <class T>
[[nodiscard]] std::string to_json(const T& v, const encode_options& options = {}) {
  std::string out;
  if constexpr (detail::check_serializable<T, json>()) detail::json::encode(v, out, options.pretty, options.timestamps);
  return out;
}

/// Parses JSON text into a T; throws refwire::decode_error naming the path,
/// the offset, the line and the column.
///
///   point p = refwire::from_json<point>(R"({"x":1,"y":2.5,"name":"a"})");
///   try { refwire::from_json<point>(R"({"x":"1"})"); }
///   catch (const refwire::decode_error& e) { /* "$.x: expected integer, got string, at offset 5 (line 1, column 6)" */ }
template <class T>
[[nodiscard]] T from_json(std::string_view text, const decode_options& options = {}) {
  return deserialize<T, json>(text, options);
}

}  // namespace refwire
