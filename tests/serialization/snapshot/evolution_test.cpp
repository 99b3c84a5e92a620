// Snapshot evolution (snapshot.hpp, docs/snapshots.md "When the type changes"):
// the type's name and version in a version-2 header, migrations through
// snapshot_history and refwire_upgrade (v1 -> v2 -> v3, in every format, and
// from version-1 files), the version_mismatch messages, renamed fields that
// keep binary snapshots loadable (layout_fingerprint), tolerant JSON and
// protobuf loads across added and removed fields, hostile version-2 headers,
// and one catch for load and save errors (snapshot_failure).
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;

namespace app {

// Version 1: a timeout in seconds.
struct settings_v1 {
  std::string name;
  std::uint32_t timeout_s = 30;
};
BOOST_DESCRIBE_STRUCT(settings_v1, (), (name, timeout_s))
REFWIRE_NAME(settings_v1, "app.settings")
REFWIRE_TYPE_ATTRIBUTES(settings_v1, {.version = 1})

// Version 2: the same layout, in milliseconds (the version tells them apart).
struct settings_v2 {
  std::string name;
  std::uint32_t timeout_ms = 30000;
};
BOOST_DESCRIBE_STRUCT(settings_v2, (), (name, timeout_ms))
REFWIRE_NAME(settings_v2, "app.settings")
REFWIRE_TYPE_ATTRIBUTES(settings_v2, {.version = 2})
inline settings_v2 refwire_upgrade(settings_v1&& old) { return {std::move(old.name), old.timeout_s * 1000}; }

// Version 3, the current type: tags added.
struct settings {
  std::string name;
  std::uint32_t timeout_ms = 30000;
  std::vector<std::string> tags;
  friend bool operator==(const settings&, const settings&) = default;
};
BOOST_DESCRIBE_STRUCT(settings, (), (name, timeout_ms, tags))
REFWIRE_NAME(settings, "app.settings")
REFWIRE_TYPE_ATTRIBUTES(settings, {.version = 3})
inline settings refwire_upgrade(settings_v2&& old) { return {std::move(old.name), old.timeout_ms, {"migrated"}}; }

// Before versions were declared (version 0), and a version 2 with another layout.
struct settings_v0 {
  std::string name;
};
BOOST_DESCRIBE_STRUCT(settings_v0, (), (name))
REFWIRE_NAME(settings_v0, "app.settings")

struct settings_v2_other {
  std::string name;
  std::uint64_t timeout_ms = 0;
};
BOOST_DESCRIBE_STRUCT(settings_v2_other, (), (name, timeout_ms))
REFWIRE_NAME(settings_v2_other, "app.settings")
REFWIRE_TYPE_ATTRIBUTES(settings_v2_other, {.version = 2})

// The state of snapshot_test (the golden files' type), as it was (version 0),
// and its next version, which upgrades from it.
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
  std::vector<std::uint32_t> data;
  friend bool operator==(const state&, const state&) = default;
};
BOOST_DESCRIBE_STRUCT(state, (), (generation, rows, note, lvl, data))
REFWIRE_NAME(state, "snaptest.state")

struct state_next {
  std::uint32_t generation = 0;
  std::size_t rows = 0;
};
BOOST_DESCRIBE_STRUCT(state_next, (), (generation, rows))
REFWIRE_TYPE_ATTRIBUTES(state_next, {.version = 1})
inline state_next refwire_upgrade(state&& old) { return {old.generation, old.rows.size()}; }

// state with versions declared but no history: version-1 files are version 0.
struct state_v3 {
  std::uint32_t generation = 0;
  std::vector<row> rows;
  std::optional<std::string> note;
  level lvl = level::low;
  std::vector<std::uint32_t> data;
};
BOOST_DESCRIBE_STRUCT(state_v3, (), (generation, rows, note, lvl, data))
REFWIRE_NAME(state_v3, "snaptest.state")
REFWIRE_TYPE_ATTRIBUTES(state_v3, {.version = 3})

// state with a field and an enumerator renamed: the same layout.
enum class grade : std::uint8_t { small, medium, large };
BOOST_DESCRIBE_ENUM(grade, small, medium, large)

