// Snapshot files (snapshot.hpp, docs/snapshots.md): the header, its checks,
// and the crash-safe write. The only translation unit that includes xxhash.h.
#include <refwire/serialization/snapshot.hpp>

#include <xxhash.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

namespace refwire {

std::string_view to_string(snapshot_errc kind) noexcept {
  switch (kind) {
    case snapshot_errc::not_a_snapshot: return "not_a_snapshot";
    case snapshot_errc::unsupported_version: return "unsupported_version";
    case snapshot_errc::header_checksum: return "header_checksum";
    case snapshot_errc::reserved_flags: return "reserved_flags";
    case snapshot_errc::unknown_format: return "unknown_format";
    case snapshot_errc::fingerprint_mismatch: return "fingerprint_mismatch";
    case snapshot_errc::truncated: return "truncated";
    case snapshot_errc::trailing_data: return "trailing_data";
    case snapshot_errc::too_large: return "too_large";
    case snapshot_errc::payload_checksum: return "payload_checksum";
    case snapshot_errc::payload_decode: return "payload_decode";
    case snapshot_errc::io_error: return "io_error";
    case snapshot_errc::version_mismatch: return "version_mismatch";
    case snapshot_errc::tolerant_binary: return "tolerant_binary";
  }
  return "unknown";
}

namespace {

std::string quoted(const std::filesystem::path& file) { return "\"" + file.string() + "\""; }

std::string prefix(const std::filesystem::path& file) { return "refwire: snapshot " + quoted(file) + ": "; }

errc code_of(snapshot_errc kind) {
  switch (kind) {
    case snapshot_errc::truncated: return errc::truncated;
    case snapshot_errc::io_error: return errc::io_error;
    default: return errc::invalid_snapshot;
  }
}

}  // namespace

snapshot_error::snapshot_error(snapshot_errc kind, const std::filesystem::path& file, std::string detail,
                               std::size_t offset, int sys_errno)
    : decode_error(refwire::error(code_of(kind), offset, "$", detail), prefix(file) + detail),
      snapshot_failure(kind, file, sys_errno) {}

snapshot_error::snapshot_error(const std::filesystem::path& file, refwire::error cause)
    : decode_error(cause, prefix(file) + "payload does not decode: " + cause.message()),
      snapshot_failure(snapshot_errc::payload_decode, file, 0) {}

snapshot_save_error::snapshot_save_error(const std::filesystem::path& file, int sys_errno, const std::string& what)
    : std::system_error(sys_errno, std::generic_category(), what),
      snapshot_failure(snapshot_errc::io_error, file, sys_errno) {}

namespace detail::snap {

namespace {

// The layout (docs/snapshots.md), all little-endian. Version 2 (written):
//   0  8  magic 89 52 46 57 0d 0a 1a 0a ("\x89RFW\r\n\x1a\n")
//   8  2  version (2)
//  10  1  format id
//  11  1  flags: bits 0-1 compression (0 none, 1 lz4), bits 2-7 zero
//  12  8  fingerprint (binary: refwire::layout_fingerprint<T>(); others: refwire::fingerprint<T>())
//  20  8  payload length n
//  28  4  the type's version (type_attr::version)
//  32  1  name length m (at most 200)
//  33  m  the type's name (REFWIRE_NAME, else type_name<T>() cut to 200 bytes)
//  33+m 8 header checksum: XXH3-64 (seed 0) of bytes 0..32+m
//  41+m n payload
//  41+m+n 8 payload checksum: XXH3-64 (seed 0) of the payload
// Version 1 (read): bytes 0..27 as above (fingerprint: refwire::fingerprint<T>()),
// the header checksum at 28 (of bytes 0..27), the payload at 36; type version 0, no name.
constexpr std::array<std::uint8_t, 8> magic = {0x89, 'R', 'F', 'W', 0x0d, 0x0a, 0x1a, 0x0a};
constexpr std::uint16_t version = 2;
constexpr std::size_t off_version = 8, off_format = 10, off_flags = 11, off_fingerprint = 12, off_length = 20,
                      off_v1_checksum = 28, off_type_version = 28, off_name_length = 32, off_name = 33;

void put_le(std::byte* p, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i, v >>= 8) p[i] = static_cast<std::byte>(v & 0xff);
}

std::uint64_t get_le(const std::byte* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<std::uint8_t>(p[i]);
  return v;
}

std::uint64_t hash(const std::byte* p, std::size_t n) { return XXH3_64bits(p, n); }

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

/// A recorded name in quotes, bytes outside printable ASCII (and `"`, `\`) as \xNN.
std::string quoted_name(std::string_view name) {
  std::string s = "\"";
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e || c == '"' || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      s += buf;
    } else {
      s += c;
    }
  }
  return s + "\"";
}

