// The lz4 compression envelope (compression.hpp, docs/formats.md): the only
// translation unit that includes lz4.h, so lz4 stays a private dependency.
#include <refwire/serialization/compression.hpp>

#include <lz4.h>

#include <refwire/serialization/detail/wire/varint.hpp>

#include <cstring>
#include <limits>
#include <string>

namespace refwire {

std::string_view to_string(compression c) noexcept {
  switch (c) {
    case compression::none: return "none";
    case compression::lz4: return "lz4";
  }
  return "unknown";
}

namespace {

/// The envelope's first four bytes (compression.hpp explains the choice).
constexpr std::byte magic[detail::envelope_magic_size] = {std::byte{0xf7}, std::byte{0x72}, std::byte{0x77},
                                                          std::byte{0x7a}};
constexpr std::uint8_t method_stored = 0;
constexpr std::uint8_t method_lz4 = 1;
constexpr std::size_t max_varint = detail::wire::max_varint_bytes;
/// lz4's format cannot expand a block by more than 255:1 (each literal-length
/// or match-length byte adds at most 255 output bytes), plus a little slack.
constexpr std::uint64_t lz4_max_ratio = 255;
constexpr std::size_t scratch_keep_limit = std::size_t{64} << 20;

std::size_t put_varint(std::byte* p, std::uint64_t v) noexcept {
  return static_cast<std::size_t>(detail::wire::store_varint(p, v) - p);
}

using detail::wire::varint_size;

error fail(errc code, std::size_t offset, std::string reason) {
  return error(code, offset, "$", std::move(reason));
}

/// Reads a minimal varint at in[pos] (wire::varint_rules::strict, as binary's).
error get_varint(std::span<const std::byte> in, std::size_t& pos, std::uint64_t& v, const char* what) {
  using detail::wire::varint_status;
  const auto got = detail::wire::read_varint<detail::wire::varint_rules::strict>(in.data() + pos,
                                                                                  in.data() + in.size(), v);
  switch (got.status) {
    case varint_status::ok: pos += got.length; return {};
    case varint_status::truncated:
      return fail(errc::truncated, in.size(),
                  std::string("lz4: truncated envelope, the ") + what + " varint needs " +
                      std::to_string(got.length) + " bytes, " + std::to_string(in.size() - pos) + " left");
    case varint_status::not_minimal:
      return fail(errc::invalid_varint, pos, std::string("lz4: the ") + what + " varint is not minimally encoded");
    case varint_status::overflow: break;
  }
  return fail(errc::invalid_varint, pos, std::string("lz4: the ") + what + " varint exceeds 64 bits");
}

std::string hex_byte(unsigned v) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s = "0x";
  s += digits[(v >> 4) & 0xf];
  s += digits[v & 0xf];
  return s;
}

thread_local std::vector<std::byte> t_scratch;
thread_local bool t_scratch_leased = false;

std::string hex_bytes(std::span<const std::byte> b) {
  std::string s;
  for (std::byte x : b) {
    if (!s.empty()) s += ' ';
    s += hex_byte(static_cast<unsigned>(x)).substr(2);
  }
  return s;
}

std::size_t magic_size(detail::envelope_framing framing) noexcept {
  return framing == detail::envelope_framing::magic ? detail::envelope_magic_size : 0;
}

void append_stored(std::span<const std::byte> in, std::vector<std::byte>& out, std::size_t magic_bytes) {
  const std::size_t at = out.size();
  out.resize(at + magic_bytes + 1 + varint_size(in.size()) + in.size());
  std::byte* p = out.data() + at;
  if (magic_bytes != 0) std::memcpy(p, magic, magic_bytes);
  p += magic_bytes;
  *p++ = std::byte{method_stored};
  p += put_varint(p, in.size());
  if (!in.empty()) std::memcpy(p, in.data(), in.size());
}

}  // namespace

void compress(std::span<const std::byte> in, std::vector<std::byte>& out, const encode_options& options) {
  detail::append_envelope(in, out, options, detail::envelope_framing::magic);
}

