// The protobuf decoder's fast paths against hostile and boundary input:
// short packed varint runs (decoded in one pass before their element count
// is known), the ASCII check of decoded strings (overlapping loads), strings
// built in place, and declaration-order fields. Every error must be the one
// the general path reports. Inputs are copied into exact-size heap buffers so
// that the ASan build catches any read past the end.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace pdfast {

enum class color : std::uint8_t { red, green, blue };
BOOST_DESCRIBE_ENUM(color, red, green, blue)

struct packs {
  std::vector<std::int32_t> i32;
  std::vector<std::uint8_t> u8;
  std::vector<std::uint64_t> u64;
  std::vector<color> colors;
  std::vector<std::int16_t> i16;
  friend bool operator==(const packs&, const packs&) = default;
};
BOOST_DESCRIBE_STRUCT(packs, (), (i32, u8, u64, colors, i16))

struct texts {
  std::string one;
  std::optional<std::string> maybe;
  std::vector<std::string> many;
  std::int32_t after = 0;
  friend bool operator==(const texts&, const texts&) = default;
};
BOOST_DESCRIBE_STRUCT(texts, (), (one, maybe, many, after))

}  // namespace pdfast

using namespace pdfast;

namespace {

using pbf = refwire::protobuf;

std::vector<std::byte> bytes_of(std::initializer_list<unsigned> b) {
  std::vector<std::byte> v(b.size());
  std::transform(b.begin(), b.end(), v.begin(), [](unsigned x) { return static_cast<std::byte>(x); });
  return v;
}

/// Appends the varint encoding of x to v.
void append_varint(std::vector<std::byte>& v, std::uint64_t x) {
  do {
    const auto low = static_cast<unsigned>(x & 0x7f);
    x >>= 7;
    v.push_back(static_cast<std::byte>(x != 0 ? (low | 0x80) : low));
  } while (x != 0);
}

/// Field `tag` as a packed run of the given raw bytes.
std::vector<std::byte> packed(unsigned tag, const std::vector<std::byte>& payload) {
  std::vector<std::byte> v = {static_cast<std::byte>(tag)};
  append_varint(v, payload.size());
  v.insert(v.end(), payload.begin(), payload.end());
  return v;
}

template <class T>
refwire::error decode(const std::vector<std::byte>& bytes, T& out, const refwire::decode_options& o = {}) {
  // An exact-size heap copy: ASan catches any read past its end.
  const auto copy = std::make_unique_for_overwrite<std::byte[]>(bytes.size());
  std::copy(bytes.begin(), bytes.end(), copy.get());
  return refwire::deserialize<pbf>(std::span<const std::byte>(copy.get(), bytes.size()), out, o);
}

template <class T>
refwire::error decode(const std::vector<std::byte>& bytes, const refwire::decode_options& o = {}) {
  T v{};
  return decode(bytes, v, o);
}

}  // namespace

// ------------------------------------------------------------ packed varints

TEST(protobuf_decode_fast, packed_runs_of_every_length_round_trip) {
  std::mt19937_64 rng(7);
  for (std::size_t n = 0; n <= 80; ++n) {
    for (int rep = 0; rep < 4; ++rep) {
      packs p;
      for (std::size_t i = 0; i < n; ++i) {
        const unsigned bits = static_cast<unsigned>(rng() % 64);
        const std::uint64_t x = rng() >> bits;
        p.i32.push_back(static_cast<std::int32_t>(x));  // negatives take ten bytes
        p.u8.push_back(static_cast<std::uint8_t>(x));
        p.u64.push_back(x);
        p.colors.push_back(static_cast<color>(x % 3));
        p.i16.push_back(static_cast<std::int16_t>(x));
      }
      const std::vector<std::byte> bytes = refwire::serialize<pbf>(p);
      packs back;
      ASSERT_FALSE(decode(bytes, back)) << n;
      EXPECT_EQ(back, p) << n;
    }
  }
}

