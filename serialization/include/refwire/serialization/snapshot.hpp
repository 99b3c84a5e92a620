#pragma once
// refwire/serialization/snapshot.hpp: a value in a file that survives crashes.
//
//   refwire::save_snapshot("state.rfw", state, {.compression = refwire::compression::lz4});
//   app_state back = refwire::load_snapshot<app_state>("state.rfw");  // throws refwire::snapshot_error
//
// A snapshot is a header (magic, layout version, format id, flags, the type's
// fingerprint, the payload length, the type's version and name, a header
// checksum), the payload (the value in that format, compressed or not) and an
// 8-byte XXH3-64 checksum of the payload; the byte layout and the guarantees
// are in docs/snapshots.md. save_snapshot writes a temporary file in the same
// directory, fsyncs it and renames it over the target, so a reader (or the
// next run after a crash) sees the old snapshot or the new one, never a mix.
// load_snapshot reads the format from the header; a truncated file, a flipped
// bit, another type's snapshot are each a snapshot_error that says which. A
// type that changes keeps its old snapshots loadable with a version and a
// snapshot_history (below).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <refwire/serialization/detail/snapshot_impl.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/formats.hpp>
#include <refwire/serialization/options.hpp>
#include <refwire/serialization/reflect.hpp>
#include <refwire/serialization/serialize.hpp>

namespace refwire {

/// Which check a snapshot failed (snapshot_failure::kind). Stable.
///
///   catch (const refwire::snapshot_error& e) {
///     if (e.kind() == refwire::snapshot_errc::fingerprint_mismatch) migrate(path);
///   }
enum class snapshot_errc : std::uint8_t {
  not_a_snapshot = 1,    ///< the first 8 bytes are not the snapshot magic
  unsupported_version,   ///< a layout version this build does not read
  header_checksum,       ///< the header is damaged: its checksum does not match, or its name length is over 200
  reserved_flags,        ///< flag bits this version does not assign are set
  unknown_format,        ///< a format id this program does not know, or one that cannot carry the type
  fingerprint_mismatch,  ///< written for another type (schema fingerprint differs)
  truncated,             ///< the file is shorter than its header says
  trailing_data,         ///< the file is longer than its header says
  too_large,             ///< the file is larger than decode_options::max_alloc_bytes allows
  payload_checksum,      ///< the payload's checksum does not match: the payload is damaged
  payload_decode,        ///< the payload did not decode as the type (details() has the format's error)
  io_error,              ///< the file could not be opened, read or saved (sys_errno() says why)
  version_mismatch,      ///< written at a version of the type this program neither is nor upgrades from
  tolerant_binary,       ///< decode_options::tolerant_snapshot with a binary snapshot (binary is positional)
};

/// The name of a kind, e.g. "header_checksum".
///
///   log("snapshot unusable: {}", refwire::to_string(e.kind()));
[[nodiscard]] std::string_view to_string(snapshot_errc kind) noexcept;

/// What every snapshot error is, loading or saving: catch it once.
/// snapshot_error (loading, a decode_error) and snapshot_save_error (saving,
/// a std::system_error) derive from it; what() is the derived exception's.
///
///   try { refwire::save_snapshot(path, refwire::load_snapshot<state>(path)); }
///   catch (const refwire::snapshot_failure& e) { log(e.file(), e.what()); }
class snapshot_failure {
 public:
  snapshot_failure(const snapshot_failure&) = default;
  snapshot_failure& operator=(const snapshot_failure&) = default;
  virtual ~snapshot_failure() = default;

  /// Which check failed; saving fails only with io_error:
  ///   if (e.kind() == refwire::snapshot_errc::truncated) ...
  [[nodiscard]] snapshot_errc kind() const noexcept { return kind_; }
  /// The file ("<memory>" for decode_snapshot).
  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  /// errno of a failed open, read or save (io_error); 0 otherwise.
  [[nodiscard]] int sys_errno() const noexcept { return errno_; }
  /// The message of the derived exception; it names the file and the check or step that failed.
  ///   std::cerr << e.what() << '\n';
  [[nodiscard]] virtual const char* what() const noexcept = 0;

