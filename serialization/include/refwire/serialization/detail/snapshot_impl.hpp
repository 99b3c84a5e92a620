#pragma once
// refwire/serialization/detail/snapshot_impl.hpp: the snapshot machinery
// behind snapshot.hpp. The header layout, the checks and the file I/O are
// compiled once in src/snapshot.cpp; only the format dispatch is a template
// (in snapshot.hpp, over the registry, refwire::formats).

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include <boost/mp11/list.hpp>

#include <refwire/serialization/error.hpp>
#include <refwire/serialization/format.hpp>
#include <refwire/serialization/options.hpp>

namespace refwire::detail::snap {

/// Version 1's header (no type version, no name); version 2's fixed part
/// (the name, at most max_name_size bytes, comes between it and the checksum).
inline constexpr std::size_t v1_header_size = 36;
inline constexpr std::size_t v2_fixed_size = 41;
inline constexpr std::size_t max_name_size = 200;
inline constexpr std::size_t trailer_size = 8;
/// flags bits 0-1: the payload's compression (0 none, 1 lz4; 2 and 3 unassigned).
inline constexpr std::uint8_t flag_compression_mask = 0x03;

/// What load_snapshot knows about one format id: whether it can decode the
/// type being loaded (a named format cannot carry a PFR aggregate).
struct format_info {
  std::uint8_t id;
  std::string_view name;
  bool can_carry;
};

/// One format_info per entry of a list of formats (refwire::formats when
/// loading), in the list's order: the order the "this program reads" message gives.
template <class T, class... Fs>
constexpr auto format_table(boost::mp11::mp_list<Fs...>) {
  return std::array<format_info, sizeof...(Fs)>{format_info{Fs::id, Fs::name, carries<T, Fs>}...};
}

/// One type a snapshot may hold for a load: the type being loaded, or one of
/// the older versions its snapshot_history lists.
struct candidate {
  std::uint32_t version = 0;                ///< type_attr::version
  std::uint64_t fingerprint = 0;            ///< refwire::fingerprint<U>(): JSON, protobuf, and every version-1 file
  std::uint64_t layout_fingerprint = 0;     ///< refwire::layout_fingerprint<U>(): binary, version 2
  std::string_view name;                    ///< the name a header records (at most max_name_size bytes)
};

/// The checked header: format id, compression, the payload inside the bytes,
/// and which candidate (an index into the span open() was given) it holds.
struct opened {
  std::uint8_t format = 0;
  refwire::compression compression = refwire::compression::none;
  std::span<const std::byte> payload;
  std::size_t candidate = 0;
};

/// The size of a version-2 header recording `name`.
constexpr std::size_t header_size_for(std::string_view name) noexcept { return v2_fixed_size + name.size(); }

/// Writes a version-2 header and the trailer around out[header_size_for(name)..]:
/// out was begun with that many placeholder bytes, then the payload was appended.
void finish(std::vector<std::byte>& out, std::uint8_t format, refwire::compression compression,
            std::uint64_t fingerprint, std::uint32_t version, std::string_view name);

/// Checks every field of the header, the size and the payload checksum, in
/// the order docs/snapshots.md gives; throws snapshot_error naming `file`.
/// `candidates` is the type being loaded last, its older versions before it;
/// `tolerant` skips the fingerprint (and rejects binary).
[[nodiscard]] opened open(std::span<const std::byte> bytes, std::span<const candidate> candidates,
                          std::span<const format_info> known, const std::filesystem::path& file,
                          bool tolerant = false);

/// The whole file, read with one allocation of its size (checked against
/// max_bytes first); throws snapshot_error (io_error, too_large).
[[nodiscard]] std::vector<std::byte> read_file(const std::filesystem::path& file, std::uint64_t max_bytes);

/// Writes bytes to a new temporary file beside `file`, fsyncs it, renames it
/// over `file`, and fsyncs the directory; on failure removes the temporary
/// file and throws snapshot_save_error (the old file is untouched).
void write_file_atomically(const std::filesystem::path& file, std::span<const std::byte> bytes);

/// Throws snapshot_error(payload_decode) for a payload that did not decode.
[[noreturn]] void throw_payload_error(const std::filesystem::path& file, refwire::error e);

/// Throws snapshot_error(unknown_format) for a known format that cannot carry the type.
[[noreturn]] void throw_cannot_carry(const std::filesystem::path& file, const format_info& f);

}  // namespace refwire::detail::snap
