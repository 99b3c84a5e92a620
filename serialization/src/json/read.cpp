// The JSON decoder's out-of-line parts that need no simdjson: failures at
// the cursor and the templates' failure helpers, skipping an unknown field's
// value, base64, and the wording of a rejected timestamp.
#include <refwire/serialization/json.hpp>
#include <refwire/serialization/detail/core/path.hpp>

#include <array>
#include <charconv>
#include <cstring>
#include <string>
#include <vector>

namespace refwire::detail::json {

// ------------------------------------------------------ cursor failures

bool fail(reader& r, errc code, std::string reason) { return record_failure(r, code, r.offset(), std::move(reason)); }

bool fail_expected(reader& r, std::string_view what) {
  const std::size_t at = r.offset();
  value_kind k;
  if (!r.kind(k)) return false;
  return record_failure(r, errc::type_mismatch, at,
                        "expected " + std::string(what) + ", got " + std::string(kind_name(k)));
}

bool fail_depth(reader& r) { return fail_depth_at(r, r.offset()); }
bool fail_elements(reader& r, std::uint64_t count) { return fail_elements_at(r, r.offset(), count); }
bool fail_alloc(reader& r, std::uint64_t bytes) { return fail_alloc_at(r, r.offset(), bytes); }

// ------------------------------------------------ views (deserialize_view)

namespace {

/// The reason of a string that cannot be a view (one wording for values and keys).
constexpr std::string_view escaped_view = "string has escapes and cannot be a view into the input (use std::string)";

inline const char* input_text(reader& r) noexcept { return reinterpret_cast<const char*>(r.input().data()); }

}  // namespace

bool read_string_view(reader& r, std::string_view& v) {
  std::string_view text;
  if (!r.get_string(text)) return false;
  // value_at is the opening quote. The raw string is at least as long as its
  // unescaped text and it has no escape exactly when no backslash is among
  // its first text.size() bytes (an escape before that point would be there).
  const char* raw = input_text(r) + r.value_at + 1;
  if (const void* bs = std::memchr(raw, '\\', text.size())) {
    return record_failure(r, errc::invalid_value, static_cast<std::size_t>(static_cast<const char*>(bs) - input_text(r)),
                          std::string(escaped_view));
  }
  v = std::string_view(raw, text.size());
  return true;
}

bool read_key_view(reader& r, std::string_view key, std::string_view& out) {
  // The key's closing quote is found from its value (current, at r.offset()),
  // backwards over whitespace and the colon; its opening quote is the first
  // quote before that with an even number of backslashes in front of it.
  const char* text = input_text(r);
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  std::size_t q = r.offset();
  while (q > 0 && is_space(text[q - 1])) --q;
  if (q > 0 && text[q - 1] == ':') --q;
  while (q > 0 && is_space(text[q - 1])) --q;
  if (q == 0 || text[q - 1] != '"') return fail(r, errc::invalid_json, "expected an object key");  // not reached
  const std::size_t close = q - 1;
  std::size_t open = close;
  while (open > 0) {
    --open;
    if (text[open] != '"') continue;
    std::size_t slashes = 0;
    while (open > slashes && text[open - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) break;
  }
  const char* raw = text + open + 1;
  const std::size_t n = close - open - 1;
  if (const void* bs = std::memchr(raw, '\\', n)) {
    return record_failure(r, errc::invalid_value, static_cast<std::size_t>(static_cast<const char*>(bs) - text),
                          std::string(escaped_view));
  }
  if (text[open] != '"' || key != std::string_view(raw, n)) return fail(r, errc::invalid_json, "expected an object key");  // not reached
  out = std::string_view(raw, n);
  return true;
}

refwire::error make_error(reader& r, decode_again again, void* out, const decode_options& options) {
  const std::span<const std::byte> in = r.input();
  refwire::error e = r.failed ? detail::make_error(r) : refwire::error(errc::invalid_json, 0, "$", "decode failed");
  token_fault f;
  if (r.before_values && again != nullptr &&
      find_string_fault(reinterpret_cast<const char*>(in.data()), in.size(), f)) {
    // The input up to the faulty string, then a value no type accepts, then the open brackets closed.
    std::string cut(reinterpret_cast<const char*>(in.data()), f.token);
    cut += 'x';
    cut += f.closers;
    reader second(std::as_bytes(std::span(cut.data(), cut.size())), options);
    std::string path = "$";
    if (!again(second, out) && second.failed) {
      refwire::error e2 = detail::make_error(second);
      if (e2.offset() < f.token) {  // an earlier fault (cut is a prefix of in: the same offset, line and column)
        const auto [line, column] = line_column(in, e2.offset());
        return refwire::error(e2.code(), e2.offset(), e2.path(), e2.reason(), line, column);
      }
      path = e2.path();
    }
    e = refwire::error(f.code, f.offset, std::move(path), std::move(f.reason));
  }
  const auto [line, column] = line_column(in, e.offset());
  return refwire::error(e.code(), e.offset(), e.path(), e.reason(), line, column);
}

// ------------------------------------------------------- template failures

bool fail_range(reader& r, std::string_view value, std::string_view type) {
  return record_failure(r, errc::invalid_value, r.value_at,
                        std::string(value) + " is out of range for " + std::string(type));
}

bool fail_float_range(reader& r, double value) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, value);
  return fail_range(r, std::string_view(buf, static_cast<std::size_t>(res.ptr - buf)), "f32");
}

