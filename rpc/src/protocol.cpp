// The RPC wire protocol: frame headers and the handshake, handshake reply and
// error payloads, byte by byte as docs/rpc-protocol.md describes them.
//
// Every payload is strictly positional (no field numbers, no field count):
// fixed-width integers little-endian, other integers LEB128 varints in their
// minimal encoding, strings a varint length and that many bytes of UTF-8,
// lists a varint count and that many entries. A parser checks every read
// against the end of the input, every count against what the bytes left can
// hold before it reserves anything, and refuses trailing bytes.
#include <refwire/rpc/detail/protocol.hpp>

#include <cstring>
#include <string>
#include <utility>

#include <refwire/serialization/detail/wire/endian.hpp>
#include <refwire/serialization/detail/wire/utf8.hpp>
#include <refwire/serialization/detail/wire/varint.hpp>

namespace refwire::rpc::detail {
namespace {

namespace wire = refwire::detail::wire;

// The fewest bytes a list entry takes (each varint and string at least one byte).
constexpr std::size_t min_method_entry = 4 + 1 + 1 + 1;  // id, name, signature, shape
constexpr std::size_t min_method_reply = 1;              // state
constexpr std::size_t min_extension = 1 + 1;             // type, data length

std::string bytes_text(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

std::string hex_byte(std::uint8_t b) {
  constexpr char digits[] = "0123456789abcdef";
  std::string s = "0x";
  s += digits[b >> 4];
  s += digits[b & 0x0f];
  return s;
}

// ---- encoding ---------------------------------------------------------------

void put_u8(std::vector<std::byte>& out, std::uint8_t v) { out.push_back(static_cast<std::byte>(v)); }

void put_u32le(std::vector<std::byte>& out, std::uint32_t v) {
  const std::size_t at = out.size();
  out.resize(at + 4);
  wire::store_le(out.data() + at, v);
}

void put_varint(std::vector<std::byte>& out, std::uint64_t v) {
  const std::size_t at = out.size();
  out.resize(at + wire::varint_size(v));
  wire::store_varint(out.data() + at, v);
}

void put_raw(std::vector<std::byte>& out, const void* p, std::size_t n) {
  if (n == 0) return;
  const std::size_t at = out.size();
  out.resize(at + n);
  std::memcpy(out.data() + at, p, n);
}

/// A varint length and the UTF-8 bytes of s. Bytes that do not start a valid
/// UTF-8 sequence (a handler's exception text may hold any) become U+FFFD, so
/// that what is written always parses.
void put_string(std::vector<std::byte>& out, std::string_view s) {
  if (wire::utf8_valid(s.data(), s.size())) {
    put_varint(out, s.size());
    put_raw(out, s.data(), s.size());
    return;
  }
  std::string clean;
  clean.reserve(s.size() + 16);
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p != end) {
    if (*p < 0x80) {
      clean += static_cast<char>(*p++);
      continue;
    }
    const std::size_t n = wire::utf8_sequence(p, end);
    if (n == 0) {
      clean += "\xef\xbf\xbd";
      ++p;
    } else {
      clean.append(reinterpret_cast<const char*>(p), n);
      p += n;
    }
  }
  put_varint(out, clean.size());
  put_raw(out, clean.data(), clean.size());
}

void put_extensions(std::vector<std::byte>& out, const std::vector<extension>& extensions) {
  put_varint(out, extensions.size());
  for (const extension& x : extensions) {
    put_varint(out, x.type);
    put_varint(out, x.data.size());
    put_raw(out, x.data.data(), x.data.size());
  }
}

// ---- parsing ----------------------------------------------------------------

/// What a read is for, as messages name it: "codec", or "method table entry 3 name".
struct field {
  std::string_view name;
  std::string_view table = {};
  std::size_t index = 0;
};

std::string describe(const field& f) {
  if (f.table.empty()) return std::string(f.name);
  std::string s(f.table);
  s += " entry ";
  s += std::to_string(f.index);
  if (!f.name.empty()) {
    s += ' ';
    s += f.name;
  }
  return s;
}

/// A bounds-checked cursor over one payload. Every read returns false after
/// setting why to "<payload>: <what is wrong>".
class reader {
 public:
  reader(std::span<const std::byte> in, std::string_view payload, std::string& why)
      : begin_(in.data()), p_(in.data()), end_(in.data() + in.size()), payload_(payload), why_(why) {}

