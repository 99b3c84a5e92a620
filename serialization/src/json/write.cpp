// The JSON encoder's out-of-line parts: output staging, the string escape
// scan with UTF-8 validation, numbers, base64, timestamps, and failures.
#include <refwire/serialization/json.hpp>
#include <refwire/serialization/detail/wire/time.hpp>
#include <refwire/serialization/detail/wire/utf8.hpp>

#include <array>
#include <bit>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace refwire::detail::json {

// ------------------------------------------------------------------- writer

void writer::flush() {
  const auto n = static_cast<std::size_t>(pos_ - stage_);
  if (n != 0) {
    if (bytes_ != nullptr) {
      const auto* p = reinterpret_cast<const std::byte*>(stage_);
      if (bytes_->capacity() - bytes_->size() >= n) {
        bytes_->insert(bytes_->end(), p, p + n);  // no reallocation: a memmove
      } else {
        wire::append_bytes(*bytes_, p, n);
      }
    } else {
      text_->append(stage_, n);
    }
  }
  pos_ = stage_;
}

void writer::put_slow(std::string_view s) {
  while (!s.empty()) {
    const std::size_t room = static_cast<std::size_t>(lim_ - pos_);
    if (room == 0) {
      flush();
      continue;
    }
    const std::size_t n = s.size() < room ? s.size() : room;
    std::memcpy(pos_, s.data(), n);
    pos_ += n;
    s.remove_prefix(n);
  }
}

void writer::pretty_key(std::string_view quoted, bool& first) {
  if (!first) put(',');
  first = false;
  newline();
  put(quoted);
  put(std::string_view(": "));
}

void writer::name_key(std::string_view name, bool& first) {
  if (!first) put(',');
  first = false;
  if (pretty) newline();
  put('"');
  put(name);
  put('"');
  if (pretty) {
    put(std::string_view(": "));
  } else {
    put(':');
  }
}

void writer::newline() {
  const std::size_t n = 1 + static_cast<std::size_t>(indent) * level;
  if (n > max_reserve) {
    put('\n');
    for (std::size_t i = 1; i < n; ++i) put(' ');
    return;
  }
  char* p = reserve(n);
  p[0] = '\n';
  std::memset(p + 1, ' ', n - 1);
  pos_ = p + n;
}

// ------------------------------------------------------------------ strings

namespace {

/// A high bit in each byte of x that is < 0x20, '"', '\\' or >= 0x80 (the
/// lowest flagged byte is exact; bits above it may be spurious).
inline std::uint64_t special_bytes(std::uint64_t x) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101ULL;
  constexpr std::uint64_t high = 0x8080808080808080ULL;
  const std::uint64_t control = (x - ones * 0x20) & ~x & high;
  const std::uint64_t q = x ^ (ones * 0x22);
  const std::uint64_t quote = (q - ones) & ~q & high;
  const std::uint64_t b = x ^ (ones * 0x5c);
  const std::uint64_t backslash = (b - ones) & ~b & high;
  return control | quote | backslash | (x & high);
}

[[noreturn]] void invalid_utf8(const unsigned char* p, std::size_t index) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "string is not valid UTF-8 (byte 0x%02x at index %zu)", static_cast<unsigned>(*p),
                index);
  throw_encode_failure(buf);
}

constexpr char hex_digits[] = "0123456789abcdef";

#if defined(__SSE2__)
/// A bit for each of the 16 bytes that is < 0x20, '"', '\\' or >= 0x80
/// (signed bytes: < 0x20 catches control characters and every byte >= 0x80).
inline unsigned special_mask(__m128i x) noexcept {
  const __m128i special = _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
                                        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                                     _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
  return static_cast<unsigned>(_mm_movemask_epi8(special));
}
#endif

/// Copies the r < 16 bytes at p to o when none needs escaping or checking,
/// reading and writing only inside [p, p + r) and [o, o + r): two overlapping
/// words (or, under four bytes, the first, middle and last byte).
inline bool plain_tail(const unsigned char* p, std::size_t r, char* o) noexcept {
  if (r >= 8) {
    std::uint64_t a;
    std::uint64_t b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + r - 8, 8);
    if ((special_bytes(a) | special_bytes(b)) != 0) return false;
    std::memcpy(o, &a, 8);
    std::memcpy(o + r - 8, &b, 8);
    return true;
  }
  if (r >= 4) {
    std::uint32_t a;
    std::uint32_t b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + r - 4, 4);
    if (special_bytes(a | (std::uint64_t{b} << 32)) != 0) return false;
    std::memcpy(o, &a, 4);
    std::memcpy(o + r - 4, &b, 4);
    return true;
  }
  const unsigned char c0 = p[0];
  const unsigned char c1 = p[r / 2];
  const unsigned char c2 = p[r - 1];
  const std::uint32_t x = c0 | (std::uint32_t{c1} << 8) | (std::uint32_t{c2} << 16) | (std::uint32_t{c0} << 24);
  if (special_bytes(x | (std::uint64_t{x} << 32)) != 0) return false;
  o[0] = static_cast<char>(c0);
  o[r / 2] = static_cast<char>(c1);
  o[r - 1] = static_cast<char>(c2);
  return true;
}