bool fail_count(reader& r, std::string_view what, std::size_t need, std::size_t got) {
  return fail(r, errc::invalid_value,
              std::string(what) + " needs " + std::to_string(need) + " elements, got " +
                  (got > need ? "more" : std::to_string(got)));
}

bool fail_unknown_field(reader& r, std::string_view key) {
  return fail(r, errc::unknown_field, "unknown field " + quote_key(key));
}

bool fail_duplicate_field(reader& r, std::string_view key) {
  return fail(r, errc::duplicate_key, "duplicate field " + quote_key(key));
}

bool fail_missing_field(reader& r, std::string_view name) {
  return fail(r, errc::missing_field, "missing field " + quote_key(name));
}

bool fail_text(reader& r, errc code, std::string_view what, std::string_view text) {
  return record_failure(r, code, r.value_at, "invalid " + std::string(what) + " " + quote_key(text));
}

bool fail_naming_collision(reader& r, naming p, std::string_view first, std::string_view second,
                           std::string_view key) {
  return fail(r, errc::invalid_value, naming_collision_reason(p, first, second, key));
}

bool fail_alternative(reader& r, std::size_t at, std::string_view what, std::string_view name,
                      const std::vector<std::string>& names) {
  std::string reason = "unknown " + std::string(what) + " " + quote_key(name) + " (one of";
  for (std::size_t i = 0; i < names.size(); ++i) reason += (i == 0 ? " " : ", ") + quote_key(names[i]);
  return record_failure(r, errc::invalid_variant, at, reason + ")");
}

bool fail_variant_at(reader& r, std::size_t at, std::string reason) {
  return record_failure(r, errc::invalid_variant, at, std::move(reason));
}

