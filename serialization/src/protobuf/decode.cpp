// Out-of-line parts of the protobuf decoder (detail/protobuf/reader.hpp):
// every failure path, unknown-field skipping and the run count behind a
// vector's reserve, so that the inlined decode templates stay small. The
// shared failure paths are in src/core/decode_context.cpp.
#include <refwire/serialization/detail/protobuf/reader.hpp>

#include <string>

#include <refwire/serialization/detail/core/path.hpp>

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

bool fail_uuid_key(reader& r, const std::byte* at, std::string_view text) {
  return fail_at(r, at, errc::invalid_value,
                 "invalid uuid map key " + quote_key(text) + " (a uuid key is its canonical 36-character string)");
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

}  // namespace refwire::detail::pb