/// write_string from byte `from` on (the opening quote already written when
/// `opened`): every case, in 1024-byte steps.
[[gnu::noinline]] void write_string_rest(writer& w, std::string_view s, std::size_t from, bool opened) {
  const auto* const begin = reinterpret_cast<const unsigned char*>(s.data());
  const auto* p = begin + from;
  const auto* const end = begin + s.size();
  constexpr std::size_t chunk = 1024;
  // Each step's reservation has room for its escaped text, the 16-byte
  // stores, and both quotes.
  std::size_t n = static_cast<std::size_t>(end - p) < chunk ? static_cast<std::size_t>(end - p) : chunk;
  char* o = w.reserve(n * 6 + 10);
  if (!opened) *o++ = '"';
  for (;;) {
    const unsigned char* const stop = p + n;
    while (p < stop) {
#if defined(__SSE2__)
      if (stop - p >= 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const unsigned m = special_mask(x);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o), x);
        if (m == 0) {
          o += 16;
          p += 16;
          continue;
        }
        const auto k = static_cast<std::size_t>(std::countr_zero(m));
        o += k;
        p += k;
      } else
#endif
      {
        const auto r = static_cast<std::size_t>(stop - p);
        if (r < 16 && plain_tail(p, r, o)) {
          o += r;
          p += r;
          break;
        }
        if (r >= 8) {
          std::uint64_t x;
          std::memcpy(&x, p, 8);
          const std::uint64_t m = special_bytes(x);
          std::memcpy(o, p, 8);
          if (m == 0) {
            o += 8;
            p += 8;
            continue;
          }
          const auto k = static_cast<std::size_t>(std::countr_zero(m) / 8);
          o += k;
          p += k;
        }
      }
      const unsigned c = *p;
      if (c >= 0x80) {
        const std::size_t len = wire::utf8_sequence(p, end);
        if (len == 0) invalid_utf8(p, static_cast<std::size_t>(p - begin));
        std::memcpy(o, p, len);
        o += len;
        p += len;
      } else if (c == '"' || c == '\\') {
        o[0] = '\\';
        o[1] = static_cast<char>(c);
        o += 2;
        ++p;
      } else if (c < 0x20) {
        o[0] = '\\';
        switch (c) {
          case '\n': o[1] = 'n'; o += 2; break;
          case '\r': o[1] = 'r'; o += 2; break;
          case '\t': o[1] = 't'; o += 2; break;
          case '\b': o[1] = 'b'; o += 2; break;
          case '\f': o[1] = 'f'; o += 2; break;
          default:
            o[1] = 'u';
            o[2] = '0';
            o[3] = '0';
            o[4] = hex_digits[c >> 4];
            o[5] = hex_digits[c & 0xF];
            o += 6;
        }
        ++p;
      } else {
        *o++ = static_cast<char>(c);
        ++p;
      }
    }
    if (p == end) break;
    w.commit(o);
    n = static_cast<std::size_t>(end - p) < chunk ? static_cast<std::size_t>(end - p) : chunk;
    o = w.reserve(n * 6 + 9);
  }
  *o++ = '"';
  w.commit(o);
}

}  // namespace

void write_string(writer& w, std::string_view s) {
  // The common case in straight-line code: a short string with nothing to
  // escape or check. At the first byte that needs either, write_string_rest
  // goes on from there.
  constexpr std::size_t short_text = 256;
  if (s.size() > short_text) {
    write_string_rest(w, s, 0, false);
    return;
  }
  const auto* const begin = reinterpret_cast<const unsigned char*>(s.data());
  const auto* p = begin;
  const auto* const end = begin + s.size();
  char* o = w.reserve(short_text + 2);
  *o++ = '"';
#if defined(__SSE2__)
  while (end - p >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if (special_mask(x) != 0) {
      w.commit(o);
      write_string_rest(w, s, static_cast<std::size_t>(p - begin), true);
      return;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o), x);
    o += 16;
    p += 16;
  }
#else
  while (end - p >= 16) {
    if (!plain_tail(p, 8, o) || !plain_tail(p + 8, 8, o + 8)) {
      w.commit(o);
      write_string_rest(w, s, static_cast<std::size_t>(p - begin), true);
      return;
    }
    o += 16;
    p += 16;
  }
#endif
  const auto r = static_cast<std::size_t>(end - p);
  if (r != 0 && !plain_tail(p, r, o)) {
    w.commit(o);
    write_string_rest(w, s, static_cast<std::size_t>(p - begin), true);
    return;
  }
  o += r;
  *o++ = '"';
  w.commit(o);
}

// ------------------------------------------------------------------ numbers