[[noreturn]] void fail(snapshot_errc kind, const std::filesystem::path& file, std::string detail,
                       std::size_t offset) {
  throw snapshot_error(kind, file, std::move(detail), offset);
}

std::string known_list(std::span<const format_info> known) {
  std::string s;
  for (const format_info& f : known) {
    if (!s.empty()) s += ", ";
    s += std::to_string(f.id) + " " + std::string(f.name);
  }
  return s;
}

/// "version 3 of \"app.settings\"" (the loaded side of a version message).
std::string version_of(const candidate& c) { return "version " + std::to_string(c.version) + " of " + quoted_name(c.name); }

/// A name and, for a versioned type, its version: "\"app.settings\"" or "\"app.settings\" version 2".
std::string named(std::string_view name, std::uint32_t v) {
  return v == 0 ? quoted_name(name) : quoted_name(name) + " version " + std::to_string(v);
}

[[noreturn]] void version_mismatch(const std::filesystem::path& file, std::span<const candidate> candidates,
                                   std::uint16_t layout, std::uint32_t v, std::string_view name) {
  const candidate& self = candidates.back();
  std::string written = layout == 1 ? "written at version 0 (a version-1 snapshot, which records no type name)"
                                    : "written at version " + std::to_string(v) + " of " + quoted_name(name);
  if (v > self.version) {
    fail(snapshot_errc::version_mismatch, file, written + ", newer than " + version_of(self) + " being loaded",
         off_type_version);
  }
  std::string from;
  for (std::size_t i = 0; i + 1 < candidates.size(); ++i) from += (i == 0 ? "" : ", ") + std::to_string(candidates[i].version);
  const std::string upgrades = candidates.size() == 1 ? "upgrades from no other version"
                               : candidates.size() == 2 ? "upgrades only from version " + from
                                                        : "upgrades only from versions " + from;
  fail(snapshot_errc::version_mismatch, file, written + "; " + version_of(self) + " being loaded " + upgrades,
       layout == 1 ? off_version : off_type_version);
}

std::string truncated_header(std::size_t size, std::size_t needed, bool at_least) {
  return "truncated header: " + std::to_string(size) + " bytes, " + (at_least ? "a header has at least " : "this header has ") +
         std::to_string(needed);
}

}  // namespace

void finish(std::vector<std::byte>& out, std::uint8_t format, refwire::compression compression,
            std::uint64_t fingerprint, std::uint32_t type_version, std::string_view name) {
  const std::size_t header = header_size_for(name);
  const std::size_t length = out.size() - header;
  std::byte* h = out.data();
  std::memcpy(h, magic.data(), magic.size());
  put_le(h + off_version, version, 2);
  h[off_format] = static_cast<std::byte>(format);
  h[off_flags] = static_cast<std::byte>(static_cast<std::uint8_t>(compression) & flag_compression_mask);
  put_le(h + off_fingerprint, fingerprint, 8);
  put_le(h + off_length, length, 8);
  put_le(h + off_type_version, type_version, 4);
  h[off_name_length] = static_cast<std::byte>(name.size());
  if (!name.empty()) std::memcpy(h + off_name, name.data(), name.size());
  put_le(h + off_name + name.size(), hash(h, off_name + name.size()), 8);
  const std::uint64_t sum = hash(out.data() + header, length);
  out.resize(out.size() + trailer_size);
  put_le(out.data() + header + length, sum, 8);
}

