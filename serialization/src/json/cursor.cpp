// The JSON reader's cursor (detail/json/cursor.hpp) over simdjson's
// on-demand parser: the one translation unit that includes simdjson.h.
// SIMDJSON_BUILTIN_IMPLEMENTATION decides the target of the on-demand code
// compiled here (see docs/json-format.md, "Kernels").
//
// Root objects and arrays are entered with simdjson's root checks (they guard
// against unbalanced documents); a document whose value ends before the input
// does is then reported as trailing content by a bracket scan.
#include <refwire/serialization/detail/json/cursor.hpp>
#include <refwire/serialization/detail/wire/utf8.hpp>

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <simdjson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace refwire::detail::json {

namespace od = simdjson::SIMDJSON_BUILTIN_IMPLEMENTATION::ondemand;
using simdjson::error_code;

namespace {

struct frame {
  od::object_iterator oit;
  od::object_iterator oend;
  od::array_iterator ait;
  od::array_iterator aend;
  bool object = false;
  bool started = false;
};

}  // namespace

/// The simdjson parser, the document and its iterators, and the padded copy
/// of the input: one per thread, reused by its decodes.
struct cursor_state {
  bool in_use = false;
  od::parser parser;
  od::document doc;
  od::value cur;
  bool root = true;   // the current value is the document itself
  std::vector<frame> frames;
  std::unique_ptr<char[]> buf;
  std::size_t cap = 0;
  const char* base = nullptr;
  std::size_t size = 0;       // bytes parsed (the value's extent in prefix mode)
  std::size_t input_size = 0;  // the caller's bytes
};

static_assert(simdjson::SIMDJSON_PADDING >= key_slack, "the padded buffer must cover key_slack");

namespace {

cursor_state* acquire(bool& owned) {
  thread_local std::unique_ptr<cursor_state> cached;
  if (!cached) cached = std::make_unique<cursor_state>();
  if (cached->in_use) {  // a decode nested in another on this thread (a codec's from_wire)
    owned = true;
    return new cursor_state();
  }
  owned = false;
  cached->in_use = true;
  return cached.get();
}

void release(cursor_state* s, bool owned) {
  if (owned) {
    delete s;
    return;
  }
  s->in_use = false;
  if (s->cap > (std::size_t{64} << 20)) {  // do not keep a huge buffer for the thread's lifetime
    s->buf.reset();
    s->cap = 0;
    s->parser = od::parser();
  }
}

/// Where the first JSON value in [p, p + n) ends (just past it), found by a
/// string-aware bracket scan; n when it does not end inside the input.
std::size_t scan_value_end(const char* p, std::size_t n) noexcept {
  std::size_t i = 0;
  while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) ++i;
  if (i == n) return n;
  const char c = p[i];
  if (c == '{' || c == '[') {
    std::size_t depth = 0;
    for (; i < n; ++i) {
      const char x = p[i];
      if (x == '"') {
        for (++i; i < n && p[i] != '"'; ++i) {
          if (p[i] == '\\') ++i;
        }
        if (i >= n) return n;
      } else if (x == '{' || x == '[') {
        ++depth;
      } else if (x == '}' || x == ']') {
        if (--depth == 0) return i + 1;
      }
    }
    return n;
  }
  if (c == '"') {
    for (++i; i < n && p[i] != '"'; ++i) {
      if (p[i] == '\\') ++i;
    }
    return i >= n ? n : i + 1;
  }
  for (; i < n; ++i) {
    const char x = p[i];
    if (x == ' ' || x == '\n' || x == '\r' || x == '\t' || x == ',' || x == ']' || x == '}' || x == '[' ||
        x == '{' || x == ':' || x == '"')
      return i;
  }
  return n;
}

/// Where simdjson's iterator stands. Every value of the document reads
/// through the document's iterator, so this asks the document: s.cur is not
/// yet a value when an object's or array's first key or element fails.
inline std::size_t location(cursor_state& s) {
  const char* p = nullptr;
  const error_code e = s.doc.current_location().get(p);
  if (e != simdjson::SUCCESS || p == nullptr) return s.size;
  const auto off = static_cast<std::size_t>(p - s.base);
  return off > s.size ? s.size : off;
}

/// Offset of the current value before it is read (reader::value_at): for a
/// field value or an element, the start of its token, without simdjson's checks.
inline std::size_t value_start(cursor_state& s) {
  if (s.root) [[unlikely]] return location(s);
  return static_cast<std::size_t>(s.cur.raw_json_token().data() - s.base);
}

/// The text of the current scalar value as simdjson sees it, without the
/// whitespace that follows it.
std::string_view raw_token(cursor_state& s) {
  std::string_view raw;
  if (s.root) {
    if (s.doc.raw_json_token().get(raw) != simdjson::SUCCESS) raw = {};
  } else {
    raw = s.cur.raw_json_token();
  }
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
    raw.remove_suffix(1);
  return raw;
}

std::string_view short_message(error_code e) {
  switch (e) {
    case simdjson::TAPE_ERROR: return "invalid JSON structure";
    case simdjson::STRING_ERROR: return "invalid string (a bad escape or a lone surrogate)";
    case simdjson::T_ATOM_ERROR: return "invalid literal (expected true)";
    case simdjson::F_ATOM_ERROR: return "invalid literal (expected false)";
    case simdjson::N_ATOM_ERROR: return "invalid literal (expected null)";
    case simdjson::NUMBER_ERROR: return "invalid number";
    case simdjson::UNESCAPED_CHARS: return "unescaped control character in a string";
    case simdjson::UNCLOSED_STRING: return "unterminated string";
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT: return "unterminated object or array";
    case simdjson::EMPTY: return "no JSON value";
    case simdjson::DEPTH_ERROR: return "nesting exceeds the parser's depth limit";
    case simdjson::CAPACITY: return "input too large for the parser";
    case simdjson::MEMALLOC: return "out of memory";
    default: return simdjson::error_message(e);
  }
}

/// Where the current value's token starts (the root: its first byte after whitespace).
std::size_t token_start(cursor_state& s) {
  if (s.root) {
    std::size_t i = 0;
    while (i < s.size && (s.base[i] == ' ' || s.base[i] == '\n' || s.base[i] == '\r' || s.base[i] == '\t')) ++i;
    return i;
  }
  const char* p = s.cur.raw_json_token().data();
  if (p < s.base || p > s.base + s.size) return s.size;
  return static_cast<std::size_t>(p - s.base);
}

/// Records the exact fault of the token at `at`, if simdjson's error may be
/// about the token's own text and the token has one.
bool record_token_fault(cursor_state& s, reader& r, error_code e, std::size_t at) {
  switch (e) {
    case simdjson::INCORRECT_TYPE:
    case simdjson::NUMBER_ERROR:
    case simdjson::NUMBER_OUT_OF_RANGE:
    case simdjson::STRING_ERROR:
    case simdjson::T_ATOM_ERROR:
    case simdjson::F_ATOM_ERROR:
    case simdjson::N_ATOM_ERROR:
    case simdjson::TAPE_ERROR:
      break;
    default:
      return false;
  }
  token_fault f;
  if (!find_token_fault(s.base, s.size, at, f)) return false;
  record_failure(r, f.code, f.offset, std::move(f.reason));
  return true;
}

/// Records a simdjson failure on the current value; `what` is the expected type.
bool fail_sj(cursor_state& s, reader& r, error_code e, std::string_view what) {
  if (record_token_fault(s, r, e, token_start(s))) [[unlikely]] return false;
  const std::size_t at = location(s);
  switch (e) {
    case simdjson::INCORRECT_TYPE: {
      od::json_type t;
      const error_code te = s.root ? s.doc.type().get(t) : s.cur.type().get(t);
      if (te != simdjson::SUCCESS) return record_failure(r, errc::invalid_json, at, std::string(short_message(te)));
      static constexpr std::string_view names[] = {"?", "array", "object", "number", "string", "bool", "null"};
      const auto i = static_cast<std::size_t>(t);
      if (t == od::json_type::number && (what == "integer" || what == "unsigned integer")) {
        const std::string_view raw = raw_token(s);
        bool integral = !raw.empty() && raw.size() < 40;
        for (char c : raw) integral = integral && ((c >= '0' && c <= '9') || c == '-');
        if (integral && !(what == "unsigned integer" && raw.front() == '-')) {
          return record_failure(r, errc::invalid_value, at, std::string(raw) + " is out of range for " + std::string(what));
        }
      }
      return record_failure(r, errc::type_mismatch, at,
                       "expected " + std::string(what) + ", got " + std::string(i < 7 ? names[i] : "?"));
    }
    case simdjson::NUMBER_OUT_OF_RANGE:
      return record_failure(r, errc::invalid_value, at, "number out of range for " + std::string(what));
    case simdjson::UTF8_ERROR:
      return record_failure(r, errc::invalid_utf8, wire::utf8_first_invalid(s.base, s.size), "invalid UTF-8");
    case simdjson::TRAILING_CONTENT:
      return record_failure(r, errc::trailing_bytes, at, "trailing content after the value");
    case simdjson::EMPTY:
    case simdjson::UNCLOSED_STRING:
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
      return record_failure(r, errc::truncated, at, std::string(short_message(e)));
    case simdjson::DEPTH_ERROR:
      return record_failure(r, errc::depth_limit, at, std::string(short_message(e)));
    default:
      return record_failure(r, errc::invalid_json, at, std::string(short_message(e)));
  }
}

/// An object's field or an array's element that simdjson could not reach.
bool fail_next(cursor_state& s, reader& r, error_code e) {
  const std::size_t at = location(s);
  if (e == simdjson::INCOMPLETE_ARRAY_OR_OBJECT) return record_failure(r, errc::truncated, at, std::string(short_message(e)));
  return record_failure(r, e == simdjson::UTF8_ERROR ? errc::invalid_utf8 : errc::invalid_json, at,
                   std::string(short_message(e)));
}

inline std::size_t skip_ws(const char* p, std::size_t i, std::size_t n) {
  while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) ++i;
  return i;
}