struct renamed_state {
  std::uint32_t gen = 0;
  std::vector<row> rows;
  std::optional<std::string> comment;
  grade lvl = grade::small;
  std::vector<std::uint32_t> data;
};
BOOST_DESCRIBE_STRUCT(renamed_state, (), (gen, rows, comment, lvl, data))

// A history that skips version 4.
struct config_v3 {
  std::string host;
};
BOOST_DESCRIBE_STRUCT(config_v3, (), (host))
REFWIRE_NAME(config_v3, "app.config")
REFWIRE_TYPE_ATTRIBUTES(config_v3, {.version = 3})

struct config_v4 {
  std::string host;
  std::uint16_t port = 0;
};
BOOST_DESCRIBE_STRUCT(config_v4, (), (host, port))
REFWIRE_NAME(config_v4, "app.config")
REFWIRE_TYPE_ATTRIBUTES(config_v4, {.version = 4})

struct config {
  std::string host;
  std::uint16_t port = 0;
  bool tls = false;
};
BOOST_DESCRIBE_STRUCT(config, (), (host, port, tls))
REFWIRE_NAME(config, "app.config")
REFWIRE_TYPE_ATTRIBUTES(config, {.version = 5})
inline config refwire_upgrade(config_v3&& old) { return {std::move(old.host), 443, true}; }

// Fields added and removed, for tolerant loads.
struct profile {
  std::string name;
  std::uint32_t age = 0;
};
BOOST_DESCRIBE_STRUCT(profile, (), (name, age))
REFWIRE_NAME(profile, "app.profile")

struct profile_more {  // a field added at the end
  std::string name;
  std::uint32_t age = 0;
  std::string email = "none";
};
BOOST_DESCRIBE_STRUCT(profile_more, (), (name, age, email))
REFWIRE_NAME(profile_more, "app.profile")

struct profile_less {  // the last field removed
  std::string name;
};
BOOST_DESCRIBE_STRUCT(profile_less, (), (name))
REFWIRE_NAME(profile_less, "app.profile")

// Names in the header: unnamed (type_name), too long for it.
struct unnamed {
  std::int32_t x = 0;
};
BOOST_DESCRIBE_STRUCT(unnamed, (), (x))

struct long_names {
  std::int32_t a_field_whose_name_is_long_enough_to_matter_when_it_is_spelled_out = 0;
  std::int32_t another_field_whose_name_is_long_enough_to_matter_when_spelled_out = 0;
  std::int32_t a_third_field_whose_name_makes_the_spelling_longer_than_the_header = 0;
};
BOOST_DESCRIBE_STRUCT(long_names, (),
                      (a_field_whose_name_is_long_enough_to_matter_when_it_is_spelled_out,
                       another_field_whose_name_is_long_enough_to_matter_when_spelled_out,
                       a_third_field_whose_name_makes_the_spelling_longer_than_the_header))

struct long_named {
  std::int32_t x = 0;
};
BOOST_DESCRIBE_STRUCT(long_named, (), (x))
REFWIRE_NAME(long_named,
             "a.name.that.goes.on.and.on.and.on.and.on.and.on.and.on.and.on.and.on.and.on.and.on.and.on.and.on.and."
             "on.and.on.and.on.and.on.and.on.and.on.and.on.and.on.and.on.and.on.and.on.and.on.and.on.and.on.and.on."
             "and.on.and.on.and.on.and.on.and.on.and.on.the.end")

}  // namespace app

template <>
struct refwire::snapshot_history<app::settings> {
  using versions = refwire::type_list<app::settings_v1, app::settings_v2>;
};

template <>
struct refwire::snapshot_history<app::state_next> {
  using versions = boost::mp11::mp_list<app::state>;  // an mp_list works too
};

template <>
struct refwire::snapshot_history<app::config> {
  using versions = refwire::type_list<app::config_v3>;
};

namespace {

using namespace app;
using bytes = std::vector<std::byte>;

std::uint64_t get_le(const bytes& b, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<std::uint8_t>(b[at + i]);
  return v;
}

void put_le(bytes& b, std::size_t at, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i, v >>= 8) b[at + i] = static_cast<std::byte>(v & 0xff);
}

std::size_t header_of(const bytes& b) { return 41 + static_cast<std::size_t>(b[32]); }

