// Snapshot files (snapshot.hpp): round trips with and without lz4, the header
// bytes, every truncation and every flipped bit of a snapshot reported as the
// right kind, wrong types, reserved flags, unknown formats, payloads that do
// not decode, I/O errors when loading and saving, and a kill test: a child
// process saving a large value in a loop is SIGKILLed at random points, and
// the previous snapshot is always intact.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace snaptest {

enum class level : std::uint8_t { low, mid, high };
BOOST_DESCRIBE_ENUM(level, low, mid, high)

struct row {
  std::string name;
  double value = 0;
  friend bool operator==(const row&, const row&) = default;
};
BOOST_DESCRIBE_STRUCT(row, (), (name, value))

struct state {
  std::uint32_t generation = 0;
  std::vector<row> rows;
  std::optional<std::string> note;
  level lvl = level::low;
  std::vector<std::uint32_t> data;  // every element == generation: a torn write would show
  friend bool operator==(const state&, const state&) = default;
};
BOOST_DESCRIBE_STRUCT(state, (), (generation, rows, note, lvl, data))
REFWIRE_NAME(state, "snaptest.state")

struct other {  // another type: another fingerprint
  std::uint32_t generation = 0;
  std::vector<row> rows;
};
BOOST_DESCRIBE_STRUCT(other, (), (generation, rows))

struct plain_agg {  // a PFR aggregate: only positional formats carry it
  int a = 0;
  double b = 0;
  friend bool operator==(const plain_agg&, const plain_agg&) = default;
};

/// A named, non-positional format that is not in this branch: for the
/// "cannot carry this type" check of the dispatch table.
struct fake_named {
  static constexpr std::string_view name = "fake";
  static constexpr std::uint8_t id = 77;
  static constexpr bool positional = false;
};

state make_state(std::uint32_t generation, std::size_t n) {
  state s;
  s.generation = generation;
  for (std::size_t i = 0; i < n; ++i) s.rows.push_back({"row " + std::to_string(i), static_cast<double>(i) / 4});
  s.note = "generation " + std::to_string(generation);
  s.lvl = level::mid;
  s.data.assign(n * 4, generation);
  return s;
}

constexpr std::size_t v1_header_size = 36;

std::uint64_t get_le(const std::vector<std::byte>& b, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<std::uint8_t>(b[at + i]);
  return v;
}

void put_le(std::vector<std::byte>& b, std::size_t at, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i, v >>= 8) b[at + i] = static_cast<std::byte>(v & 0xff);
}

/// The header size of a snapshot (version 1: 36; version 2: 41 and the name).
std::size_t header_of(const std::vector<std::byte>& b) {
  return get_le(b, 8, 2) == 1 ? v1_header_size : 41 + static_cast<std::size_t>(b[32]);
}

/// Recomputes the length, the header checksum and the payload checksum of a hand-edited snapshot.
void reseal(std::vector<std::byte>& b) {
  const std::size_t header_size = header_of(b);
  const std::size_t length = b.size() - header_size - 8;
  put_le(b, 20, length, 8);
  put_le(b, header_size - 8, XXH3_64bits(b.data(), header_size - 8), 8);
  put_le(b, header_size + length, XXH3_64bits(b.data() + header_size, length), 8);
}

/// The kind decode_snapshot<T> throws for `bytes` (exact-size heap copy for ASan), or nullopt.
template <class T = state>
std::optional<refwire::snapshot_error> failure(const std::vector<std::byte>& bytes,
                                               const refwire::decode_options& o = {}) {
  std::vector<std::byte> exact(bytes);
  exact.shrink_to_fit();
  try {
    (void)refwire::decode_snapshot<T>(exact, o);
  } catch (const refwire::snapshot_error& e) {
    return e;
  }
  return std::nullopt;
}

class temp_dir {
 public:
  temp_dir() {
    std::string tmpl = (fs::temp_directory_path() / "refwire-snapshot-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::system_error(errno, std::generic_category(), "mkdtemp");
    path_ = tmpl;
  }
  ~temp_dir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }
  /// Names in the directory other than `keep`.
  std::vector<std::string> others(const std::string& keep) const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path_)) {
      if (e.path().filename() != keep) names.push_back(e.path().filename().string());
    }
    return names;
  }

 private:
  fs::path path_;
};

std::vector<std::byte> read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(c.size());
  if (!c.empty()) std::memcpy(b.data(), c.data(), c.size());
  return b;
}

void write_all(const fs::path& p, const std::vector<std::byte>& b) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

}  // namespace snaptest

using namespace snaptest;

// ------------------------------------------------------------------- golden

#ifndef REFWIRE_GOLDEN_DIR
#error "REFWIRE_GOLDEN_DIR must name the directory of the golden files"
#endif

