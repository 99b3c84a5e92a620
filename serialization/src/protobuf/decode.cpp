// Out-of-line parts of the protobuf format: UTF-8 validation, slow varints,
// unknown-field skipping, every failure path and the schema text helpers.
#include <refwire/serialization/protobuf.hpp>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

namespace refwire::detail::pb {

namespace {

const char* wire_name(std::uint32_t wt) {
  switch (wt) {
    case w_varint: return "varint";
    case w_i64: return "i64";
    case w_len: return "length-delimited";
    case w_sgroup: return "start group";
    case w_egroup: return "end group";
    case w_i32: return "i32";
    default: return "invalid";
  }
}

}  // namespace

bool utf8_valid_slow(const char* text, std::size_t n) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(text);
  const unsigned char* const end = p + n;
  while (p != end) {
    // ASCII fast path, 8 bytes at a time.
    while (end - p >= 8) {
      std::uint64_t chunk;
      std::memcpy(&chunk, p, 8);
      if ((chunk & 0x8080808080808080ULL) != 0) break;
      p += 8;
    }
    if (p == end) break;
    const unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    std::size_t len;
    std::uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
      cp = c & 0x1fU;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      cp = c & 0x0fU;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      cp = c & 0x07U;
    } else {
      return false;
    }
    if (static_cast<std::size_t>(end - p) < len) return false;
    for (std::size_t i = 1; i < len; ++i) {
      if ((p[i] & 0xc0U) != 0x80U) return false;
      cp = (cp << 6) | (p[i] & 0x3fU);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
      return false;
    p += len;
  }
  return true;
}

void throw_invalid_utf8(std::string_view text) {
  std::string shown;
  for (std::size_t i = 0; i < text.size() && i < 32; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      shown += static_cast<char>(c);
    } else {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", c);
      shown += esc;
    }
  }
  if (text.size() > 32) shown += "...";
  throw_encode_failure("protobuf string fields must hold UTF-8; \"" + shown +
                       "\" does not (use std::vector<std::byte> for bytes)");
}

bool read_varint_slow(reader& r, std::uint64_t& v) {
  return detail::read_varint_slow<detail::wire::varint_rules::lenient>(r, v);
}

bool fail_at(reader& r, const std::byte* at, errc code, std::string reason) {
  r.cur = at;
  return fail(r, code, std::move(reason));
}

bool fail_wire(reader& r, const std::byte* at, std::uint64_t field, std::uint32_t got, std::uint32_t expected) {
  return fail_at(r, at, errc::wire_type,
                 "field " + std::to_string(field) + " has wire type " + std::to_string(got) + " (" + wire_name(got) +
                     "), expected " + std::to_string(expected) + " (" + wire_name(expected) + ")");
}

bool fail_range(reader& r, const std::byte* at, std::string_view type, std::uint64_t bits) {
  return fail_at(r, at, errc::invalid_value,
                 "value " + std::to_string(bits) + " (wire bits) out of range for " + std::string(type));
}

bool fail_utf8(reader& r, const std::byte* at) {
  return fail_at(r, at, errc::invalid_utf8, "string is not valid UTF-8");
}

bool fail_tag(reader& r, const std::byte* at, std::uint64_t field, std::uint32_t wt) {
  if (wt > 5) {
    return fail_at(r, at, errc::invalid_field,
                   "invalid wire type " + std::to_string(wt) + " for field " + std::to_string(field));
  }
  return fail_at(r, at, errc::invalid_field,
                 "invalid field number " + std::to_string(field) + " (protobuf allows 1 to 536870911)");
}

bool fail_array(reader& r, const std::byte* at, std::size_t extent) {
  return fail_at(r, at, errc::invalid_value,
                 "more elements than the array's " + std::to_string(extent));
}