namespace detail {

void append_envelope(std::span<const std::byte> in, std::vector<std::byte>& out, const encode_options& options,
                     envelope_framing framing) {
  const std::size_t m = magic_size(framing);
  const std::size_t n = in.size();
  if (n < options.compression_threshold || n == 0 || n > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) {
    append_stored(in, out, m);
    return;
  }
  const int bound = LZ4_compressBound(static_cast<int>(n));
  const std::size_t at = out.size();
  const std::size_t head_max = m + 1 + varint_size(n) + max_varint;
  out.resize(at + head_max + static_cast<std::size_t>(bound));
  // Compress after the largest header, then move the block down next to the real one.
  const int csize = LZ4_compress_default(reinterpret_cast<const char*>(in.data()),
                                         reinterpret_cast<char*>(out.data() + at + head_max), static_cast<int>(n),
                                         bound);
  const std::size_t head = m + 1 + varint_size(n) + varint_size(static_cast<std::uint64_t>(csize));
  if (csize <= 0 || head + static_cast<std::size_t>(csize) >= m + 1 + varint_size(n) + n) {
    out.resize(at);  // lz4 would not shrink it
    append_stored(in, out, m);
    return;
  }
  std::byte* p = out.data() + at;
  if (m != 0) std::memcpy(p, magic, m);
  p += m;
  *p++ = std::byte{method_lz4};
  p += put_varint(p, n);
  p += put_varint(p, static_cast<std::uint64_t>(csize));
  std::memmove(p, out.data() + at + head_max, static_cast<std::size_t>(csize));
  out.resize(at + head + static_cast<std::size_t>(csize));
}

compression_scratch::compression_scratch() noexcept : buffer_(&own_), leased_(!t_scratch_leased) {
  if (leased_) {
    t_scratch_leased = true;
    buffer_ = &t_scratch;
  }
}

compression_scratch::~compression_scratch() {
  if (leased_) {
    if (t_scratch.capacity() > scratch_keep_limit) {
      std::vector<std::byte>().swap(t_scratch);
    } else {
      t_scratch.clear();
    }
    t_scratch_leased = false;
  }
}

error open_envelope(std::span<const std::byte> in, std::vector<std::byte>& scratch, const decode_options& options,
                    bool prefix, opened_envelope& opened, envelope_framing framing) {
  const std::size_t m = magic_size(framing);
  if (m != 0) {
    const std::size_t have = in.size() < m ? in.size() : m;
    if (have != 0 && std::memcmp(in.data(), magic, have) != 0) {
      return fail(errc::corrupt_compressed, 0,
                  "lz4: not a refwire compression envelope (expected the magic " + hex_bytes(magic) + ", found " +
                      hex_bytes(in.first(have)) + "); was this encoded without compression?");
    }
    if (have < m) {
      return fail(errc::truncated, in.size(),
                  "lz4: truncated envelope, the magic needs " + std::to_string(m) + " bytes, " +
                      std::to_string(in.size()) + " left");
    }
  }
  if (in.size() == m) {
    return fail(errc::truncated, m, "lz4: truncated envelope, the method byte needs 1 byte, 0 left");
  }
  const auto method = static_cast<std::uint8_t>(in[m]);
  if (method != method_stored && method != method_lz4) {
    return fail(errc::corrupt_compressed, m,
                "lz4: unknown envelope method byte " + hex_byte(method) + " (expected 0 stored or 1 lz4)");
  }
  std::size_t pos = m + 1;
  std::uint64_t size = 0;
  if (error e = get_varint(in, pos, size, "size")) return e;
  if (size > options.max_alloc_bytes) {
    return fail(errc::allocation_limit, m + 1,
                "lz4: claims " + std::to_string(size) + " bytes, over the " + std::to_string(options.max_alloc_bytes) +
                    "-byte limit");
  }
  std::size_t end = 0;
  if (method == method_stored) {
    if (size > in.size() - pos) {
      return fail(errc::truncated, pos,
                  "lz4: truncated stored data, needs " + std::to_string(size) + " bytes, " +
                      std::to_string(in.size() - pos) + " left");
    }
    opened.payload = in.subspan(pos, static_cast<std::size_t>(size));
    end = pos + static_cast<std::size_t>(size);
  } else {
    const std::size_t csize_at = pos;
    std::uint64_t csize = 0;
    if (error e = get_varint(in, pos, csize, "block size")) return e;
    if (csize > in.size() - pos) {
      return fail(errc::truncated, pos,
                  "lz4: truncated compressed block, needs " + std::to_string(csize) + " bytes, " +
                      std::to_string(in.size() - pos) + " left");
    }
    if (size == 0 || csize == 0 || size > static_cast<std::uint64_t>(LZ4_MAX_INPUT_SIZE) ||
        csize > static_cast<std::uint64_t>(LZ4_MAX_INPUT_SIZE) || size > csize * lz4_max_ratio + 16) {
      return fail(errc::corrupt_compressed, csize_at,
                  "lz4: claims " + std::to_string(size) + " bytes from a " + std::to_string(csize) +
                      "-byte block, which lz4 cannot produce");
    }
    const std::size_t at = scratch.size();
    scratch.resize(at + static_cast<std::size_t>(size));
    const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data() + pos),
                                        reinterpret_cast<char*>(scratch.data() + at), static_cast<int>(csize),
                                        static_cast<int>(size));
    if (got < 0) {
      scratch.resize(at);
      return fail(errc::corrupt_compressed, pos, "lz4: compressed block is corrupt");
    }
    if (static_cast<std::uint64_t>(got) != size) {
      scratch.resize(at);
      return fail(errc::corrupt_compressed, pos,
                  "lz4: compressed block decompresses to " + std::to_string(got) + " bytes, the envelope claims " +
                      std::to_string(size));
    }
    opened.payload = std::span<const std::byte>(scratch).subspan(at);
    end = pos + static_cast<std::size_t>(csize);
  }
  if (!prefix && end != in.size()) {
    return fail(errc::trailing_bytes, end,
                std::to_string(in.size() - end) + " trailing bytes after the compression envelope");
  }
  opened.size = end;
  return {};
}

}  // namespace detail

error decompress(std::span<const std::byte> in, std::vector<std::byte>& out, const decode_options& options,
                 std::size_t* consumed) {
  if (consumed != nullptr) *consumed = 0;
  const std::size_t before = out.size();
  detail::opened_envelope env;
  if (error e = detail::open_envelope(in, out, options, consumed != nullptr, env)) {
    out.resize(before);
    return e;
  }
  if (out.size() == before) {  // stored: the payload is still in `in`
    out.insert(out.end(), env.payload.begin(), env.payload.end());
  }
  if (consumed != nullptr) *consumed = env.size;
  return {};
}

}  // namespace refwire