/// Recomputes the header checksum and the payload checksum of a hand-edited version-2 snapshot.
void reseal(bytes& b) {
  const std::size_t h = header_of(b);
  const std::size_t length = b.size() - h - 8;
  put_le(b, 20, length, 8);
  put_le(b, h - 8, XXH3_64bits(b.data(), h - 8), 8);
  put_le(b, h + length, XXH3_64bits(b.data() + h, length), 8);
}

std::string name_in(const bytes& b) { return std::string(reinterpret_cast<const char*>(b.data()) + 33, b[32] == std::byte{0} ? 0 : static_cast<std::size_t>(b[32])); }

template <class T>
std::optional<refwire::snapshot_error> failure(const bytes& in, const refwire::decode_options& o = {}) {
  bytes exact(in);
  exact.shrink_to_fit();
  try {
    (void)refwire::decode_snapshot<T>(exact, o);
  } catch (const refwire::snapshot_error& e) {
    return e;
  }
  return std::nullopt;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

bytes golden(const std::string& name) {
  std::ifstream f(fs::path(REFWIRE_GOLDEN_DIR) / name, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  bytes b(c.size());
  if (!c.empty()) std::memcpy(b.data(), c.data(), c.size());
  return b;
}

state golden_state() {  // what snapshot-v1.bin and snapshot-v2.bin hold (snapshot_test's make_state(7, 40))
  state s;
  s.generation = 7;
  for (std::size_t i = 0; i < 40; ++i) s.rows.push_back({"row " + std::to_string(i), static_cast<double>(i) / 4});
  s.note = "generation 7";
  s.lvl = level::mid;
  s.data.assign(160, 7);
  return s;
}

constexpr refwire::decode_options tolerant{.tolerant_snapshot = true};

}  // namespace

// ----------------------------------------------------------- name, version

TEST(SnapshotHeader, RecordsTheNameAndTheVersion) {
  const bytes b = refwire::encode_snapshot(settings{"s", 5, {}});
  EXPECT_EQ(get_le(b, 8, 2), 2u);
  EXPECT_EQ(get_le(b, 28, 4), 3u) << "REFWIRE_TYPE_ATTRIBUTES .version";
  EXPECT_EQ(name_in(b), "app.settings") << "REFWIRE_NAME";
  EXPECT_EQ(get_le(b, 33 + 12, 8), XXH3_64bits(b.data(), 45)) << "the checksum covers the name";
  // No REFWIRE_NAME: the canonical type name.
  const bytes u = refwire::encode_snapshot(unnamed{});
  EXPECT_EQ(name_in(u), "{i32 x}");
  EXPECT_EQ(get_le(u, 28, 4), 0u) << "no version declared";
  // Cut to 200 bytes, REFWIRE_NAME or not.
  const std::string spelled = refwire::type_name<long_names>();
  ASSERT_GT(spelled.size(), 200u);
  const bytes l = refwire::encode_snapshot(long_names{});
  EXPECT_EQ(get_le(l, 32, 1), 200u);
  EXPECT_EQ(name_in(l), spelled.substr(0, 200));
  EXPECT_EQ(refwire::decode_snapshot<long_names>(l).a_field_whose_name_is_long_enough_to_matter_when_it_is_spelled_out, 0);
  const bytes n = refwire::encode_snapshot(long_named{7});
  EXPECT_EQ(get_le(n, 32, 1), 200u);
  EXPECT_EQ(refwire::decode_snapshot<long_named>(n).x, 7);
}

// ------------------------------------------------------------- migrations

template <class F>
void migrate_in() {
  SCOPED_TRACE(std::string(F::name));
  const settings upgraded{"a", 5000, {"migrated"}};
  EXPECT_EQ(refwire::decode_snapshot<settings>(refwire::encode_snapshot<F>(settings_v1{"a", 5})), upgraded)
      << "v1 -> v2 -> v3";
  EXPECT_EQ(refwire::decode_snapshot<settings>(refwire::encode_snapshot<F>(settings_v2{"a", 5000})), upgraded)
      << "v2 -> v3";
  const settings current{"b", 7, {"x", "y"}};
  EXPECT_EQ(refwire::decode_snapshot<settings>(refwire::encode_snapshot<F>(current)), current) << "v3 as it is";
  EXPECT_EQ(refwire::decode_snapshot<config>(refwire::encode_snapshot<F>(config_v3{"h"})).port, 443);
}

TEST(SnapshotMigration, ChainsThroughEveryVersionInEveryFormat) {
  migrate_in<refwire::binary>();
  migrate_in<refwire::json>();
  migrate_in<refwire::protobuf>();
}

TEST(SnapshotMigration, FromAFile) {
  const fs::path p = fs::temp_directory_path() / ("refwire-evolution-" + std::to_string(::getpid()) + ".rfw");
  refwire::save_snapshot<refwire::json>(p, settings_v1{"file", 2}, {.compression = refwire::compression::lz4});
  EXPECT_EQ(refwire::load_snapshot<settings>(p), (settings{"file", 2000, {"migrated"}}));
  fs::remove(p);
}

TEST(SnapshotMigration, Version1FilesAreVersion0) {
  // snapshot-v1.bin predates type versions: it is at version 0, matched
  // against the version-0 type of the history by the old (name-including)
  // fingerprint, and upgraded.
  const state_next n = refwire::decode_snapshot<state_next>(golden("snapshot-v1.bin"));
  EXPECT_EQ(n.generation, 7u);
  EXPECT_EQ(n.rows, 40u);
  EXPECT_EQ(refwire::decode_snapshot<state_next>(golden("snapshot-v1-lz4.bin")).rows, 40u);
  EXPECT_EQ(refwire::decode_snapshot<state_next>(golden("snapshot-v2.bin")).rows, 40u);
  EXPECT_EQ(refwire::decode_snapshot<state>(golden("snapshot-v2.bin")), golden_state());

  const auto e = failure<state_v3>(golden("snapshot-v1.bin"));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::version_mismatch);
  EXPECT_EQ(e->code(), refwire::errc::invalid_snapshot);
  EXPECT_EQ(e->offset(), 8u);
  EXPECT_STREQ(e->what(),
               "refwire: snapshot \"<memory>\": written at version 0 (a version-1 snapshot, which records no type "
               "name); version 3 of \"snaptest.state\" being loaded upgrades from no other version");
}

