// lz4 compression over the formats (compression.hpp): round trips above and
// below the threshold, the envelope's bytes, prefix decoding, and hostile
// envelopes (bad method bytes, lying sizes, corrupt blocks, truncations) with
// their exact codes and messages. A replaced global operator new proves that
// a lying size fails before anything large is allocated, and that compressing
// into a reused buffer does not allocate in steady state.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "../common/alloc_watch.hpp"
#include "../common/field_eq.hpp"
#include "../common/types.hpp"

namespace {

struct row {
  std::string name;
  std::int64_t value = 0;
  friend bool operator==(const row&, const row&) = default;
};
BOOST_DESCRIBE_STRUCT(row, (), (name, value))

struct table {
  std::string title;
  std::vector<row> rows;
  std::vector<double> samples;
  friend bool operator==(const table&, const table&) = default;
};
BOOST_DESCRIBE_STRUCT(table, (), (title, rows, samples))

table make_table(std::size_t n) {
  table t;
  t.title = "quarterly numbers";
  for (std::size_t i = 0; i < n; ++i) {
    t.rows.push_back({"row number " + std::to_string(i % 17), static_cast<std::int64_t>(i * 3)});
    t.samples.push_back(static_cast<double>(i % 10) * 0.5);
  }
  return t;
}

constexpr refwire::encode_options lz4_out{.compression = refwire::compression::lz4};
constexpr refwire::decode_options lz4_in{.compression = refwire::compression::lz4};

std::vector<std::byte> bytes(std::initializer_list<unsigned> v) {
  std::vector<std::byte> out;
  for (unsigned b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

/// Every envelope starts with these four bytes; the method byte follows.
const std::vector<std::byte> magic = bytes({0xf7, 0x72, 0x77, 0x7a});
constexpr std::size_t method_at = 4;

/// The magic followed by v: an envelope written by hand.
std::vector<std::byte> env(std::initializer_list<unsigned> v) {
  std::vector<std::byte> out = magic;
  for (unsigned b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

void append_varint(std::vector<std::byte>& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<std::byte>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<std::byte>(v));
}

/// Decodes `in` as a table with lz4 and returns the error (exact-size heap copy for ASan).
refwire::error decode_table(const std::vector<std::byte>& in, const refwire::decode_options& o = lz4_in) {
  std::vector<std::byte> exact(in);
  exact.shrink_to_fit();
  table t;
  return refwire::deserialize<refwire::binary>(exact, t, o);
}

}  // namespace

// ------------------------------------------------------------ round trips

TEST(Compression, EnumNames) {
  EXPECT_EQ(refwire::to_string(refwire::compression::none), "none");
  EXPECT_EQ(refwire::to_string(refwire::compression::lz4), "lz4");
  EXPECT_EQ(refwire::to_string(refwire::errc::corrupt_compressed), "corrupt_compressed");
}

TEST(Compression, NoneIsTheFormatsBytesUnchanged) {
  const table t = make_table(100);
  EXPECT_EQ(refwire::serialize(t), refwire::serialize(t, {.compression = refwire::compression::none}));
}

TEST(Compression, AboveThresholdIsAnLz4Block) {
  const table t = make_table(1000);
  const std::vector<std::byte> raw = refwire::serialize(t);
  const std::vector<std::byte> z = refwire::serialize(t, lz4_out);
  ASSERT_GE(raw.size(), 512u);
  EXPECT_EQ(z[method_at], std::byte{1});
  EXPECT_LT(z.size() * 4, raw.size()) << "repetitive rows compress well";
  // magic, method, varint original size, varint block size, block
  std::vector<std::byte> head = env({1});
  append_varint(head, raw.size());
  ASSERT_GT(z.size(), head.size());
  EXPECT_TRUE(std::equal(head.begin(), head.end(), z.begin()));
  const table back = refwire::deserialize<table>(z, lz4_in);
  EXPECT_EQ(back, t);
  // The generic decompress gives back the format's bytes exactly.
  std::vector<std::byte> unpacked;
  ASSERT_FALSE(refwire::decompress(z, unpacked));
  EXPECT_EQ(unpacked, raw);
}

TEST(Compression, BelowThresholdIsStored) {
  const table t = make_table(2);
  const std::vector<std::byte> raw = refwire::serialize(t);
  ASSERT_LT(raw.size(), 512u);
  const std::vector<std::byte> z = refwire::serialize(t, lz4_out);
  ASSERT_EQ(z.size(), raw.size() + 6);
  EXPECT_TRUE(std::equal(magic.begin(), magic.end(), z.begin()));
  EXPECT_EQ(z[4], std::byte{0});
  EXPECT_EQ(z[5], static_cast<std::byte>(raw.size()));
  EXPECT_TRUE(std::equal(raw.begin(), raw.end(), z.begin() + 6));
  EXPECT_EQ(refwire::deserialize<table>(z, lz4_in), t);
}

TEST(Compression, ThresholdIsConfigurable) {
  const table t = make_table(20);
  const std::vector<std::byte> raw = refwire::serialize(t);
  auto at = [&](std::size_t threshold) {
    return refwire::serialize(t, {.compression = refwire::compression::lz4, .compression_threshold = threshold})[method_at];
  };
  EXPECT_EQ(at(raw.size()), std::byte{1});
  EXPECT_EQ(at(raw.size() + 1), std::byte{0});
  EXPECT_EQ(at(0), std::byte{1});
}

TEST(Compression, IncompressibleIsStored) {
  std::mt19937_64 rng(7);
  std::vector<std::byte> noise(4096);
  for (std::byte& b : noise) b = static_cast<std::byte>(rng() & 0xff);
  const std::vector<std::byte> z = refwire::serialize(noise, lz4_out);
  EXPECT_EQ(z[method_at], std::byte{0});
  EXPECT_EQ(refwire::deserialize<std::vector<std::byte>>(z, lz4_in), noise);
}

TEST(Compression, EveryShapeRoundTrips) {
  shapes::containers c;
  c.text = std::string(2000, 'x');
  c.strings.assign(50, "again and again");
  c.m = {{"a", 1}, {"b", 2}};
  c.ints.assign(300, 42);
  for (std::size_t threshold : {std::size_t{0}, std::size_t{512}, std::size_t{1} << 20}) {
    const auto z = refwire::serialize(c, {.compression = refwire::compression::lz4, .compression_threshold = threshold});
    shapes::containers back;
    ASSERT_FALSE(refwire::deserialize<refwire::binary>(z, back, lz4_in)) << threshold;
    testing_support::expect_fields_eq(back, c);
  }
  shapes::scalars s;
  s.i64 = -5;
  s.d = 2.5;
  const auto z = refwire::serialize(s, lz4_out);
  EXPECT_EQ(refwire::deserialize<shapes::scalars>(z, lz4_in), s);
}

TEST(Compression, EmptyEncodingIsStored) {
  const shapes::empty e;
  const auto z = refwire::serialize(e, {.compression = refwire::compression::lz4, .compression_threshold = 0});
  EXPECT_EQ(z, env({0, 0}));
  shapes::empty back;
  EXPECT_FALSE(refwire::deserialize<refwire::binary>(z, back, lz4_in));
}

TEST(Compression, ReusedBufferDoesNotAllocateInSteadyState) {
  const table t = make_table(2000);
  std::vector<std::byte> buf;
  for (int i = 0; i < 3; ++i) refwire::serialize<refwire::binary>(t, buf, lz4_out);  // warm-up
  const std::vector<std::byte> first = buf;
  std::size_t allocations = 0;
  {
    refwire_test::alloc_watch w;
    for (int i = 0; i < 10; ++i) refwire::serialize<refwire::binary>(t, buf, lz4_out);
    allocations = w.count();
  }
  EXPECT_EQ(allocations, 0u);
  EXPECT_EQ(buf, first);
}

TEST(Compression, PrefixDecodingReadsOneEnvelope) {
  const table big = make_table(500);
  const table small = make_table(1);
  std::vector<std::byte> stream = refwire::serialize(big, lz4_out);
  const std::size_t first = stream.size();
  const std::vector<std::byte> second = refwire::serialize(small, lz4_out);
  stream.insert(stream.end(), second.begin(), second.end());
  stream.push_back(std::byte{0x7f});

  std::span<const std::byte> in(stream);
  table v;
  std::size_t used = 0;
  ASSERT_FALSE(refwire::deserialize_prefix<refwire::binary>(in, v, used, lz4_in));
  EXPECT_EQ(used, first);
  EXPECT_EQ(v, big);
  in = in.subspan(used);
  ASSERT_FALSE(refwire::deserialize_prefix<refwire::binary>(in, v, used, lz4_in));
  EXPECT_EQ(used, second.size());
  EXPECT_EQ(v, small);
  EXPECT_EQ(in.size() - used, 1u);

  // The whole-input form rejects what follows the envelope.
  const refwire::error e = decode_table(stream);
  EXPECT_EQ(e.code(), refwire::errc::trailing_bytes);
  EXPECT_EQ(e.message(), "$: " + std::to_string(stream.size() - first) +
                             " trailing bytes after the compression envelope, at offset " + std::to_string(first));
}

TEST(Compression, PayloadMustSpanTheEnvelope) {
  std::vector<std::byte> raw = refwire::serialize(make_table(1));
  raw.push_back(std::byte{0});  // one byte too many inside the envelope
  std::vector<std::byte> z;
  refwire::compress(raw, z);
  const refwire::error e = decode_table(z);
  EXPECT_EQ(e.code(), refwire::errc::trailing_bytes);
  EXPECT_EQ(e.offset(), raw.size() - 1) << "payload errors have offsets in the original bytes";
}

/// A codec whose surrogate is itself a compressed serialization: the per-thread
/// scratch buffer must not be shared by the nested calls.
struct boxed {
  table inner;
  friend bool operator==(const boxed&, const boxed&) = default;
};
template <>
struct refwire::codec<boxed> {
  using wire = std::vector<std::byte>;
  static wire to_wire(const boxed& b) { return refwire::serialize(b.inner, lz4_out); }
  static boxed from_wire(wire&& w) { return boxed{refwire::deserialize<table>(w, lz4_in)}; }
};

TEST(Compression, NestedCompressedSerializeInACodec) {
  const std::vector<boxed> v{boxed{make_table(300)}, boxed{make_table(7)}};
  const auto z = refwire::serialize(v, lz4_out);
  EXPECT_EQ(refwire::deserialize<std::vector<boxed>>(z, lz4_in), v);
}

TEST(Compression, PublicCompressDecompress) {
  const std::string text(10000, 'a');
  const std::span<const std::byte> in = refwire::detail::as_bytes(text);
  std::vector<std::byte> z{std::byte{0xee}};  // appends after what is there
  refwire::compress(in, z);
  EXPECT_EQ(z[0], std::byte{0xee});
  EXPECT_TRUE(std::equal(magic.begin(), magic.end(), z.begin() + 1));
  EXPECT_EQ(z[1 + method_at], std::byte{1});
  std::vector<std::byte> out{std::byte{0xdd}};
  std::size_t used = 0;
  ASSERT_FALSE(refwire::decompress(std::span<const std::byte>(z).subspan(1), out, {}, &used));
  EXPECT_EQ(used, z.size() - 1);
  ASSERT_EQ(out.size(), text.size() + 1);
  EXPECT_EQ(out[0], std::byte{0xdd});
  EXPECT_EQ(std::memcmp(out.data() + 1, text.data(), text.size()), 0);
  // A failure leaves out as it was.
  const std::vector<std::byte> bad = env({9});
  EXPECT_TRUE(refwire::decompress(bad, out));
  EXPECT_EQ(out.size(), text.size() + 1);
}

#ifndef REFWIRE_GOLDEN_DIR
#error "REFWIRE_GOLDEN_DIR must name the directory of the golden files"
#endif

TEST(Compression, GoldenEnvelope) {
  // The envelope's bytes are fixed; lz4's own output for a given input and
  // liblz4 version is deterministic, and a different lz4 must still read it.
  const std::vector<std::byte> z = refwire::serialize(make_table(300), lz4_out);
  const std::filesystem::path path = std::filesystem::path(REFWIRE_GOLDEN_DIR) / "lz4-envelope.bin";
  const char* update = std::getenv("REFWIRE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(z.data()), static_cast<std::streamsize>(z.size()));
  }
  std::ifstream f(path, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> golden(c.size());
  if (!c.empty()) std::memcpy(golden.data(), c.data(), c.size());
  ASSERT_FALSE(golden.empty()) << "missing golden file " << path << " (run with REFWIRE_UPDATE_GOLDEN=1)";
  EXPECT_TRUE(std::equal(magic.begin(), magic.end(), golden.begin())) << "the golden envelope starts with the magic";
  EXPECT_EQ(golden[method_at], std::byte{1});
  EXPECT_EQ(refwire::deserialize<table>(golden, lz4_in), make_table(300)) << "the golden envelope decodes";
  // The block's bytes may differ with another liblz4 version: compare the
  // method and the original size (the envelope's own bytes).
  std::size_t head = method_at + 2;
  while (static_cast<unsigned>(z[head - 1]) & 0x80U) ++head;
  ASSERT_GE(golden.size(), head);
  EXPECT_TRUE(std::equal(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(head), golden.begin()))
      << "the envelope header changed";
}

// -------------------------------------------------------- hostile envelopes

TEST(CompressionHostile, UnknownMethodByte) {
  for (unsigned m : {2u, 0x80u, 0xffu}) {
    const refwire::error e = decode_table(env({m, 1, 0}));
    EXPECT_EQ(e.code(), refwire::errc::corrupt_compressed);
    EXPECT_EQ(e.offset(), method_at);
  }
  EXPECT_EQ(decode_table(env({2, 1, 0})).message(),
            "$: lz4: unknown envelope method byte 0x02 (expected 0 stored or 1 lz4), at offset 4");
}

TEST(CompressionHostile, EmptyInput) {
  const refwire::error e = decode_table({});
  EXPECT_EQ(e.code(), refwire::errc::truncated);
  EXPECT_EQ(e.message(), "$: lz4: truncated envelope, the magic needs 4 bytes, 0 left, at offset 0");
  const refwire::error after_magic = decode_table(magic);
  EXPECT_EQ(after_magic.code(), refwire::errc::truncated);
  EXPECT_EQ(after_magic.message(), "$: lz4: truncated envelope, the method byte needs 1 byte, 0 left, at offset 4");
}

TEST(CompressionHostile, HugeClaimFailsFastWithoutAllocating) {
  std::vector<std::byte> in = env({1});
  append_varint(in, std::uint64_t{1} << 40);
  append_varint(in, 4);
  in.insert(in.end(), 4, std::byte{0});
  refwire::error e;
  std::size_t largest = 0;
  {
    refwire_test::alloc_watch w;
    e = decode_table(in);
    largest = w.largest();
  }
  EXPECT_EQ(e.code(), refwire::errc::allocation_limit);
  EXPECT_EQ(e.message(), "$: lz4: claims 1099511627776 bytes, over the 1073741824-byte limit, at offset 5");
  EXPECT_LT(largest, 4096u);

  // The same for a stored envelope, and with a smaller limit.
  std::vector<std::byte> stored = env({0});
  append_varint(stored, 100);
  stored.insert(stored.end(), 100, std::byte{0});
  refwire::decode_options strict = lz4_in;
  strict.max_alloc_bytes = 99;
  EXPECT_EQ(decode_table(stored, strict).message(), "$: lz4: claims 100 bytes, over the 99-byte limit, at offset 5");
}

TEST(CompressionHostile, ClaimLz4CannotProduceFailsFast) {
  std::vector<std::byte> in = env({1});
  append_varint(in, std::uint64_t{512} << 20);  // 512 MiB, under the limit
  append_varint(in, 4);
  in.insert(in.end(), 4, std::byte{0});
  refwire::error e;
  std::size_t largest = 0;
  {
    refwire_test::alloc_watch w;
    e = decode_table(in);
    largest = w.largest();
  }
  EXPECT_EQ(e.code(), refwire::errc::corrupt_compressed);
  EXPECT_EQ(e.message(), "$: lz4: claims 536870912 bytes from a 4-byte block, which lz4 cannot produce, at offset 10");
  EXPECT_LT(largest, 4096u);
}

TEST(CompressionHostile, LyingOriginalSize) {
  const std::vector<std::byte> raw = refwire::serialize(make_table(1000));
  std::vector<std::byte> good = refwire::serialize(make_table(1000), lz4_out);
  ASSERT_EQ(good[method_at], std::byte{1});
  // Rebuild the envelope with the size off by one either way.
  std::size_t pos = method_at + 1;
  while (static_cast<unsigned>(good[pos]) & 0x80U) ++pos;
  const std::vector<std::byte> rest(good.begin() + static_cast<std::ptrdiff_t>(pos + 1), good.end());
  auto with_size = [&](std::uint64_t n) {
    std::vector<std::byte> v = env({1});
    append_varint(v, n);
    v.insert(v.end(), rest.begin(), rest.end());
    return v;
  };
  const std::size_t block_at = 4 + 1 + 3 + 2;  // magic, method, 3-byte size, 2-byte block size: the block's offset
  ASSERT_GT(raw.size(), std::size_t{1} << 14);
  const refwire::error more = decode_table(with_size(raw.size() + 1));
  EXPECT_EQ(more.code(), refwire::errc::corrupt_compressed);
  EXPECT_EQ(more.message(), "$: lz4: compressed block decompresses to " + std::to_string(raw.size()) +
                                " bytes, the envelope claims " + std::to_string(raw.size() + 1) + ", at offset " +
                                std::to_string(block_at));
  const refwire::error less = decode_table(with_size(raw.size() - 1));
  EXPECT_EQ(less.code(), refwire::errc::corrupt_compressed);
  EXPECT_EQ(less.message(), "$: lz4: compressed block is corrupt, at offset " + std::to_string(block_at));
  ASSERT_FALSE(decode_table(with_size(raw.size())));
}

TEST(CompressionHostile, CorruptBlocks) {
  const std::vector<std::byte> good = refwire::serialize(make_table(1000), lz4_out);
  std::mt19937_64 rng(11);
  int rejected = 0;
  for (int i = 0; i < 2000; ++i) {
    std::vector<std::byte> bad = good;
    const std::size_t at = 9 + static_cast<std::size_t>(rng() % (bad.size() - 9));
    bad[at] ^= static_cast<std::byte>(1U << (rng() % 8));
    const refwire::error e = decode_table(bad);  // must never crash; often decodes to other values
    if (e) ++rejected;
  }
  EXPECT_GT(rejected, 0);
  // A block of garbage.
  std::vector<std::byte> garbage = env({1});
  append_varint(garbage, 1000);
  append_varint(garbage, 8);
  garbage.insert(garbage.end(), 8, std::byte{0xff});
  EXPECT_EQ(decode_table(garbage).message(), "$: lz4: compressed block is corrupt, at offset 8");
}

TEST(CompressionHostile, TruncatedBlockLength) {
  std::vector<std::byte> in = env({1});
  append_varint(in, 1000);
  append_varint(in, 100);
  in.insert(in.end(), 40, std::byte{0});
  EXPECT_EQ(decode_table(in).message(), "$: lz4: truncated compressed block, needs 100 bytes, 40 left, at offset 8");
  std::vector<std::byte> stored = env({0, 50});
  stored.insert(stored.end(), 10, std::byte{0});
  EXPECT_EQ(decode_table(stored).message(), "$: lz4: truncated stored data, needs 50 bytes, 10 left, at offset 6");
}

TEST(CompressionHostile, EveryTruncationIsAnError) {
  for (const auto& full : {refwire::serialize(make_table(1000), lz4_out), refwire::serialize(make_table(1), lz4_out)}) {
    for (std::size_t n = 0; n < full.size(); ++n) {
      const std::vector<std::byte> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
      const refwire::error e = decode_table(cut);
      ASSERT_TRUE(e) << n;
      EXPECT_EQ(e.code(), refwire::errc::truncated) << n << ": " << e.message();
    }
  }
}

TEST(CompressionHostile, Varints) {
  EXPECT_EQ(decode_table(env({0, 0x80, 0})).message(),
            "$: lz4: the size varint is not minimally encoded, at offset 5");
  EXPECT_EQ(decode_table(env({0, 0x80})).message(),
            "$: lz4: truncated envelope, the size varint needs 2 bytes, 1 left, at offset 6");
  EXPECT_EQ(decode_table(env({1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})).message(),
            "$: lz4: the size varint exceeds 64 bits, at offset 5");
  EXPECT_EQ(decode_table(env({1, 10, 0x80, 0x00})).message(),
            "$: lz4: the block size varint is not minimally encoded, at offset 6");
}

TEST(CompressionHostile, ZeroSizesInAnLz4Envelope) {
  EXPECT_EQ(decode_table(env({1, 0, 0})).code(), refwire::errc::corrupt_compressed);
  EXPECT_EQ(decode_table(env({1, 5, 0})).code(), refwire::errc::corrupt_compressed);
}

TEST(CompressionHostile, PayloadErrorsComeFromTheFormat) {
  const std::vector<std::byte> raw = refwire::serialize(make_table(1));
  std::vector<std::byte> z;
  refwire::compress(std::span<const std::byte>(raw).first(raw.size() - 1), z);
  const refwire::error e = decode_table(z);
  const refwire::error direct = [&] {
    table t;
    return refwire::deserialize<refwire::binary>(std::span<const std::byte>(raw).first(raw.size() - 1), t);
  }();
  ASSERT_TRUE(direct);
  EXPECT_EQ(e.message(), direct.message());
  EXPECT_THROW((void)refwire::deserialize<table>(z, lz4_in), refwire::decode_error);
}

TEST(CompressionHostile, UncompressedInputReadAsCompressed) {
  // Bytes written without compression, read as if with it: the magic is
  // missing, and the error says so, whatever the format.
  const table t = make_table(5);
  const std::string hint = "); was this encoded without compression?, at offset 0";
  const refwire::error bin = decode_table(refwire::serialize(t));
  EXPECT_EQ(bin.code(), refwire::errc::corrupt_compressed);
  EXPECT_EQ(bin.offset(), 0u);
  EXPECT_EQ(bin.message(),
            "$: lz4: not a refwire compression envelope (expected the magic f7 72 77 7a, found 11 71 75 61" + hint);
  table back;
  const refwire::error json = refwire::deserialize<refwire::json>(refwire::serialize<refwire::json>(t), back, lz4_in);
  EXPECT_EQ(json.code(), refwire::errc::corrupt_compressed);
  EXPECT_EQ(json.message(),
            "$: lz4: not a refwire compression envelope (expected the magic f7 72 77 7a, found 7b 22 74 69" + hint);
  const refwire::error pb =
      refwire::deserialize<refwire::protobuf>(refwire::serialize<refwire::protobuf>(t), back, lz4_in);
  EXPECT_EQ(pb.code(), refwire::errc::corrupt_compressed);
  EXPECT_EQ(pb.message(),
            "$: lz4: not a refwire compression envelope (expected the magic f7 72 77 7a, found 0a 11 71 75" + hint);
  // The throwing form and the public decompress say the same.
  try {
    (void)refwire::deserialize<table>(refwire::serialize(t), lz4_in);
    ADD_FAILURE() << "no decode_error";
  } catch (const refwire::decode_error& e) {
    EXPECT_EQ(e.code(), refwire::errc::corrupt_compressed);
  }
  std::vector<std::byte> out;
  EXPECT_EQ(refwire::decompress(refwire::serialize(t), out).message(), bin.message());
}

TEST(CompressionHostile, WrongMagic) {
  for (std::size_t i = 0; i < magic.size(); ++i) {
    std::vector<std::byte> in = refwire::serialize(make_table(3), lz4_out);
    in[i] ^= std::byte{0x01};
    const refwire::error e = decode_table(in);
    EXPECT_EQ(e.code(), refwire::errc::corrupt_compressed) << i;
    EXPECT_EQ(e.offset(), 0u) << i;
  }
  EXPECT_EQ(decode_table(bytes({0xf7, 0x72, 0x77, 0x7b, 0, 0})).message(),
            "$: lz4: not a refwire compression envelope (expected the magic f7 72 77 7a, found f7 72 77 7b); "
            "was this encoded without compression?, at offset 0");
}

TEST(CompressionHostile, TruncatedMagic) {
  // A proper prefix of the magic is a truncation (a stream may still bring the rest) ...
  for (std::size_t n = 1; n < magic.size(); ++n) {
    const std::vector<std::byte> cut(magic.begin(), magic.begin() + static_cast<std::ptrdiff_t>(n));
    const refwire::error e = decode_table(cut);
    EXPECT_EQ(e.code(), refwire::errc::truncated) << n;
    EXPECT_EQ(e.message(), "$: lz4: truncated envelope, the magic needs 4 bytes, " + std::to_string(n) +
                               " left, at offset " + std::to_string(n));
  }
  // ... a short input that does not match it is not an envelope at all.
  const refwire::error e = decode_table(bytes({0xf7, 0x00}));
  EXPECT_EQ(e.code(), refwire::errc::corrupt_compressed);
  EXPECT_EQ(e.message(),
            "$: lz4: not a refwire compression envelope (expected the magic f7 72 77 7a, found f7 00); "
            "was this encoded without compression?, at offset 0");
}

TEST(CompressionHostile, EnvelopeOfTheEarlierLayoutIsRejected) {
  // Envelopes written before the magic (method byte first; lz4-envelope-v0.bin
  // is one, kept as it was written) are a clear corrupt_compressed error,
  // never a value.
  const std::filesystem::path path = std::filesystem::path(REFWIRE_GOLDEN_DIR) / "lz4-envelope-v0.bin";
  std::ifstream f(path, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> old(c.size());
  if (!c.empty()) std::memcpy(old.data(), c.data(), c.size());
  ASSERT_GT(old.size(), 4u) << "missing " << path;
  ASSERT_EQ(old[0], std::byte{1}) << "an lz4 block, method byte first";
  const refwire::error e = decode_table(old);
  EXPECT_EQ(e.code(), refwire::errc::corrupt_compressed);
  EXPECT_EQ(e.message(),
            "$: lz4: not a refwire compression envelope (expected the magic f7 72 77 7a, found 01 8a 45 93); "
            "was this encoded without compression?, at offset 0");
  // A stored envelope of the earlier layout.
  EXPECT_EQ(decode_table(bytes({0, 3, 0, 0, 0})).code(), refwire::errc::corrupt_compressed);
}