/// Compares bytes with golden/<name> (rewritten under REFWIRE_UPDATE_GOLDEN=1,
/// like binary_golden_test): an accidental change of the snapshot layout or of the
/// lz4 envelope fails here.
void expect_golden(const std::string& name, const std::vector<std::byte>& bytes) {
  const fs::path path = fs::path(REFWIRE_GOLDEN_DIR) / name;
  const char* update = std::getenv("REFWIRE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    write_all(path, bytes);
    return;
  }
  const std::vector<std::byte> file = read_all(path);
  EXPECT_FALSE(file.empty()) << "missing golden file " << path << " (run with REFWIRE_UPDATE_GOLDEN=1)";
  EXPECT_EQ(file, bytes) << "the bytes differ from " << path;
}

std::vector<std::byte> golden(const std::string& name) { return read_all(fs::path(REFWIRE_GOLDEN_DIR) / name); }

TEST(SnapshotGolden, Version1FilesStillLoad) {
  // Written by builds before layout version 2; never regenerated.
  const state s = make_state(7, 40);
  const std::vector<std::byte> plain = golden("snapshot-v1.bin");
  const std::vector<std::byte> lz4 = golden("snapshot-v1-lz4.bin");
  ASSERT_EQ(plain.size(), 1252u + 44u);
  EXPECT_EQ(get_le(plain, 8, 2), 1u);
  EXPECT_EQ(get_le(plain, 12, 8), 0x084f821d1c8ca441u) << "the name-including fingerprint";
  EXPECT_EQ(get_le(plain, 12, 8), refwire::fingerprint<state>()) << "refwire::fingerprint<T>() did not change";
  EXPECT_EQ(get_le(lz4, 8, 2), 1u);
  EXPECT_EQ(get_le(lz4, 11, 1), 1u);
  EXPECT_EQ(refwire::decode_snapshot<state>(plain), s);
  EXPECT_EQ(refwire::decode_snapshot<state>(lz4), s);
  temp_dir dir;
  write_all(dir / "v1.rfw", plain);
  EXPECT_EQ(refwire::load_snapshot<state>(dir / "v1.rfw"), s);
}

/// Compares a freshly encoded snapshot with golden/<name> byte for byte.
TEST(SnapshotGolden, LayoutVersion2) {
  const state s = make_state(7, 40);
  const std::vector<std::byte> plain = refwire::encode_snapshot(s);
  expect_golden("snapshot-v2.bin", plain);
  expect_golden("snapshot-v2-json.bin", refwire::encode_snapshot<refwire::json>(make_state(2, 2)));
  expect_golden("snapshot-v2-protobuf.bin", refwire::encode_snapshot<refwire::protobuf>(make_state(2, 2)));
  // The first 64 bytes, as docs/snapshots.md shows them.
  const unsigned char head[] = {
      0x89, 0x52, 0x46, 0x57, 0x0d, 0x0a, 0x1a, 0x0a,  // magic
      0x02, 0x00,                                      // version 2
      0x01,                                            // format 1 (binary)
      0x00,                                            // flags
  };
  ASSERT_GT(plain.size(), sizeof head);
  EXPECT_EQ(std::memcmp(plain.data(), head, sizeof head), 0);
  EXPECT_EQ(get_le(plain, 12, 8), refwire::layout_fingerprint<state>());
  EXPECT_EQ(get_le(plain, 20, 8), 1252u);
  EXPECT_EQ(get_le(plain, 28, 4), 0u) << "state declares no version";
  EXPECT_EQ(get_le(plain, 32, 1), 14u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(plain.data()) + 33, 14), "snaptest.state");
  EXPECT_EQ(header_of(plain), 55u);
  EXPECT_EQ(plain.size(), 55u + 1252u + 8u);
  // The lz4 block may differ with another liblz4 version: its file is
  // compared by the fixed header fields and by what it decodes to.
  const std::vector<std::byte> lz4 = refwire::encode_snapshot(s, {.compression = refwire::compression::lz4});
  ASSERT_EQ(lz4[55], std::byte{1}) << "the golden lz4 snapshot holds an lz4 block";
  const fs::path lz4_path = fs::path(REFWIRE_GOLDEN_DIR) / "snapshot-v2-lz4.bin";
  const char* update = std::getenv("REFWIRE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") write_all(lz4_path, lz4);
  const std::vector<std::byte> golden_lz4 = read_all(lz4_path);
  ASSERT_GE(golden_lz4.size(), 55u) << "missing golden file " << lz4_path;
  EXPECT_TRUE(std::equal(lz4.begin(), lz4.begin() + 20, golden_lz4.begin())) << "magic, version, format, flags, fingerprint";
  EXPECT_TRUE(std::equal(lz4.begin() + 28, lz4.begin() + 47, golden_lz4.begin() + 28)) << "type version, name";
  EXPECT_EQ(refwire::decode_snapshot<state>(golden("snapshot-v2.bin")), s);
  EXPECT_EQ(refwire::decode_snapshot<state>(golden_lz4), s);
  EXPECT_EQ(refwire::decode_snapshot<state>(golden("snapshot-v2-json.bin")), make_state(2, 2));
  EXPECT_EQ(refwire::decode_snapshot<state>(golden("snapshot-v2-protobuf.bin")), make_state(2, 2));
}