TEST(SnapshotMigration, NewerVersion) {
  const auto e = failure<settings_v2>(refwire::encode_snapshot(settings{}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::version_mismatch);
  EXPECT_EQ(e->offset(), 28u);
  EXPECT_STREQ(e->what(),
               "refwire: snapshot \"<memory>\": written at version 3 of \"app.settings\", newer than version 2 of "
               "\"app.settings\" being loaded");
  EXPECT_EQ(refwire::to_string(e->kind()), "version_mismatch");
}

TEST(SnapshotMigration, OlderVersionWithoutAnUpgrade) {
  auto e = failure<settings_v2>(refwire::encode_snapshot(settings_v1{}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::version_mismatch);
  EXPECT_STREQ(e->what(),
               "refwire: snapshot \"<memory>\": written at version 1 of \"app.settings\"; version 2 of \"app.settings\" "
               "being loaded upgrades from no other version");
  e = failure<config>(refwire::encode_snapshot<refwire::json>(config_v4{"h", 1}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::version_mismatch);
  EXPECT_STREQ(e->what(),
               "refwire: snapshot \"<memory>\": written at version 4 of \"app.config\"; version 5 of \"app.config\" "
               "being loaded upgrades only from version 3");
  e = failure<settings>(refwire::encode_snapshot(settings_v0{"n"}));
  ASSERT_TRUE(e);
  EXPECT_STREQ(e->what(),
               "refwire: snapshot \"<memory>\": written at version 0 of \"app.settings\"; version 3 of \"app.settings\" "
               "being loaded upgrades only from versions 1, 2");
  // Tolerant loads check the version all the same.
  e = failure<settings_v2>(refwire::encode_snapshot<refwire::json>(settings{}), tolerant);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::version_mismatch);
}

TEST(SnapshotMigration, AnOldVersionIsMatchedByItsFingerprintToo) {
  // Version 2 in the file, but not settings_v2's layout.
  const auto e = failure<settings>(refwire::encode_snapshot(settings_v2_other{"n", 1}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::fingerprint_mismatch);
  EXPECT_EQ(std::string(e->what()),
            "refwire: snapshot \"<memory>\": written for another type: \"app.settings\" version 2 (fingerprint " +
                hex(refwire::layout_fingerprint<settings_v2_other>()) + ") in the file, \"app.settings\" version 2 (" +
                hex(refwire::layout_fingerprint<settings_v2>()) + ") being loaded");
}

TEST(SnapshotMessages, AnotherTypeIsNamed) {
  const auto e = failure<profile>(refwire::encode_snapshot(settings_v0{"x"}));
  ASSERT_TRUE(e);
  EXPECT_EQ(std::string(e->what()),
            "refwire: snapshot \"<memory>\": written for another type: \"app.settings\" (fingerprint " +
                hex(refwire::layout_fingerprint<settings_v0>()) + ") in the file, \"app.profile\" (" +
                hex(refwire::layout_fingerprint<profile>()) + ") being loaded");
  // A recorded name that is not printable ASCII is escaped.
  bytes b = refwire::encode_snapshot(settings_v0{"x"});
  b[33] = std::byte{'"'};
  b[34] = std::byte{0x01};
  b[35] = std::byte{0xe9};
  reseal(b);
  const auto odd = failure<profile>(b);
  ASSERT_TRUE(odd);
  EXPECT_EQ(std::string(odd->what()),
            "refwire: snapshot \"<memory>\": written for another type: \"\\x22\\x01\\xe9.settings\" (fingerprint " +
                hex(refwire::layout_fingerprint<settings_v0>()) + ") in the file, \"app.profile\" (" +
                hex(refwire::layout_fingerprint<profile>()) + ") being loaded");
}

// ----------------------------------------------------------------- renames

TEST(SnapshotRename, LayoutFingerprintLeavesNamesOut) {
  EXPECT_EQ(refwire::detail::layout_name<state>(), "{u32;vector<{string;f64}>;optional<string>;enum:u8{0,1,2};vector<u32>}");
  EXPECT_EQ(refwire::type_name<state>(),
            "{u32 generation;vector<{string name;f64 value}> rows;optional<string> note;"
            "enum:u8{low=0,mid=1,high=2} lvl;vector<u32> data}");
  EXPECT_EQ(refwire::layout_fingerprint<state>(), refwire::layout_fingerprint<renamed_state>());
  EXPECT_NE(refwire::fingerprint<state>(), refwire::fingerprint<renamed_state>());
  EXPECT_NE(refwire::layout_fingerprint<state>(), refwire::layout_fingerprint<settings>());
  EXPECT_EQ(refwire::fingerprint<state>(), 0x084f821d1c8ca441u) << "refwire::fingerprint<T>() is unchanged";
}

TEST(SnapshotRename, ABinarySnapshotLoadsAfterARename) {
  const renamed_state r = refwire::decode_snapshot<renamed_state>(golden("snapshot-v2.bin"));
  EXPECT_EQ(r.gen, 7u);
  EXPECT_EQ(r.comment, "generation 7");
  EXPECT_EQ(r.lvl, grade::medium);
  // JSON and protobuf snapshots record the names: strict loads refuse.
  for (const bytes& b : {refwire::encode_snapshot<refwire::json>(golden_state()),
                         refwire::encode_snapshot<refwire::protobuf>(golden_state())}) {
    const auto e = failure<renamed_state>(b);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->kind(), refwire::snapshot_errc::fingerprint_mismatch);
  }
  // A version-1 file carries the name-including fingerprint: a rename is another type to it.
  const auto v1 = failure<renamed_state>(golden("snapshot-v1.bin"));
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->kind(), refwire::snapshot_errc::fingerprint_mismatch);
}

// ---------------------------------------------------------------- tolerant

template <class F>
void tolerant_in() {
  SCOPED_TRACE(std::string(F::name));
  const bytes base = refwire::encode_snapshot<F>(profile{"ann", 41});
  // Strict: another fingerprint.
  auto e = failure<profile_more>(base);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::fingerprint_mismatch);
  // Tolerant: a field added (it keeps its default, JSON; zero, protobuf) and one removed.
  const profile_more more = refwire::decode_snapshot<profile_more>(base, tolerant);
  EXPECT_EQ(more.name, "ann");
  EXPECT_EQ(more.age, 41u);
  EXPECT_EQ(more.email, F::id == refwire::json::id ? "none" : "");
  EXPECT_EQ(refwire::decode_snapshot<profile_less>(base, tolerant).name, "ann");
  const profile back = refwire::decode_snapshot<profile>(refwire::encode_snapshot<F>(profile_more{"bob", 3, "b@x"}), tolerant);
  EXPECT_EQ(back.name, "bob");
  EXPECT_EQ(back.age, 3u);
  // Unknown fields stay skippable only if the caller allows it.
  refwire::decode_options strict_fields = tolerant;
  strict_fields.reject_unknown_fields = true;
  e = failure<profile_less>(base, strict_fields);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::payload_decode);
  EXPECT_EQ(e->code(), refwire::errc::unknown_field);
  // The checksums are still checked.
  bytes damaged = base;
  damaged[header_of(base) + 1] ^= std::byte{0x04};
  e = failure<profile_more>(damaged, tolerant);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::payload_checksum);
  damaged = base;
  damaged[20] ^= std::byte{0x04};
  e = failure<profile_more>(damaged, tolerant);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::header_checksum);
  // With a history: decoded tolerantly as the old version, then upgraded.
  EXPECT_EQ(refwire::decode_snapshot<settings>(refwire::encode_snapshot<F>(settings_v1{"t", 1}), tolerant).timeout_ms,
            1000u);
}

