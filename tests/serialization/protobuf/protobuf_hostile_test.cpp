// Hostile input for the protobuf decoder: truncations, lying lengths, deep
// nesting, the decode_options limits, wire-type mismatches, invalid tags and
// varints, random and mutated bytes. Failures are checked for their exact
// code, message, offset and path. Inputs are copied into exact-size heap
// buffers so that the ASan build catches any read past the end.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "../common/alloc_watch.hpp"
#include "../common/types.hpp"
#include "../common/values.hpp"


namespace phostile {

struct address {
  std::string street;
  std::string city;
  std::uint32_t zip = 0;
};
BOOST_DESCRIBE_STRUCT(address, (), (street, city, zip))

struct customer {
  std::string name;
  address home;
  std::vector<address> others;
  std::vector<double> values;
  std::vector<std::int64_t> ints;
  std::map<std::string, std::int32_t> tags;
  std::vector<std::byte> blob;
  refwire::uuid id;
  std::set<std::int32_t> uniq;
  std::array<std::int32_t, 2> pair{};
  std::uint8_t small = 0;
};
BOOST_DESCRIBE_STRUCT(customer, (), (name, home, others, values, ints, tags, blob, id, uniq, pair, small))

using node = shapes::tree;

}  // namespace phostile

using namespace phostile;

namespace {

using pbf = refwire::protobuf;

struct heap_input {
  std::unique_ptr<std::byte[]> data;
  std::size_t size;
  explicit heap_input(const std::vector<std::byte>& v) : data(new std::byte[v.size() + (v.empty() ? 1 : 0)]), size(v.size()) {
    for (std::size_t i = 0; i < v.size(); ++i) data[i] = v[i];
  }
  [[nodiscard]] std::span<const std::byte> span() const { return {data.get(), size}; }
};

std::vector<std::byte> bytes_of(std::initializer_list<unsigned> b) {
  std::vector<std::byte> v;
  for (unsigned x : b) v.push_back(static_cast<std::byte>(x));
  return v;
}

void append_varint(std::vector<std::byte>& v, std::uint64_t x) {
  while (x >= 0x80) {
    v.push_back(static_cast<std::byte>(x | 0x80));
    x >>= 7;
  }
  v.push_back(static_cast<std::byte>(x));
}

template <class T>
refwire::error decode(const std::vector<std::byte>& bytes, const refwire::decode_options& o = {}) {
  const heap_input in(bytes);
  T v{};
  return refwire::deserialize<pbf>(in.span(), v, o);
}

customer full_customer() {
  customer c;
  c.name = "name";
  c.home = {"street", "city", 12345};
  c.others = {{"a", "b", 1}, {}};
  c.values = {1.5, -2.5};
  c.ints = {-1, 300};
  c.tags = {{"k", 1}, {"", -1}};
  c.blob = {std::byte{1}, std::byte{2}};
  c.id = refwire::uuid::from_string("123e4567-e89b-12d3-a456-426614174000");
  c.uniq = {1, 2, 3};
  c.pair = {7, 8};
  c.small = 200;
  return c;
}

}  // namespace

// --------------------------------------------------------------- truncation

TEST(protobuf_hostile, every_truncation_is_an_error_or_a_shorter_valid_message) {
  const std::vector<std::byte> full = refwire::serialize<pbf>(full_customer());
  std::size_t failures = 0;
  for (std::size_t n = 0; n < full.size(); ++n) {
    const std::vector<std::byte> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    const refwire::error e = decode<customer>(cut);
    if (e) {
      ++failures;
      EXPECT_TRUE(e.code() == refwire::errc::truncated || e.code() == refwire::errc::invalid_value) << e.message();
      EXPECT_LE(e.offset(), n);
    }
  }
  EXPECT_GT(failures, full.size() / 2);
}