void write_double(writer& w, double v) {
  if (!std::isfinite(v)) [[unlikely]] {
    throw_encode_failure(std::isnan(v) ? "NaN has no JSON encoding" : "infinity has no JSON encoding");
  }
  char* p = w.reserve(32);
  w.commit(std::to_chars(p, p + 32, v).ptr);
}

void write_float(writer& w, float v) {
  if (!std::isfinite(v)) [[unlikely]] {
    throw_encode_failure(std::isnan(v) ? "NaN has no JSON encoding" : "infinity has no JSON encoding");
  }
  char* p = w.reserve(32);
  w.commit(std::to_chars(p, p + 32, v).ptr);
}

// ------------------------------------------------------------------- base64

void write_base64(writer& w, const std::byte* data, std::size_t n) {
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  w.put('"');
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  const auto* const end = p + n;
  while (end - p >= 3) {
    const std::size_t groups = std::min<std::size_t>(static_cast<std::size_t>(end - p) / 3, 1024);
    char* o = w.reserve(groups * 4);
    for (std::size_t g = 0; g < groups; ++g, p += 3) {
      const std::uint32_t v = (std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2];
      o[0] = alphabet[(v >> 18) & 63];
      o[1] = alphabet[(v >> 12) & 63];
      o[2] = alphabet[(v >> 6) & 63];
      o[3] = alphabet[v & 63];
      o += 4;
    }
    w.commit(o);
  }
  if (end - p == 1) {
    const std::uint32_t v = std::uint32_t{p[0]} << 16;
    char* o = w.reserve(4);
    o[0] = alphabet[(v >> 18) & 63];
    o[1] = alphabet[(v >> 12) & 63];
    o[2] = '=';
    o[3] = '=';
    w.commit(o + 4);
  } else if (end - p == 2) {
    const std::uint32_t v = (std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8);
    char* o = w.reserve(4);
    o[0] = alphabet[(v >> 18) & 63];
    o[1] = alphabet[(v >> 12) & 63];
    o[2] = alphabet[(v >> 6) & 63];
    o[3] = '=';
    w.commit(o + 4);
  }
  w.put('"');
}

// ------------------------------------------------------------ uuid and time

namespace {
/// "00" "01" ... "ff".
constexpr auto hex_pairs = [] {
  std::array<char, 512> a{};
  for (int i = 0; i < 256; ++i) {
    a[static_cast<std::size_t>(2 * i)] = hex_digits[i >> 4];
    a[static_cast<std::size_t>(2 * i + 1)] = hex_digits[i & 15];
  }
  return a;
}();
}  // namespace

void write_uuid(writer& w, const uuid& id) {
  // The canonical form (uuid::to_chars), two hex digits per byte from a table.
  char* o = w.reserve(38);
  o[0] = '"';
  char* q = o + 1;
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *q++ = '-';
    std::memcpy(q, hex_pairs.data() + 2 * static_cast<unsigned>(id.bytes[i]), 2);
    q += 2;
  }
  o[37] = '"';
  w.commit(o + 38);
}

void write_epoch(writer& w, std::int64_t ns) {
  static constexpr std::int64_t units[] = {1'000'000'000, 1'000'000'000, 1'000'000, 1'000, 1};
  char* o = w.reserve(wire::epoch_text_max);
  w.commit(wire::format_epoch(o, ns, units[static_cast<std::size_t>(w.timestamps) % 5]));
}

void write_timestamp(writer& w, std::int64_t ns) {
  char* o = w.reserve(wire::rfc3339_size + 2);
  o[0] = '"';
  wire::format_rfc3339(o + 1, ns);
  o[wire::rfc3339_size + 1] = '"';
  w.commit(o + wire::rfc3339_size + 2);
}

// ------------------------------------------------------------------ options

std::string naming_collision_reason(naming p, std::string_view first, std::string_view second, std::string_view key) {
  return std::string(naming_label(p)) + " gives fields " + std::string(first) + " and " + std::string(second) +
         " the same key \"" + std::string(key) + "\"";
}

std::size_t repeated_name(const std::vector<std::string>& names) noexcept {
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (names[i] == names[j]) return i;
    }
  }
  return no_index;
}

std::string repeated_name_reason(const std::vector<std::string>& names, std::size_t i) {
  std::size_t j = 0;
  while (j < i && names[j] != names[i]) ++j;
  return "variant alternatives " + std::to_string(j) + " and " + std::to_string(i) + " have the same name \"" +
         names[i] + "\" (give one a REFWIRE_NAME, or use variant_form::by_index)";
}

std::string not_taggable_reason(std::size_t index, std::string_view name) {
  return "variant_form::internally_tagged needs a described struct for every alternative; alternative " +
         std::to_string(index) + " (" + std::string(name) + ") is not";
}

std::string tag_clash_reason(std::string_view field, std::size_t index, std::string_view alternative,
                             std::string_view tag) {
  return "field \"" + std::string(field) + "\" of alternative " + std::to_string(index) + " (" +
         std::string(alternative) + ") has the name of the variant tag \"" + std::string(tag) + "\"";
}

}  // namespace refwire::detail::json
