// The protobuf encoder's fast paths, against a plain reference encoder written
// here: varints of every length (built in a word for four bytes and more),
// strings and bytes of every length around the fixed-size copies (up to 64
// bytes), UTF-8 rejection at every position, and runs long enough to cross
// the writer's stage.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <boost/describe.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace encpaths {

struct scalars {
  std::uint64_t u64 = 0;
  std::int64_t i64 = 0;
  std::int32_t i32 = 0;
  std::uint32_t u32 = 0;
  std::vector<std::uint64_t> run64;
  std::vector<std::int32_t> run32;
};
BOOST_DESCRIBE_STRUCT(scalars, (), (u64, i64, i32, u32, run64, run32))

struct texts {
  std::string s;
  std::vector<std::byte> b;
  refwire::uuid u;
  std::vector<std::string> list;
};
BOOST_DESCRIBE_STRUCT(texts, (), (s, b, u, list))

struct inner {
  std::string s;
};
BOOST_DESCRIBE_STRUCT(inner, (), (s))

struct outer {
  inner one;
  std::vector<inner> many;
};
BOOST_DESCRIBE_STRUCT(outer, (), (one, many))

}  // namespace encpaths

namespace {

using encpaths::inner;
using encpaths::outer;
using encpaths::scalars;
using encpaths::texts;
using pbf = refwire::protobuf;
using bytes = std::vector<std::byte>;

// ------------------------------------------------------- reference encoder

void ref_varint(bytes& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<std::byte>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<std::byte>(v));
}

void ref_tag(bytes& out, std::uint32_t field, std::uint32_t wire) { ref_varint(out, (field << 3) | wire); }

void ref_len(bytes& out, std::uint32_t field, const void* p, std::size_t n) {
  ref_tag(out, field, 2);
  ref_varint(out, n);
  const auto* b = static_cast<const std::byte*>(p);
  out.insert(out.end(), b, b + n);
}

template <class T>
void ref_packed(bytes& out, std::uint32_t field, const std::vector<T>& v) {
  if (v.empty()) return;
  bytes body;
  for (T x : v) ref_varint(body, static_cast<std::uint64_t>(static_cast<std::int64_t>(x)));
  ref_len(out, field, body.data(), body.size());
}

bytes ref_encode(const scalars& v) {
  bytes out;
  if (v.u64 != 0) {
    ref_tag(out, 1, 0);
    ref_varint(out, v.u64);
  }
  if (v.i64 != 0) {
    ref_tag(out, 2, 0);
    ref_varint(out, static_cast<std::uint64_t>(v.i64));
  }
  if (v.i32 != 0) {
    ref_tag(out, 3, 0);
    ref_varint(out, static_cast<std::uint64_t>(static_cast<std::int64_t>(v.i32)));
  }
  if (v.u32 != 0) {
    ref_tag(out, 4, 0);
    ref_varint(out, v.u32);
  }
  if (!v.run64.empty()) {
    bytes body;
    for (std::uint64_t x : v.run64) ref_varint(body, x);
    ref_len(out, 5, body.data(), body.size());
  }
  ref_packed(out, 6, v.run32);
  return out;
}

bytes ref_encode(const texts& v) {
  bytes out;
  if (!v.s.empty()) ref_len(out, 1, v.s.data(), v.s.size());
  if (!v.b.empty()) ref_len(out, 2, v.b.data(), v.b.size());
  if (!v.u.is_nil()) ref_len(out, 3, v.u.bytes.data(), 16);
  for (const std::string& s : v.list) ref_len(out, 4, s.data(), s.size());
  return out;
}

bytes ref_encode(const inner& v) {
  bytes out;
  if (!v.s.empty()) ref_len(out, 1, v.s.data(), v.s.size());
  return out;
}

bytes ref_encode(const outer& v) {
  bytes out;
  const bytes one = ref_encode(v.one);
  ref_len(out, 1, one.data(), one.size());
  for (const inner& e : v.many) {
    const bytes b = ref_encode(e);
    ref_len(out, 2, b.data(), b.size());
  }
  return out;
}

template <class T>
void expect_encodes_as_reference(const T& v) {
  const bytes got = refwire::serialize<pbf>(v);
  ASSERT_EQ(got, ref_encode(v));
  T back{};
  ASSERT_FALSE(refwire::deserialize<pbf>(got, back));
  bytes prefix{std::byte{0xaa}};  // appending after existing bytes
  refwire::serialize<pbf>(v, prefix);
  ASSERT_EQ(prefix, got);
}

/// 0, 1, and 2^k - 1, 2^k, 2^k + 1 for every k: every varint length and its edges.
std::vector<std::uint64_t> edge_values() {
  std::vector<std::uint64_t> v{0, 1};
  for (unsigned k = 1; k < 64; ++k) {
    const std::uint64_t p = std::uint64_t{1} << k;
    v.push_back(p - 1);
    v.push_back(p);
    v.push_back(p + 1);
  }
  v.push_back(~std::uint64_t{0});
  return v;
}

std::string ascii(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += static_cast<char>('a' + i % 26);
  return s;
}

// ----------------------------------------------------------------- varints