TEST(protobuf_decode_fast, packed_runs_of_one_varint_length_with_one_odd_value_anywhere) {
  // Runs of values of 1, 2 or 3 bytes (decoded a word at a time), each with
  // one value of another length (or none) at every position, followed by
  // another field or at the very end of the input.
  const std::uint32_t of_length[] = {0, 100, 300, 70000};
  const std::uint32_t odd[] = {5, 1000, 3000000, 0xffffffffU};
  for (std::size_t len = 1; len <= 3; ++len) {
    for (std::size_t n = 1; n <= 40; ++n) {
      for (std::size_t at = 0; at <= n; ++at) {
        for (const bool trailer : {false, true}) {
          packs p;
          for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t x = i == at ? odd[len] : of_length[len] + static_cast<std::uint32_t>(i);
            p.i32.push_back(static_cast<std::int32_t>(x));
          }
          if (trailer) p.u64 = {1};
          packs back;
          ASSERT_FALSE(decode(refwire::serialize<pbf>(p), back)) << len << " " << n << " " << at;
          EXPECT_EQ(back, p) << len << " " << n << " " << at;
        }
      }
    }
  }
}

TEST(protobuf_decode_fast, out_of_range_values_inside_a_run_of_one_length) {
  // u8: two-byte values 128..255 fit, 300 does not (at its own offset).
  std::vector<std::byte> run;
  for (int i = 0; i < 9; ++i) append_varint(run, 200);
  append_varint(run, 300);
  for (int i = 0; i < 9; ++i) append_varint(run, 201);
  EXPECT_EQ(decode<packs>(packed(0x12, run)).message(),
            "$.u8: value 300 (wire bits) out of range for u8, at offset 20");
  // i16: three-byte values, 40000 out of range
  std::vector<std::byte> wide;
  for (int i = 0; i < 7; ++i) append_varint(wide, 20000);
  append_varint(wide, 40000);
  EXPECT_EQ(decode<packs>(packed(0x2a, wide)).message(),
            "$.i16: value 40000 (wire bits) out of range for i16, at offset 23");
  // one-byte enum values past the last enumerator are kept, as protobuf does
  packs p;
  ASSERT_FALSE(decode(packed(0x22, bytes_of({1, 2, 0, 1, 2, 7, 0, 1, 2, 1})), p));
  EXPECT_EQ(p.colors.size(), 10U);
}

TEST(protobuf_decode_fast, a_run_of_one_length_cut_by_the_end_of_its_field) {
  // two-byte varints, the run's length cutting the last one in half: the
  // bytes after the run (another field) must not complete it
  std::vector<std::byte> run;
  for (int i = 0; i < 8; ++i) append_varint(run, 300);
  std::vector<std::byte> in = {std::byte{0x0a}, static_cast<std::byte>(run.size() - 1)};
  in.insert(in.end(), run.begin(), run.end());
  in.push_back(std::byte{0x18});
  in.push_back(std::byte{0x01});
  EXPECT_EQ(decode<packs>(in).code(), refwire::errc::truncated);
  // three-byte varints cut the same way
  std::vector<std::byte> run3;
  for (int i = 0; i < 6; ++i) append_varint(run3, 70000);
  std::vector<std::byte> in3 = {std::byte{0x0a}, static_cast<std::byte>(run3.size() - 2)};
  in3.insert(in3.end(), run3.begin(), run3.end());
  EXPECT_EQ(decode<packs>(in3).code(), refwire::errc::truncated);
}

TEST(protobuf_decode_fast, packed_runs_append_to_earlier_runs_and_lone_elements) {
  // i32: packed {1, 300}, a lone 5, packed {-1}
  std::vector<std::byte> in = packed(0x0a, bytes_of({0x01, 0xac, 0x02}));
  in.push_back(std::byte{0x08});
  in.push_back(std::byte{0x05});
  const auto neg = packed(0x0a, bytes_of({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}));
  in.insert(in.end(), neg.begin(), neg.end());
  packs p;
  ASSERT_FALSE(decode(in, p));
  EXPECT_EQ(p.i32, (std::vector<std::int32_t>{1, 300, 5, -1}));
}