/// After a root object/array failed its start checks: trailing content, if that is what it was.
bool root_start_failed(cursor_state& s, reader& r, error_code e, std::string_view what) {
  if (e == simdjson::INCOMPLETE_ARRAY_OR_OBJECT) {
    const std::size_t end = scan_value_end(s.base, s.size);
    const std::size_t next = skip_ws(s.base, end, s.size);
    if (end < s.size && next < s.size) {
      return record_failure(r, errc::trailing_bytes, next,
                       std::to_string(s.size - next) + " bytes of trailing content after the value");
    }
    return record_failure(r, errc::truncated, s.size, std::string(short_message(e)));
  }
  return fail_sj(s, r, e, what);
}

/// The current value as an array (the root with simdjson's root checks).
inline bool enter_array(cursor_state& s, reader& r, od::array& arr) {
  error_code e;
  if (s.root) {
    e = s.doc.get_array().get(arr);
    if (e != simdjson::SUCCESS) [[unlikely]] return root_start_failed(s, r, e, "array");
  } else {
    e = s.cur.get_array().get(arr);
    if (e != simdjson::SUCCESS) [[unlikely]] return fail_sj(s, r, e, "array");
  }
  return true;
}

/// The first '"' or backslash at or after p, which is inside a string of the
/// input. Stage 1 has checked that every string is closed, so there is one
/// before the input ends, and each 16-byte load starts at or before it:
/// inside the input's padding.
inline const char* quote_or_backslash(const char* p) noexcept {
#if defined(__SSE2__)
  for (;; p += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const auto m = static_cast<unsigned>(_mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')))));
    if (m != 0) return p + std::countr_zero(m);
  }
#else
  while (*p != '"' && *p != '\\') ++p;
  return p;
#endif
}

/// The string at raw (just past its opening quote), which the current value
/// shares the document's iterator with, unescaped by simdjson into the
/// document's string buffer (as get_string and unescaped_key do).
inline error_code unescape(cursor_state& s, od::raw_json_string raw, std::string_view& out) {
  od::field fl;
  fl.first = raw;
  fl.second = s.cur;
  return fl.unescaped_key().get(out);
}

/// The run of ASCII digits at p, up to 16 of them, 8 at a time (SWAR: the
/// lowest flagged byte of each 8-byte load is exactly the first non-digit):
/// appended to x (x * 10^count + their value; it wraps if x then has more than
/// 19 digits, which the callers reject), p moved past them; returns the count.
/// It loads 8 bytes at p and at p + 8 at most, never past the first non-digit:
/// inside the input's zero padding for any p in the input.
inline std::size_t digit_run(const char*& p, std::uint64_t& x) noexcept {
  static constexpr std::uint64_t scale[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  std::size_t n = 0;
  for (int half = 0; half < 2; ++half) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    const std::uint64_t d = w - 0x3030303030303030ULL;
    const std::uint64_t flag = (d | (w + 0x4646464646464646ULL)) & 0x8080808080808080ULL;
    const std::size_t len = flag == 0 ? 8 : static_cast<std::size_t>(std::countr_zero(flag)) / 8;
    if (len == 0) break;
    std::uint64_t v = d << (8 * (8 - len));
    v = (v * 10) + (v >> 8);
    v = (((v & 0x000000FF000000FFULL) * 0x000F424000000064ULL) +
         (((v >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >> 32;
    x = x * scale[len] + v;
    n += len;
    p += len;
    if (len < 8) break;
  }
  return n;
}

/// A plain number at p, the current value (not the root), read straight from
/// the padded input: "-"? digits ("." digits)?, at most 19 digits in all, no
/// leading zero, then JSON whitespace, ',', ']' or '}'. x holds its digits
/// as one integer and frac how many of them follow the point. False for
/// anything else (exponents, more digits, bad syntax): the caller then takes
/// simdjson's path, which parses or reports it. On success the value is left
/// unread: simdjson skips a number token when the cursor moves on (a number
/// cannot be taken for a key, as an unread string can), and this has checked
/// every byte of the token.
inline bool plain_number(const char* p, bool& neg, std::uint64_t& x, std::size_t& frac) noexcept {
  neg = *p == '-';
  p += neg ? 1 : 0;
  const char first = *p;
  x = 0;
  std::size_t digits = digit_run(p, x);
  if (digits == 0 || (first == '0' && digits > 1)) return false;
  frac = 0;
  if (*p == '.') {
    ++p;
    frac = digit_run(p, x);
    if (frac == 0) return false;
    digits += frac;
  }
  const char c = *p;
  return digits <= 19 && (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t');
}

/// The current value (not the root) as a string: get_string, except that a
/// string without escapes is returned in place (stage 1 has checked the whole
/// input for UTF-8 and unescaped control characters, so its bytes are exactly
/// what simdjson's unescape would copy). simdjson still reads the token, which
/// checks its type and moves the cursor past it.
inline error_code current_string(cursor_state& s, std::string_view& v) {
  od::raw_json_string raw;
  const error_code e = s.cur.get_raw_json_string().get(raw);
  if (e != simdjson::SUCCESS) [[unlikely]] return e;
  const char* p = raw.raw();
  const char* q = quote_or_backslash(p);
  if (*q == '"') [[likely]] {
    v = std::string_view(p, static_cast<std::size_t>(q - p));
    return simdjson::SUCCESS;
  }
  return unescape(s, raw, v);
}

/// One array of numbers, element by element, without a cursor round trip per element.
template <class T, class Get, class Check>
bool number_array(cursor_state& s, reader& r, std::vector<T>& out, const char* what, Get&& get, Check&& check) {
  od::array arr;
  if (!enter_array(s, r, arr)) [[unlikely]] return false;
  s.root = false;
  out.clear();
  std::size_t i = 0;
  for (auto element : arr) {
    error_code e = element.get(s.cur);
    if (e != simdjson::SUCCESS) [[unlikely]] return fail_next(s, r, e);
    T x;
    e = get(s.cur, x);
    if (e != simdjson::SUCCESS) [[unlikely]] {
      fail_sj(s, r, e, what);
      push_index(r, i);
      return false;
    }
    if (!check(x)) [[unlikely]] {
      const std::string_view raw = s.cur.raw_json_token();
      r.value_at = static_cast<std::size_t>(raw.data() - s.base);
      return false;  // the caller reports the range failure for element out.size()
    }
    out.push_back(x);
    ++i;
  }
  return true;
}

/// The json_iterator a value reads from (protected in simdjson's value; a
/// member pointer formed through a derived class reaches it).
struct value_access : od::value {
  static od::value_iterator& of(od::value& v) noexcept { return v.*(&value_access::iter); }
};

/// Moves the cursor past the current value, an array of `count` plain numbers
/// that starts at `start` and that the caller has parsed up to its closing
/// bracket: stage 1 made exactly one token of each number, comma and bracket,
/// so the array is 2 * count + 1 tokens (2 when empty). This leaves simdjson
/// where reading the array through its iterators would (past the bracket, at
/// the parent's depth) without walking the tokens again. Only when the value
/// is untouched (the iterator on its first token, at its depth); else the
/// array is left for simdjson to skip. Returns true.
inline bool past_plain_array(cursor_state& s, const char* start, std::size_t count) noexcept {
  od::value_iterator& v = value_access::of(s.cur);
  od::json_iterator& it = v.json_iter();
  if (reinterpret_cast<const char*>(it.peek()) != start || it.depth() != v.depth() || it.depth() < 1) return true;
  const std::size_t tokens = count == 0 ? 2 : 2 * count + 1;
  for (std::size_t i = 0; i < tokens; ++i) (void)it.return_current_and_advance();
  it.ascend_to(it.depth() - 1);
  return true;
}

/// The fast path for an array of integers that is not the document root:
/// "[1,-2, 3]" parsed straight from the (padded) bytes. It accepts only plain
/// integers of at most 15 digits (no leading zeros, no "-0"), within [lo, hi],
/// separated by commas and JSON whitespace; on anything else it returns false
/// having changed nothing but out, and the caller takes simdjson's path, which
/// reports the error. On success the cursor is moved past the array
/// (past_plain_array).
template <class T>
bool plain_int_array(cursor_state& s, std::vector<T>& out, T lo, T hi) {
  if (s.root) return false;
  const char* const start = s.cur.raw_json_token().data();
  const char* p = start;
  const char* const end = s.base + s.size;  // the padding after it is zeros: every scan below stops there
  if (p >= end || *p != '[') return false;
  auto ws = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  ++p;
  while (ws(*p)) ++p;
  out.clear();
  if (*p == ']') return past_plain_array(s, start, 0);
  for (;;) {
    bool neg = false;
    if constexpr (std::is_signed_v<T>) {
      if (*p == '-') {
        neg = true;
        ++p;
      }
    }
    const char first = *p;
    std::uint64_t x = 0;
    const std::size_t n = digit_run(p, x);
    if (n == 0 || n > 15 || static_cast<unsigned char>(*p - '0') < 10) return false;
    if (first == '0' && (n > 1 || neg)) return false;  // a leading zero, or -0
    T v;
    if constexpr (std::is_signed_v<T>) {
      v = neg ? -static_cast<T>(x) : static_cast<T>(x);
    } else {
      v = static_cast<T>(x);
    }
    if (v < lo || v > hi) return false;
    out.push_back(v);
    if (*p == ',') [[likely]] {
      ++p;
      while (ws(*p)) [[unlikely]] ++p;
      continue;
    }
    while (ws(*p)) ++p;
    if (*p == ',') {
      ++p;
      while (ws(*p)) ++p;
      continue;
    }
    return *p == ']' && p < end && past_plain_array(s, start, out.size());
  }
}

}  // namespace

std::string_view kind_name(value_kind k) noexcept {
  switch (k) {
    case value_kind::null: return "null";
    case value_kind::boolean: return "bool";
    case value_kind::number: return "number";
    case value_kind::string: return "string";
    case value_kind::array: return "array";
    case value_kind::object: return "object";
  }
  return "?";
}

// -------------------------------------------------------------------- reader

reader::~reader() {
  if (st_ != nullptr) release(st_, owned_);
}

bool reader::start(bool prefix) {
  st_ = acquire(owned_);
  cursor_state& s = *st_;
  const char* const data = reinterpret_cast<const char*>(in_.data());
  const std::size_t size = in_.size();
  s.frames.clear();
  s.root = true;
  s.input_size = size;
  // A UTF-8 byte-order mark opening the input is read as whitespace (offsets
  // still count it); anywhere else it is not JSON.
  const std::size_t bom = size >= 3 && static_cast<unsigned char>(data[0]) == 0xEF &&
                                  static_cast<unsigned char>(data[1]) == 0xBB &&
                                  static_cast<unsigned char>(data[2]) == 0xBF
                              ? 3
                              : 0;
  // Prefix mode: parse only the first value.
  std::size_t n = size;
  if (prefix) n = bom + scan_value_end(data + bom, size - bom);
  const std::size_t need = n + simdjson::SIMDJSON_PADDING;
  if (s.cap < need) {
    std::size_t cap = s.cap == 0 ? 4096 : s.cap;
    while (cap < need) cap *= 2;
    s.buf = std::make_unique<char[]>(cap);  // value-initialized: zero padding
    s.cap = cap;
  }
  if (n != 0) std::memcpy(s.buf.get(), data, n);
  if (bom != 0) [[unlikely]] std::memset(s.buf.get(), ' ', bom);
  std::memset(s.buf.get() + n, 0, simdjson::SIMDJSON_PADDING);
  s.base = s.buf.get();
  s.size = n;
  const error_code e = s.parser.iterate(s.buf.get(), n, s.cap).get(s.doc);
  if (e != simdjson::SUCCESS) [[unlikely]] {
    if (e == simdjson::UTF8_ERROR) {
      return record_failure(*this, errc::invalid_utf8, wire::utf8_first_invalid(s.base, n), "invalid UTF-8");
    }
    if (e == simdjson::EMPTY) return record_failure(*this, errc::truncated, n, "no JSON value");
    before_values = true;
    return record_failure(*this, e == simdjson::UNCLOSED_STRING ? errc::truncated : errc::invalid_json, 0,
                   std::string(short_message(e)));
  }
  return true;
}

bool reader::finish(std::size_t* consumed) {
  cursor_state& s = *st_;
  if (s.root || s.frames.empty()) {
    const char* p = nullptr;
    const error_code e = s.doc.current_location().get(p);
    if (e == simdjson::SUCCESS && p != nullptr && static_cast<std::size_t>(p - s.base) < s.size) [[unlikely]] {
      const auto at = static_cast<std::size_t>(p - s.base);
      return record_failure(*this, errc::trailing_bytes, at, std::to_string(s.size - at) + " bytes of trailing content after the value");
    }
  }
  if (consumed != nullptr) *consumed = s.size;
  return true;
}

bool reader::get_bool(bool& v) {
  cursor_state& s = *st_;
  value_at = value_start(s);
  if (s.root) [[unlikely]] {
    // simdjson takes a root `false` followed by one byte that is not a
    // delimiter (`false'`, six bytes in all) as false: check the token itself.
    const std::string_view raw = raw_token(s);
    const error_code e = s.doc.get_bool().get(v);
    if (e != simdjson::SUCCESS) [[unlikely]] return fail_sj(s, *this, e, "bool");
    const std::string_view word = v ? "true" : "false";
    if (raw != word) [[unlikely]] {
      const std::string shown = raw.size() > 32 ? std::string(raw.substr(0, 32)) + "..." : std::string(raw);
      return record_failure(*this, errc::invalid_json, value_at,
                            "invalid literal \"" + shown + "\" (expected " + std::string(word) + ")");
    }
    return true;
  }
  const error_code e = s.cur.get_bool().get(v);
  if (e != simdjson::SUCCESS) [[unlikely]] return fail_sj(s, *this, e, "bool");
  return true;
}

bool reader::get_int(std::int64_t& v) {
  cursor_state& s = *st_;
  value_at = value_start(s);
  bool neg;
  std::uint64_t x;
  std::size_t frac;
  // At most 18 digits fit; "-0" is left to simdjson.
  if (!s.root && plain_number(s.base + value_at, neg, x, frac) && frac == 0 && x < 1000000000000000000ULL &&
      !(neg && x == 0)) {
    v = neg ? -static_cast<std::int64_t>(x) : static_cast<std::int64_t>(x);
    return true;
  }
  const error_code e = s.root ? s.doc.get_int64().get(v) : s.cur.get_int64().get(v);
  if (e != simdjson::SUCCESS) [[unlikely]] return fail_sj(s, *this, e, "integer");
  return true;
}

bool reader::get_uint(std::uint64_t& v) {
  cursor_state& s = *st_;
  value_at = value_start(s);
  bool neg;
  std::uint64_t x;
  std::size_t frac;
  if (!s.root && plain_number(s.base + value_at, neg, x, frac) && frac == 0 && !neg) {
    v = x;
    return true;
  }
  const error_code e = s.root ? s.doc.get_uint64().get(v) : s.cur.get_uint64().get(v);
  if (e != simdjson::SUCCESS) [[unlikely]] return fail_sj(s, *this, e, "unsigned integer");
  return true;
}

bool reader::get_double(double& v) {
  cursor_state& s = *st_;
  value_at = value_start(s);
  bool neg;
  std::uint64_t x;
  std::size_t frac;
  // Exact: x and 10^frac are both doubles (x <= 2^53, frac <= 22), and one
  // division rounds correctly, as simdjson does.
  if (!s.root && plain_number(s.base + value_at, neg, x, frac) && x <= (std::uint64_t{1} << 53) && frac <= 22) {
    static constexpr double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                         1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const double d = static_cast<double>(x) / pow10[frac];
    v = neg ? -d : d;
    return true;
  }
  const error_code e = s.root ? s.doc.get_double().get(v) : s.cur.get_double().get(v);
  if (e != simdjson::SUCCESS) [[unlikely]] return fail_sj(s, *this, e, "number");
  return true;
}

bool reader::get_string(std::string_view& v) {
  cursor_state& s = *st_;
  value_at = value_start(s);
  error_code e;
  if (s.root) [[unlikely]] {
    e = s.doc.get_string().get(v);
    if (e != simdjson::SUCCESS) [[unlikely]] return fail_sj(s, *this, e, "string");
    return true;
  }
  e = current_string(s, v);
  if (e != simdjson::SUCCESS) [[unlikely]] return fail_sj(s, *this, e, "string");
  return true;
}

bool skip_value(reader& r);  // src/json/read.cpp

bool reader::get_raw(std::string_view& v) {
  cursor_state& s = *st_;
  value_kind k;
  if (!kind(k)) return false;
  // A number may be read in place, leaving simdjson's iterator on it: its token is its text.
  if (k == value_kind::number) return get_number_text(v);
  const std::size_t start = token_start(s);
  value_at = start;
  if (!skip_value(*this)) return false;
  std::size_t end = location(s);
  while (end > start && (s.base[end - 1] == ' ' || s.base[end - 1] == '\n' || s.base[end - 1] == '\r' ||
                         s.base[end - 1] == '\t'))
    --end;
  v = std::string_view(s.base + start, end - start);
  return true;
}

bool reader::get_number_text(std::string_view& v) {
  cursor_state& s = *st_;
  value_at = value_start(s);
  const std::string_view raw = raw_token(s);
  // Checked as a number by simdjson (which also moves past it); a number too
  // large for a double is still a number here.
  double d;
  const error_code e = s.root ? s.doc.get_double().get(d) : s.cur.get_double().get(d);
  if (e != simdjson::SUCCESS && e != simdjson::NUMBER_OUT_OF_RANGE) [[unlikely]] return fail_sj(s, *this, e, "number");
  v = raw;
  return true;
}

int reader::is_null() {
  cursor_state& s = *st_;
  bool n = false;
  const error_code e = s.root ? s.doc.is_null().get(n) : s.cur.is_null().get(n);
  if (e != simdjson::SUCCESS) [[unlikely]] {
    fail_sj(s, *this, e, "value");
    return -1;
  }
  if (n && s.root) [[unlikely]] {
    // As with a root bool: simdjson takes `null5` (a root null followed by a
    // byte that is not a delimiter) as null; check the token itself.
    const std::string_view raw = raw_token(s);
    if (raw != "null") [[unlikely]] {
      if (!raw.empty()) value_at = static_cast<std::size_t>(raw.data() - s.base);
      const std::string shown = raw.size() > 32 ? std::string(raw.substr(0, 32)) + "..." : std::string(raw);
      record_failure(*this, errc::invalid_json, value_at, "invalid literal \"" + shown + "\" (expected null)");
      return -1;
    }
  }
  return n ? 1 : 0;
}

bool reader::kind(value_kind& k) {
  cursor_state& s = *st_;
  od::json_type t;
  const error_code e = s.root ? s.doc.type().get(t) : s.cur.type().get(t);
  if (e != simdjson::SUCCESS) [[unlikely]] return fail_sj(s, *this, e, "value");
  switch (t) {
    case od::json_type::array: k = value_kind::array; break;
    case od::json_type::object: k = value_kind::object; break;
    case od::json_type::number: k = value_kind::number; break;
    case od::json_type::string: k = value_kind::string; break;
    case od::json_type::boolean: k = value_kind::boolean; break;
    case od::json_type::null: k = value_kind::null; break;
  }
  return true;
}

bool reader::begin_object() {
  cursor_state& s = *st_;
  od::object obj;
  error_code e;
  if (s.root) {
    e = s.doc.get_object().get(obj);
    if (e != simdjson::SUCCESS) [[unlikely]] return root_start_failed(s, *this, e, "object");
  } else {
    e = s.cur.get_object().get(obj);
    if (e != simdjson::SUCCESS) [[unlikely]] return fail_sj(s, *this, e, "object");
  }
  // Built in place: a frame copied into the vector stalled on store forwarding.
  frame& f = s.frames.emplace_back();
  f.object = true;
  if ((e = obj.begin().get(f.oit)) != simdjson::SUCCESS || (e = obj.end().get(f.oend)) != simdjson::SUCCESS)
    [[unlikely]] {
    s.frames.pop_back();
    return fail_sj(s, *this, e, "object");
  }
  s.root = false;
  return true;
}

int reader::next_field(const char*& raw) {
  cursor_state& s = *st_;
  frame& f = s.frames.back();
  if (f.started) ++f.oit;
  f.started = true;
  if (!(f.oit != f.oend)) {
    s.frames.pop_back();
    return 0;
  }
  od::field fl;
  const error_code e = (*f.oit).get(fl);
  if (e != simdjson::SUCCESS) [[unlikely]] {
    s.frames.pop_back();
    return fail_next(s, *this, e), -1;
  }
  raw = fl.key().raw();
  s.cur = std::move(fl).value();
  s.root = false;
  return 1;
}

bool reader::key_text(const char* raw, std::string_view& key) {
  cursor_state& s = *st_;
  const char* p = quote_or_backslash(raw);
  if (*p == '"') {
    key = std::string_view(raw, static_cast<std::size_t>(p - raw));
    return true;
  }
  const error_code e = unescape(s, od::raw_json_string(reinterpret_cast<const std::uint8_t*>(raw)), key);
  if (e != simdjson::SUCCESS) [[unlikely]] {
    if (record_token_fault(s, *this, e, static_cast<std::size_t>(raw - 1 - s.base))) return false;
    return fail_sj(s, *this, e, "key");
  }
  return true;
}

int reader::next_key(std::string_view& key) {
  const char* raw = nullptr;
  const int k = next_field(raw);
  if (k != 1) return k;
  return key_text(raw, key) ? 1 : -1;
}

bool reader::begin_array() {
  cursor_state& s = *st_;
  od::array arr;
  if (!enter_array(s, *this, arr)) [[unlikely]] return false;
  frame& f = s.frames.emplace_back();
  f.object = false;
  error_code e;
  if ((e = arr.begin().get(f.ait)) != simdjson::SUCCESS || (e = arr.end().get(f.aend)) != simdjson::SUCCESS)
    [[unlikely]] {
    s.frames.pop_back();
    return fail_sj(s, *this, e, "array");
  }
  s.root = false;
  return true;
}

int reader::next_element() {
  cursor_state& s = *st_;
  frame& f = s.frames.back();
  if (f.started) ++f.ait;
  f.started = true;
  if (!(f.ait != f.aend)) {
    s.frames.pop_back();
    return 0;
  }
  const error_code e = (*f.ait).get(s.cur);
  s.root = false;
  if (e != simdjson::SUCCESS) [[unlikely]] {
    s.frames.pop_back();
    return fail_next(s, *this, e), -1;
  }
  return 1;
}

std::size_t reader::offset() { return location(*st_); }

bool reader::get_ints(std::vector<std::int64_t>& out, std::int64_t lo, std::int64_t hi, const char* type) {
  cursor_state& s = *st_;
  if (plain_int_array<std::int64_t>(s, out, lo, hi)) return true;
  bool range_failed = false;
  std::int64_t bad = 0;
  const bool ok = number_array<std::int64_t>(
      s, *this, out, "integer", [](od::value& v, std::int64_t& x) { return v.get_int64().get(x); },
      [&](std::int64_t x) {
        if (x >= lo && x <= hi) return true;
        range_failed = true;
        bad = x;
        return false;
      });
  if (!ok && range_failed) {
    record_failure(*this, errc::invalid_value, value_at, std::to_string(bad) + " is out of range for " + type);
    push_index(*this, out.size());
  }
  return ok;
}

bool reader::get_uints(std::vector<std::uint64_t>& out, std::uint64_t hi, const char* type) {
  cursor_state& s = *st_;
  if (plain_int_array<std::uint64_t>(s, out, 0, hi)) return true;
  bool range_failed = false;
  std::uint64_t bad = 0;
  const bool ok = number_array<std::uint64_t>(
      s, *this, out, "unsigned integer", [](od::value& v, std::uint64_t& x) { return v.get_uint64().get(x); },
      [&](std::uint64_t x) {
        if (x <= hi) return true;
        range_failed = true;
        bad = x;
        return false;
      });
  if (!ok && range_failed) {
    record_failure(*this, errc::invalid_value, value_at, std::to_string(bad) + " is out of range for " + type);
    push_index(*this, out.size());
  }
  return ok;
}

bool reader::get_doubles(std::vector<double>& out, bool as_float) {
  cursor_state& s = *st_;
  constexpr double limit = static_cast<double>(std::numeric_limits<float>::max()) + 0x1p103;
  bool range_failed = false;
  double bad = 0;
  const bool ok = number_array<double>(
      s, *this, out, "number", [](od::value& v, double& x) { return v.get_double().get(x); },
      [&](double x) {
        if (!as_float || (x < limit && x > -limit)) return true;
        range_failed = true;
        bad = x;
        return false;
      });
  if (!ok && range_failed) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, bad);
    record_failure(*this, errc::invalid_value, value_at,
            std::string(buf, static_cast<std::size_t>(res.ptr - buf)) + " is out of range for f32");
    push_index(*this, out.size());
  }
  return ok;
}

bool reader::get_strings(std::vector<std::string>& out) {
  cursor_state& s = *st_;
  od::array arr;
  if (!enter_array(s, *this, arr)) [[unlikely]] return false;
  s.root = false;
  out.clear();
  std::size_t i = 0;
  for (auto element : arr) {
    error_code e = element.get(s.cur);
    if (e != simdjson::SUCCESS) [[unlikely]] return fail_next(s, *this, e);
    if (elements_left == 0) [[unlikely]] return fail_elements(*this, 1);
    --elements_left;
    std::string_view text;
    e = s.cur.get_string().get(text);
    if (e != simdjson::SUCCESS) [[unlikely]] {
      fail_sj(s, *this, e, "string");
      push_index(*this, i);
      return false;
    }
    if (!charge(*this, sizeof(std::string) + text.size())) [[unlikely]] return false;
    out.emplace_back(text);
    ++i;
  }
  return true;
}

std::vector<std::int64_t>& reader::int_scratch() {
  thread_local std::vector<std::int64_t> v;
  return v;
}
std::vector<std::uint64_t>& reader::uint_scratch() {
  thread_local std::vector<std::uint64_t> v;
  return v;
}
std::vector<double>& reader::double_scratch() {
  thread_local std::vector<double> v;
  return v;
}

}  // namespace refwire::detail::json
