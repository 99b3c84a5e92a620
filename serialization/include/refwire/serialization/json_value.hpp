#pragma once
// refwire/serialization/json_value.hpp: JSON that a struct keeps as JSON.
//
//   struct event { std::string kind; refwire::raw_json payload; refwire::json_value meta; };
//   BOOST_DESCRIBE_STRUCT(event, (), (kind, payload, meta))
//
//   auto e = refwire::from_json<event>(R"({"kind":"k","payload":{"a": [1, 2]},"meta":{"n":1}})");
//   // e.payload.text == R"({"a": [1, 2]})" (exactly as it came), e.meta.find("n")->as_int64() == 1
//
// raw_json keeps a value's text as it is; json_value is a parsed value (null,
// bool, number kept exact as its text, string, array, object with members in
// input order). In JSON both are the value itself; in binary and protobuf
// both travel as a string holding compact JSON text, validated when read.
// Conventions and limits: docs/json-format.md ("raw_json and json_value").

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <refwire/serialization/types.hpp>

namespace refwire {

/// A JSON value's text, kept as it is. Reading JSON checks that the value is
/// well-formed (valid UTF-8, within decode_options::max_depth) and keeps its
/// exact bytes (whitespace inside included); writing JSON checks the text and
/// writes it verbatim, also with pretty output, or throws encode_error:
///   "$.payload: raw_json is not valid JSON: unterminated object or array (at index 5)"
/// Empty text is written as null. In binary and protobuf it is a string,
/// checked when read.
///
///   refwire::raw_json r{R"({"a": [1, 2]})"};
///   refwire::to_json(r);   // {"a": [1, 2]}
struct raw_json {
  std::string text;

  friend bool operator==(const raw_json&, const raw_json&) = default;
};

/// A parsed JSON value: null, bool, number (its text, kept exact), string,
/// array, or object (members in input order; duplicate keys are rejected
/// when read). Strings and keys are valid UTF-8 and numbers valid JSON
/// numbers by construction (constructors throw std::invalid_argument
/// otherwise), so a json_value always encodes.
///
///   refwire::json_value v = refwire::json_value::object({{"id", 7}, {"tags", refwire::json_value::array({"a", "b"})}});
///   v.find("id")->as_int64();      // 7
///   v.find("tags")->at(1).as_string();   // "b"
///   refwire::to_json(v);           // {"id":7,"tags":["a","b"]}
class json_value {
 public:
  /// The JSON type of a value.
  enum class kind : std::uint8_t { null, boolean, number, string, array, object };
  using array_type = std::vector<json_value>;
  using member = std::pair<std::string, json_value>;
  using object_type = std::vector<member>;

  /// null.
  json_value() noexcept = default;
  json_value(std::nullptr_t) noexcept {}  // NOLINT: implicit, like a literal
  json_value(bool b) noexcept : kind_(kind::boolean), bool_(b) {}  // NOLINT
  /// An integer: its decimal text.   refwire::json_value(42).number_text() == "42"
  template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool> && !std::is_same_v<I, char>)
  json_value(I i) : kind_(kind::number) {  // NOLINT
    if constexpr (std::is_signed_v<I>) {
      text_ = std::to_string(static_cast<long long>(i));
    } else {
      text_ = std::to_string(static_cast<unsigned long long>(i));
    }
  }
  /// A double: its shortest round-trip text; NaN and infinity throw std::invalid_argument.
  json_value(double d);  // NOLINT
  /// A string (UTF-8, else std::invalid_argument).   refwire::json_value("text")
  json_value(std::string s);  // NOLINT
  json_value(std::string_view s) : json_value(std::string(s)) {}  // NOLINT
  json_value(const char* s) : json_value(std::string(s)) {}       // NOLINT

  /// An array of the values.   refwire::json_value::array({1, "two", nullptr})
  [[nodiscard]] static json_value array(array_type items = {});
  [[nodiscard]] static json_value array(std::initializer_list<json_value> items) { return array(array_type(items)); }
  /// An object with the members in this order; a repeated key throws std::invalid_argument.
  ///   refwire::json_value::object({{"a", 1}, {"b", true}})
  [[nodiscard]] static json_value object(object_type members = {});
  [[nodiscard]] static json_value object(std::initializer_list<member> members) {
    return object(object_type(members));
  }
  /// A number from its JSON text, kept exactly ("1e400", "0.10"); text that
  /// is not a JSON number throws std::invalid_argument.
  ///   refwire::json_value::number("12345678901234567890123")
  [[nodiscard]] static json_value number(std::string_view text);
  /// Parses JSON text (throws refwire::decode_error, as from_json does).
  ///   auto v = refwire::json_value::parse(R"([1, {"a": null}])");
  [[nodiscard]] static json_value parse(std::string_view text);