std::size_t count_run(const std::byte* p, const std::byte* end, const std::byte* tag, std::size_t tag_len) noexcept {
  std::size_t n = 0;
  for (;;) {
    std::uint64_t len = 0;
    unsigned shift = 0;
    for (;;) {
      if (p == end || shift > 63) return n;
      const auto b = static_cast<std::uint8_t>(*p++);
      len |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if (b < 0x80) break;
    }
    if (len > static_cast<std::size_t>(end - p)) return n;
    p += len;
    ++n;
    if (static_cast<std::size_t>(end - p) < tag_len) return n;
    for (std::size_t i = 0; i < tag_len; ++i) {  // a tag is a byte or two: no memcmp call
      if (p[i] != tag[i]) return n;
    }
    p += tag_len;
  }
}

bool skip_field(reader& r, std::uint32_t wt, std::uint64_t field, const std::byte* at) {
  if (r.reject_unknown) {
    return fail_at(r, at, errc::unknown_field,
                   "unknown field " + std::to_string(field) + " (wire type " + std::to_string(wt) + ", " +
                       wire_name(wt) + ") and decode_options::reject_unknown_fields is set");
  }
  std::uint64_t n;
  switch (wt) {
    case w_varint:
      return read_varint(r, n);
    case w_i64:
      if (r.left() < 8) return fail_truncated(r, "fixed64", 8);
      r.cur += 8;
      return true;
    case w_i32:
      if (r.left() < 4) return fail_truncated(r, "fixed32", 4);
      r.cur += 4;
      return true;
    case w_len:
      if (!read_length(r, n, "length-delimited field")) return false;
      r.cur += n;
      return true;
    case w_sgroup: {
      if (r.depth_left == 0) return fail_depth(r);
      depth_scope depth(r);
      for (;;) {
        const std::byte* tat = r.cur;
        if (r.cur == r.end) return fail_truncated(r, "group", 1);
        std::uint64_t f;
        std::uint32_t t;
        if (!read_tag(r, f, t)) return false;
        if (t == w_egroup) {
          if (f != field) {
            return fail_at(r, tat, errc::invalid_field,
                           "end group " + std::to_string(f) + " does not match start group " + std::to_string(field));
          }
          return true;
        }
        if (!skip_field(r, t, f, tat)) return false;
      }
    }
    default:  // w_egroup without a start
      return fail_at(r, at, errc::invalid_field, "end group " + std::to_string(field) + " without a start group");
  }
}

// ------------------------------------------------------------------ schema

std::string hashed_name(std::string_view prefix, std::string_view canonical) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(canonical)));
  return std::string(prefix) + hex;
}

std::string upper_snake(std::string_view name) {
  std::string s;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c >= 'A' && c <= 'Z') {
      if (i > 0 && ((name[i - 1] >= 'a' && name[i - 1] <= 'z') || (name[i - 1] >= '0' && name[i - 1] <= '9'))) s += '_';
      s += c;
    } else if (c >= 'a' && c <= 'z') {
      s += static_cast<char>(c - 'a' + 'A');
    } else {
      s += c;
    }
  }
  return s;
}

bool claim_name(schema_builder& b, const std::string& name, const void* key, bool user_named) {
  auto it = b.names.find(name);
  if (it == b.names.end()) {
    b.names.emplace(name, key);
    return true;
  }
  if (it->second != key && user_named) {
    throw std::invalid_argument("refwire: proto_schema: two different types are named \"" + name +
                                "\" (REFWIRE_NAME must be unique within a schema)");
  }
  return false;
}

std::string render_schema(const schema_builder& b, std::string_view package) {
  std::string s = "syntax = \"proto3\";\n\n";
  if (!package.empty()) {
    s += "package ";
    s += package;
    s += ";\n\n";
  }
  if (b.duration) s += "import \"google/protobuf/duration.proto\";\n";
  if (b.timestamp) s += "import \"google/protobuf/timestamp.proto\";\n";
  if (b.duration || b.timestamp) s += '\n';
  for (std::size_t i = 0; i < b.blocks.size(); ++i) {
    if (i > 0) s += '\n';
    s += b.blocks[i];
  }
  return s;
}

}  // namespace refwire::detail::pb