  [[nodiscard]] std::size_t left() const noexcept { return static_cast<std::size_t>(end_ - p_); }
  [[nodiscard]] std::size_t offset() const noexcept { return static_cast<std::size_t>(p_ - begin_); }

  bool fail(const std::string& message) {
    why_.assign(payload_);
    why_ += ": ";
    why_ += message;
    return false;
  }

  bool truncated(const field& f, std::uint64_t needs) {
    return fail("truncated " + describe(f) + " (needs " + bytes_text(needs) + ", " + std::to_string(left()) +
                " left)");
  }

  bool u8(std::uint8_t& v, const field& f) {
    if (left() < 1) return truncated(f, 1);
    v = static_cast<std::uint8_t>(*p_++);
    return true;
  }

  bool u32le(std::uint32_t& v, const field& f) {
    if (left() < 4) return truncated(f, 4);
    v = wire::load_le<std::uint32_t>(p_);
    p_ += 4;
    return true;
  }

  bool varint(std::uint64_t& v, const field& f) {
    const wire::varint_read r = wire::read_varint<wire::varint_rules::strict>(p_, end_, v);
    switch (r.status) {
      case wire::varint_status::ok:
        p_ += r.length;
        return true;
      case wire::varint_status::truncated:
        return truncated(f, r.length);
      case wire::varint_status::overflow:
        return fail(describe(f) + " at offset " + std::to_string(offset()) +
                    " is not a valid varint (longer than 10 bytes or over 64 bits)");
      case wire::varint_status::not_minimal:
        return fail(describe(f) + " at offset " + std::to_string(offset()) +
                    " is not a minimal varint (it ends in a zero group)");
    }
    return fail(describe(f) + ": unreadable varint");
  }

  bool varint32(std::uint32_t& v, const field& f) {
    const std::size_t at = offset();
    std::uint64_t wide = 0;
    if (!varint(wide, f)) return false;
    if (wide > 0xffffffffU) {
      return fail(describe(f) + " " + std::to_string(wide) + " at offset " + std::to_string(at) +
                  " does not fit in 32 bits");
    }
    v = static_cast<std::uint32_t>(wide);
    return true;
  }

  /// A varint length, then that many bytes of UTF-8.
  bool string(std::string& s, const field& f) {
    std::uint64_t n = 0;
    if (!varint(n, f)) return false;
    if (n > left()) return truncated(f, n);
    const auto* text = reinterpret_cast<const char*>(p_);
    const auto size = static_cast<std::size_t>(n);
    const std::size_t bad = wire::utf8_first_invalid(text, size);
    if (bad != size) {
      return fail(describe(f) + " is not valid UTF-8 (byte " + std::to_string(bad) + " of it, at offset " +
                  std::to_string(offset() + bad) + ")");
    }
    s.assign(text, size);
    p_ += size;
    return true;
  }

  /// A varint length, then that many opaque bytes.
  bool blob(std::vector<std::byte>& b, const field& f) {
    std::uint64_t n = 0;
    if (!varint(n, f)) return false;
    if (n > left()) return truncated(f, n);
    const auto size = static_cast<std::size_t>(n);
    b.assign(p_, p_ + size);
    p_ += size;
    return true;
  }

  /// A list's varint count, refused when the bytes left cannot hold that many
  /// entries of at least min_entry bytes each (before anything is reserved).
  bool count(std::size_t& n, std::string_view table, std::size_t min_entry) {
    std::uint64_t wide = 0;
    const std::string name = std::string(table) + " count";
    if (!varint(wide, {name})) return false;
    if (wide > left() / min_entry) {
      return fail(name + " " + std::to_string(wide) + " does not fit in the " + bytes_text(left()) +
                  " left (an entry takes at least " + bytes_text(min_entry) + ")");
    }
    n = static_cast<std::size_t>(wide);
    return true;
  }

  bool finish() {
    if (left() == 0) return true;
    return fail(bytes_text(left()) + " after the end of the payload (at offset " + std::to_string(offset()) +
                ")");
  }

