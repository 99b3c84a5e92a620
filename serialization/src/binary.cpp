// Out-of-line parts of the binary format: the failure paths of its own and
// the general string read, so that the inlined encode/decode templates stay
// small. The shared failure paths are in src/core/decode_context.cpp.
#include <refwire/serialization/binary.hpp>

#include <cstdio>
#include <string>

namespace refwire::detail::bin {

bool fail_byte(reader& r, errc code, std::string_view what, unsigned value) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", value & 0xffU);
  return fail(r, code, "invalid " + std::string(what) + " byte " + hex + " (expected 0 or 1)");
}

bool read_string_slow(reader& r, std::string& v) {
  std::uint64_t n;
  if (!read_varint(r, n)) return false;
  if (n > r.left()) {
    if (r.can_stream(n)) return read_streamed(r, v, n, n);
    return fail_truncated(r, "string", n);
  }
  if (!charge(r, n)) return false;
  v.assign(reinterpret_cast<const char*>(r.cur), static_cast<std::size_t>(n));
  r.cur += n;
  return true;
}

}  // namespace refwire::detail::bin
