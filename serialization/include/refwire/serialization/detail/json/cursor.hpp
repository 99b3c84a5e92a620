#pragma once
// The JSON reader's cursor: a small non-template API over simdjson's
// on-demand parser, implemented in src/json/cursor.cpp so that simdjson.h
// stays out of every header. Machinery for json.hpp (the templates in
// detail/json/read.hpp drive it).
//
// The cursor always stands on one "current value". get_* read it (and move
// past it); begin_object / begin_array enter it, and next_key / next_element
// then make each field value or element current in turn; a current value that
// is not read is skipped when the cursor moves on. Every operation returns
// false (or -1) after recording a failure (decode_context's record: the first
// failure wins); the decode then stops.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <refwire/serialization/detail/core/decode_context.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/options.hpp>

namespace refwire::detail::json {

/// The JSON type of the current value.
enum class value_kind : std::uint8_t { null, boolean, number, string, array, object };

/// "null", "bool", "number", "string", "array", "object".
std::string_view kind_name(value_kind k) noexcept;

struct cursor_state;  // the simdjson parser, its iterators, the padded input (src/json/cursor.cpp)

/// Bytes readable from a key's first byte (reader::next_field) whatever the
/// input: the rest of the input, then its zero padding.
inline constexpr std::size_t key_slack = 64;

/// One decode: the cursor, with the budgets and the failure record of
/// decode_context (detail/core/decode_context.hpp).
class reader : public decode_context {
 public:
  reader(std::span<const std::byte> in, const decode_options& o) noexcept
      : decode_context(o),
        reject_unknown(o.reject_unknown_fields),
        require_all(o.require_all_fields),
        timestamps(o.timestamps),
        names(o.naming),
        variants(o.variants),
        variant_tag(o.variant_tag),
        call_variants(o.variants),
        call_tag(o.variant_tag),
        in_(in) {}
  ~reader();
  reader(const reader&) = delete;
  reader& operator=(const reader&) = delete;

  /// Parses the input (copied into a padded, reused buffer) and stands on the
  /// root value; with prefix, only the input's first value is parsed.
  bool start(bool prefix);
  /// After the root value: trailing content is an error unless consumed is
  /// set, which then receives the bytes the value took.
  bool finish(std::size_t* consumed);

  bool get_bool(bool& v);
  bool get_int(std::int64_t& v);
  bool get_uint(std::uint64_t& v);
  bool get_double(double& v);
  /// The unescaped string; valid until the decode ends.
  bool get_string(std::string_view& v);
  /// The current value, a number, as its text in the input (checked to be a
  /// valid JSON number; no whitespace); valid until the decode ends.
  bool get_number_text(std::string_view& v);
  /// The current value's exact text (from its first byte to its last, no
  /// whitespace around it), after checking it as skip_value does (nesting
  /// counts against max_depth); valid until the decode ends.
  bool get_raw(std::string_view& v);
  /// 1: the current value is null (and is consumed); 0: it is not; -1: failed.
  int is_null();
  /// The current value's JSON type, without consuming it.
  bool kind(value_kind& k);
  bool begin_object();
  /// 1: key holds the next key (valid until the decode ends) and its value is
  /// current; 0: the object ended; -1: failed.
  int next_key(std::string_view& key);
  /// next_key without the key's text: raw is the key's first byte (after
  /// its opening quote); the key_slack bytes from raw are readable.
  int next_field(const char*& raw);
  /// The text of the key next_field returned as raw (unescaped if it has
  /// escapes), while its value is still current; valid until the decode ends.
  bool key_text(const char* raw, std::string_view& key);
  bool begin_array();
  /// 1: the next element is current; 0: the array ended; -1: failed.
  int next_element();
  /// The current value, an array of integers within [lo, hi], into out (replaced).
  bool get_ints(std::vector<std::int64_t>& out, std::int64_t lo, std::int64_t hi, const char* type);
  bool get_uints(std::vector<std::uint64_t>& out, std::uint64_t hi, const char* type);
  /// The current value, an array of numbers, into out (replaced); as_float: each must fit a float.
  bool get_doubles(std::vector<double>& out, bool as_float);
  bool get_strings(std::vector<std::string>& out);
  /// Scratch space for the array calls, reused by the thread.
  std::vector<std::int64_t>& int_scratch();
  std::vector<std::uint64_t>& uint_scratch();
  std::vector<double>& double_scratch();

  /// Byte offset of the current value in the input.
  [[nodiscard]] std::size_t offset();

  [[nodiscard]] std::span<const std::byte> input() const noexcept { return in_; }

  /// Offset of the value the last get_* read (for failures found after reading it).
  std::size_t value_at = 0;
  bool reject_unknown;
  bool require_all;
  /// decode_options::timestamps.
  timestamp_format timestamps;
  /// The failure was found before any value was read (simdjson's first
  /// pass): make_error locates it and decodes again to learn its path.
  bool before_values = false;
  /// decode_options::naming, variants and variant_tag; variants and
  /// variant_tag are the form in effect (a field's type attribute, else the call's).
  refwire::naming names;
  refwire::variant_form variants;
  std::string_view variant_tag;
  refwire::variant_form call_variants;
  std::string_view call_tag;

 private:
  std::span<const std::byte> in_;
  cursor_state* st_ = nullptr;
  bool owned_ = false;  // st_ is this reader's own (a nested decode on this thread), not the thread's
};

// Failures at the cursor (out of line, src/json/read.cpp), in the wordings of
// decode_context.hpp; each returns false.
/// code and reason at the current value's offset.
bool fail(reader& r, errc code, std::string reason);
/// type_mismatch: "expected <what>, got <the current value's type>".
bool fail_expected(reader& r, std::string_view what);
bool fail_depth(reader& r);
bool fail_elements(reader& r, std::uint64_t count);
/// Past the allocation budget (detail::charge calls it).
bool fail_alloc(reader& r, std::uint64_t bytes);
/// Decodes the root value again from a reader (make_error's second pass).
using decode_again = bool (*)(reader& r, void* out);
/// The recorded failure as a refwire::error, with its line and column; with
/// none recorded (a decode that stopped without saying why), invalid_json
/// "decode failed". A failure found before any value was read (an unescaped
/// control character, an unterminated string) is located by a scan of the
/// input, and its path found by decoding again (again(out)) the input cut
/// just before the faulty string, where a value no type accepts then fails.
refwire::error make_error(reader& r, decode_again again, void* out, const decode_options& options);

// Diagnosis (src/json/read.cpp), on failure paths only: the exact fault in text simdjson rejected.
/// A fault: its code, offset and reason; for find_string_fault also the
/// offset of the faulty string's opening quote and the brackets that close
/// the values open there (innermost first).
struct token_fault {
  std::size_t offset = 0;
  errc code = errc::ok;
  std::string reason;
  std::size_t token = 0;
  std::string closers;
};
/// The fault in the token (string, number, literal) at p[at], if it has one:
/// "invalid number \"-\": expected a digit after '-'", "invalid literal \"tru\"
/// (expected true)", "invalid escape \\q (...)" at the backslash, ...
bool find_token_fault(const char* p, std::size_t n, std::size_t at, token_fault& f);
/// The first string in [p, p + n) with an unescaped control character (at
/// that byte) or with no closing quote (truncated, at its opening quote).
bool find_string_fault(const char* p, std::size_t n, token_fault& f);
/// 1-based line and column of offset in the text (error::line, error::column).
std::pair<std::size_t, std::size_t> line_column(std::span<const std::byte> in, std::size_t offset) noexcept;

}  // namespace refwire::detail::json
