// raw_json and json_value (json_value.hpp): the value type, its JSON read and
// write (natural mapping), and the text form binary and protobuf carry.
#include <refwire/serialization/json_value.hpp>
#include <refwire/serialization/json.hpp>
#include <refwire/serialization/detail/core/encode_failure.hpp>
#include <refwire/serialization/detail/wire/utf8.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace refwire {

struct json_value_access {
  static json_value make(json_value::kind k, std::string text) {
    return json_value(k, std::move(text), json_value::trusted{});
  }
  static std::vector<json_value>& items(json_value& v) { return v.items_; }
  static json_value::object_type& members(json_value& v) { return v.members_; }
  static void set_kind(json_value& v, json_value::kind k) { v.kind_ = k; }
};

namespace {

std::string_view kind_word(json_value::kind k) {
  switch (k) {
    case json_value::kind::null: return "null";
    case json_value::kind::boolean: return "bool";
    case json_value::kind::number: return "number";
    case json_value::kind::string: return "string";
    case json_value::kind::array: return "array";
    case json_value::kind::object: return "object";
  }
  return "?";
}

[[noreturn]] void wrong_kind(std::string_view want, json_value::kind got) {
  throw std::invalid_argument("json_value: expected " + std::string(want) + ", got " + std::string(kind_word(got)));
}

/// RFC 8259 number grammar.
bool is_json_number(std::string_view s) noexcept {
  std::size_t i = 0;
  const std::size_t n = s.size();
  auto digit = [&](std::size_t k) { return k < n && s[k] >= '0' && s[k] <= '9'; };
  if (i < n && s[i] == '-') ++i;
  if (!digit(i)) return false;
  if (s[i] == '0') {
    ++i;
  } else {
    while (digit(i)) ++i;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (!digit(i)) return false;
    while (digit(i)) ++i;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digit(i)) return false;
    while (digit(i)) ++i;
  }
  return i == n;
}

void check_utf8(std::string_view s, std::string_view what) {
  if (!detail::wire::utf8_valid(s.data(), s.size())) {
    throw std::invalid_argument("json_value: " + std::string(what) + " is not valid UTF-8");
  }
}

/// A number's exact integer value, when it has one: digits, a fraction of
/// zeros, an exponent that keeps it whole. False otherwise (or past 2^64).
bool exact_integer(std::string_view s, bool& neg, std::uint64_t& mag) noexcept {
  std::size_t i = 0;
  neg = !s.empty() && s[0] == '-';
  if (neg) i = 1;
  std::string digits;  // significant digits
  long long point = 0;  // digits before the decimal point
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) digits += s[i];
  point = static_cast<long long>(digits.size());
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) digits += s[i];
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    const bool eneg = i < s.size() && s[i] == '-';
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    long long e = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (e < 100000) e = e * 10 + (s[i] - '0');
    }
    point += eneg ? -e : e;
  }
  mag = 0;
  for (long long k = 0; k < static_cast<long long>(digits.size()); ++k) {
    const int d = digits[static_cast<std::size_t>(k)] - '0';
    if (k >= point) {
      if (d != 0) return false;  // a nonzero fraction digit
      continue;
    }
    if (mag > (std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(d)) / 10) return false;
    mag = mag * 10 + static_cast<std::uint64_t>(d);
  }
  for (long long k = static_cast<long long>(digits.size()); k < point; ++k) {  // trailing zeros of an exponent
    if (mag == 0) break;
    if (mag > std::numeric_limits<std::uint64_t>::max() / 10) return false;
    mag *= 10;
  }
  return true;
}

}  // namespace

json_value::json_value(double d) : kind_(kind::number) {
  if (!std::isfinite(d)) throw std::invalid_argument("json_value: NaN and infinity have no JSON form");
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, d);
  text_.assign(buf, res.ptr);
}

json_value::json_value(std::string s) : kind_(kind::string), text_(std::move(s)) { check_utf8(text_, "a string"); }

json_value json_value::array(array_type items) {
  json_value v;
  v.kind_ = kind::array;
  v.items_ = std::move(items);
  return v;
}