 private:
  const std::byte* begin_;
  const std::byte* p_;
  const std::byte* end_;
  std::string_view payload_;
  std::string& why_;
};

bool parse_codec(reader& r, rpc::codec& c) {
  std::uint8_t v = 0;
  if (!r.u8(v, {"codec"})) return false;
  if (v < 1 || v > 3) return r.fail("unknown codec " + std::to_string(v));
  c = static_cast<rpc::codec>(v);
  return true;
}

bool parse_compression(reader& r, refwire::compression& c) {
  std::uint8_t v = 0;
  if (!r.u8(v, {"compression"})) return false;
  if (v > 1) return r.fail("unknown compression " + std::to_string(v));
  c = static_cast<refwire::compression>(v);
  return true;
}

bool known_status(std::uint8_t v) {
  switch (static_cast<status_code>(v)) {
    case status_code::ok:
    case status_code::cancelled:
    case status_code::invalid_argument:
    case status_code::deadline_exceeded:
    case status_code::resource_exhausted:
    case status_code::unimplemented:
    case status_code::internal:
    case status_code::unavailable:
    case status_code::unauthenticated:
      return true;
  }
  return false;
}

bool parse_extensions(reader& r, std::vector<extension>& out) {
  std::size_t n = 0;
  if (!r.count(n, "extension table", min_extension)) return false;
  std::vector<extension> extensions;
  extensions.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    extension& x = extensions.emplace_back();
    if (!r.varint32(x.type, {"type", "extension table", i})) return false;
    if (!r.blob(x.data, {"data", "extension table", i})) return false;
  }
  out = std::move(extensions);
  return true;
}

}  // namespace

// ---- header -----------------------------------------------------------------

void write_header(const frame_header& h, std::span<std::byte, header_size> out) noexcept {
  out[0] = static_cast<std::byte>(h.version);
  out[1] = static_cast<std::byte>(h.kind);
  out[2] = static_cast<std::byte>(h.flags);
  out[3] = static_cast<std::byte>(h.codec);
  wire::store_le(out.data() + 4, h.length);
  wire::store_le(out.data() + 8, h.request_id);
  wire::store_le(out.data() + 12, h.method_id);
}

std::optional<frame_header> parse_header(std::span<const std::byte, header_size> in, std::uint32_t max_payload,
                                         std::string& why) {
  frame_header h;
  h.version = static_cast<std::uint8_t>(in[0]);
  if (h.version != protocol_version) {
    why = "protocol version " + std::to_string(h.version) + " is not supported (this side speaks version " +
          std::to_string(protocol_version) + ")";
    return std::nullopt;
  }
  const auto kind = static_cast<std::uint8_t>(in[1]);
  if (kind < static_cast<std::uint8_t>(frame_kind::handshake) || kind > static_cast<std::uint8_t>(frame_kind::pong)) {
    why = "unknown frame kind " + std::to_string(kind);
    return std::nullopt;
  }
  h.kind = static_cast<frame_kind>(kind);
  h.flags = static_cast<std::uint8_t>(in[2]);
  if ((h.flags & ~known_flags) != 0) {
    why = "unknown frame flags " + hex_byte(static_cast<std::uint8_t>(h.flags & ~known_flags)) + " in " +
          hex_byte(h.flags) + " (this side knows " + hex_byte(known_flags) + ")";
    return std::nullopt;
  }
  h.codec = static_cast<std::uint8_t>(in[3]);
  h.length = wire::load_le<std::uint32_t>(in.data() + 4);
  h.request_id = wire::load_le<std::uint32_t>(in.data() + 8);
  h.method_id = wire::load_le<std::uint32_t>(in.data() + 12);
  if (h.length > max_payload) {
    why = "frame of " + bytes_text(h.length) + " is longer than max_frame_size (" +
          std::to_string(max_payload) + ")";
    return std::nullopt;
  }
  const bool codec_payload =
      h.kind == frame_kind::request || h.kind == frame_kind::response || h.kind == frame_kind::one_way;
  if ((h.flags & flag_compressed) != 0 && !codec_payload) {
    why = "frame kind " + std::string(to_string(h.kind)) +
          " cannot be compressed (only request, response and one_way payloads are)";
    return std::nullopt;
  }
  if ((h.flags & flag_deadline) != 0) {
    if (h.kind != frame_kind::request) {
      why = "frame kind " + std::string(to_string(h.kind)) + " cannot carry a deadline (only request frames do)";
      return std::nullopt;
    }
    if (h.length < deadline_prefix_size) {
      why = "a request with the deadline flag is " + std::to_string(h.length) +
            " bytes long, shorter than its 4-byte deadline";
      return std::nullopt;
    }
  }
  const bool empty_payload = h.kind == frame_kind::cancel || h.kind == frame_kind::ping || h.kind == frame_kind::pong;
  if (empty_payload && h.length != 0) {
    why = "frame kind " + std::string(to_string(h.kind)) + " carries no payload (its length is " +
          std::to_string(h.length) + ")";
    return std::nullopt;
  }
  return h;
}

// ---- handshake --------------------------------------------------------------