opened open(std::span<const std::byte> bytes, std::span<const candidate> candidates, std::span<const format_info> known,
            const std::filesystem::path& file, bool tolerant) {
  const std::size_t size = bytes.size();
  const std::byte* b = bytes.data();
  // 1. magic (as much of it as there is)
  const std::size_t have = size < magic.size() ? size : magic.size();
  for (std::size_t i = 0; i < have; ++i) {
    if (static_cast<std::uint8_t>(b[i]) != magic[i]) {
      fail(snapshot_errc::not_a_snapshot, file, "not a refwire snapshot (wrong magic bytes)", i);
    }
  }
  if (size == 0) fail(snapshot_errc::truncated, file, "truncated: the file is empty", 0);
  if (size < magic.size() + 2) {
    fail(snapshot_errc::truncated, file, truncated_header(size, v1_header_size, true), size);
  }
  // 2. version: a later version may lay out the rest differently
  const auto layout = static_cast<std::uint16_t>(get_le(b + off_version, 2));
  if (layout != 1 && layout != version) {
    fail(snapshot_errc::unsupported_version, file,
         "unsupported snapshot version " + std::to_string(layout) + " (this build reads versions 1 and " +
             std::to_string(version) + ")",
         off_version);
  }
  // 3. the whole header (version 2: its name length, bounded, says how long it is)
  std::size_t header = v1_header_size;
  std::size_t off_checksum = off_v1_checksum;
  std::uint32_t type_version = 0;
  std::string_view name;
  if (layout == 1) {
    if (size < v1_header_size) fail(snapshot_errc::truncated, file, truncated_header(size, v1_header_size, false), size);
  } else {
    if (size <= off_name_length) fail(snapshot_errc::truncated, file, truncated_header(size, v2_fixed_size, true), size);
    const auto m = static_cast<std::size_t>(b[off_name_length]);
    if (m > max_name_size) {
      fail(snapshot_errc::header_checksum, file,
           "type name length " + std::to_string(m) + " is over the limit of " + std::to_string(max_name_size) +
               ": the header is damaged",
           off_name_length);
    }
    header = v2_fixed_size + m;
    off_checksum = off_name + m;
    if (size < header) fail(snapshot_errc::truncated, file, truncated_header(size, header, false), size);
    type_version = static_cast<std::uint32_t>(get_le(b + off_type_version, 4));
    name = std::string_view(reinterpret_cast<const char*>(b + off_name), m);
  }
  // 4. header checksum: every later header field is trusted only after it
  const std::uint64_t stored = get_le(b + off_checksum, 8);
  const std::uint64_t computed = hash(b, off_checksum);
  if (stored != computed) {
    fail(snapshot_errc::header_checksum, file,
         "header checksum mismatch (stored " + hex(stored) + ", computed " + hex(computed) + "): the header is damaged",
         off_checksum);
  }
  // 5. flags
  const auto flags = static_cast<std::uint8_t>(b[off_flags]);
  const auto method = static_cast<std::uint8_t>(flags & flag_compression_mask);
  if ((flags & ~flag_compression_mask) != 0 || method > static_cast<std::uint8_t>(compression::lz4)) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", flags);
    fail(snapshot_errc::reserved_flags, file,
         std::string("reserved flag bits set (flags ") + buf + "; this version assigns only 0x01, lz4)", off_flags);
  }
  // 6. format
  const auto id = static_cast<std::uint8_t>(b[off_format]);
  const format_info* found = nullptr;
  for (const format_info& f : known) {
    if (f.id == id) found = &f;
  }
  if (found == nullptr) {
    fail(snapshot_errc::unknown_format, file,
         "unknown format id " + std::to_string(id) + " (this program reads " + known_list(known) + ")", off_format);
  }
  if (!found->can_carry) throw_cannot_carry(file, *found);
  if (tolerant && id == binary::id) {
    fail(snapshot_errc::tolerant_binary, file,
         "a tolerant load (decode_options::tolerant_snapshot) cannot read a binary snapshot: binary is positional, "
         "so it cannot skip removed fields or default added ones",
         off_format);
  }
  // 7. the type's version picks the type to decode as; its fingerprint must match
  const candidate* match = nullptr;
  for (const candidate& c : candidates) {
    if (c.version == type_version) match = &c;
  }
  if (match == nullptr) version_mismatch(file, candidates, layout, type_version, name);
  const std::uint64_t fp = get_le(b + off_fingerprint, 8);
  const std::uint64_t expected = layout == 2 && id == binary::id ? match->layout_fingerprint : match->fingerprint;
  if (!tolerant && fp != expected) {
    if (layout == 1) {
      fail(snapshot_errc::fingerprint_mismatch, file,
           "written for another type: schema fingerprint " + hex(fp) + " in the file, " + hex(expected) +
               " for the type being loaded",
           off_fingerprint);
    }
    fail(snapshot_errc::fingerprint_mismatch, file,
         "written for another type: " + named(name, type_version) + " (fingerprint " + hex(fp) + ") in the file, " +
             named(match->name, match->version) + " (" + hex(expected) + ") being loaded",
         off_fingerprint);
  }
  // 8. size
  const std::uint64_t length = get_le(b + off_length, 8);
  const std::size_t body = size - header;
  if (body < trailer_size || length > body - trailer_size) {
    fail(snapshot_errc::truncated, file,
         "truncated: the header says " + std::to_string(length) + " payload bytes and an 8-byte checksum, the file has " +
             std::to_string(body) + " bytes after the header",
         size);
  }
  if (length < body - trailer_size) {
    fail(snapshot_errc::trailing_data, file,
         std::to_string(body - trailer_size - length) + (body - trailer_size - length == 1 ? " byte" : " bytes") +
             " after the payload checksum (the header says " +
             std::to_string(length) + " payload bytes)",
         header + static_cast<std::size_t>(length) + trailer_size);
  }
  // 9. payload checksum
  const std::size_t n = static_cast<std::size_t>(length);
  const std::uint64_t psum = get_le(b + header + n, 8);
  const std::uint64_t pcomputed = hash(b + header, n);
  if (psum != pcomputed) {
    fail(snapshot_errc::payload_checksum, file,
         "payload checksum mismatch (stored " + hex(psum) + ", computed " + hex(pcomputed) + "): the payload is damaged",
         header + n);
  }
  return opened{id, static_cast<refwire::compression>(method), bytes.subspan(header, n),
                static_cast<std::size_t>(match - candidates.data())};
}