TEST(SnapshotTolerant, JsonAndProtobufAcrossAddedAndRemovedFields) {
  tolerant_in<refwire::json>();
  tolerant_in<refwire::protobuf>();
}

TEST(SnapshotTolerant, BinaryIsRefused) {
  // Even a binary snapshot of the very type: tolerant loads are for JSON and protobuf.
  for (const bytes& b : {refwire::encode_snapshot(profile{"ann", 41}),
                         refwire::encode_snapshot(profile{"ann", 41}, {.compression = refwire::compression::lz4})}) {
    const auto e = failure<profile>(b, tolerant);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->kind(), refwire::snapshot_errc::tolerant_binary);
    EXPECT_EQ(e->code(), refwire::errc::invalid_snapshot);
    EXPECT_EQ(e->offset(), 10u);
    EXPECT_STREQ(e->what(),
                 "refwire: snapshot \"<memory>\": a tolerant load (decode_options::tolerant_snapshot) cannot read a "
                 "binary snapshot: binary is positional, so it cannot skip removed fields or default added ones");
    EXPECT_EQ(refwire::to_string(e->kind()), "tolerant_binary");
  }
  EXPECT_EQ(refwire::decode_snapshot<profile>(refwire::encode_snapshot(profile{"ann", 41})).age, 41u);
}