// --------------------------------------------------------------- round trips

TEST(Snapshot, InMemoryRoundTrip) {
  const state s = make_state(3, 10);
  const std::vector<std::byte> b = refwire::encode_snapshot(s);
  const std::vector<std::byte> payload = refwire::serialize(s);
  ASSERT_EQ(b.size(), header_of(b) + payload.size() + 8);
  EXPECT_TRUE(std::equal(payload.begin(), payload.end(), b.begin() + static_cast<std::ptrdiff_t>(header_of(b))));
  EXPECT_EQ(refwire::decode_snapshot<state>(b), s);
}

TEST(Snapshot, HeaderLayout) {
  const state s = make_state(3, 10);
  const std::vector<std::byte> b = refwire::encode_snapshot(s);
  const unsigned char magic[8] = {0x89, 'R', 'F', 'W', 0x0d, 0x0a, 0x1a, 0x0a};
  EXPECT_EQ(std::memcmp(b.data(), magic, 8), 0);
  EXPECT_EQ(get_le(b, 8, 2), 2u) << "version";
  EXPECT_EQ(get_le(b, 10, 1), refwire::binary::id);
  EXPECT_EQ(get_le(b, 11, 1), 0u) << "flags";
  EXPECT_EQ(get_le(b, 12, 8), refwire::layout_fingerprint<state>());
  const std::uint64_t length = get_le(b, 20, 8);
  const std::size_t header_size = header_of(b);
  EXPECT_EQ(length, b.size() - header_size - 8);
  EXPECT_EQ(get_le(b, 28, 4), 0u) << "type version";
  EXPECT_EQ(get_le(b, 32, 1), 14u) << "name length";
  EXPECT_EQ(get_le(b, 47, 8), XXH3_64bits(b.data(), 47));
  EXPECT_EQ(get_le(b, header_size + length, 8), XXH3_64bits(b.data() + header_size, length));

  const std::vector<std::byte> z = refwire::encode_snapshot(s, {.compression = refwire::compression::lz4});
  EXPECT_EQ(get_le(z, 11, 1), 1u) << "flags: lz4";
  // JSON and protobuf record the name-including fingerprint.
  EXPECT_EQ(get_le(refwire::encode_snapshot<refwire::json>(s), 12, 8), refwire::fingerprint<state>());
  EXPECT_EQ(get_le(refwire::encode_snapshot<refwire::protobuf>(s), 12, 8), refwire::fingerprint<state>());
}

TEST(Snapshot, FileRoundTripWithAndWithoutLz4) {
  temp_dir dir;
  const fs::path p = dir / "state.rfw";
  for (std::size_t n : {std::size_t{0}, std::size_t{3}, std::size_t{5000}}) {
    const state s = make_state(static_cast<std::uint32_t>(n), n);
    refwire::save_snapshot(p, s);
    EXPECT_EQ(refwire::load_snapshot<state>(p), s);
    const auto plain_size = fs::file_size(p);
    refwire::save_snapshot<refwire::binary>(p, s, {.compression = refwire::compression::lz4});
    EXPECT_EQ(refwire::load_snapshot<state>(p), s);
    if (n == 5000) {
      EXPECT_LT(fs::file_size(p) * 3, plain_size);
    }
    // Decode options' compression is taken from the header, not the caller.
    EXPECT_EQ(refwire::load_snapshot<state>(p, {.compression = refwire::compression::none}), s);
    EXPECT_TRUE(dir.others("state.rfw").empty()) << "no temporary file left behind";
  }
  // A PFR aggregate in the binary format.
  refwire::save_snapshot(dir / "agg.rfw", plain_agg{4, 0.5});
  EXPECT_EQ(refwire::load_snapshot<plain_agg>(dir / "agg.rfw"), (plain_agg{4, 0.5}));
}

// Every format: the header records it, load_snapshot reads it back from the
// header alone (the caller names only the type), with and without lz4.
template <class F>
void round_trip_in_format(const fs::path& p) {
  const state s = make_state(11, 300);
  for (auto c : {refwire::compression::none, refwire::compression::lz4}) {
    refwire::save_snapshot<F>(p, s, {.compression = c});
    const std::vector<std::byte> b = read_all(p);
    ASSERT_GE(b.size(), 55u);
    EXPECT_EQ(get_le(b, 10, 1), F::id) << F::name;
    EXPECT_EQ(get_le(b, 11, 1), c == refwire::compression::lz4 ? 1u : 0u) << F::name;
    EXPECT_EQ(refwire::load_snapshot<state>(p), s) << F::name;
  }
  // A PFR aggregate where the format is positional.
  if constexpr (F::positional) {
    refwire::save_snapshot<F>(p, plain_agg{-4, 0.25});
    EXPECT_EQ(refwire::load_snapshot<plain_agg>(p), (plain_agg{-4, 0.25})) << F::name;
  }
}