void encode(const handshake& h, std::vector<std::byte>& out) {
  put_varint(out, h.version);
  put_u8(out, static_cast<std::uint8_t>(h.codec));
  put_u8(out, static_cast<std::uint8_t>(h.compression));
  put_varint(out, h.compression_threshold);
  put_varint(out, h.max_frame_size);
  put_string(out, h.interface_name);
  put_varint(out, h.methods.size());
  for (const method_entry& m : h.methods) {
    put_u32le(out, m.id);
    put_string(out, m.name);
    put_string(out, m.signature);
    put_string(out, m.shape);
  }
  put_extensions(out, h.extensions);
}

bool parse(std::span<const std::byte> in, handshake& h, std::string& why) {
  reader r(in, "handshake", why);
  handshake got;
  if (!r.varint32(got.version, {"version"})) return false;
  if (!parse_codec(r, got.codec)) return false;
  if (!parse_compression(r, got.compression)) return false;
  if (!r.varint32(got.compression_threshold, {"compression_threshold"})) return false;
  if (!r.varint32(got.max_frame_size, {"max_frame_size"})) return false;
  if (!r.string(got.interface_name, {"interface_name"})) return false;
  std::size_t n = 0;
  if (!r.count(n, "method table", min_method_entry)) return false;
  got.methods.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    method_entry& m = got.methods.emplace_back();
    if (!r.u32le(m.id, {"id", "method table", i})) return false;
    if (!r.string(m.name, {"name", "method table", i})) return false;
    if (!r.string(m.signature, {"signature", "method table", i})) return false;
    if (!r.string(m.shape, {"shape", "method table", i})) return false;
  }
  if (!parse_extensions(r, got.extensions)) return false;
  if (!r.finish()) return false;
  h = std::move(got);
  return true;
}

// ---- handshake reply --------------------------------------------------------

void encode(const handshake_reply& rep, std::vector<std::byte>& out) {
  put_u8(out, static_cast<std::uint8_t>(rep.codec));
  put_u8(out, static_cast<std::uint8_t>(rep.compression));
  put_varint(out, rep.max_frame_size);
  put_varint(out, rep.methods.size());
  for (const method_reply& m : rep.methods) {
    put_u8(out, static_cast<std::uint8_t>(m.state));
    if (m.state == method_state::mismatch) put_string(out, m.server_signature);
  }
  put_extensions(out, rep.extensions);
}

bool parse(std::span<const std::byte> in, handshake_reply& rep, std::string& why) {
  reader r(in, "handshake reply", why);
  handshake_reply got;
  if (!parse_codec(r, got.codec)) return false;
  if (!parse_compression(r, got.compression)) return false;
  if (!r.varint32(got.max_frame_size, {"max_frame_size"})) return false;
  std::size_t n = 0;
  if (!r.count(n, "method table", min_method_reply)) return false;
  got.methods.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    method_reply& m = got.methods.emplace_back();
    std::uint8_t state = 0;
    if (!r.u8(state, {"state", "method table", i})) return false;
    if (state > static_cast<std::uint8_t>(method_state::mismatch)) {
      return r.fail(describe({"", "method table", i}) + ": unknown method state " + std::to_string(state));
    }
    m.state = static_cast<method_state>(state);
    if (m.state == method_state::mismatch && !r.string(m.server_signature, {"server_signature", "method table", i})) {
      return false;
    }
  }
  if (!parse_extensions(r, got.extensions)) return false;
  if (!r.finish()) return false;
  rep = std::move(got);
  return true;
}

// ---- error ------------------------------------------------------------------

void encode(const error_payload& e, std::vector<std::byte>& out) {
  put_u8(out, static_cast<std::uint8_t>(e.code));
  put_string(out, e.type);
  put_string(out, e.message);
}

bool parse(std::span<const std::byte> in, error_payload& e, std::string& why) {
  reader r(in, "error payload", why);
  error_payload got;
  std::uint8_t code = 0;
  if (!r.u8(code, {"status code"})) return false;
  if (!known_status(code)) return r.fail("unknown status code " + std::to_string(code));
  if (code == static_cast<std::uint8_t>(status_code::ok)) return r.fail("status code 0 (ok) does not describe a failure");
  got.code = static_cast<status_code>(code);
  if (!r.string(got.type, {"type"})) return false;
  if (!r.string(got.message, {"message"})) return false;
  if (!r.finish()) return false;
  e = std::move(got);
  return true;
}

}  // namespace refwire::rpc::detail