TEST(protobuf_hostile, truncation_messages) {
  // name: length 4, 2 bytes present
  EXPECT_EQ(decode<customer>(bytes_of({0x0a, 0x04, 0x61, 0x62})).message(),
            "$.name: truncated string, needs 4 bytes, 2 left, at offset 2");
  // home.zip: a varint cut after its first byte, inside the home message
  EXPECT_EQ(decode<customer>(bytes_of({0x12, 0x02, 0x18, 0x96, 0x01})).message(),
            "$.home.zip: truncated varint, needs 2 bytes, 1 left, at offset 3");
  // a fixed64 cut short
  EXPECT_EQ(decode<shapes::point>(bytes_of({0x11, 0x00, 0x00})).message(),
            "$.y: truncated fixed64, needs 8 bytes, 2 left, at offset 1");
  // a tag cut short
  EXPECT_EQ(decode<customer>(bytes_of({0x80})).message(), "$: truncated varint, needs 2 bytes, 1 left, at offset 0");
}

// ------------------------------------------------------------ lying lengths

TEST(protobuf_hostile, huge_length_claims_fail_without_allocating) {
  constexpr std::uint64_t huge = std::uint64_t{1} << 40;
  for (const unsigned tag : {0x0au /*string*/, 0x12u /*message*/, 0x22u /*packed doubles*/, 0x2au /*packed ints*/,
                             0x32u /*map entry*/, 0x3au /*bytes*/, 0x42u /*uuid*/, 0x7au /*unknown 15*/}) {
    std::vector<std::byte> in = {static_cast<std::byte>(tag)};
    append_varint(in, huge);
    in.push_back(std::byte{0});
    std::size_t largest = 0;
    const refwire::error e = [&] {
      refwire_test::alloc_watch w;
      refwire::error r = decode<customer>(in);
      largest = w.largest();
      return r;
    }();
    EXPECT_EQ(e.code(), refwire::errc::truncated) << e.message();
    EXPECT_NE(e.reason().find("needs 1099511627776 bytes, 1 left"), std::string::npos) << e.message();
    EXPECT_LT(largest, 1024U) << "tag " << tag;
  }
}

TEST(protobuf_hostile, nested_length_past_the_enclosing_message) {
  // home claims 3 bytes but its street claims 5 (the outer input has more bytes)
  const auto in = bytes_of({0x12, 0x03, 0x0a, 0x05, 0x61, 0x62, 0x63, 0x64, 0x65});
  EXPECT_EQ(decode<customer>(in).message(), "$.home.street: truncated string, needs 5 bytes, 1 left, at offset 4");
}

// ------------------------------------------------------------------ limits

TEST(protobuf_hostile, depth_limit) {
  std::vector<std::byte> in;
  for (int i = 0; i < 200; ++i) {
    std::vector<std::byte> outer = {std::byte{0x0a}};
    append_varint(outer, in.size());
    outer.insert(outer.end(), in.begin(), in.end());
    in = std::move(outer);
  }
  const refwire::error e = decode<node>(in, {.max_depth = 50});
  EXPECT_EQ(e.code(), refwire::errc::depth_limit);
  EXPECT_EQ(e.reason(), "nesting exceeds decode_options::max_depth");
  EXPECT_FALSE(decode<node>(in, {.max_depth = 300}));

  // unknown groups nest too
  std::vector<std::byte> groups;
  for (int i = 0; i < 200; ++i) groups.push_back(std::byte{0x7b});  // start group 15
  for (int i = 0; i < 200; ++i) groups.push_back(std::byte{0x7c});  // end group 15
  EXPECT_EQ(decode<customer>(groups, {.max_depth = 50}).code(), refwire::errc::depth_limit);
  EXPECT_FALSE(decode<customer>(groups, {.max_depth = 300}));
}

TEST(protobuf_hostile, element_and_allocation_limits) {
  customer c;
  c.values.assign(1000, 1.0);
  c.ints.assign(1000, 5);
  const auto bytes = refwire::serialize<pbf>(c);
  EXPECT_EQ(decode<customer>(bytes, {.max_elements = 999}).code(), refwire::errc::element_limit);
  EXPECT_EQ(decode<customer>(bytes, {.max_elements = 1500}).code(), refwire::errc::element_limit);
  EXPECT_FALSE(decode<customer>(bytes, {.max_elements = 3000}));
  EXPECT_EQ(decode<customer>(bytes, {.max_alloc_bytes = 10000}).code(), refwire::errc::allocation_limit);
  customer s;
  s.name.assign(5000, 'x');
  EXPECT_EQ(decode<customer>(refwire::serialize<pbf>(s), {.max_alloc_bytes = 4999}).code(),
            refwire::errc::allocation_limit);
}