TEST(Snapshot, EveryFormatIsReadFromTheHeader) {
  temp_dir dir;
  round_trip_in_format<refwire::binary>(dir / "binary.rfw");
  round_trip_in_format<refwire::json>(dir / "json.rfw");
  round_trip_in_format<refwire::protobuf>(dir / "protobuf.rfw");
}

TEST(Snapshot, RelativePathAndModeFollowTheUmask) {
  temp_dir dir;
  const fs::path cwd = fs::current_path();
  fs::current_path(dir.path());
  const mode_t old = ::umask(027);
  refwire::save_snapshot("relative.rfw", make_state(1, 1));
  ::umask(old);
  fs::current_path(cwd);
  struct stat st {};
  ASSERT_EQ(::stat((dir / "relative.rfw").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(refwire::load_snapshot<state>(dir / "relative.rfw"), make_state(1, 1));
}

// ---------------------------------------------------------------- damage

/// The kind flipping `bit` at byte i of the version-2 snapshot `good` must produce.
refwire::snapshot_errc expected_kind(const std::vector<std::byte>& good, std::size_t i, unsigned bit) {
  if (i < 8) return refwire::snapshot_errc::not_a_snapshot;
  if (i < 10) return refwire::snapshot_errc::unsupported_version;
  if (i == 32) {  // the name length: past 200 it is rejected, past the end of the file it is a truncated header
    const std::size_t m = static_cast<std::size_t>(good[32]) ^ (1U << bit);
    if (m <= 200 && 41 + m > good.size()) return refwire::snapshot_errc::truncated;
    return refwire::snapshot_errc::header_checksum;
  }
  if (i < header_of(good)) return refwire::snapshot_errc::header_checksum;
  return refwire::snapshot_errc::payload_checksum;
}

TEST(SnapshotDamage, EveryBitFlipIsDetectedAsTheRightKind) {
  for (const auto compression : {refwire::compression::none, refwire::compression::lz4}) {
    const std::vector<std::byte> good =
        refwire::encode_snapshot(make_state(9, 3), {.compression = compression, .compression_threshold = 0});
    ASSERT_LT(good.size(), 400u);
    std::size_t flips = 0;
    for (std::size_t i = 0; i < good.size(); ++i) {
      for (unsigned bit = 0; bit < 8; ++bit) {
        std::vector<std::byte> bad = good;
        bad[i] ^= static_cast<std::byte>(1U << bit);
        const auto e = failure(bad);
        ASSERT_TRUE(e.has_value()) << "byte " << i << " bit " << bit << " went undetected";
        EXPECT_EQ(e->kind(), expected_kind(good, i, bit))
            << "byte " << i << " bit " << bit << ": " << e->what();
        ++flips;
      }
    }
    EXPECT_EQ(flips, good.size() * 8);
  }
}

TEST(SnapshotDamage, EveryTruncationIsTruncated) {
  const std::vector<std::byte> good = refwire::encode_snapshot(make_state(9, 3));
  for (std::size_t n = 0; n < good.size(); ++n) {
    const std::vector<std::byte> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    const auto e = failure(cut);
    ASSERT_TRUE(e.has_value()) << n;
    EXPECT_EQ(e->kind(), refwire::snapshot_errc::truncated) << n << ": " << e->what();
    EXPECT_EQ(e->code(), refwire::errc::truncated);
  }
  EXPECT_STREQ(failure({})->what(), "refwire: snapshot \"<memory>\": truncated: the file is empty");
  const std::vector<std::byte> short_body(good.begin(), good.end() - 1);
  EXPECT_EQ(std::string(failure(short_body)->what()),
            "refwire: snapshot \"<memory>\": truncated: the header says " + std::to_string(good.size() - 63) +
                " payload bytes and an 8-byte checksum, the file has " + std::to_string(good.size() - 56) +
                " bytes after the header");
}

TEST(SnapshotDamage, EveryTruncationOfAFile) {
  temp_dir dir;
  const fs::path p = dir / "cut.rfw";
  refwire::save_snapshot(p, make_state(2, 2));
  const std::vector<std::byte> good = read_all(p);
  for (std::size_t n = 0; n < good.size(); ++n) {
    write_all(p, std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n)));
    try {
      (void)refwire::load_snapshot<state>(p);
      FAIL() << "truncated to " << n << " bytes and loaded";
    } catch (const refwire::snapshot_error& e) {
      EXPECT_EQ(e.kind(), refwire::snapshot_errc::truncated) << n;
      EXPECT_EQ(e.file(), p.string());
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos);
    }
  }
}

TEST(SnapshotDamage, TrailingData) {
  std::vector<std::byte> b = refwire::encode_snapshot(make_state(1, 1));
  const std::size_t size = b.size();
  b.push_back(std::byte{0});
  const auto e = failure(b);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::trailing_data);
  EXPECT_EQ(e->offset(), size);
  EXPECT_EQ(std::string(e->what()), "refwire: snapshot \"<memory>\": 1 byte after the payload checksum (the header says " +
                                        std::to_string(size - 63) + " payload bytes)");
}