TEST(protobuf_decode_fast, bad_varints_in_short_runs) {
  // a value out of range for u8, at its own offset
  EXPECT_EQ(decode<packs>(packed(0x12, bytes_of({0x01, 0xac, 0x02}))).message(),
            "$.u8: value 300 (wire bits) out of range for u8, at offset 3");
  // out of range for an enum's underlying type
  EXPECT_EQ(decode<packs>(packed(0x22, bytes_of({0x01, 0x80, 0x02}))).code(), refwire::errc::invalid_value);
  EXPECT_EQ(decode<packs>(packed(0x2a, bytes_of({0x80, 0x80, 0x02}))).message(),
            "$.i16: value 32768 (wire bits) out of range for i16, at offset 2");
  // a varint cut by the end of the run, with and without ten bytes after its start
  EXPECT_EQ(decode<packs>(packed(0x0a, bytes_of({0x01, 0x80}))).message(),
            "$.i32: truncated varint, needs 2 bytes, 1 left, at offset 3");
  std::vector<std::byte> cut = {std::byte{0x01}};
  for (int i = 0; i < 12; ++i) cut.push_back(std::byte{0x80});
  EXPECT_EQ(decode<packs>(packed(0x0a, cut)).code(), refwire::errc::invalid_varint);
  // eleven bytes, and ten bytes over 64 bits
  EXPECT_EQ(decode<packs>(packed(0x1a, bytes_of({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00})))
                .message(),
            "$.u64: varint exceeds 64 bits, at offset 2");
  EXPECT_EQ(decode<packs>(packed(0x1a, bytes_of({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})))
                .code(),
            refwire::errc::invalid_varint);
  // the largest ten-byte varint is fine
  packs p;
  ASSERT_FALSE(decode(packed(0x1a, bytes_of({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})), p));
  EXPECT_EQ(p.u64, (std::vector<std::uint64_t>{std::numeric_limits<std::uint64_t>::max()}));
}

TEST(protobuf_decode_fast, limits_of_short_runs) {
  const std::vector<std::byte> five = packed(0x0a, bytes_of({0x01, 0x02, 0xac, 0x02, 0x04, 0x05}));
  EXPECT_EQ(decode<packs>(five, {.max_elements = 4}).code(), refwire::errc::element_limit);
  EXPECT_FALSE(decode<packs>(five, {.max_elements = 5}));
  EXPECT_EQ(decode<packs>(five, {.max_alloc_bytes = 19}).code(), refwire::errc::allocation_limit);
  EXPECT_FALSE(decode<packs>(five, {.max_alloc_bytes = 20}));
  // a limit is reported before a bad varint further on, as for a long run
  const std::vector<std::byte> bad = packed(0x12, bytes_of({0x01, 0x02, 0x03, 0xac, 0x02}));
  EXPECT_EQ(decode<packs>(bad, {.max_elements = 2}).code(), refwire::errc::element_limit);
  EXPECT_EQ(decode<packs>(bad, {.max_elements = 4}).code(), refwire::errc::invalid_value);
  // the same for a run too long for the one-pass path
  std::vector<std::byte> long_run(200, std::byte{0x01});
  long_run.push_back(std::byte{0xac});
  long_run.push_back(std::byte{0x02});
  EXPECT_EQ(decode<packs>(packed(0x12, long_run), {.max_elements = 100}).code(), refwire::errc::element_limit);
  EXPECT_EQ(decode<packs>(packed(0x12, long_run)).message(),
            "$.u8: value 300 (wire bits) out of range for u8, at offset 203");
}