// ------------------------------------------------------------ wire types

TEST(protobuf_hostile, wire_type_mismatches_name_the_field) {
  const auto in = bytes_of({0x0a, 0x01, 0x6e, 0x12, 0x08, 0x0a, 0x01, 0x73, 0x12, 0x03, 0x61, 0x62, 0x63});
  EXPECT_FALSE(decode<customer>(in));  // well-formed
  // home.zip sent as a string
  const auto mismatch = bytes_of({0x0a, 0x01, 0x6e, 0x12, 0x05, 0x0a, 0x01, 0x73, 0x1a, 0x00});
  const refwire::error e = decode<customer>(mismatch);
  EXPECT_EQ(e.code(), refwire::errc::wire_type);
  EXPECT_EQ(e.message(), "$.home.zip: field 3 has wire type 2 (length-delimited), expected 0 (varint), at offset 8");
  EXPECT_EQ(decode<customer>(bytes_of({0x0d, 1, 2, 3, 4})).message(),
            "$.name: field 1 has wire type 5 (i32), expected 2 (length-delimited), at offset 0");
  EXPECT_EQ(decode<customer>(bytes_of({0x12, 0x00, 0x12, 0x02, 0x18, 0x01, 0x15, 0, 0, 0, 0})).message(),
            "$.home: field 2 has wire type 5 (i32), expected 2 (length-delimited), at offset 6");
  // a repeated message sent as a varint
  EXPECT_EQ(decode<customer>(bytes_of({0x18, 0x01})).message(),
            "$.others: field 3 has wire type 0 (varint), expected 2 (length-delimited), at offset 0");
}

TEST(protobuf_hostile, unpacked_repeated_scalars_are_accepted) {
  // values (4) as two lone doubles, ints (5) as lone varints mixed with a packed run
  auto in = bytes_of({0x21, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0x21, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x28, 0x01, 0x2a, 0x02,
                      0x02, 0x03, 0x28, 0x04});
  const heap_input h(in);
  customer c;
  ASSERT_FALSE(refwire::deserialize<pbf>(h.span(), c));
  EXPECT_EQ(c.values, (std::vector<double>{1.5, 2.0}));
  EXPECT_EQ(c.ints, (std::vector<std::int64_t>{1, 2, 3, 4}));
}

// ------------------------------------------------------------ tags, varints

TEST(protobuf_hostile, invalid_tags_and_varints) {
  EXPECT_EQ(decode<customer>(bytes_of({0x00})).message(),
            "$: invalid field number 0 (protobuf allows 1 to 536870911), at offset 0");
  EXPECT_EQ(decode<customer>(bytes_of({0x80, 0x80, 0x80, 0x80, 0x80, 0x01})).message(),  // field 2^32
            "$: invalid field number 4294967296 (protobuf allows 1 to 536870911), at offset 0");
  EXPECT_EQ(decode<customer>(bytes_of({0x0e})).message(), "$: invalid wire type 6 for field 1, at offset 0");
  EXPECT_EQ(decode<customer>(bytes_of({0x0f})).message(), "$: invalid wire type 7 for field 1, at offset 0");
  EXPECT_EQ(decode<customer>(bytes_of({0x7c})).message(), "$: end group 15 without a start group, at offset 0");
  EXPECT_EQ(decode<customer>(bytes_of({0x7b, 0x74})).message(),
            "$: end group 14 does not match start group 15, at offset 1");
  EXPECT_EQ(decode<customer>(bytes_of({0x7b})).code(), refwire::errc::truncated);
  // an 11-byte varint, and a 10-byte one over 64 bits
  EXPECT_EQ(decode<customer>(bytes_of({0x58, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}))
                .message(),
            "$.small: varint exceeds 64 bits, at offset 1");
  EXPECT_EQ(decode<customer>(bytes_of({0x58, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})).code(),
            refwire::errc::invalid_varint);
  // non-minimal varints are accepted, as protobuf does
  const auto padded = bytes_of({0x58, 0x81, 0x00});
  const heap_input h(padded);
  customer c;
  ASSERT_FALSE(refwire::deserialize<pbf>(h.span(), c));
  EXPECT_EQ(c.small, 1);
}