json_value json_value::object(object_type members) {
  for (std::size_t i = 0; i < members.size(); ++i) {
    check_utf8(members[i].first, "a key");
    for (std::size_t k = 0; k < i; ++k) {
      if (members[k].first == members[i].first) {
        throw std::invalid_argument("json_value: duplicate key " + detail::quote_key(members[i].first));
      }
    }
  }
  json_value v;
  v.kind_ = kind::object;
  v.members_ = std::move(members);
  return v;
}

json_value json_value::number(std::string_view text) {
  if (!is_json_number(text)) {
    throw std::invalid_argument("json_value: " + detail::quote_key(text) + " is not a JSON number");
  }
  if (std::isinf(std::strtod(std::string(text).c_str(), nullptr))) {  // the reader takes only numbers a double holds
    throw std::invalid_argument("json_value: " + detail::quote_key(text) + " is out of range for a double");
  }
  return json_value(kind::number, std::string(text), trusted{});
}

json_value json_value::parse(std::string_view text) { return from_json<json_value>(text); }

bool json_value::as_bool() const {
  if (kind_ != kind::boolean) wrong_kind("bool", kind_);
  return bool_;
}
const std::string& json_value::as_string() const {
  if (kind_ != kind::string) wrong_kind("string", kind_);
  return text_;
}
const std::string& json_value::number_text() const {
  if (kind_ != kind::number) wrong_kind("number", kind_);
  return text_;
}
std::int64_t json_value::as_int64() const {
  bool neg;
  std::uint64_t mag;
  if (!exact_integer(number_text(), neg, mag) ||
      mag > (neg ? std::uint64_t{1} << 63 : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
    throw std::invalid_argument("json_value: " + text_ + " is not an int64");
  }
  return neg ? static_cast<std::int64_t>(~mag + 1) : static_cast<std::int64_t>(mag);
}
std::uint64_t json_value::as_uint64() const {
  bool neg;
  std::uint64_t mag;
  if (!exact_integer(number_text(), neg, mag) || (neg && mag != 0)) {
    throw std::invalid_argument("json_value: " + text_ + " is not a uint64");
  }
  return mag;
}
double json_value::as_double() const {
  const std::string& t = number_text();
  double d = 0;
  const auto res = std::from_chars(t.data(), t.data() + t.size(), d);
  if (res.ec != std::errc() || res.ptr != t.data() + t.size() || !std::isfinite(d)) {
    throw std::invalid_argument("json_value: " + t + " is out of range for a double");
  }
  return d;
}
const json_value::array_type& json_value::as_array() const {
  if (kind_ != kind::array) wrong_kind("array", kind_);
  return items_;
}
json_value::array_type& json_value::as_array() {
  if (kind_ != kind::array) wrong_kind("array", kind_);
  return items_;
}
const json_value::object_type& json_value::as_object() const {
  if (kind_ != kind::object) wrong_kind("object", kind_);
  return members_;
}
json_value::object_type& json_value::as_object() {
  if (kind_ != kind::object) wrong_kind("object", kind_);
  return members_;
}
std::size_t json_value::size() const {
  if (kind_ == kind::array) return items_.size();
  if (kind_ == kind::object) return members_.size();
  wrong_kind("array or object", kind_);
}
const json_value& json_value::at(std::size_t i) const {
  const array_type& a = as_array();
  if (i >= a.size()) {
    throw std::out_of_range("json_value: index " + std::to_string(i) + " past the end (size " +
                            std::to_string(a.size()) + ")");
  }
  return a[i];
}
json_value& json_value::at(std::size_t i) {
  return const_cast<json_value&>(static_cast<const json_value&>(*this).at(i));  // NOLINT
}
const json_value* json_value::find(std::string_view key) const noexcept {
  if (kind_ != kind::object) return nullptr;
  for (const member& m : members_) {
    if (m.first == key) return &m.second;
  }
  return nullptr;
}
json_value* json_value::find(std::string_view key) noexcept {
  return const_cast<json_value*>(static_cast<const json_value&>(*this).find(key));  // NOLINT
}
void json_value::push_back(json_value v) { as_array().push_back(std::move(v)); }

bool operator==(const json_value& a, const json_value& b) noexcept {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case json_value::kind::null: return true;
    case json_value::kind::boolean: return a.bool_ == b.bool_;
    case json_value::kind::number:
    case json_value::kind::string: return a.text_ == b.text_;
    case json_value::kind::array: return a.items_ == b.items_;
    case json_value::kind::object: return a.members_ == b.members_;
  }
  return false;
}

