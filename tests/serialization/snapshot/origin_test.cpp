// What the positional binary format can and cannot tell about bytes of unknown
// origin, and what a snapshot adds (README, docs/security.md): another
// format's bytes may decode as a binary value; the same bytes given to
// decode_snapshot are a snapshot_error, and so is the snapshot of a type with
// another layout (binary) or other field names (JSON, protobuf).
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

struct note {
  std::string text;
  friend bool operator==(const note&, const note&) = default;
};
BOOST_DESCRIBE_STRUCT(note, (), (text))

struct message {
  std::string body;
};
BOOST_DESCRIBE_STRUCT(message, (), (body))

struct numbered {  // starts like a note, one more field: another layout
  std::string body;
  std::uint32_t id = 0;
};
BOOST_DESCRIBE_STRUCT(numbered, (), (body, id))

/// JSON of a message, exactly 124 bytes: '{' (0x7b = 123) then 123 bytes.
std::vector<std::byte> json_of_124_bytes() {
  message m;
  m.body = std::string(124 - std::string(R"({"body":""})").size(), 'x');
  return refwire::serialize<refwire::json>(m);
}

}  // namespace

TEST(UnknownOrigin, JsonBytesCanDecodeAsABinaryValue) {
  const std::vector<std::byte> json = json_of_124_bytes();
  ASSERT_EQ(json.size(), 124u);
  ASSERT_EQ(json[0], std::byte{'{'});
  // The binary format reads '{' as a string length of 123 and takes the rest:
  // no error, a value nobody wrote. Positional bytes carry no type.
  note n;
  ASSERT_FALSE(refwire::deserialize<refwire::binary>(json, n));
  EXPECT_EQ(n.text, std::string(R"("body":")") + std::string(113, 'x') + "\"}");
}

TEST(UnknownOrigin, TheSameBytesAsASnapshotAreAnError) {
  const std::vector<std::byte> json = json_of_124_bytes();
  try {
    (void)refwire::decode_snapshot<note>(json);
    FAIL() << "decode_snapshot accepted JSON bytes";
  } catch (const refwire::snapshot_error& e) {
    EXPECT_EQ(e.kind(), refwire::snapshot_errc::not_a_snapshot);
    EXPECT_EQ(e.code(), refwire::errc::invalid_snapshot);
  }
}

TEST(UnknownOrigin, AnotherTypesSnapshotIsAnError) {
  // A numbered snapshot's payload starts like a note's (one string), and the
  // binary format decodes its first bytes as a note; the snapshot's layout
  // fingerprint differs, so the snapshot says so instead of decoding.
  numbered m;
  m.body = "hello";
  const std::vector<std::byte> snap = refwire::encode_snapshot(m);
  const std::size_t header = 41 + static_cast<std::size_t>(snap[32]);
  note n;
  ASSERT_FALSE(refwire::deserialize<refwire::binary>(std::span<const std::byte>(snap).subspan(header, 6), n));
  EXPECT_EQ(n.text, "hello");
  try {
    (void)refwire::decode_snapshot<note>(snap);
    FAIL() << "decode_snapshot accepted another type's snapshot";
  } catch (const refwire::snapshot_error& e) {
    EXPECT_EQ(e.kind(), refwire::snapshot_errc::fingerprint_mismatch);
  }
}

TEST(UnknownOrigin, TheSameLayoutUnderOtherNamesIsOneTypeToBinary) {
  // A binary snapshot guards the layout (field types and order), not the
  // names: a note and a message (one string each) share it, which is what
  // keeps a snapshot loadable when a field is renamed. A JSON snapshot
  // guards the names too.
  const message m{"hello"};
  EXPECT_EQ(refwire::decode_snapshot<note>(refwire::encode_snapshot(m)).text, "hello");
  try {
    (void)refwire::decode_snapshot<note>(refwire::encode_snapshot<refwire::json>(m));
    FAIL() << "a JSON snapshot loaded under other field names";
  } catch (const refwire::snapshot_error& e) {
    EXPECT_EQ(e.kind(), refwire::snapshot_errc::fingerprint_mismatch);
  }
}

TEST(UnknownOrigin, AnEnvelopeDecodedWithoutTheOptionIsNotDetected) {
  // The reverse of a missing magic: lz4 envelope bytes decoded without
  // decode_options::compression. The binary format cannot know; here the
  // envelope's magic reads as a string length and the decode fails, but it
  // may as well succeed for another type. A snapshot records the compression.
  note big{std::string(600, 'a')};
  const std::vector<std::byte> z = refwire::serialize(big, {.compression = refwire::compression::lz4});
  note n;
  const refwire::error e = refwire::deserialize<refwire::binary>(z, n);
  EXPECT_TRUE(e);
  const std::vector<std::byte> snap = refwire::encode_snapshot(big, {.compression = refwire::compression::lz4});
  EXPECT_EQ(refwire::decode_snapshot<note>(snap), big);
}
