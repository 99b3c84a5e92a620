// Out-of-line parts of the binary format: appends and every failure path, so
// that the inlined encode/decode templates stay small.
#include <refwire/serialization/binary.hpp>

#include <cstdio>
#include <string>

namespace refwire::detail::bin {

void append_bytes(std::vector<std::byte>& out, const std::byte* p, std::size_t n) {
  if (n == 0) return;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
  out.insert(out.end(), p, p + n);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
}

void throw_duration_range(long long count, long long num, long long den) {
  throw encode_error("refwire: a duration of " + std::to_string(count) + " x " + std::to_string(num) + "/" +
                     std::to_string(den) + " s does not fit in int64 nanoseconds");
}

bool fail(reader& r, errc code, std::string reason) {
  if (!r.failed) r.failed = std::make_unique<failure>();
  r.failed->code = code;
  r.failed->offset = r.offset();
  r.failed->reason = std::move(reason);
  return false;
}

bool fail_truncated(reader& r, std::string_view what, std::size_t need) {
  return fail(r, errc::truncated,
              "truncated " + std::string(what) + ", needs " + std::to_string(need) + " bytes, " +
                  std::to_string(r.left()) + " left");
}

bool fail_count(reader& r, std::string_view what, std::uint64_t count, std::size_t min_each) {
  return fail(r, errc::truncated,
              "truncated " + std::string(what) + ", " + std::to_string(count) + " elements need at least " +
                  std::to_string(min_each) + (min_each == 1 ? " byte each, " : " bytes each, ") + std::to_string(r.left()) + " left");
}

bool fail_elements(reader& r, std::uint64_t count) {
  return fail(r, errc::element_limit,
              std::to_string(count) + " elements exceed the element limit (" + std::to_string(r.elements_left) +
                  " left of decode_options::max_elements)");
}

bool fail_alloc(reader& r, std::uint64_t bytes) {
  return fail(r, errc::allocation_limit,
              "allocating " + std::to_string(bytes) + " bytes exceeds the allocation limit (" +
                  std::to_string(r.alloc_left) + " left of decode_options::max_alloc_bytes)");
}

bool fail_depth(reader& r) {
  return fail(r, errc::depth_limit, "nesting exceeds decode_options::max_depth");
}

bool fail_byte(reader& r, errc code, std::string_view what, unsigned value) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", value & 0xffU);
  return fail(r, code, "invalid " + std::string(what) + " byte " + hex + " (expected 0 or 1)");
}

bool read_varint_slow(reader& r, std::uint64_t& v) {
  const std::byte* p = r.cur;
  std::uint64_t result = 0;
  for (unsigned i = 0; i < 10; ++i) {
    if (p == r.end) return fail_truncated(r, "varint", i + 1);
    const auto b = static_cast<std::uint8_t>(*p++);
    if (i == 9 && b > 1) return fail(r, errc::invalid_varint, "varint exceeds 64 bits");
    result |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      if (b == 0 && i > 0) return fail(r, errc::invalid_varint, "varint is not minimally encoded");
      v = result;
      r.cur = p;
      return true;
    }
  }
  return fail(r, errc::invalid_varint, "varint exceeds 64 bits");
}

bool read_string_slow(reader& r, std::string& v) {
  std::uint64_t n;
  if (!read_varint(r, n)) return false;
  if (n > r.left()) return fail_truncated(r, "string", n);
  if (!charge(r, n)) return false;
  v.assign(reinterpret_cast<const char*>(r.cur), static_cast<std::size_t>(n));
  r.cur += n;
  return true;
}

void push_field(reader& r, std::string_view name, std::size_t index) {
  if (name.empty()) {
    r.failed->path.push_back(".#" + std::to_string(index));
  } else {
    r.failed->path.push_back("." + std::string(name));
  }
}

void push_index(reader& r, std::size_t index) { r.failed->path.push_back("[" + std::to_string(index) + "]"); }

void push_key(reader& r, std::string_view key) {
  std::string s = "[\"";
  constexpr std::size_t max_shown = 64;
  for (std::size_t i = 0; i < key.size() && i < max_shown; ++i) {
    const auto c = static_cast<unsigned char>(key[i]);
    if (c == '"' || c == '\\') {
      s += '\\';
      s += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      s += esc;
    } else {
      s += static_cast<char>(c);
    }
  }
  if (key.size() > max_shown) s += "...";
  s += "\"]";
  r.failed->path.push_back(std::move(s));
}

void push_key(reader& r, long long key) { r.failed->path.push_back("[" + std::to_string(key) + "]"); }
void push_key(reader& r, unsigned long long key) { r.failed->path.push_back("[" + std::to_string(key) + "]"); }

refwire::error make_error(reader& r) {
  std::string path = "$";
  for (auto it = r.failed->path.rbegin(); it != r.failed->path.rend(); ++it) path += *it;
  return refwire::error(r.failed->code, r.failed->offset, std::move(path), std::move(r.failed->reason));
}

}  // namespace refwire::detail::bin