// ------------------------------------------------------------------ codecs

namespace {

decode_options budget_of(const detail::decode_context& c) {
  decode_options o;
  o.max_depth = c.depth_left;
  o.max_elements = c.elements_left;
  o.max_alloc_bytes = c.alloc_left;
  return o;
}

/// Parses text with the JSON reader into v (a json_value, or validation only
/// for raw_json), within c's budgets; a failure is recorded in c at offset:
/// a limit with its own wording, anything else as "invalid JSON text: ...".
template <class Read>
bool parse_text(detail::decode_context& c, std::size_t offset, const std::string& text, std::string_view what,
                Read&& read) {
  const decode_options o = budget_of(c);
  detail::json::reader sub(std::as_bytes(std::span(text.data(), text.size())), o);
  if (sub.start(false) && read(sub) && sub.finish(nullptr)) [[likely]] {
    c.elements_left = sub.elements_left;
    c.alloc_left = sub.alloc_left;
    return true;
  }
  const refwire::error e = detail::json::make_error(sub, nullptr, nullptr, o);
  if (e.code() == errc::depth_limit || e.code() == errc::element_limit || e.code() == errc::allocation_limit) {
    return detail::record_failure(c, e.code(), offset, e.reason());
  }
  return detail::record_failure(c, e.code(), offset,
                                std::string(what) + " is not valid JSON: " + e.reason() + " (at index " +
                                    std::to_string(e.offset()) + (e.path() == "$" ? "" : " " + e.path()) + ")");
}

bool validate(detail::json::reader& r) { return detail::json::skip_value(r); }

/// A byte-order mark opening the text: the reader skips one at the start of
/// a document, but inside another document it is not JSON.
bool starts_with_bom(std::string_view t) noexcept { return t.size() >= 3 && t.substr(0, 3) == "\xEF\xBB\xBF"; }

}  // namespace

raw_json codec<raw_json>::from_wire(std::string&& s) {
  raw_json v;
  detail::decode_context c(decode_options{});
  if (!detail::from_wire(c, 0, std::move(s), v)) throw std::invalid_argument(detail::make_error(c).reason());
  return v;
}

std::string codec<json_value>::to_wire(const json_value& v) { return to_json(v); }

json_value codec<json_value>::from_wire(std::string&& s) {
  json_value v;
  detail::decode_context c(decode_options{});
  if (!detail::from_wire(c, 0, std::move(s), v)) throw std::invalid_argument(detail::make_error(c).reason());
  return v;
}

namespace detail {

bool from_wire(decode_context& c, std::size_t offset, std::string&& w, raw_json& v) {
  if (starts_with_bom(w)) [[unlikely]] {
    return detail::record_failure(c, errc::invalid_json, offset,
                                  "raw_json is not valid JSON: a byte-order mark before the value (at index 0)");
  }
  if (!w.empty() && !parse_text(c, offset, w, "raw_json", validate)) [[unlikely]] return false;
  v.text = std::move(w);
  return true;
}

bool from_wire(decode_context& c, std::size_t offset, std::string&& w, json_value& v) {
  return parse_text(c, offset, w, "json_value", [&](json::reader& r) { return json::read_json_value(r, v); });
}

}  // namespace detail

// ---------------------------------------------------------------- JSON read