// ---------------------------------------------------------- hostile headers

TEST(SnapshotHostile, NameLengthPastTheEnd) {
  const bytes good = refwire::encode_snapshot(profile{"ann", 41});
  ASSERT_EQ(header_of(good), 52u);  // "app.profile"
  bytes cut(good.begin(), good.begin() + 40);
  auto e = failure<profile>(cut);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::truncated);
  EXPECT_EQ(e->offset(), 40u);
  EXPECT_STREQ(e->what(), "refwire: snapshot \"<memory>\": truncated header: 40 bytes, this header has 52");
  // A length that runs past the end of a whole (small) file.
  bytes longer = good;
  longer[32] = std::byte{200};
  e = failure<profile>(longer);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::truncated);
  EXPECT_EQ(std::string(e->what()),
            "refwire: snapshot \"<memory>\": truncated header: " + std::to_string(good.size()) + " bytes, this header has 241");
  // Too short for the name length itself.
  e = failure<profile>(bytes(good.begin(), good.begin() + 20));
  ASSERT_TRUE(e);
  EXPECT_STREQ(e->what(), "refwire: snapshot \"<memory>\": truncated header: 20 bytes, a header has at least 41");
  e = failure<profile>(bytes(good.begin(), good.begin() + 9));
  ASSERT_TRUE(e);
  EXPECT_STREQ(e->what(), "refwire: snapshot \"<memory>\": truncated header: 9 bytes, a header has at least 36");
}

