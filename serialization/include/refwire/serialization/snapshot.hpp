#pragma once
// refwire/serialization/snapshot.hpp: a value in a file that survives crashes.
//
//   refwire::save_snapshot("state.rfw", state, {.compression = refwire::compression::lz4});
//   app_state back = refwire::load_snapshot<app_state>("state.rfw");  // throws refwire::snapshot_error
//
// A snapshot is a 36-byte header (magic, version, format id, flags, the type's
// schema fingerprint, the payload length, a header checksum), the payload (the
// value in that format, compressed or not) and an 8-byte XXH3-64 checksum of
// the payload; the byte layout and the guarantees are in docs/snapshots.md.
// save_snapshot writes a temporary file in the same directory, fsyncs it and
// renames it over the target, so a reader (or the next run after a crash)
// sees the old snapshot or the new one, never a mix. load_snapshot reads the
// format from the header; a truncated file, a flipped bit, another type's
// snapshot are each a snapshot_error that says which.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <refwire/serialization/detail/snapshot_impl.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/formats.hpp>
#include <refwire/serialization/options.hpp>
#include <refwire/serialization/reflect.hpp>
#include <refwire/serialization/serialize.hpp>

namespace refwire {

/// Which check a snapshot failed (snapshot_error::kind). Stable.
///
///   catch (const refwire::snapshot_error& e) {
///     if (e.kind() == refwire::snapshot_errc::fingerprint_mismatch) migrate(path);
///   }
enum class snapshot_errc : std::uint8_t {
  not_a_snapshot = 1,    ///< the first 8 bytes are not the snapshot magic
  unsupported_version,   ///< a layout version this build does not read
  header_checksum,       ///< the header's checksum does not match: the header is damaged
  reserved_flags,        ///< flag bits this version does not assign are set
  unknown_format,        ///< a format id this program does not know, or one that cannot carry the type
  fingerprint_mismatch,  ///< written for another type (schema fingerprint differs)
  truncated,             ///< the file is shorter than its header says
  trailing_data,         ///< the file is longer than its header says
  too_large,             ///< the file is larger than decode_options::max_alloc_bytes allows
  payload_checksum,      ///< the payload's checksum does not match: the payload is damaged
  payload_decode,        ///< the payload did not decode as the type (details() has the format's error)
  io_error,              ///< the file could not be opened or read (sys_errno() says why)
};

/// The name of a kind, e.g. "header_checksum".
///
///   log("snapshot unusable: {}", refwire::to_string(e.kind()));
[[nodiscard]] std::string_view to_string(snapshot_errc kind) noexcept;

/// Thrown by load_snapshot / decode_snapshot. A decode_error: code() is
/// errc::invalid_snapshot (truncated: errc::truncated, io_error: errc::io_error,
/// payload_decode: the format's code), kind() says which check failed, and
/// what() names the file:
///   refwire: snapshot "state.rfw": header checksum mismatch (stored 0x..., computed 0x...)
///
///   try { s = refwire::load_snapshot<state>(path); }
///   catch (const refwire::snapshot_error& e) {
///     if (e.kind() == refwire::snapshot_errc::io_error && e.sys_errno() == ENOENT) s = fresh_state();
///     else throw;
///   }
class snapshot_error : public decode_error {
 public:
  /// A failed check: `detail` is the reason, `offset` where in the file it was found.
  /// (refwire throws these; code storing snapshots elsewhere may too.)
  ///   throw refwire::snapshot_error(refwire::snapshot_errc::io_error, key, "blob store: not found", 0, ENOENT);
  snapshot_error(snapshot_errc kind, const std::filesystem::path& file, std::string detail, std::size_t offset,
                 int sys_errno = 0);
  /// A payload that did not decode: `cause` is the format's error.
  ///   throw refwire::snapshot_error("state.rfw", e);   // what(): ...: payload does not decode: <e.message()>
  snapshot_error(const std::filesystem::path& file, refwire::error cause);

  /// Which check failed:  if (e.kind() == refwire::snapshot_errc::truncated) ...
  [[nodiscard]] snapshot_errc kind() const noexcept { return kind_; }
  /// The file ("<memory>" for decode_snapshot).
  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  /// errno of a failed open/read (io_error); 0 otherwise.
  [[nodiscard]] int sys_errno() const noexcept { return errno_; }