namespace detail::json {

bool read_raw_json(reader& r, raw_json& v) {
  std::string_view text;
  if (!r.get_raw(text)) [[unlikely]] return false;
  if (!charge(r, text.size())) [[unlikely]] return false;
  v.text.assign(text);
  return true;
}

bool read_json_value(reader& r, json_value& v) {
  using kind = json_value::kind;
  value_kind k;
  if (!r.kind(k)) return false;
  switch (k) {
    case value_kind::null:
      if (r.is_null() != 1) return r.failed ? false : fail(r, errc::invalid_json, "invalid literal (expected null)");
      v = json_value();
      return true;
    case value_kind::boolean: {
      bool b;
      if (!r.get_bool(b)) return false;
      v = json_value(b);
      return true;
    }
    case value_kind::number: {
      std::string_view text;
      if (!r.get_number_text(text) || !charge(r, text.size())) return false;
      v = json_value_access::make(kind::number, std::string(text));
      return true;
    }
    case value_kind::string: {
      std::string_view text;
      if (!r.get_string(text) || !charge(r, text.size())) return false;
      v = json_value_access::make(kind::string, std::string(text));
      return true;
    }
    case value_kind::array: {
      if (r.depth_left == 0) return fail_depth(r);
      if (!r.begin_array()) return false;
      depth_scope scope(r);
      v = json_value::array();
      auto& items = json_value_access::items(v);
      std::size_t i = 0;
      int n;
      while ((n = r.next_element()) == 1) {
        if (!count_element(r, sizeof(json_value))) return false;
        if (!read_json_value(r, items.emplace_back())) {
          push_index(r, i);
          return false;
        }
        ++i;
      }
      return n == 0;
    }
    case value_kind::object: {
      if (r.depth_left == 0) return fail_depth(r);
      if (!r.begin_object()) return false;
      depth_scope scope(r);
      v = json_value::object();
      auto& members = json_value_access::members(v);
      std::vector<std::size_t> at;  // each member's value offset, for a duplicate key
      std::string_view key;
      int n;
      while ((n = r.next_key(key)) == 1) {
        if (!count_element(r, sizeof(json_value::member))) return false;
        if (!charge(r, key.size())) return false;
        at.push_back(r.offset());
        auto& m = members.emplace_back(std::string(key), json_value());
        if (!read_json_value(r, m.second)) {
          push_member(r, key);
          return false;
        }
      }
      if (n != 0) return false;
      if (members.size() > 1) {  // duplicate keys: the later one fails, at its value
        std::vector<std::size_t> order(members.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return members[a].first < members[b].first; });
        std::size_t dup = members.size();
        for (std::size_t i = 1; i < order.size(); ++i) {
          if (members[order[i]].first == members[order[i - 1]].first) dup = std::min(dup, order[i]);
        }
        if (dup != members.size()) {
          return record_failure(r, errc::duplicate_key, at[dup], "duplicate key " + quote_key(members[dup].first));
        }
      }
      return true;
    }
  }
  return false;
}

// --------------------------------------------------------------- JSON write

void write_raw_json(writer& w, const raw_json& v) {
  if (v.text.empty()) {
    w.put_null();
    return;
  }
  if (starts_with_bom(v.text)) [[unlikely]] {
    throw_encode_failure("raw_json is not valid JSON: a byte-order mark before the value (at index 0)");
  }
  {
    const decode_options o;
    reader sub(std::as_bytes(std::span(v.text.data(), v.text.size())), o);
    if (!(sub.start(false) && skip_value(sub) && sub.finish(nullptr))) [[unlikely]] {
      const refwire::error e = make_error(sub, nullptr, nullptr, o);
      throw_encode_failure("raw_json is not valid JSON: " + e.reason() + " (at index " + std::to_string(e.offset()) +
                           (e.path() == "$" ? "" : " " + e.path()) + ")");
    }
  }
  w.put(v.text);
}

void write_json_value(writer& w, const json_value& v) {
  using kind = json_value::kind;
  switch (v.type()) {
    case kind::null: w.put_null(); return;
    case kind::boolean: w.put_literal(v.as_bool()); return;
    case kind::number: w.put(v.number_text()); return;
    case kind::string: write_string(w, v.as_string()); return;
    case kind::array: {
      w.open('[');
      bool first = true;
      std::size_t i = 0;
      for (const json_value& e : v.as_array()) {
        w.item(first);
        encode_within([&] { write_json_value(w, e); }, [i](encode_failure& f) { push_index(f, i); });
        ++i;
      }
      w.close(first, ']');
      return;
    }
    case kind::object: {
      w.open('{');
      bool first = true;
      for (const json_value::member& m : v.as_object()) {
        w.item(first);
        encode_within(
            [&] {
              write_string(w, m.first);
              w.colon();
              write_json_value(w, m.second);
            },
            [&](encode_failure& f) { push_key(f, std::string_view(m.first)); });
      }
      w.close(first, '}');
      return;
    }
  }
}

}  // namespace detail::json

}  // namespace refwire