TEST(SnapshotHostile, NameLengthPast200) {
  bytes b = refwire::encode_snapshot(profile{"ann", 41});
  b.resize(b.size() + 300);  // room enough: the bound is checked, not the size
  for (unsigned m : {201u, 255u}) {
    b[32] = static_cast<std::byte>(m);
    const auto e = failure<profile>(b);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->kind(), refwire::snapshot_errc::header_checksum);
    EXPECT_EQ(e->offset(), 32u);
    EXPECT_EQ(std::string(e->what()), "refwire: snapshot \"<memory>\": type name length " + std::to_string(m) +
                                          " is over the limit of 200: the header is damaged");
  }
}

TEST(SnapshotHostile, BadChecksumAndVersion3) {
  const bytes good = refwire::encode_snapshot(profile{"ann", 41});
  bytes b = good;
  b[36] ^= std::byte{0x20};  // a name byte
  auto e = failure<profile>(b);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::header_checksum);
  EXPECT_EQ(e->offset(), 44u);
  const std::uint64_t stored = get_le(good, 44, 8);
  EXPECT_EQ(std::string(e->what()), "refwire: snapshot \"<memory>\": header checksum mismatch (stored " + hex(stored) +
                                        ", computed " + hex(XXH3_64bits(b.data(), 44)) + "): the header is damaged");
  b = good;
  b[28] = std::byte{9};  // the type version, unsealed
  EXPECT_EQ(failure<profile>(b)->kind(), refwire::snapshot_errc::header_checksum);
  b = good;
  put_le(b, 8, 3, 2);
  reseal(b);
  e = failure<profile>(b);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind(), refwire::snapshot_errc::unsupported_version);
  EXPECT_STREQ(e->what(),
               "refwire: snapshot \"<memory>\": unsupported snapshot version 3 (this build reads versions 1 and 2)");
}

TEST(SnapshotHostile, EveryNameLengthIsBounded) {
  // Every value of the name-length byte, resealed: a clear error or a load, never a read past the end.
  const bytes good = refwire::encode_snapshot(profile{"ann", 41});
  for (unsigned m = 0; m < 256; ++m) {
    bytes b = good;
    b[32] = static_cast<std::byte>(m);
    if (m <= 200 && 41 + m + 8 <= b.size()) reseal(b);
    const auto e = failure<profile>(b);
    if (m == 11) {
      EXPECT_FALSE(e) << "the real length";
      continue;
    }
    ASSERT_TRUE(e) << m;
  }
}

// ------------------------------------------------------------- catch once

TEST(SnapshotFailure, OneCatchForLoadAndSave) {
  const fs::path dir = fs::temp_directory_path() / ("refwire-evolution-missing-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path p = dir / "state.rfw";
  int caught = 0;
  for (int step = 0; step < 2; ++step) {
    try {
      if (step == 0) {
        refwire::save_snapshot(p, profile{"ann", 41});
      } else {
        (void)refwire::load_snapshot<profile>(p);
      }
      FAIL() << "step " << step << " succeeded";
    } catch (const refwire::snapshot_failure& e) {
      ++caught;
      EXPECT_EQ(e.kind(), refwire::snapshot_errc::io_error);
      EXPECT_EQ(e.sys_errno(), ENOENT);
      EXPECT_EQ(e.file(), p.string());
      const std::string what = e.what();
      if (step == 0) {
        EXPECT_EQ(what.rfind("refwire: save_snapshot \"" + p.string() + "\": cannot create a temporary file in \"", 0), 0u)
            << what;
      } else {
        EXPECT_EQ(what, "refwire: snapshot \"" + p.string() + "\": cannot open: No such file or directory");
      }
    }
  }
  EXPECT_EQ(caught, 2);
  // And each is still what it was: a std::system_error, a decode_error.
  EXPECT_THROW(refwire::save_snapshot(p, profile{}), std::system_error);
  EXPECT_THROW(refwire::save_snapshot(p, profile{}), refwire::snapshot_save_error);
  EXPECT_THROW((void)refwire::load_snapshot<profile>(p), refwire::decode_error);
  try {
    refwire::save_snapshot(p, profile{});
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::error_code(ENOENT, std::generic_category()));
  }
}