TEST(SnapshotDamage, Messages) {
  const std::vector<std::byte> good = refwire::encode_snapshot(make_state(1, 1));
  std::vector<std::byte> b = good;
  b[0] = std::byte{'{'};
  EXPECT_STREQ(failure(b)->what(), "refwire: snapshot \"<memory>\": not a refwire snapshot (wrong magic bytes)");
  EXPECT_EQ(failure(b)->code(), refwire::errc::invalid_snapshot);

  b = good;
  put_le(b, 8, 3, 2);
  EXPECT_STREQ(failure(b)->what(),
               "refwire: snapshot \"<memory>\": unsupported snapshot version 3 (this build reads versions 1 and 2)");
  EXPECT_EQ(failure(b)->kind(), refwire::snapshot_errc::unsupported_version);
  EXPECT_EQ(failure(b)->offset(), 8u);

  b = good;
  b[20] ^= std::byte{1};
  const std::string hc = failure(b)->what();
  EXPECT_EQ(hc.rfind("refwire: snapshot \"<memory>\": header checksum mismatch (stored 0x", 0), 0u) << hc;
  EXPECT_NE(hc.find("): the header is damaged"), std::string::npos) << hc;

  b = good;
  b[55] ^= std::byte{0x10};
  const std::string pc = failure(b)->what();
  EXPECT_EQ(pc.rfind("refwire: snapshot \"<memory>\": payload checksum mismatch (stored 0x", 0), 0u) << pc;
  EXPECT_EQ(failure(b)->offset(), good.size() - 8);
}

TEST(SnapshotDamage, WrongType) {
  const std::vector<std::byte> b = refwire::encode_snapshot(make_state(1, 1));
  const auto e = failure<other>(b);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::fingerprint_mismatch);
  EXPECT_EQ(e->offset(), 12u);
  char expect[512];
  std::snprintf(expect, sizeof expect,
                "refwire: snapshot \"<memory>\": written for another type: \"snaptest.state\" (fingerprint 0x%016llx) "
                "in the file, \"{u32 generation;vector<{string name;f64 value}> rows}\" (0x%016llx) being loaded",
                static_cast<unsigned long long>(refwire::layout_fingerprint<state>()),
                static_cast<unsigned long long>(refwire::layout_fingerprint<other>()));
  EXPECT_STREQ(e->what(), expect);
  EXPECT_FALSE(failure<state>(b));
}

TEST(SnapshotDamage, WrongTypeInAVersion1File) {
  // A version-1 header records no name: the message is version 1's.
  const auto e = failure<other>(golden("snapshot-v1.bin"));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::fingerprint_mismatch);
  char expect[256];
  std::snprintf(expect, sizeof expect,
                "refwire: snapshot \"<memory>\": written for another type: schema fingerprint 0x%016llx in the file, "
                "0x%016llx for the type being loaded",
                static_cast<unsigned long long>(refwire::fingerprint<state>()),
                static_cast<unsigned long long>(refwire::fingerprint<other>()));
  EXPECT_STREQ(e->what(), expect);
}

TEST(SnapshotDamage, ReservedFlags) {
  const std::vector<std::byte> good = refwire::encode_snapshot(make_state(1, 1));
  for (unsigned flags : {0x02u, 0x03u, 0x04u, 0x80u, 0x81u}) {
    std::vector<std::byte> b = good;
    b[11] = static_cast<std::byte>(flags);
    reseal(b);
    const auto e = failure(b);
    ASSERT_TRUE(e) << flags;
    EXPECT_EQ(e->kind(), refwire::snapshot_errc::reserved_flags) << flags;
  }
  std::vector<std::byte> b = good;
  b[11] = std::byte{0x80};
  reseal(b);
  EXPECT_STREQ(failure(b)->what(),
               "refwire: snapshot \"<memory>\": reserved flag bits set (flags 0x80; this version assigns only 0x01, lz4)");
}

TEST(SnapshotDamage, UnknownFormat) {
  std::vector<std::byte> b = refwire::encode_snapshot(make_state(1, 1));
  b[10] = std::byte{9};
  reseal(b);
  const auto e = failure(b);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::unknown_format);
  EXPECT_STREQ(e->what(), "refwire: snapshot \"<memory>\": unknown format id 9 (this program reads 1 binary, 2 json, 3 protobuf)");
}

