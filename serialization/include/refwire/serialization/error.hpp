#pragma once
// refwire/serialization/error.hpp: what a failed decode reports.
//
//   refwire::error e = refwire::deserialize<refwire::binary>(bytes, value);
//   if (e) std::cerr << e.message() << '\n';
//   // "$.items[3].name: truncated string, needs 12 bytes, 4 left, at offset 13"
//
// JSON errors also say where in the text: line() and column() (1-based), and
//   // "$.tags[1]: invalid literal \"tru\" (expected true), at offset 22 (line 2, column 14)"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace refwire {

/// Why a decode failed. Stable: tests and users compare against these.
enum class errc : std::uint8_t {
  ok = 0,
  truncated,            ///< the input ends inside a value
  invalid_varint,       ///< a varint longer than 10 bytes, over 64 bits, or not minimal
  invalid_bool,         ///< a bool byte other than 0 or 1
  invalid_tag,          ///< an optional / unique_ptr tag other than 0 or 1
  invalid_variant,      ///< a variant index past the last alternative
  invalid_value,        ///< a value the C++ type cannot hold (e.g. a duration that loses precision)
  duplicate_key,        ///< a set or map entry whose key is already present
  depth_limit,          ///< nesting deeper than decode_options::max_depth
  element_limit,        ///< more container elements than decode_options::max_elements
  allocation_limit,     ///< more bytes allocated than decode_options::max_alloc_bytes
  trailing_bytes,       ///< bytes left after the value (use deserialize_prefix to allow them)
  corrupt_compressed,   ///< a compression envelope that is malformed or whose lz4 block is corrupt
  invalid_snapshot,     ///< a snapshot file whose header or checksums are wrong (see snapshot_error::kind)
  io_error,             ///< a snapshot file that could not be read (see snapshot_error::sys_errno), or the rest of an RPC frame being decoded as it arrives
  wire_type,            ///< protobuf: a known field arrived with another wire type than its type's
  invalid_field,        ///< protobuf: field number 0 or past 2^29-1, wire type 6 or 7, a stray or mismatched end group
  unknown_field,        ///< a field (protobuf number, JSON key) the type does not have, with decode_options::reject_unknown_fields
  invalid_utf8,         ///< a string that is not valid UTF-8 (JSON: the input text; protobuf: a string field)
  invalid_json,         ///< JSON: text that is not JSON (a syntax error, a bad escape)
  type_mismatch,        ///< JSON: a value of the wrong JSON type (a string where a number belongs)
  missing_field,        ///< JSON: a field the input does not mention (decode_options::require_all_fields)
};

/// The name of a code, e.g. "truncated".
[[nodiscard]] std::string_view to_string(errc code) noexcept;

/// The outcome of a non-throwing decode: falsy on success, truthy on failure
/// (like std::error_code), with the code, the input offset and the path of the
/// value that failed. Errors in text formats (JSON) also carry the 1-based
/// line and column of the offset; binary formats leave both 0.
///
///   if (refwire::error e = refwire::deserialize<refwire::binary>(bytes, p)) {
///     log(e.message());             // "$.name: truncated string, needs 12 bytes, 4 left, at offset 13"
///     if (e.code() == refwire::errc::truncated) { /* wait for more bytes */ }
///   }
class error {
 public:
  error() noexcept = default;
  error(errc code, std::size_t offset, std::string path, std::string reason)
      : code_(code), offset_(offset), path_(std::move(path)), reason_(std::move(reason)) {}
  /// An error in a text format, at 1-based line and column (0, 0: no position in lines).
  ///   refwire::error e(refwire::errc::invalid_json, 9, "$.a", "invalid number: expected a digit after '-'", 2, 4);
  error(errc code, std::size_t offset, std::string path, std::string reason, std::size_t line, std::size_t column)
      : code_(code), offset_(offset), line_(line), column_(column), path_(std::move(path)), reason_(std::move(reason)) {}

  explicit operator bool() const noexcept { return code_ != errc::ok; }
  [[nodiscard]] errc code() const noexcept { return code_; }
  /// Byte offset in the input where the failure was detected.
  [[nodiscard]] std::size_t offset() const noexcept { return offset_; }
  /// 1-based line of offset() in a text input (lines end at '\n'); 0 for binary formats.
  ///   if (e.line() != 0) std::cerr << "line " << e.line() << ", column " << e.column();
  [[nodiscard]] std::size_t line() const noexcept { return line_; }
  /// 1-based column of offset() in its line, counted in characters (UTF-8
  /// code points; a leading byte-order mark is not counted); 0 for binary formats.
  [[nodiscard]] std::size_t column() const noexcept { return column_; }
  /// Path of the failing value: "$", "$.items[3].name", "$.m[\"key\"]".
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// The reason alone: "truncated string, needs 12 bytes, 4 left".
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }
  /// "<path>: <reason>, at offset <offset>", followed by " (line <line>,
  /// column <column>)" when line() is not 0; empty on success.
  ///   "$.x: expected integer, got string, at offset 5 (line 1, column 6)"
  [[nodiscard]] std::string message() const;

 private:
  errc code_ = errc::ok;
  std::size_t offset_ = 0;
  std::size_t line_ = 0;
  std::size_t column_ = 0;
  std::string path_;
  std::string reason_;
};

/// Thrown by the throwing deserialize: what() is error::message().
///
///   try { auto p = refwire::deserialize<point>(bytes); }
///   catch (const refwire::decode_error& e) { std::cerr << e.what(); }
class decode_error : public std::runtime_error {
 public:
  explicit decode_error(refwire::error e);
  [[nodiscard]] errc code() const noexcept { return error_.code(); }
  [[nodiscard]] std::size_t offset() const noexcept { return error_.offset(); }
  /// error::line() and error::column(): 1-based in JSON text, 0 for binary formats.
  [[nodiscard]] std::size_t line() const noexcept { return error_.line(); }
  [[nodiscard]] std::size_t column() const noexcept { return error_.column(); }
  [[nodiscard]] const std::string& path() const noexcept { return error_.path(); }
  [[nodiscard]] const std::string& reason() const noexcept { return error_.reason(); }
  [[nodiscard]] const refwire::error& details() const noexcept { return error_; }

 protected:
  /// For derived errors (snapshot_error) whose what() says more than e.message().
  decode_error(refwire::error e, const std::string& what);

 private:
  refwire::error error_;
};

/// Thrown by serialize when a value has no encoding in the chosen format
/// (e.g. a duration outside the int64 nanosecond range). what() names the path.
///
///   try { auto bytes = refwire::serialize<refwire::json>(v); }
///   catch (const refwire::encode_error& e) { std::cerr << e.what(); }  // "$.ratio: NaN has no JSON encoding"
class encode_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  /// what() is "<path>: <reason>".
  encode_error(std::string path, std::string reason);
  /// Path of the value that has no encoding: "$", "$.items[3].ratio" (empty when not known).
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// The reason alone: "NaN has no JSON encoding".
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  std::string path_;
  std::string reason_;
};

}  // namespace refwire