void throw_payload_error(const std::filesystem::path& file, refwire::error e) {
  throw snapshot_error(file, std::move(e));
}

void throw_cannot_carry(const std::filesystem::path& file, const format_info& f) {
  fail(snapshot_errc::unknown_format, file,
       "format " + std::string(f.name) + " (id " + std::to_string(f.id) +
           ") cannot carry this type: it needs field names (describe the type with BOOST_DESCRIBE_STRUCT)",
       off_format);
}

// ------------------------------------------------------------------- files

namespace {

struct fd_closer {
  int fd = -1;
  ~fd_closer() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void io_fail(const std::filesystem::path& file, const char* what, int err) {
  throw snapshot_error(snapshot_errc::io_error, file,
                       std::string(what) + ": " + std::generic_category().message(err), 0, err);
}

[[noreturn]] void save_fail(const std::filesystem::path& file, const std::string& what, int err) {
  throw snapshot_save_error(file, err, "refwire: save_snapshot " + quoted(file) + ": " + what);
}

std::string random_suffix() {
  static thread_local std::mt19937_64 rng{[] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
           static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
           (static_cast<std::uint64_t>(::getpid()) << 16);
  }()};
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string s(12, 'x');
  for (char& c : s) c = alphabet[rng() % (sizeof alphabet - 1)];
  return s;
}

/// Removes the temporary files `.<name>.tmp.*` in dir that no live writer
/// holds: a writer keeps an exclusive flock on its temporary file until it has
/// been renamed, and the kernel releases the lock when the writer dies
/// (SIGKILL included). Best effort: errors are ignored.
void remove_stray_temporaries(const std::filesystem::path& dir, const std::string& temp_prefix) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    if (std::strncmp(e->d_name, temp_prefix.c_str(), temp_prefix.size()) != 0) continue;
    const std::filesystem::path stray = dir / e->d_name;
    fd_closer f{::open(stray.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)};
    if (f.fd < 0) continue;
    if (::flock(f.fd, LOCK_EX | LOCK_NB) == 0) ::unlink(stray.c_str());
  }
  ::closedir(d);
}

}  // namespace