TEST(SnapshotDamage, FormatThatCannotCarryTheType) {
  namespace snap = refwire::detail::snap;
  using formats = boost::mp11::mp_list<refwire::binary, fake_named>;
  constexpr auto for_agg = snap::format_table<plain_agg>(formats{});
  constexpr auto for_state = snap::format_table<state>(formats{});
  static_assert(for_agg[0].can_carry && !for_agg[1].can_carry);
  static_assert(for_state[0].can_carry && for_state[1].can_carry);
  std::vector<std::byte> b = refwire::encode_snapshot(plain_agg{1, 2});
  b[10] = std::byte{77};
  reseal(b);
  try {
    const snap::candidate self{0, refwire::fingerprint<plain_agg>(), refwire::layout_fingerprint<plain_agg>(), "agg"};
    (void)snap::open(b, std::span(&self, 1), for_agg, "x.rfw");
    FAIL() << "opened";
  } catch (const refwire::snapshot_error& e) {
    EXPECT_EQ(e.kind(), refwire::snapshot_errc::unknown_format);
    EXPECT_STREQ(e.what(),
                 "refwire: snapshot \"x.rfw\": format fake (id 77) cannot carry this type: it needs field names "
                 "(describe the type with BOOST_DESCRIBE_STRUCT)");
  }
}

TEST(SnapshotDamage, PayloadThatDoesNotDecode) {
  std::vector<std::byte> b = refwire::encode_snapshot(make_state(1, 1));
  // Drop the payload's last byte and seal it again: the checksums pass, the decode fails.
  b.erase(b.end() - 9);
  reseal(b);
  const auto e = failure(b);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::payload_decode);
  EXPECT_EQ(e->code(), refwire::errc::truncated);
  EXPECT_EQ(e->path(), "$.data");
  EXPECT_EQ(std::string(e->what()),
            "refwire: snapshot \"<memory>\": payload does not decode: " + e->details().message());
}

TEST(SnapshotDamage, LyingLz4InsideASealedSnapshot) {
  std::vector<std::byte> b =
      refwire::encode_snapshot(make_state(1, 1), {.compression = refwire::compression::lz4, .compression_threshold = 0});
  const std::size_t header_size = header_of(b);
  ASSERT_EQ(b[header_size], std::byte{1}) << "an lz4 block";
  // Claim 1 TiB: a varint of 6 bytes replaces the 1- or 2-byte size.
  std::size_t pos = header_size + 1;
  std::size_t old_len = 1;
  while (static_cast<unsigned>(b[pos + old_len - 1]) & 0x80U) ++old_len;
  const std::vector<std::byte> huge = {std::byte{0x80}, std::byte{0x80}, std::byte{0x80}, std::byte{0x80},
                                       std::byte{0x80}, std::byte{0x20}};
  b.erase(b.begin() + static_cast<std::ptrdiff_t>(pos), b.begin() + static_cast<std::ptrdiff_t>(pos + old_len));
  b.insert(b.begin() + static_cast<std::ptrdiff_t>(pos), huge.begin(), huge.end());
  reseal(b);
  const auto e = failure(b);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::payload_decode);
  EXPECT_EQ(e->code(), refwire::errc::allocation_limit);
  EXPECT_STREQ(e->what(),
               "refwire: snapshot \"<memory>\": payload does not decode: $: lz4: claims 1099511627776 bytes, over the "
               "1073741824-byte limit, at offset 1");
}

// -------------------------------------------------------------- file errors

TEST(SnapshotFiles, MissingFile) {
  temp_dir dir;
  const fs::path p = dir / "missing.rfw";
  try {
    (void)refwire::load_snapshot<state>(p);
    FAIL();
  } catch (const refwire::snapshot_error& e) {
    EXPECT_EQ(e.kind(), refwire::snapshot_errc::io_error);
    EXPECT_EQ(e.code(), refwire::errc::io_error);
    EXPECT_EQ(e.sys_errno(), ENOENT);
    EXPECT_EQ(std::string(e.what()), "refwire: snapshot \"" + p.string() + "\": cannot open: No such file or directory");
  }
}

TEST(SnapshotFiles, DirectoryIsNotASnapshot) {
  temp_dir dir;
  try {
    (void)refwire::load_snapshot<state>(dir.path());
    FAIL();
  } catch (const refwire::snapshot_error& e) {
    EXPECT_EQ(e.kind(), refwire::snapshot_errc::io_error);
    EXPECT_EQ(e.sys_errno(), EISDIR);
  }
}

TEST(SnapshotFiles, FifoIsNotReadNorWaitedFor) {
  temp_dir dir;
  const fs::path fifo = dir / "pipe.rfw";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    (void)refwire::load_snapshot<state>(fifo);
    FAIL();
  } catch (const refwire::snapshot_error& e) {
    EXPECT_EQ(e.kind(), refwire::snapshot_errc::io_error);
    EXPECT_EQ(std::string(e.what()), "refwire: snapshot \"" + fifo.string() + "\": not a regular file: Invalid argument");
  }
}

TEST(SnapshotFiles, NotASnapshotFile) {
  temp_dir dir;
  write_all(dir / "data.bin", refwire::serialize(make_state(1, 1)));
  try {
    (void)refwire::load_snapshot<state>(dir / "data.bin");
    FAIL();
  } catch (const refwire::snapshot_error& e) {
    EXPECT_EQ(e.kind(), refwire::snapshot_errc::not_a_snapshot);
  }
}