TEST(protobuf_decode_fast, every_cut_of_a_packed_message) {
  packs p;
  p.i32 = {1, -1, 300, 70000, 0, 2147483647};
  p.u64 = {1ULL << 63, 5};
  const std::vector<std::byte> full = refwire::serialize<pbf>(p);
  for (std::size_t n = 0; n < full.size(); ++n) {
    const std::vector<std::byte> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    packs v;
    const refwire::error e = decode(cut, v);
    if (e) {
      EXPECT_LE(e.offset(), n);
    }
  }
}

// ------------------------------------------------------------------ strings

TEST(protobuf_decode_fast, strings_of_every_length_with_one_non_ascii_byte_anywhere) {
  for (std::size_t n = 0; n <= 40; ++n) {
    const std::string ascii(n, 'a');
    texts t;
    t.one = ascii;
    t.many = {ascii, ascii};
    texts back;
    ASSERT_FALSE(decode(refwire::serialize<pbf>(t), back)) << n;
    EXPECT_EQ(back, t) << n;
    for (std::size_t at = 0; at < n; ++at) {
      std::vector<std::byte> in = {std::byte{0x0a}};
      append_varint(in, n);
      for (std::size_t i = 0; i < n; ++i) in.push_back(std::byte{'a'});
      in[2 + at] = std::byte{0x80};  // a lone continuation byte
      EXPECT_EQ(decode<texts>(in).message(), "$.one: string is not valid UTF-8, at offset 1") << n << " " << at;
      if (at + 1 < n) {  // a valid two-byte character there
        in[2 + at] = std::byte{0xc3};
        in[3 + at] = std::byte{0xa9};
        texts ok;
        ASSERT_FALSE(decode(in, ok)) << n << " " << at;
        EXPECT_EQ(ok.one.size(), n);
      }
    }
  }
}

TEST(protobuf_decode_fast, a_repeated_string_field_keeps_the_last_and_strings_merge_into_filled_values) {
  // one = "first", then one = "a much longer second value", then after = 7
  std::vector<std::byte> in = {std::byte{0x0a}, std::byte{5}};
  for (char c : std::string("first")) in.push_back(static_cast<std::byte>(c));
  const std::string second = "a much longer second value";
  in.push_back(std::byte{0x0a});
  in.push_back(static_cast<std::byte>(second.size()));
  for (char c : second) in.push_back(static_cast<std::byte>(c));
  in.push_back(std::byte{0x20});
  in.push_back(std::byte{7});
  texts t;
  ASSERT_FALSE(decode(in, t));
  EXPECT_EQ(t.one, second);
  EXPECT_EQ(t.after, 7);
  // decoding into a value that holds long strings replaces them
  texts filled;
  filled.one.assign(100, 'x');
  filled.maybe = std::string(50, 'y');
  filled.many = {std::string(30, 'z')};
  ASSERT_FALSE(decode(in, filled));
  EXPECT_EQ(filled.one, second);
  EXPECT_FALSE(filled.maybe.has_value());
  EXPECT_TRUE(filled.many.empty());
}

TEST(protobuf_decode_fast, fields_out_of_declaration_order_and_unknown_ones) {
  texts t;
  t.one = "one";
  t.maybe = "maybe";
  t.many = {"x", "y"};
  t.after = -5;
  const std::vector<std::byte> in_order = refwire::serialize<pbf>(t);
  // after, then an unknown field 9 (varint), then the rest
  std::vector<std::byte> shuffled = {std::byte{0x20}};
  append_varint(shuffled, static_cast<std::uint64_t>(std::int64_t{-5}));
  shuffled.push_back(std::byte{0x48});
  shuffled.push_back(std::byte{0x01});
  shuffled.insert(shuffled.end(), in_order.begin(), in_order.end() - 11);  // without `after`
  texts back;
  ASSERT_FALSE(decode(shuffled, back));
  EXPECT_EQ(back, t);
  EXPECT_EQ(decode<texts>(shuffled, {.reject_unknown_fields = true}).code(), refwire::errc::unknown_field);
}