std::size_t object_end(std::span<const std::byte> in, std::size_t at) noexcept {
  const auto* p = reinterpret_cast<const char*>(in.data());
  const std::size_t n = in.size();
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = at; i < n; ++i) {
    const char c = p[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return n;
}

bool adopt_failure(reader& r, reader& nested, std::size_t at) {
  if (r.failed) return false;
  if (!nested.failed) return record_failure(r, errc::invalid_json, at, "decode failed");
  r.failed = std::move(nested.failed);
  r.failed->offset += at;
  return false;
}

void push_member(reader& r, std::string_view key) {
  bool plain = !key.empty();
  for (const char c : key) {
    plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_');
  }
  if (plain) {
    push_field(r, key, 0);
  } else {
    push_key(r, key);
  }
}

bool skip_value(reader& r) {
  value_kind k;
  if (!r.kind(k)) return false;
  switch (k) {
    case value_kind::object: {
      if (r.depth_left == 0) return fail_depth(r);
      if (!r.begin_object()) return false;
      depth_scope scope(r);
      std::string_view key;
      int n;
      while ((n = r.next_key(key)) == 1) {
        if (!skip_value(r)) {
          push_member(r, key);
          return false;
        }
      }
      return n == 0;
    }
    case value_kind::array: {
      if (r.depth_left == 0) return fail_depth(r);
      if (!r.begin_array()) return false;
      depth_scope scope(r);
      int n;
      std::size_t i = 0;
      while ((n = r.next_element()) == 1) {
        if (!skip_value(r)) {
          push_index(r, i);
          return false;
        }
        ++i;
      }
      return n == 0;
    }
    case value_kind::string: {
      std::string_view s;
      return r.get_string(s);
    }
    case value_kind::number: {
      double d;
      return r.get_double(d);
    }
    case value_kind::boolean: {
      bool b;
      return r.get_bool(b);
    }
    case value_kind::null:
      return r.is_null() == 1 || (r.failed ? false : fail(r, errc::invalid_json, "invalid literal (expected null)"));
  }
  return false;
}

// ------------------------------------------------------------------ base64

bool base64_decode(std::string_view text, std::vector<std::byte>& out, std::string& why) {
  static constexpr auto table = [] {
    std::array<signed char, 256> t{};
    for (auto& x : t) x = -1;
    const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(a[i])] = static_cast<signed char>(i);
    return t;
  }();
  out.clear();
  if (text.size() % 4 != 0) {
    why = "invalid base64: length " + std::to_string(text.size()) + " is not a multiple of 4";
    return false;
  }
  if (text.empty()) return true;
  std::size_t pad = 0;
  if (text.back() == '=') pad = text[text.size() - 2] == '=' ? 2 : 1;
  out.resize(text.size() / 4 * 3 - pad);
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t o = 0;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int a = table[p[i]];
    const int b = table[p[i + 1]];
    const int c = last && pad == 2 ? 0 : table[p[i + 2]];
    const int d = last && pad >= 1 ? 0 : table[p[i + 3]];
    if (a < 0 || b < 0 || c < 0 || d < 0) {
      why = "invalid base64 character at index " + std::to_string(i);
      out.clear();
      return false;
    }
    const std::uint32_t v = (static_cast<std::uint32_t>(a) << 18) | (static_cast<std::uint32_t>(b) << 12) |
                            (static_cast<std::uint32_t>(c) << 6) | static_cast<std::uint32_t>(d);
    if (last && pad != 0) {
      if ((pad == 2 && (v & 0xFFFF) != 0) || (pad == 1 && (v & 0xFF) != 0)) {
        why = "invalid base64: non-zero bits in the padding";
        out.clear();
        return false;
      }
    }
    out[o++] = static_cast<std::byte>(v >> 16);
    if (o < out.size()) out[o++] = static_cast<std::byte>((v >> 8) & 0xFF);
    if (o < out.size() && !(last && pad == 1)) out[o++] = static_cast<std::byte>(v & 0xFF);
  }
  return true;
}

// -------------------------------------------------------------- timestamps

bool fail_timestamp(reader& r, std::string_view text, wire::rfc3339_status why) {
  const wire::rfc3339_fault f = wire::describe_rfc3339(text, why);
  // At the faulty character when the string has no escapes before it (its
  // bytes in the input are the text's), else at the string.
  std::size_t at = r.value_at;
  const std::span<const std::byte> in = r.input();
  if (at + 1 + f.index <= in.size() && static_cast<char>(in[at]) == '"' &&
      std::memcmp(in.data() + at + 1, text.data(), f.index) == 0)
    at += 1 + f.index;
  return record_failure(r, errc::invalid_value, at,
                        "invalid RFC 3339 timestamp " + quote_key(text) + " (" + f.what + ")");
}

bool read_any_timestamp(reader& r, std::int64_t& ns) {
  value_kind k;
  if (!r.kind(k)) return false;
  if (k == value_kind::string) {
    std::string_view text;
    if (!r.get_string(text)) return false;
    const wire::rfc3339_status why = wire::parse_rfc3339(text, ns);
    return why == wire::rfc3339_status::ok || fail_timestamp(r, text, why);
  }
  if (k != value_kind::number) return fail_expected(r, "RFC 3339 string or epoch number");
  std::string_view text;
  if (!r.get_number_text(text)) return false;
  static constexpr std::int64_t units[] = {1'000'000'000, 1'000'000'000, 1'000'000, 1'000, 1};
  static constexpr std::string_view names[] = {"seconds", "seconds", "milliseconds", "microseconds", "nanoseconds"};
  const auto u = static_cast<std::size_t>(r.timestamps) % 5;
  const wire::epoch_status st = wire::parse_epoch(text, units[u], ns);
  if (st == wire::epoch_status::ok) return true;
  std::string shown(text.substr(0, 40));
  if (text.size() > 40) shown += "...";
  return record_failure(r, errc::invalid_value, r.value_at,
                        "epoch timestamp " + shown + " (" + std::string(names[u]) + ") " +
                            (st == wire::epoch_status::too_precise
                                 ? "is finer than a nanosecond"
                                 : "is outside the int64 nanosecond range (1677-09-21 to 2262-04-11)"));
}

}  // namespace refwire::detail::json