TEST(SnapshotFiles, TooLargeForTheLimit) {
  temp_dir dir;
  const fs::path p = dir / "big.rfw";
  refwire::save_snapshot(p, make_state(1, 100));
  const auto size = fs::file_size(p);
  refwire::decode_options o;
  o.max_alloc_bytes = size - 250;
  try {
    (void)refwire::load_snapshot<state>(p, o);
    FAIL();
  } catch (const refwire::snapshot_error& e) {
    EXPECT_EQ(e.kind(), refwire::snapshot_errc::too_large);
  }
  o.max_alloc_bytes = size - 249;  // the file passes; the decode has its own, separate use of the limit
  try {
    (void)refwire::load_snapshot<state>(p, o);
  } catch (const refwire::snapshot_error& e) {
    EXPECT_EQ(e.kind(), refwire::snapshot_errc::payload_decode) << e.what();
    EXPECT_EQ(e.code(), refwire::errc::allocation_limit);
  }
}

TEST(SnapshotFiles, SaveIntoAMissingDirectory) {
  temp_dir dir;
  const fs::path p = dir / "no" / "such" / "state.rfw";
  try {
    refwire::save_snapshot(p, make_state(1, 1));
    FAIL();
  } catch (const refwire::snapshot_save_error& e) {
    EXPECT_EQ(e.code().value(), ENOENT);
    EXPECT_EQ(e.sys_errno(), ENOENT);
    EXPECT_EQ(e.kind(), refwire::snapshot_errc::io_error);
    EXPECT_EQ(e.file(), p.string());
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("refwire: save_snapshot \"" + p.string() + "\": cannot create a temporary file in \"", 0), 0u)
        << what;
  }
}

TEST(SnapshotFiles, SaveIntoANonWritableDirectory) {
  temp_dir dir;
  const fs::path locked = dir / "locked";
  fs::create_directory(locked);
  refwire::save_snapshot(locked / "state.rfw", make_state(1, 1));
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  // root ignores directory permissions: then use a directory nobody can create files in.
  const bool root_like = ::access(locked.c_str(), W_OK) == 0;
  const fs::path target = root_like ? fs::path("/proc/refwire-test.rfw") : locked / "state.rfw";
  try {
    refwire::save_snapshot(target, make_state(2, 2));
    FAIL() << "saved into " << target;
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create a temporary file"), std::string::npos) << e.what();
    if (!root_like) {
      EXPECT_EQ(e.code().value(), EACCES);
    }
  }
  fs::permissions(locked, fs::perms::owner_all);
  EXPECT_EQ(refwire::load_snapshot<state>(locked / "state.rfw"), make_state(1, 1)) << "the old snapshot is untouched";
  EXPECT_TRUE(fs::exists(locked / "state.rfw"));
}

TEST(SnapshotFiles, FailedWriteLeavesTheOldSnapshotAndNoTemporaryFile) {
  temp_dir dir;
  const fs::path p = dir / "state.rfw";
  refwire::save_snapshot(p, make_state(1, 10));
  const auto before = read_all(p);
  // A file size limit makes write() fail with EFBIG part-way through.
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGXFSZ, &ignore, &previous);
  struct rlimit small = old;
  small.rlim_cur = 64 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string what;
  int code = 0;
  try {
    refwire::save_snapshot(p, make_state(2, 100000));
  } catch (const std::system_error& e) {
    what = e.what();
    code = e.code().value();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::sigaction(SIGXFSZ, &previous, nullptr);
  EXPECT_EQ(code, EFBIG) << what;
  EXPECT_NE(what.find("cannot write"), std::string::npos) << what;
  EXPECT_EQ(read_all(p), before);
  EXPECT_TRUE(dir.others("state.rfw").empty()) << "the temporary file was removed";
  EXPECT_EQ(refwire::load_snapshot<state>(p), make_state(1, 10));
}

TEST(SnapshotFiles, BadFileName) {
  EXPECT_THROW(refwire::save_snapshot("", make_state(1, 1)), std::system_error);
  temp_dir dir;
  EXPECT_THROW(refwire::save_snapshot(dir.path() / "..", make_state(1, 1)), std::system_error);
}

// ------------------------------------------------------------------- kill test

namespace {

/// In a child: save snapshots of a large value in a loop, generation after
/// generation, until killed. Writes its progress (the last generation saved)
/// to a pipe so that the parent knows which generations are durable.
constexpr std::size_t kill_rows = 2000;
constexpr std::size_t kill_data = std::size_t{4} << 20;  // 16 MiB of payload: a save takes a while

/// The large value of generation g: rows as make_state, `data` kill_data copies of g.
state kill_state(std::uint32_t g) {
  state s = make_state(g, kill_rows);
  s.data.assign(kill_data, g);
  return s;
}

/// True when s is exactly kill_state(s.generation): a torn or mixed write would not be.
bool consistent(const state& s) {
  if (s.data.size() != kill_data || s.rows.size() != kill_rows) return false;
  for (std::uint32_t v : s.data) {
    if (v != s.generation) return false;
  }
  const state reference = make_state(s.generation, kill_rows);
  return s.rows == reference.rows && s.note == reference.note && s.lvl == reference.lvl;
}

[[noreturn]] void saver(const fs::path& p, std::uint32_t first, int progress_fd, bool lz4) {
  state s = kill_state(first);
  for (std::uint32_t g = first;; ++g) {
    s.generation = g;
    s.note = "generation " + std::to_string(g);
    std::fill(s.data.begin(), s.data.end(), g);
    refwire::save_snapshot<refwire::binary>(
        p, s, {.compression = lz4 ? refwire::compression::lz4 : refwire::compression::none});
    if (::write(progress_fd, &g, sizeof g) != static_cast<ssize_t>(sizeof g)) ::_exit(3);
  }
}

}  // namespace

