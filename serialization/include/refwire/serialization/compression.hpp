#pragma once
// refwire/serialization/compression.hpp: lz4 over any format's bytes.
//
//   std::vector<std::byte> b = refwire::serialize<refwire::binary>(v, {.compression = refwire::compression::lz4});
//   T back = refwire::deserialize<T>(b, {.compression = refwire::compression::lz4});
//
// With compression::lz4, serialize wraps the format's bytes in a small
// envelope (docs/formats.md, "Compression"):
//
//   magic    4 bytes   f7 72 77 7a; anything else is errc::corrupt_compressed
//                      ("lz4: not a refwire compression envelope ..."): the
//                      usual mistake, bytes encoded without compression and
//                      decoded with it, is named as such
//   method   1 byte    0 = stored (the bytes follow as they are), 1 = lz4 block;
//                      any other value is a decode error
//   size     varint    the original (uncompressed) size in bytes
//   csize    varint    lz4 only: the size of the lz4 block that follows
//   data     stored: `size` bytes; lz4: `csize` bytes of one LZ4 block
//
// Encodings shorter than encode_options::compression_threshold, longer than
// lz4 can take in one block (LZ4_MAX_INPUT_SIZE, ~2 GiB), or that lz4 would not
// shrink are stored. The envelope carries its own length, so
// deserialize_prefix works on a stream of envelopes. Decoding checks the
// claimed size against decode_options::max_alloc_bytes (and against lz4's
// 255:1 maximum ratio) before anything is allocated, and the lz4 block must
// decompress to exactly the claimed size.
//
// The magic's first byte, 0xf7, starts no JSON text (it is not even UTF-8),
// no protobuf message (its wire type would be 7) and no binary bool or
// optional tag; envelopes written before the magic (starting 00 or 01) are
// rejected with the same error. The reverse, an envelope decoded without
// compression, is not detectable by a positional format: use a snapshot
// (snapshot.hpp) for bytes of unknown origin. A snapshot's lz4 payload is the
// envelope without the magic (its header already says it is compressed).
//
// Scratch: encoding compresses from, and decoding decompresses into, a
// per-thread buffer that keeps its capacity (released when it exceeds 64 MiB),
// so serializing into a reused buffer does not allocate in steady state.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <refwire/serialization/detail/compression_method.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/options.hpp>

namespace refwire {

/// "none" or "lz4".
///
///   std::printf("compression: %s\n", refwire::to_string(options.compression).data());
[[nodiscard]] std::string_view to_string(compression c) noexcept;

/// Appends the envelope of `in` to out (the bytes of any format, or any bytes):
/// what serialize does after the format has written its bytes. Uses
/// options.compression_threshold; options.compression is ignored (always lz4).
///
///   std::vector<std::byte> packed;
///   refwire::compress(raw_bytes, packed, {.compression_threshold = 64});
void compress(std::span<const std::byte> in, std::vector<std::byte>& out, const encode_options& options = {});

/// Opens the envelope at the front of in and appends the original bytes to
/// out. With consumed == nullptr the envelope must span all of in; otherwise
/// its length is stored there. Checks the claimed size against
/// options.max_alloc_bytes before allocating. Errors: corrupt_compressed (no
/// magic, bad method byte, corrupt lz4 block, wrong decompressed size), truncated,
/// invalid_varint, allocation_limit, trailing_bytes.
///
///   std::vector<std::byte> raw;
///   if (refwire::error e = refwire::decompress(packed, raw)) log(e.message());
[[nodiscard]] error decompress(std::span<const std::byte> in, std::vector<std::byte>& out,
                               const decode_options& options = {}, std::size_t* consumed = nullptr);

namespace detail {

/// The length of the envelope's magic (f7 72 77 7a).
inline constexpr std::size_t envelope_magic_size = 4;

/// Whether an envelope starts with the magic: `magic` everywhere except a
/// snapshot's payload (`bare`, the layout before the magic; the snapshot
/// header records the compression).
enum class envelope_framing : std::uint8_t { magic, bare };

/// compress with a choice of framing: appends the envelope of in to out.
///   detail::append_envelope(raw, out, options, detail::envelope_framing::bare);
void append_envelope(std::span<const std::byte> in, std::vector<std::byte>& out, const encode_options& options,
                     envelope_framing framing);

/// A lease on this thread's scratch buffer (a fresh buffer when a lease is
/// already out, e.g. a codec<T> that serializes with compression inside
/// another compressed serialize). The buffer is cleared on release and freed
/// when its capacity exceeds 64 MiB.
class compression_scratch {
 public:
  compression_scratch() noexcept;
  ~compression_scratch();
  compression_scratch(const compression_scratch&) = delete;
  compression_scratch& operator=(const compression_scratch&) = delete;
  [[nodiscard]] std::vector<std::byte>& buffer() noexcept { return *buffer_; }

 private:
  std::vector<std::byte>* buffer_;
  std::vector<std::byte> own_;
  bool leased_;
};

/// The parsed envelope: `payload` is the original bytes (in `in` when stored,
/// in the scratch buffer when lz4), `size` the envelope's length in `in`.
struct opened_envelope {
  std::span<const std::byte> payload;
  std::size_t size = 0;
};

/// Parses the envelope at the front of in; decompresses into scratch when needed.
///   if (error e = detail::open_envelope(in, scratch, options, false, env)) return e;
[[nodiscard]] error open_envelope(std::span<const std::byte> in, std::vector<std::byte>& scratch,
                                  const decode_options& options, bool prefix, opened_envelope& opened,
                                  envelope_framing framing = envelope_framing::magic);

}  // namespace detail

}  // namespace refwire