 protected:
  snapshot_failure(snapshot_errc kind, const std::filesystem::path& file, int sys_errno)
      : kind_(kind), file_(file.string()), errno_(sys_errno) {}

 private:
  snapshot_errc kind_;
  std::string file_;
  int errno_;
};

/// Thrown by load_snapshot / decode_snapshot. A decode_error: code() is
/// errc::invalid_snapshot (truncated: errc::truncated, io_error: errc::io_error,
/// payload_decode: the format's code), kind() says which check failed, and
/// what() names the file:
///   refwire: snapshot "state.rfw": header checksum mismatch (stored 0x..., computed 0x...): the header is damaged
///
///   try { s = refwire::load_snapshot<state>(path); }
///   catch (const refwire::snapshot_error& e) {
///     if (e.kind() == refwire::snapshot_errc::io_error && e.sys_errno() == ENOENT) s = fresh_state();
///     else throw;
///   }
class snapshot_error : public decode_error, public snapshot_failure {
 public:
  /// A failed check: `detail` is the reason, `offset` where in the file it was found.
  /// (refwire throws these; code storing snapshots elsewhere may too.)
  ///   throw refwire::snapshot_error(refwire::snapshot_errc::io_error, key, "blob store: not found", 0, ENOENT);
  snapshot_error(snapshot_errc kind, const std::filesystem::path& file, std::string detail, std::size_t offset,
                 int sys_errno = 0);
  /// A payload that did not decode: `cause` is the format's error.
  ///   throw refwire::snapshot_error("state.rfw", e);   // what(): ...: payload does not decode: <e.message()>
  snapshot_error(const std::filesystem::path& file, refwire::error cause);