 private:
  snapshot_errc kind_;
  std::string file_;
  int errno_;
};

namespace detail::snap {

/// decode_snapshot's body: the checks, then the dispatch on the format id
/// through the registry (a format that cannot carry T is not instantiated for it).
template <class T>
void decode_into(std::span<const std::byte> bytes, T& out, const decode_options& options,
                 const std::filesystem::path& file) {
  static constexpr auto table = format_table<T>(refwire::formats{});
  const opened head = open(bytes, fingerprint<T>(), table, file);
  decode_options o = options;
  o.compression = head.compression;
  // open() has rejected an id that no format has, so a format is always found.
  (void)refwire::visit_format(head.format, [&](auto f) {
    using F = decltype(f);
    if constexpr (can_carry<T, F>) {
      // An lz4 payload is the envelope without its magic (the header records the compression).
      if (error e = decode_with<F>(head.payload, out, o, nullptr, envelope_framing::bare)) {
        throw_payload_error(file, std::move(e));
      }
    } else {
      throw_cannot_carry(file, format_info{F::id, F::name, false});
    }
  });
}

}  // namespace detail::snap

/// The bytes of a snapshot of value in format F, in memory (what
/// save_snapshot writes). For tests, fuzzing, or storing snapshots elsewhere.
///
///   std::vector<std::byte> bytes = refwire::encode_snapshot(state);
///   blob_store.put("state", bytes);
template <format F = binary, class T>
[[nodiscard]] std::vector<std::byte> encode_snapshot(const T& value, const encode_options& options = {}) {
  std::vector<std::byte> out;
  if constexpr (detail::check_serializable<T, F>()) {
    out.resize(detail::snap::header_size);
    detail::encode_append<F>(value, out, options, detail::envelope_framing::bare);
    detail::snap::finish(out, F::id, options.compression, fingerprint<T>());
  }
  return out;
}

/// Decodes a snapshot held in memory (encode_snapshot's bytes): the same
/// checks as load_snapshot; errors name the file "<memory>". The payload's
/// format and compression come from the header (options.compression is ignored).
///
///   state s = refwire::decode_snapshot<state>(blob_store.get("state"));
template <class T>
  requires(!format<T>)
[[nodiscard]] T decode_snapshot(std::span<const std::byte> bytes, const decode_options& options = {},
                                const std::filesystem::path& file = "<memory>") {
  if constexpr (!detail::check_carried<T, false>()) {
    std::abort();  // not reached: the check failed to compile
  } else if constexpr (!detail::check_default_constructible<T, true>()) {
    std::abort();  // not reached: the check failed to compile
  } else {
    T out{};
    detail::snap::decode_into(bytes, out, options, file);
    return out;
  }
}

/// Saves value to path in format F (binary by default), crash-safely: a new
/// temporary file `.<name>.tmp.<random>` in the same directory (mode 0666 less
/// the umask, O_CLOEXEC) is written, fsynced and renamed over path, then the
/// directory is fsynced. options.compression = lz4 compresses the payload.
/// Errors: std::system_error naming the path and the step (create, write,
/// fsync, rename) with the errno; the temporary file is removed and an
/// existing snapshot at path is left as it was. encode_error as serialize.
///
///   refwire::save_snapshot("state.rfw", state);
///   refwire::save_snapshot<refwire::binary>("state.rfw", state, {.compression = refwire::compression::lz4});
template <format F = binary, class T>
void save_snapshot(const std::filesystem::path& path, const T& value, const encode_options& options = {}) {
  const std::vector<std::byte> bytes = encode_snapshot<F>(value, options);
  detail::snap::write_file_atomically(path, bytes);
}

/// Loads a T saved by save_snapshot, in whatever format the header names.
/// Throws snapshot_error (kind() says which check failed; what() names the
/// path). options bounds the decode; the file itself may be at most
/// options.max_alloc_bytes plus 44 bytes of header and checksum.
///
///   state s = refwire::load_snapshot<state>("state.rfw");
template <class T>
  requires(!format<T>)
[[nodiscard]] T load_snapshot(const std::filesystem::path& path, const decode_options& options = {}) {
  const std::vector<std::byte> bytes = detail::snap::read_file(path, options.max_alloc_bytes);
  return decode_snapshot<T>(bytes, options, path);
}

}  // namespace refwire