TEST(protobuf_hostile, invalid_values) {
  EXPECT_EQ(decode<customer>(bytes_of({0x0a, 0x02, 0xc3, 0x28})).message(),
            "$.name: string is not valid UTF-8, at offset 1");
  EXPECT_EQ(decode<customer>(bytes_of({0x42, 0x03, 1, 2, 3})).message(),
            "$.id: a uuid needs 16 bytes (or none), got 3, at offset 1");
  EXPECT_EQ(decode<customer>(bytes_of({0x22, 0x03, 1, 2, 3})).message(),
            "$.values: packed length 3 is not a multiple of 8, at offset 0");
  EXPECT_EQ(decode<customer>(bytes_of({0x4a, 0x02, 0x01, 0x01})).message(),
            "$.uniq: duplicate set element, at offset 0");
  EXPECT_EQ(decode<customer>(bytes_of({0x52, 0x03, 0x01, 0x02, 0x03})).message(),
            "$.pair: more elements than the array's 2, at offset 0");
  EXPECT_EQ(decode<customer>(bytes_of({0x58, 0xac, 0x02})).message(),
            "$.small: value 300 (wire bits) out of range for u8, at offset 1");
  EXPECT_EQ(decode<customer>(bytes_of({0x32, 0x04, 0x0a, 0x01, 0x6b, 0x10})).message(),
            "$.tags[\"k\"]: truncated varint, needs 1 bytes, 0 left, at offset 6");
}

// ------------------------------------------------------- random and mutated

namespace {

template <class T>
void fuzz_one(const std::vector<std::byte>& in) {
  const heap_input h(in);
  T v{};
  const refwire::error e = refwire::deserialize<pbf>(h.span(), v, {.max_depth = 32, .max_elements = 1U << 14});
  if (e) {
    EXPECT_LE(e.offset(), in.size());
    return;
  }
  // decode -> encode -> decode is a fixed point
  const std::vector<std::byte> again = refwire::serialize<pbf>(v);
  T w{};
  ASSERT_FALSE(refwire::deserialize<pbf>(again, w)) << "re-encoding does not decode";
  EXPECT_EQ(refwire::serialize<pbf>(w), again);
}

}  // namespace

TEST(protobuf_hostile, random_and_mutated_bytes) {
  std::mt19937_64 rng(12345);
  std::vector<std::vector<std::byte>> seeds = {refwire::serialize<pbf>(full_customer()),
                                               refwire::serialize<pbf>(shapes::full_person()),
                                               refwire::serialize<pbf>(shapes::full_numbered())};
  for (int i = 0; i < 3000; ++i) {
    std::vector<std::byte> r(rng() % 64);
    for (auto& b : r) b = static_cast<std::byte>(rng());
    fuzz_one<customer>(r);
    fuzz_one<shapes::person>(r);
    fuzz_one<node>(r);
  }
  for (int i = 0; i < 6000; ++i) {
    std::vector<std::byte> m = seeds[static_cast<std::size_t>(i) % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits && !m.empty(); ++k) {
      const std::size_t at = rng() % m.size();
      switch (rng() % 3) {
        case 0: m[at] = static_cast<std::byte>(rng()); break;
        case 1: m.erase(m.begin() + static_cast<std::ptrdiff_t>(at)); break;
        default: m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::byte>(rng())); break;
      }
    }
    fuzz_one<customer>(m);
    fuzz_one<shapes::person>(m);
    fuzz_one<shapes::numbered>(m);
  }
}