  /// The message (decode_error's), as above.
  [[nodiscard]] const char* what() const noexcept override { return decode_error::what(); }
};

/// Thrown by save_snapshot when the file cannot be written: a std::system_error
/// (code() is the errno in std::generic_category()) and a snapshot_failure
/// (kind() io_error, file() the target path). what() names the path and the step.
///
///   try { refwire::save_snapshot(path, state); }
///   catch (const std::system_error& e) { if (e.code() == std::errc::no_space_on_device) free_space(); }
class snapshot_save_error : public std::system_error, public snapshot_failure {
 public:
  /// `what` is the whole message, naming the file and the step.
  ///   throw refwire::snapshot_save_error(path, ENOSPC, "save_snapshot: cannot write the temporary file");
  snapshot_save_error(const std::filesystem::path& file, int sys_errno, const std::string& what);
  /// The message (std::system_error's).
  [[nodiscard]] const char* what() const noexcept override { return std::system_error::what(); }
};

/// A type's older versions, oldest first, for loading snapshots written
/// before it changed (the primary template: none). Specialize it for T, list
/// each old type (kept under another name, with its REFWIRE_TYPE_ATTRIBUTES
/// .version), and give each old type a conversion to the next one,
/// `Next refwire_upgrade(Old&&)`, found by argument-dependent lookup (the
/// last one returns T). load_snapshot<T> of a file at an old version decodes
/// it as that type and upgrades it step by step.
///
///   namespace app {
///   struct settings_v1 { std::string name; };                    // the type as version 1 had it
///   BOOST_DESCRIBE_STRUCT(settings_v1, (), (name))
///   REFWIRE_TYPE_ATTRIBUTES(settings_v1, {.version = 1})
///   struct settings { std::string name; std::uint32_t retries = 3; };
///   BOOST_DESCRIBE_STRUCT(settings, (), (name, retries))
///   REFWIRE_TYPE_ATTRIBUTES(settings, {.version = 2})
///   inline settings refwire_upgrade(settings_v1&& old) { return {std::move(old.name), 3}; }
///   }  // namespace app
///   template <>
///   struct refwire::snapshot_history<app::settings> {
///     using versions = refwire::type_list<app::settings_v1>;
///   };
template <class T>
struct snapshot_history {
  using versions = boost::mp11::mp_list<>;
};

/// A list of types, for snapshot_history::versions (boost::mp11::mp_list works too).
///   using versions = refwire::type_list<settings_v1, settings_v2>;
template <class... Ts>
struct type_list {};

namespace detail::snap {

/// The versions snapshot_history<T> lists, as an mp_list (any list template is accepted).
template <class T>
using history_of = boost::mp11::mp_rename<typename snapshot_history<T>::versions, boost::mp11::mp_list>;

/// The types a snapshot loaded as T may hold: T's older versions, then T.
template <class T>
using chain_of = boost::mp11::mp_push_back<history_of<T>, T>;

/// The name a header records for U: REFWIRE_NAME's, else type_name<U>(), cut to max_name_size bytes.
template <class U>
const std::string& header_name() {
  static const std::string name = [] {
    std::string n;
    if constexpr (has_type_name<U>) {
      n = std::string(refwire_type_name(static_cast<U**>(nullptr)));
    } else {
      n = refwire::type_name<U>();
    }
    if (n.size() > max_name_size) n.resize(max_name_size);
    return n;
  }();
  return name;
}

template <class U>
candidate candidate_of() {
  return candidate{type_attributes_of<U>().version, refwire::fingerprint<U>(), refwire::layout_fingerprint<U>(),
                   header_name<U>()};
}

/// The fingerprint a version-2 header written in F records for U.
template <class F, class U>
std::uint64_t header_fingerprint() {
  if constexpr (std::is_same_v<F, binary>) {
    return refwire::layout_fingerprint<U>();
  } else {
    return refwire::fingerprint<U>();
  }
}

/// True when `Next refwire_upgrade(Old&&)` is found by argument-dependent lookup.
template <class Old, class Next>
concept upgrades_to = requires(Old&& old) {
  { refwire_upgrade(static_cast<Old&&>(old)) } -> std::same_as<Next>;
};

/// Checks snapshot_history<T> (true when it is well formed; each failure is one static_assert).
template <class T>
constexpr bool check_history() {
  using chain = chain_of<T>;
  constexpr std::size_t n = boost::mp11::mp_size<chain>::value;
  if constexpr (n == 1) {
    return true;
  } else {
    constexpr bool increasing = []<std::size_t... I>(std::index_sequence<I...>) {
      return ((type_attributes_of<boost::mp11::mp_at_c<chain, I>>().version <
               type_attributes_of<boost::mp11::mp_at_c<chain, I + 1>>().version) && ...);
    }(std::make_index_sequence<n - 1>{});
    static_assert(increasing,
                  "refwire: snapshot_history<T>::versions lists T's older versions, oldest first: each type's "
                  "REFWIRE_TYPE_ATTRIBUTES .version must be below the next one's, and the last below T's");
    if constexpr (!increasing) {
      return false;
    } else {
      constexpr bool upgrades = []<std::size_t... I>(std::index_sequence<I...>) {
        return (upgrades_to<boost::mp11::mp_at_c<chain, I>, boost::mp11::mp_at_c<chain, I + 1>> && ...);
      }(std::make_index_sequence<n - 1>{});
      static_assert(upgrades,
                    "refwire: snapshot_history<T>: each listed type needs `Next refwire_upgrade(Old&&)` in its "
                    "namespace (found by argument-dependent lookup), returning the next listed type (T after the last)");
      if constexpr (!upgrades) {
        return false;
      } else {
        return []<class... U>(boost::mp11::mp_list<U...>) {
          return ((check_carried<U, false>() && check_default_constructible<U, true>()) && ...);
        }(history_of<T>{});
      }
    }
  }
}

/// chain[I] upgraded step by step to the chain's last type, T.
template <class Chain, std::size_t I>
auto upgrade(boost::mp11::mp_at_c<Chain, I>&& value) {
  if constexpr (I + 1 == boost::mp11::mp_size<Chain>::value) {
    return std::move(value);
  } else {
    return upgrade<Chain, I + 1>(refwire_upgrade(std::move(value)));
  }
}

/// Decodes the checked payload as U, in the header's format.
template <class U>
void decode_payload(const opened& head, U& out, const decode_options& options, const std::filesystem::path& file) {
  decode_options o = options;
  o.compression = head.compression;
  // open() has rejected an id that no format has, so a format is always found.
  (void)refwire::visit_format(head.format, [&](auto f) {
    using F = decltype(f);
    if constexpr (can_carry<U, F>) {
      // An lz4 payload is the envelope without its magic (the header records the compression).
      if (error e = decode_with<F>(head.payload, out, o, nullptr, envelope_framing::bare)) {
        throw_payload_error(file, std::move(e));
      }
    } else {
      throw_cannot_carry(file, format_info{F::id, F::name, false});
    }
  });
}

/// decode_snapshot's body: the checks, then the dispatch on the format id
/// through the registry (a format that cannot carry T is not instantiated for
/// it), and for an older version of T the decode as that type and the upgrades.
template <class T>
void decode_into(std::span<const std::byte> bytes, T& out, const decode_options& options,
                 const std::filesystem::path& file) {
  using chain = chain_of<T>;
  constexpr std::size_t n = boost::mp11::mp_size<chain>::value;
  static constexpr auto table = format_table<T>(refwire::formats{});
  const std::array<candidate, n> candidates = []<class... U>(boost::mp11::mp_list<U...>) {
    return std::array<candidate, n>{candidate_of<U>()...};
  }(chain{});
  const opened head = open(bytes, candidates, table, file, options.tolerant_snapshot);
  if constexpr (n == 1) {
    decode_payload(head, out, options, file);
  } else {
    boost::mp11::mp_with_index<n>(head.candidate, [&](auto I) {
      if constexpr (I == n - 1) {
        decode_payload(head, out, options, file);
      } else {
        boost::mp11::mp_at_c<chain, I> old{};
        decode_payload(head, old, options, file);
        out = upgrade<chain, I>(std::move(old));
      }
    });
  }
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
    const std::string& name = detail::snap::header_name<T>();
    out.resize(detail::snap::header_size_for(name));
    detail::encode_append<F>(value, out, options, detail::envelope_framing::bare);
    detail::snap::finish(out, F::id, options.compression, detail::snap::header_fingerprint<F, T>(),
                         detail::type_attributes_of<T>().version, name);
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
  } else if constexpr (!detail::check_decodable<T>()) {
    std::abort();  // not reached: the check failed to compile
  } else if constexpr (!detail::check_default_constructible<T, true>()) {
    std::abort();  // not reached: the check failed to compile
  } else if constexpr (!detail::snap::check_history<T>()) {
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
/// Errors: snapshot_save_error (a std::system_error) naming the path and the
/// step (create, write, fsync, rename) with the errno; the temporary file is
/// removed and an existing snapshot at path is left as it was. encode_error as
/// serialize.
///
///   refwire::save_snapshot("state.rfw", state);
///   refwire::save_snapshot<refwire::binary>("state.rfw", state, {.compression = refwire::compression::lz4});
template <format F = binary, class T>
void save_snapshot(const std::filesystem::path& path, const T& value, const encode_options& options = {}) {
  const std::vector<std::byte> bytes = encode_snapshot<F>(value, options);
  detail::snap::write_file_atomically(path, bytes);
}

/// Loads a T saved by save_snapshot, in whatever format the header names;
/// a file written at an older version of T (snapshot_history) is decoded as
/// that version and upgraded. Throws snapshot_error (kind() says which check
/// failed; what() names the path). options bounds the decode; the file itself
/// may be at most options.max_alloc_bytes plus 249 bytes of header and
/// checksum. options.tolerant_snapshot loads a JSON or protobuf snapshot
/// across added and removed fields.
///
///   state s = refwire::load_snapshot<state>("state.rfw");
///   settings t = refwire::load_snapshot<settings>("settings.json.rfw", {.tolerant_snapshot = true});
template <class T>
  requires(!format<T>)
[[nodiscard]] T load_snapshot(const std::filesystem::path& path, const decode_options& options = {}) {
  const std::vector<std::byte> bytes = detail::snap::read_file(path, options.max_alloc_bytes);
  return decode_snapshot<T>(bytes, options, path);
}

}  // namespace refwire