TEST(protobuf_encode_paths, varints_of_every_length) {
  for (std::uint64_t x : edge_values()) {
    scalars v;
    v.u64 = x;
    v.i64 = static_cast<std::int64_t>(x);
    v.i32 = static_cast<std::int32_t>(static_cast<std::uint32_t>(x));
    v.u32 = static_cast<std::uint32_t>(x);
    SCOPED_TRACE(x);
    expect_encodes_as_reference(v);
    v.i64 = static_cast<std::int64_t>(0U - static_cast<std::uint64_t>(v.i64));
    v.i32 = static_cast<std::int32_t>(0U - static_cast<std::uint32_t>(v.i32));
    expect_encodes_as_reference(v);
  }
}

TEST(protobuf_encode_paths, packed_runs_of_every_length) {
  scalars v;
  v.run64 = edge_values();
  for (std::uint64_t x : v.run64) v.run32.push_back(static_cast<std::int32_t>(static_cast<std::uint32_t>(x)));
  expect_encodes_as_reference(v);
  // Runs whose ends meet the stage's limit at every alignment, and runs too
  // long for the stage.
  for (std::size_t n : {1U, 2U, 100U, 400U, 401U, 409U, 410U, 800U, 5000U}) {
    scalars w;
    for (std::size_t i = 0; i < n; ++i) {
      w.run64.push_back(~std::uint64_t{0} >> (i % 64));
      w.run32.push_back(i % 3 == 0 ? -static_cast<std::int32_t>(i) : static_cast<std::int32_t>(i * 977));
    }
    SCOPED_TRACE(n);
    expect_encodes_as_reference(w);
  }
}

// ------------------------------------------------------------------- texts

TEST(protobuf_encode_paths, strings_and_bytes_of_every_length) {
  for (std::size_t n = 0; n <= 80; ++n) {
    texts v;
    v.s = ascii(n);
    for (std::size_t i = 0; i < n; ++i) v.b.push_back(static_cast<std::byte>(i * 37 + 1));
    SCOPED_TRACE(n);
    expect_encodes_as_reference(v);
    // A short string in a large buffer, and a string_view-sized exact buffer.
    texts big = v;
    big.s.reserve(200);
    expect_encodes_as_reference(big);
    texts shrunk = v;
    shrunk.s.shrink_to_fit();
    shrunk.b.shrink_to_fit();
    expect_encodes_as_reference(shrunk);
  }
}

TEST(protobuf_encode_paths, uuid_and_lists_across_the_stage) {
  texts v;
  for (std::size_t i = 0; i < 16; ++i) v.u.bytes[i] = static_cast<std::byte>(0xf0 - i);
  for (std::size_t i = 0; i < 3000; ++i) v.list.push_back(ascii(i % 47));
  expect_encodes_as_reference(v);
  for (std::size_t i = 0; i < 3000; ++i) v.list[i] = ascii(i % 3 == 0 ? 300 + i : i % 33);
  expect_encodes_as_reference(v);
}

// ------------------------------------------------- back-patched lengths

TEST(protobuf_encode_paths, nested_lengths_of_every_size_across_the_stage) {
  // Bodies around the one- and two-byte length limits, a body longer than the
  // stage, and runs whose length size grows and shrinks from one message to
  // the next, starting at every offset in the stage.
  for (std::size_t lead : {0U, 1U, 100U, 3000U, 4000U, 4090U}) {
    for (std::size_t n : {0U, 1U, 124U, 125U, 126U, 127U, 128U, 200U, 16379U, 16380U, 16381U, 16400U}) {
      outer v;
      v.one.s = ascii(lead);
      v.many.push_back(inner{ascii(n)});
      for (std::size_t i = 0; i < 40; ++i) v.many.push_back(inner{ascii(i % 2 == 0 ? 120 + i : 130 - i)});
      v.many.push_back(inner{ascii(n)});
      v.many.push_back(inner{ascii(20000)});
      v.many.push_back(inner{ascii(3)});
      SCOPED_TRACE(lead * 100000 + n);
      expect_encodes_as_reference(v);
      std::swap(v.one.s, v.many[0].s);
      expect_encodes_as_reference(v);
    }
  }
}

TEST(protobuf_encode_paths, utf8_accepted_and_rejected_at_every_position) {
  for (std::size_t n = 1; n <= 72; ++n) {
    for (std::size_t at = 0; at + 2 <= n; ++at) {
      texts ok;
      ok.s = ascii(n);
      ok.s[at] = '\xc3';  // U+00E9
      ok.s[at + 1] = '\xa9';
      SCOPED_TRACE(n * 100 + at);
      expect_encodes_as_reference(ok);
    }
    for (std::size_t at = 0; at < n; ++at) {
      for (char bad : {'\x80', '\xff', '\xc3'}) {  // a continuation, an invalid byte, a cut sequence
        texts v;
        v.s = ascii(n);
        v.s[at] = bad;
        if (bad == '\xc3' && at + 1 < n) continue;  // followed by ASCII: still invalid, checked below
        bytes out{std::byte{7}};
        EXPECT_THROW(refwire::serialize<pbf>(v, out), refwire::encode_error) << n << " " << at;
        EXPECT_EQ(out.size(), 0U);  // cleared by serialize, nothing partial appended
      }
      texts cut;
      cut.s = ascii(n);
      cut.s[at] = '\xc3';
      if (at + 1 < n) {
        EXPECT_THROW((void)refwire::serialize<pbf>(cut), refwire::encode_error) << n << " " << at;
      }
    }
  }
}

}  // namespace