std::vector<std::byte> read_file(const std::filesystem::path& file, std::uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (regular files ignore it).
  fd_closer f{::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) {
    const int err = errno;
    io_fail(file, "cannot open", err);
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    const int err = errno;
    io_fail(file, "cannot stat", err);
  }
  if (!S_ISREG(st.st_mode)) io_fail(file, "not a regular file", S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const std::uint64_t overhead = v2_fixed_size + max_name_size + trailer_size;
  if (size > max_bytes + overhead) {
    fail(snapshot_errc::too_large, file,
         "the file has " + std::to_string(size) + " bytes, over the limit of " + std::to_string(max_bytes) +
             " (decode_options::max_alloc_bytes) plus " + std::to_string(overhead),
         0);
  }
  std::vector<std::byte> bytes(static_cast<std::size_t>(size));
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t r = ::read(f.fd, bytes.data() + got, bytes.size() - got);
    if (r < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      io_fail(file, "cannot read", err);
    }
    if (r == 0) break;  // shrank while reading: the checks report it as truncated
    got += static_cast<std::size_t>(r);
  }
  bytes.resize(got);
  return bytes;
}

void write_file_atomically(const std::filesystem::path& file, std::span<const std::byte> bytes) {
  const std::filesystem::path name = file.filename();
  if (name.empty() || name == "." || name == "..") save_fail(file, "not a file name", EINVAL);
  const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");

  const std::string temp_prefix = "." + name.string() + ".tmp.";
  remove_stray_temporaries(dir, temp_prefix);

  // 1. a new temporary file beside the target (same file system, so rename is
  //    atomic), locked while it exists under its temporary name
  std::filesystem::path temp;
  fd_closer f;
  for (int attempt = 0; attempt < 16 && f.fd < 0; ++attempt) {
    temp = dir / (temp_prefix + random_suffix());
    f.fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (f.fd < 0) {
      const int err = errno;
      if (err != EEXIST) save_fail(file, "cannot create a temporary file in " + quoted(dir), err);
      continue;
    }
    struct stat st {};
    if (::flock(f.fd, LOCK_EX) != 0 || ::fstat(f.fd, &st) != 0 || st.st_nlink == 0) {
      // Another save's clean-up took it between open and flock: try a new name.
      ::close(f.fd);
      f.fd = -1;
    }
  }
  if (f.fd < 0) save_fail(file, "cannot create a temporary file in " + quoted(dir), EEXIST);

  const auto abandon = [&](const std::string& what, int err) {
    ::close(f.fd);
    f.fd = -1;
    ::unlink(temp.c_str());
    save_fail(file, what, err);
  };
  // 2. all the bytes
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::write(f.fd, bytes.data() + done, bytes.size() - done);
    if (w < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      abandon("cannot write " + quoted(temp), err);
    }
    done += static_cast<std::size_t>(w);
  }
  // 3. on the disk before the name points at it
  if (::fsync(f.fd) != 0) {
    const int err = errno;
    abandon("cannot fsync " + quoted(temp), err);
  }
  // 4. the atomic switch (the lock is held until the temporary name is gone)
  if (::rename(temp.c_str(), file.c_str()) != 0) {
    const int err = errno;
    abandon("cannot rename " + quoted(temp) + " over it", err);
  }
  const int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    save_fail(file, "saved, but closing the new file failed", err);
  }
  // 5. the rename itself on the disk
  fd_closer d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (d.fd < 0) {
    const int err = errno;
    save_fail(file, "saved, but cannot open the directory " + quoted(dir) + " to fsync it", err);
  }
  if (::fsync(d.fd) != 0 && errno != EINVAL) {  // EINVAL: a file system that cannot sync directories
    const int err = errno;
    save_fail(file, "saved, but cannot fsync the directory " + quoted(dir), err);
  }
}

}  // namespace detail::snap

}  // namespace refwire