TEST(SnapshotKill, KilledWhileTheTemporaryFileIsBeingWritten) {
  // Deterministic variant: the parent waits until the child's temporary file
  // exists (the child is inside write/fsync) and kills it then.
  temp_dir dir;
  const fs::path p = dir / "state.rfw";
  refwire::save_snapshot(p, kill_state(0));
  int caught_mid_write = 0;
  std::uint32_t next = 1;
  for (int round = 0; round < 5; ++round) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      saver(p, next, fds[1], false);
    }
    ::close(fds[1]);
    // Wait for a temporary file of this child (a name not there before: the
    // previous round's stray may still be there until the child removes it).
    const std::vector<std::string> before = dir.others("state.rfw");
    std::string mine;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (mine.empty() && std::chrono::steady_clock::now() < deadline) {
      for (const std::string& name : dir.others("state.rfw")) {
        if (std::find(before.begin(), before.end(), name) == before.end()) mine = name;
      }
      if (mine.empty()) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ::close(fds[0]);
    ASSERT_FALSE(mine.empty()) << "round " << round << ": the child never created a temporary file";
    if (fs::exists(dir / mine)) ++caught_mid_write;  // killed before its rename
    const state s = refwire::load_snapshot<state>(p);
    EXPECT_TRUE(consistent(s)) << "round " << round;
    next = s.generation + 1;
  }
  EXPECT_GT(caught_mid_write, 0) << "no kill landed while a temporary file existed";
  refwire::save_snapshot(p, make_state(next, 1));
  EXPECT_TRUE(dir.others("state.rfw").empty()) << "the next save removed the stray temporary file";
  std::printf("kill test (deterministic): 5 rounds, %d killed with the temporary file present\n", caught_mid_write);
}

TEST(SnapshotKill, PreviousSnapshotSurvivesSigkillAtRandomPoints) {
  temp_dir dir;
  const fs::path p = dir / "state.rfw";
  refwire::save_snapshot(p, kill_state(0));
  std::mt19937 rng(std::random_device{}());
  std::uint32_t next = 1;
  std::uint32_t last_saved = 0;
  int killed_while_saving = 0;
  constexpr int rounds = 12;
  for (int round = 0; round < rounds; ++round) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      saver(p, next, fds[1], round % 2 == 1);
    }
    ::close(fds[1]);
    std::this_thread::sleep_for(std::chrono::microseconds(20000 + rng() % 150000));
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the child exited by itself: " << status;
    std::uint32_t g = 0;
    std::uint32_t reported = last_saved;
    while (::read(fds[0], &g, sizeof g) == static_cast<ssize_t>(sizeof g)) reported = g;
    ::close(fds[0]);

    // Whatever the child was doing, the file is one complete snapshot: the one
    // it reported last, or the next one if it died between rename and report.
    const state s = refwire::load_snapshot<state>(p);
    EXPECT_TRUE(s.generation == reported || s.generation == reported + 1)
        << "round " << round << ": loaded generation " << s.generation << ", last reported " << reported;
    EXPECT_TRUE(consistent(s)) << "round " << round << ": generation " << s.generation << " is not intact";
    last_saved = s.generation;
    next = s.generation + 1;
    // A kill mid-save leaves the child's temporary file; the next save removes it.
    if (!dir.others("state.rfw").empty()) ++killed_while_saving;
  }
  // A stray temporary file (from a kill mid-write) is never read and never
  // blocks a save; each save removes the strays whose writer is gone (no
  // process holds their lock), so at most one is left from the last kill.
  const std::vector<std::string> strays = dir.others("state.rfw");
  EXPECT_LE(strays.size(), 1u);
  for (const std::string& name : strays) EXPECT_EQ(name.rfind(".state.rfw.tmp.", 0), 0u) << name;
  refwire::save_snapshot(p, make_state(next, 10));
  EXPECT_EQ(refwire::load_snapshot<state>(p), make_state(next, 10));
  EXPECT_TRUE(dir.others("state.rfw").empty()) << "the stray temporary file was removed";
  std::printf("kill test: %d rounds, %d ended with a stray temporary file (killed mid-save), last generation %u\n", rounds,
              killed_while_saving, last_saved);
}