// ------------------------------------------------------------- diagnosis
// Failure paths only: after simdjson rejected a value, these re-read the
// input to say exactly what is wrong and where.

namespace refwire::detail::json {

namespace {

bool is_ws(char c) noexcept { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
bool is_delim(char c) noexcept { return is_ws(c) || c == ',' || c == ']' || c == '}' || c == ':'; }
bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool is_hex(char c) noexcept { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

std::string shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7F) return std::string("'") + c + "'";
  static constexpr char hex[] = "0123456789abcdef";
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

/// The token at at: up to the next delimiter (at most 32 bytes shown).
std::string token_text(const char* p, std::size_t n, std::size_t at) {
  std::size_t e = at;
  while (e < n && !is_delim(p[e]) && p[e] != '"' && p[e] != '[' && p[e] != '{' && e - at < 32) ++e;
  return quote_key(std::string_view(p + at, e - at));
}

bool set(token_fault& f, std::size_t at, errc code, std::string reason) {
  f.offset = at;
  f.code = code;
  f.reason = std::move(reason);
  return true;
}

/// The first n bytes at p up to the first one that is not printable ASCII.
std::string printable_prefix(const char* p, std::size_t n) {
  std::size_t k = 0;
  while (k < n && static_cast<unsigned char>(p[k]) >= 0x20 && static_cast<unsigned char>(p[k]) < 0x7F) ++k;
  return std::string(p, k);
}

unsigned hex4(const char* p) noexcept {
  unsigned v = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = p[i];
    v = v * 16 + static_cast<unsigned>(is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  return v;
}

/// A string from its opening quote at q: the first bad escape, lone
/// surrogate, control character, or its end missing.
bool string_fault(const char* p, std::size_t n, std::size_t q, token_fault& f, bool stage1_only = false) {
  for (std::size_t i = q + 1; i < n; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (c == '"') return false;
    if (c < 0x20) {
      static constexpr char hex[] = "0123456789abcdef";
      return set(f, i, errc::invalid_json,
                 std::string("unescaped control character U+00") + hex[c >> 4] + hex[c & 15] +
                     " in a string (write it as an escape)");
    }
    if (c != '\\') continue;
    if (i + 1 >= n) break;
    const char e = p[i + 1];
    if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
      ++i;
      continue;
    }
    if (stage1_only) {
      ++i;
      continue;
    }
    if (e != 'u') {
      const std::string esc = static_cast<unsigned char>(e) >= 0x20 && static_cast<unsigned char>(e) < 0x7F
                                  ? "\\" + std::string(1, e)
                                  : "\\ followed by " + shown(e);
      return set(f, i, errc::invalid_json, "invalid escape " + esc + R"( (expected one of \" \\ \/ \b \f \n \r \t \uXXXX))");
    }
    for (std::size_t k = 2; k < 6; ++k) {
      if (i + k >= n || !is_hex(p[i + k])) {
        // Shown up to the closing quote of the string, not past it.
        std::size_t shown_len = std::min<std::size_t>(4, n - (i + 2));
        for (std::size_t j = 0; j < shown_len; ++j) {
          if (p[i + 2 + j] == '"') shown_len = j;
        }
        return set(f, i, errc::invalid_json,
                   "invalid escape \\u" + printable_prefix(p + i + 2, shown_len) +
                       " (expected 4 hex digits after \\u)");
      }
    }
    const unsigned u = hex4(p + i + 2);
    const std::string esc(p + i, 6);
    if (u >= 0xDC00 && u <= 0xDFFF) {
      return set(f, i, errc::invalid_json, "lone low surrogate " + esc + " (a low surrogate must follow a high one)");
    }
    if (u >= 0xD800 && u <= 0xDBFF) {
      const std::size_t j = i + 6;
      if (j + 6 <= n && p[j] == '\\' && p[j + 1] == 'u' && is_hex(p[j + 2]) && is_hex(p[j + 3]) && is_hex(p[j + 4]) &&
          is_hex(p[j + 5])) {
        const unsigned lo = hex4(p + j + 2);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
          i = j + 5;
          continue;
        }
        return set(f, j, errc::invalid_json,
                   "invalid surrogate pair " + esc + std::string(p + j, 6) + " (expected a low surrogate \\udc00-\\udfff after " +
                       esc + ")");
      }
      return set(f, i, errc::invalid_json, "lone high surrogate " + esc + " (expected a low surrogate \\udc00-\\udfff after it)");
    }
    i += 5;
  }
  return set(f, q, errc::truncated, "unterminated string");
}

bool number_fault(const char* p, std::size_t n, std::size_t at, token_fault& f) {
  std::size_t i = at;
  auto bad = [&](std::string why) { return set(f, at, errc::invalid_json, "invalid number " + token_text(p, n, at) + ": " + why); };
  if (p[i] == '+') return bad("a number cannot start with '+'");
  if (p[i] == '.') return bad("expected a digit before '.'");
  if (p[i] == '-') {
    ++i;
    if (i >= n || !is_digit(p[i])) return bad("expected a digit after '-'");
  }
  if (p[i] == '0') {
    ++i;
    if (i < n && is_digit(p[i])) return bad("leading zeros are not allowed");
  } else {
    while (i < n && is_digit(p[i])) ++i;
  }
  if (i < n && p[i] == '.') {
    ++i;
    if (i >= n || !is_digit(p[i])) return bad("expected a digit after '.'");
    while (i < n && is_digit(p[i])) ++i;
  }
  if (i < n && (p[i] == 'e' || p[i] == 'E')) {
    ++i;
    if (i < n && (p[i] == '+' || p[i] == '-')) ++i;
    if (i >= n || !is_digit(p[i])) return bad("expected a digit in the exponent");
    while (i < n && is_digit(p[i])) ++i;
  }
  if (i < n && !is_delim(p[i])) return bad("unexpected " + shown(p[i]) + " after the number");
  return false;
}

bool literal_fault(const char* p, std::size_t n, std::size_t at, std::string_view word, token_fault& f) {
  if (n - at >= word.size() && std::string_view(p + at, word.size()) == word &&
      (n - at == word.size() || is_delim(p[at + word.size()])))
    return false;
  return set(f, at, errc::invalid_json,
             "invalid literal " + token_text(p, n, at) + " (expected " + std::string(word) + ")");
}

}  // namespace

bool find_token_fault(const char* p, std::size_t n, std::size_t at, token_fault& f) {
  if (at >= n) return false;
  const char c = p[at];
  if (c == '"') return string_fault(p, n, at, f);
  if (c == '-' || c == '+' || c == '.' || is_digit(c)) return number_fault(p, n, at, f);
  if (c == 't') return literal_fault(p, n, at, "true", f);
  if (c == 'f') return literal_fault(p, n, at, "false", f);
  if (c == 'n') return literal_fault(p, n, at, "null", f);
  if (c == '{' || c == '[' || c == ']' || c == '}' || c == ',' || c == ':') return false;
  return set(f, at, errc::invalid_json, "invalid value " + token_text(p, n, at) + " (expected a string, number, object, array, true, false or null)");
}

bool find_string_fault(const char* p, std::size_t n, token_fault& f) {
  std::string open;  // the brackets open at i
  for (std::size_t i = 0; i < n; ++i) {
    const char c = p[i];
    if (c == '"') {
      if (string_fault(p, n, i, f, true)) {
        f.token = i;
        f.closers.assign(open.rbegin(), open.rend());
        return true;
      }
      for (++i; i < n && p[i] != '"'; ++i) {
        if (p[i] == '\\') ++i;
      }
    } else if (c == '{') {
      open += '}';
    } else if (c == '[') {
      open += ']';
    } else if ((c == '}' || c == ']') && !open.empty()) {
      open.pop_back();
    }
  }
  return false;
}

std::pair<std::size_t, std::size_t> line_column(std::span<const std::byte> in, std::size_t offset) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const std::size_t end = offset < in.size() ? offset : in.size();
  std::size_t line = 1;
  std::size_t start = 0;
  for (std::size_t i = 0; i < end; ++i) {
    if (p[i] == '\n') {
      ++line;
      start = i + 1;
    }
  }
  if (line == 1 && in.size() >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF && end >= 3) start = 3;
  std::size_t column = 1;
  for (std::size_t i = start; i < end; ++i) column += (p[i] & 0xC0) != 0x80 ? 1 : 0;
  return {line, column};
}

}  // namespace refwire::detail::json