  [[nodiscard]] kind type() const noexcept { return kind_; }
  [[nodiscard]] bool is_null() const noexcept { return kind_ == kind::null; }
  [[nodiscard]] bool is_bool() const noexcept { return kind_ == kind::boolean; }
  [[nodiscard]] bool is_number() const noexcept { return kind_ == kind::number; }
  [[nodiscard]] bool is_string() const noexcept { return kind_ == kind::string; }
  [[nodiscard]] bool is_array() const noexcept { return kind_ == kind::array; }
  [[nodiscard]] bool is_object() const noexcept { return kind_ == kind::object; }

  // Accessors: each throws std::invalid_argument naming what the value is
  // when it is not of that type ("json_value: expected a number, got string"),
  // and the number ones when the number does not fit exactly
  // ("json_value: 1.5 is not an int64").
  [[nodiscard]] bool as_bool() const;
  [[nodiscard]] const std::string& as_string() const;
  /// A number's text as it was read or made ("1.50", "1e400").
  [[nodiscard]] const std::string& number_text() const;
  /// Exactly, or std::invalid_argument: "1.0" and "1e2" are integers, "1.5" is not.
  [[nodiscard]] std::int64_t as_int64() const;
  [[nodiscard]] std::uint64_t as_uint64() const;
  /// The nearest double; a number past the double range throws.
  [[nodiscard]] double as_double() const;
  [[nodiscard]] const array_type& as_array() const;
  [[nodiscard]] array_type& as_array();
  [[nodiscard]] const object_type& as_object() const;
  [[nodiscard]] object_type& as_object();

  /// Elements of an array or members of an object (throws for other types).
  [[nodiscard]] std::size_t size() const;
  /// Array element i, checked (std::out_of_range past the end).   v[0].as_int64()
  [[nodiscard]] const json_value& operator[](std::size_t i) const { return at(i); }
  [[nodiscard]] json_value& operator[](std::size_t i) { return at(i); }
  [[nodiscard]] const json_value& at(std::size_t i) const;
  [[nodiscard]] json_value& at(std::size_t i);
  /// The value of an object's member, or nullptr (also when not an object).
  ///   if (const refwire::json_value* id = v.find("id")) use(id->as_int64());
  [[nodiscard]] const json_value* find(std::string_view key) const noexcept;
  [[nodiscard]] json_value* find(std::string_view key) noexcept;
  /// Appends to an array (throws for other types).
  void push_back(json_value v);

  /// Same type and content; numbers compare by their text ("1.0" != "1"),
  /// objects member by member in order.
  friend bool operator==(const json_value& a, const json_value& b) noexcept;

 private:
  struct trusted {};
  json_value(kind k, std::string text, trusted) noexcept : kind_(k), text_(std::move(text)) {}
  friend struct json_value_access;

  kind kind_ = kind::null;
  bool bool_ = false;
  std::string text_;  // a number's text or a string
  array_type items_;
  object_type members_;
};

/// Binary and protobuf carry raw_json as its text (a string), checked to be
/// JSON when read.
template <>
struct codec<raw_json> {
  using wire = std::string;
  static std::string to_wire(const raw_json& v) { return v.text; }
  static raw_json from_wire(std::string&& s);
};

/// Binary and protobuf carry json_value as its compact JSON text (a string),
/// read back with the decoder's limits.
template <>
struct codec<json_value> {
  using wire = std::string;
  static std::string to_wire(const json_value& v);
  static json_value from_wire(std::string&& s);
};

namespace detail {
struct decode_context;
// Binary and protobuf decode a codec type through detail::from_wire(context,
// offset, wire, value); these overloads (found by argument-dependent lookup,
// and preferred to the template) parse the text within the decode's own
// budgets and record failures at offset, where the string began.
bool from_wire(decode_context& c, std::size_t offset, std::string&& w, raw_json& v);
bool from_wire(decode_context& c, std::size_t offset, std::string&& w, json_value& v);
}  // namespace detail

}  // namespace refwire
