// Hostile input for the binary decoder: truncations, lying length prefixes,
// deep nesting, the decode_options limits, every invalid byte the format
// rejects, random bytes. Every failure is checked for its exact code, message,
// offset and path. Inputs are copied into exact-size heap buffers so that the
// ASan build catches any read past the end.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include "../common/alloc_watch.hpp"
#include "../common/types.hpp"
#include "../common/values.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>


namespace hostile {

// ------------------------------------------------------------------ types

using point = shapes::bare_point;
using order = shapes::point_list;
using empty = shapes::empty_aggregate;  // a PFR aggregate with no fields: encodes to zero bytes
using node = shapes::tree;
using chain = shapes::chain;
using flags = shapes::flags;
using with_maps = shapes::with_maps;
using agg = shapes::agg;
using renamed = shapes::renamed;
using base = shapes::tag_base;
using derived = shapes::tag_derived;
using timing = shapes::timing;
using color = shapes::color16;
using even = shapes::even;  // rejected by its codec when odd
using holds_even = shapes::holds_even;
using mixed = shapes::mixed;  // every shape at once, for truncation and mutation loops
using shapes::make_mixed;
using yes_no = shapes::yes_no;

// ---------------------------------------------------------------- helpers

using bytes = std::vector<std::byte>;

bytes B(std::initializer_list<int> v) {
  bytes out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

bytes cat(std::initializer_list<bytes> parts) {
  bytes out;
  for (const bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

bytes repeat(const bytes& b, std::size_t n) {
  bytes out;
  for (std::size_t i = 0; i < n; ++i) out.insert(out.end(), b.begin(), b.end());
  return out;
}

template <class T>
bytes enc(const T& v) {
  return refwire::serialize(v);
}

/// An exact-size heap copy of some bytes: reading one past the end is an ASan error.
class heap_copy {
 public:
  explicit heap_copy(std::span<const std::byte> in) : size_(in.size()), data_(new std::byte[in.size()]) {
    if (size_ != 0) std::memcpy(data_.get(), in.data(), size_);
  }
  [[nodiscard]] std::span<const std::byte> span() const { return {data_.get(), size_}; }

 private:
  std::size_t size_;
  std::unique_ptr<std::byte[]> data_;
};

template <class T>
refwire::error decode(std::span<const std::byte> in, T& out, const refwire::decode_options& o = {}) {
  heap_copy copy(in);
  return refwire::deserialize<refwire::binary>(copy.span(), out, o);
}

/// Decodes in as T, expects the exact code and message, checks the throwing
/// form agrees, and returns the error for further checks.
template <class T>
refwire::error expect_fail(const bytes& in, refwire::errc code, const std::string& message,
                           const refwire::decode_options& o = {}) {
  T v{};
  refwire::error e = decode(in, v, o);
  EXPECT_TRUE(static_cast<bool>(e));
  EXPECT_EQ(refwire::to_string(e.code()), refwire::to_string(code)) << e.message();
  EXPECT_EQ(e.message(), message);
  EXPECT_EQ(e.message(), e.path() + ": " + e.reason() + ", at offset " + std::to_string(e.offset()));
  EXPECT_LE(e.offset(), in.size());
  try {
    heap_copy copy(in);
    (void)refwire::deserialize<T>(copy.span(), o);
    ADD_FAILURE() << "the throwing deserialize did not throw";
  } catch (const refwire::decode_error& d) {
    EXPECT_EQ(std::string(d.what()), message);
    EXPECT_EQ(d.code(), code);
    EXPECT_EQ(d.offset(), e.offset());
    EXPECT_EQ(d.path(), e.path());
  }
  return e;
}

#define EXPECT_DECODE_FAIL(T, in, code, message, ...)                                   \
  do {                                                                                 \
    SCOPED_TRACE(#T);                                                                  \
    (void)::hostile::expect_fail<T>((in), refwire::errc::code, (message) __VA_OPT__(, ) __VA_ARGS__); \
  } while (0)

/// 2^40, the lying length prefix: 80 80 80 80 80 20.
const bytes huge_count = B({0x80, 0x80, 0x80, 0x80, 0x80, 0x20});

/// Runs f, returns how long it took and the largest single allocation it made.
template <class F>
std::pair<std::chrono::nanoseconds, std::size_t> watched(F&& f) {
  refwire_test::alloc_watch w;
  const auto t0 = std::chrono::steady_clock::now();
  f();
  const auto t1 = std::chrono::steady_clock::now();
  return {t1 - t0, w.largest()};
}

// ------------------------------------------------------------ truncation

TEST(hostile_truncation, exact_messages) {
  // The example of the API documentation: name claims 12 bytes, 4 are left.
  const bytes p = cat({enc(std::int32_t{1}), enc(2.0), B({0x0c, 'a', 'b', 'c', 'd'})});
  EXPECT_DECODE_FAIL(point, p, truncated, "$.name: truncated string, needs 12 bytes, 4 left, at offset 13");

  // $.items[3].name: three full points (13 bytes each) then a short one.
  const bytes o = cat({B({4}), repeat(enc(point{0, 0, ""}), 3), enc(std::int32_t{7}), enc(1.0),
                       B({0x0c, 'w', 'x', 'y', 'z'})});
  EXPECT_DECODE_FAIL(order, o, truncated, "$.items[3].name: truncated string, needs 12 bytes, 4 left, at offset 53");

  EXPECT_DECODE_FAIL(point, B({1, 0, 0}), truncated, "$.x: truncated i32, needs 4 bytes, 3 left, at offset 0");
  EXPECT_DECODE_FAIL(point, B({1, 0, 0, 0, 1}), truncated, "$.y: truncated f64, needs 8 bytes, 1 left, at offset 4");
  EXPECT_DECODE_FAIL(std::string, bytes{}, truncated, "$: truncated varint, needs 1 bytes, 0 left, at offset 0");
  EXPECT_DECODE_FAIL(std::string, B({0x80}), truncated, "$: truncated varint, needs 2 bytes, 1 left, at offset 0");
  EXPECT_DECODE_FAIL(std::string, B({0xff, 0xff, 0x80}), truncated,
                     "$: truncated varint, needs 4 bytes, 3 left, at offset 0");
  EXPECT_DECODE_FAIL(bool, bytes{}, truncated, "$: truncated bool, needs 1 bytes, 0 left, at offset 0");
  EXPECT_DECODE_FAIL(std::optional<std::int8_t>, bytes{}, truncated,
                     "$: truncated optional tag, needs 1 bytes, 0 left, at offset 0");
  EXPECT_DECODE_FAIL(std::unique_ptr<std::int8_t>, bytes{}, truncated,
                     "$: truncated pointer tag, needs 1 bytes, 0 left, at offset 0");
  EXPECT_DECODE_FAIL(refwire::uuid, B({1, 2, 3}), truncated, "$: truncated uuid, needs 16 bytes, 3 left, at offset 0");
  EXPECT_DECODE_FAIL(refwire::timestamp, B({1}), truncated,
                     "$: truncated timestamp, needs 8 bytes, 1 left, at offset 0");
  EXPECT_DECODE_FAIL(std::chrono::seconds, B({1}), truncated, "$: truncated duration, needs 8 bytes, 1 left, at offset 0");
  using arr3 = std::array<std::int16_t, 3>;
  EXPECT_DECODE_FAIL(arr3, B({1, 2, 3}), truncated, "$: truncated array, needs 6 bytes, 3 left, at offset 0");
  EXPECT_DECODE_FAIL(std::vector<std::byte>, B({3, 1}), truncated, "$: truncated bytes, needs 3 bytes, 1 left, at offset 1");
  EXPECT_DECODE_FAIL(std::vector<std::int16_t>, B({3, 1, 0, 2}), truncated,
                     "$: truncated vector, 3 elements need at least 2 bytes each, 3 left, at offset 1");
  EXPECT_DECODE_FAIL(std::list<point>, B({1, 0, 0}), truncated,
                     "$: truncated vector, 1 elements need at least 13 bytes each, 2 left, at offset 1");
  // Enums (std::byte included) are named by their underlying type.
  EXPECT_DECODE_FAIL(color, B({1}), truncated, "$: truncated u16, needs 2 bytes, 1 left, at offset 0");
  EXPECT_DECODE_FAIL(char, bytes{}, truncated, "$: truncated char, needs 1 bytes, 0 left, at offset 0");
  EXPECT_DECODE_FAIL(std::byte, bytes{}, truncated, "$: truncated u8, needs 1 bytes, 0 left, at offset 0");
  EXPECT_DECODE_FAIL(std::uint16_t, B({1}), truncated, "$: truncated u16, needs 2 bytes, 1 left, at offset 0");
  EXPECT_DECODE_FAIL(float, B({1}), truncated, "$: truncated f32, needs 4 bytes, 1 left, at offset 0");
}

// ------------------------------------------------- lying length prefixes

template <class T>
void huge_count_fails_fast(const bytes& in, refwire::errc code, const std::string& message) {
  SCOPED_TRACE(message);
  refwire::error e;
  heap_copy copy(in);
  const auto [elapsed, largest] = watched([&] {
    T v{};
    e = refwire::deserialize<refwire::binary>(copy.span(), v);
  });
  EXPECT_EQ(e.code(), code) << e.message();
  EXPECT_EQ(e.message(), message);
  EXPECT_LT(elapsed, std::chrono::milliseconds(100));
  EXPECT_LT(largest, std::size_t{4096}) << "the decoder allocated before checking the count";
}

TEST(hostile_length, two_to_the_40) {
  huge_count_fails_fast<std::vector<double>>(
      huge_count, refwire::errc::truncated,
      "$: truncated vector, 1099511627776 elements need at least 8 bytes each, 0 left, at offset 6");
  huge_count_fails_fast<std::vector<std::string>>(
      huge_count, refwire::errc::truncated,
      "$: truncated vector, 1099511627776 elements need at least 1 byte each, 0 left, at offset 6");
  huge_count_fails_fast<std::vector<empty>>(
      huge_count, refwire::errc::element_limit,
      "$: 1099511627776 elements exceed the element limit (67108864 left of decode_options::max_elements), at "
      "offset 6");
  huge_count_fails_fast<std::string>(huge_count, refwire::errc::truncated,
                                     "$: truncated string, needs 1099511627776 bytes, 0 left, at offset 6");
  huge_count_fails_fast<std::vector<std::byte>>(huge_count, refwire::errc::truncated,
                                                "$: truncated bytes, needs 1099511627776 bytes, 0 left, at offset 6");
  huge_count_fails_fast<std::map<std::string, std::int32_t>>(
      huge_count, refwire::errc::truncated,
      "$: truncated map, 1099511627776 elements need at least 5 bytes each, 0 left, at offset 6");
  huge_count_fails_fast<std::unordered_map<std::int64_t, empty>>(
      huge_count, refwire::errc::truncated,
      "$: truncated map, 1099511627776 elements need at least 8 bytes each, 0 left, at offset 6");
  huge_count_fails_fast<std::set<std::int32_t>>(
      huge_count, refwire::errc::truncated,
      "$: truncated set, 1099511627776 elements need at least 4 bytes each, 0 left, at offset 6");
  huge_count_fails_fast<std::deque<empty>>(
      huge_count, refwire::errc::element_limit,
      "$: 1099511627776 elements exceed the element limit (67108864 left of decode_options::max_elements), at "
      "offset 6");
  huge_count_fails_fast<std::vector<bool>>(
      huge_count, refwire::errc::truncated,
      "$: truncated vector, 1099511627776 elements need at least 1 byte each, 0 left, at offset 6");
  // Inside a struct, after other fields; the claim is checked against the bytes really left.
  huge_count_fails_fast<order>(cat({huge_count, repeat(B({0}), 20)}), refwire::errc::truncated,
                               "$.items: truncated vector, 1099511627776 elements need at least 13 bytes each, 20 "
                               "left, at offset 6");
  // The largest count a varint can carry.
  huge_count_fails_fast<std::vector<std::int64_t>>(
      B({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), refwire::errc::truncated,
      "$: truncated vector, 18446744073709551615 elements need at least 8 bytes each, 0 left, at offset 10");
  huge_count_fails_fast<std::vector<empty>>(
      B({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), refwire::errc::element_limit,
      "$: 18446744073709551615 elements exceed the element limit (67108864 left of "
      "decode_options::max_elements), at offset 10");
}

// ----------------------------------------------------------------- depth

bytes node_chain(std::size_t levels) {  // levels nested nodes, the innermost has no kids
  bytes b(levels, std::byte{1});
  b.back() = std::byte{0};
  return b;
}

std::string repeat_str(const std::string& s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

TEST(hostile_depth, recursive_vector_at_the_limit) {
  // Each node costs two levels (the record and its vector): 64 nodes fit in 128.
  node n;
  ASSERT_FALSE(decode(node_chain(64), n));
  std::size_t levels = 0;
  for (const node* p = &n; !p->kids.empty(); p = &p->kids[0]) ++levels;
  EXPECT_EQ(levels, 63U);

  EXPECT_DECODE_FAIL(node, node_chain(65), depth_limit,
                     "$" + repeat_str(".kids[0]", 64) + ": nesting exceeds decode_options::max_depth, at offset 64");
}

TEST(hostile_depth, custom_limit_counts_records_and_containers) {
  const refwire::decode_options o{.max_depth = 3};
  // node (1) -> vector (2) -> node (3) -> its vector: one level too many, after its count.
  EXPECT_DECODE_FAIL(node, B({1, 0}), depth_limit,
                     "$.kids[0].kids: nesting exceeds decode_options::max_depth, at offset 2", o);
  node n;
  EXPECT_FALSE(decode(B({0}), n, o));
  EXPECT_DECODE_FAIL(point, enc(point{}), depth_limit,
                     "$: nesting exceeds decode_options::max_depth, at offset 0", refwire::decode_options{.max_depth = 0});
  std::int32_t i = 0;
  EXPECT_FALSE(decode(enc(std::int32_t{5}), i, refwire::decode_options{.max_depth = 0}));  // scalars cost nothing
  std::vector<std::int32_t> raw;  // a memcpy vector costs nothing either
  EXPECT_FALSE(decode(enc(std::vector<std::int32_t>{1, 2}), raw, refwire::decode_options{.max_depth = 0}));
  std::string s;
  EXPECT_FALSE(decode(enc(std::string("abc")), s, refwire::decode_options{.max_depth = 0}));
}

TEST(hostile_depth, optional_counts_only_when_present) {
  using opt3 = std::optional<std::optional<std::optional<std::int8_t>>>;
  const refwire::decode_options o{.max_depth = 2};
  EXPECT_DECODE_FAIL(opt3, B({1, 1, 1, 5}), depth_limit, "$: nesting exceeds decode_options::max_depth, at offset 3",
                     o);
  opt3 v;
  EXPECT_FALSE(decode(B({1, 1, 0}), v, o));
  EXPECT_TRUE(v && *v && !**v);
}

TEST(hostile_depth, unique_ptr_chain) {
  // chain record (1) -> pointer (2) -> chain (3)...: link 65 is one too many.
  const bytes link = B({7, 0, 0, 0, 1});
  chain c;
  ASSERT_FALSE(decode(cat({repeat(link, 63), B({7, 0, 0, 0, 0})}), c));
  EXPECT_DECODE_FAIL(chain, cat({repeat(link, 64), B({7, 0, 0, 0, 0})}), depth_limit,
                     "$" + repeat_str(".next", 64) + ": nesting exceeds decode_options::max_depth, at offset 320");
}

TEST(hostile_depth, megabyte_of_nesting_does_not_overflow_the_stack) {
  {
    node n;
    refwire::error e = decode(bytes(1 << 20, std::byte{1}), n);
    EXPECT_EQ(e.code(), refwire::errc::depth_limit);
    EXPECT_EQ(e.offset(), 64U);
  }
  {
    chain c;
    refwire::error e = decode(repeat(B({0, 0, 0, 0, 1}), 200000), c);
    EXPECT_EQ(e.code(), refwire::errc::depth_limit);
    EXPECT_EQ(e.offset(), 320U);
  }
  {
    using nested = std::vector<std::vector<std::vector<std::vector<std::vector<std::string>>>>>;
    nested v;
    refwire::error e = decode(B({1, 1, 1, 1, 1, 0}), v, refwire::decode_options{.max_depth = 4});
    EXPECT_EQ(e.code(), refwire::errc::depth_limit);
    EXPECT_EQ(e.message(), "$[0][0][0][0]: nesting exceeds decode_options::max_depth, at offset 5");
  }
}

// ---------------------------------------------------------------- limits

TEST(hostile_limits, max_elements) {
  const bytes ten = enc(std::vector<std::int32_t>(10, 1));
  EXPECT_DECODE_FAIL(std::vector<std::int32_t>, ten, element_limit,
                     "$: 10 elements exceed the element limit (9 left of decode_options::max_elements), at offset 1",
                     refwire::decode_options{.max_elements = 9});
  std::vector<std::int32_t> ok;
  EXPECT_FALSE(decode(ten, ok, refwire::decode_options{.max_elements = 10}));

  // Summed over every container of the value: outer 2, then 3, then 3 > 2 left.
  using vv = std::vector<std::vector<std::int32_t>>;
  EXPECT_DECODE_FAIL(vv, enc(vv{{1, 2, 3}, {4, 5, 6}}), element_limit,
                     "$[1]: 3 elements exceed the element limit (2 left of decode_options::max_elements), at offset 15",
                     refwire::decode_options{.max_elements = 7});
  vv fits;
  EXPECT_FALSE(decode(enc(vv{{1, 2, 3}, {4, 5, 6}}), fits, refwire::decode_options{.max_elements = 8}));

  // Map entries and set elements count; the bytes of strings do not.
  using msi = std::map<std::string, std::int32_t>;
  EXPECT_DECODE_FAIL(msi, enc(msi{{"a", 1}, {"b", 2}, {"c", 3}}), element_limit,
                     "$: 3 elements exceed the element limit (2 left of decode_options::max_elements), at offset 1",
                     refwire::decode_options{.max_elements = 2});
  std::string s;
  EXPECT_FALSE(decode(enc(std::string(1000, 'a')), s, refwire::decode_options{.max_elements = 0}));
  // Elements that take no bytes are bounded by max_elements alone.
  EXPECT_DECODE_FAIL(std::vector<empty>, B({0xe9, 0x07}), element_limit,
                     "$: 1001 elements exceed the element limit (1000 left of decode_options::max_elements), at "
                     "offset 2",
                     refwire::decode_options{.max_elements = 1000});
}

TEST(hostile_limits, max_alloc_bytes) {
  EXPECT_DECODE_FAIL(std::string, enc(std::string(100, 'a')), allocation_limit,
                     "$: allocating 100 bytes exceeds the allocation limit (99 left of "
                     "decode_options::max_alloc_bytes), at offset 1",
                     refwire::decode_options{.max_alloc_bytes = 99});
  std::string s;
  EXPECT_FALSE(decode(enc(std::string(100, 'a')), s, refwire::decode_options{.max_alloc_bytes = 100}));

  EXPECT_DECODE_FAIL(std::vector<double>, enc(std::vector<double>(4, 1.0)), allocation_limit,
                     "$: allocating 32 bytes exceeds the allocation limit (31 left of "
                     "decode_options::max_alloc_bytes), at offset 1",
                     refwire::decode_options{.max_alloc_bytes = 31});
  // A vector of strings is charged sizeof(std::string) per element, then each string's bytes.
  const std::uint64_t str = sizeof(std::string);
  EXPECT_DECODE_FAIL(std::vector<std::string>, enc(std::vector<std::string>{"", ""}), allocation_limit,
                     "$: allocating " + std::to_string(2 * str) + " bytes exceeds the allocation limit (" +
                         std::to_string(2 * str - 1) + " left of decode_options::max_alloc_bytes), at offset 1",
                     refwire::decode_options{.max_alloc_bytes = 2 * str - 1});
  EXPECT_DECODE_FAIL(std::vector<std::string>, enc(std::vector<std::string>{"abc", "defg"}), allocation_limit,
                     "$[1]: allocating 4 bytes exceeds the allocation limit (3 left of "
                     "decode_options::max_alloc_bytes), at offset 6",
                     refwire::decode_options{.max_alloc_bytes = 2 * str + 6});
  // A pointee is charged its size.
  EXPECT_DECODE_FAIL(std::unique_ptr<std::int64_t>, B({1, 1, 2, 3, 4, 5, 6, 7, 8}), allocation_limit,
                     "$: allocating 8 bytes exceeds the allocation limit (7 left of "
                     "decode_options::max_alloc_bytes), at offset 1",
                     refwire::decode_options{.max_alloc_bytes = 7});
  // Summed over the whole value.
  EXPECT_DECODE_FAIL(point, enc(point{1, 2, std::string(10, 'n')}), allocation_limit,
                     "$.name: allocating 10 bytes exceeds the allocation limit (5 left of "
                     "decode_options::max_alloc_bytes), at offset 13",
                     refwire::decode_options{.max_alloc_bytes = 5});
}

// ---------------------------------------------------------- invalid bytes

bytes flags_prefix() { return cat({enc(std::int32_t{1})}); }

TEST(hostile_values, bool_tag_and_variant) {
  const bytes valid = cat({flags_prefix(), B({1, 1, 7, 0, 1, 8, 0, 0, 5, 0, 0, 0})});
  flags f;
  ASSERT_FALSE(decode(valid, f));

  EXPECT_DECODE_FAIL(flags, cat({flags_prefix(), B({2})}), invalid_bool,
                     "$.b: invalid bool byte 0x02 (expected 0 or 1), at offset 4");
  EXPECT_DECODE_FAIL(flags, cat({flags_prefix(), B({0xff})}), invalid_bool,
                     "$.b: invalid bool byte 0xff (expected 0 or 1), at offset 4");
  EXPECT_DECODE_FAIL(flags, cat({flags_prefix(), B({0, 2})}), invalid_tag,
                     "$.o: invalid optional tag byte 0x02 (expected 0 or 1), at offset 5");
  EXPECT_DECODE_FAIL(flags, cat({flags_prefix(), B({0, 0, 0x80})}), invalid_tag,
                     "$.p: invalid pointer tag byte 0x80 (expected 0 or 1), at offset 6");
  EXPECT_DECODE_FAIL(flags, cat({flags_prefix(), B({0, 0, 0, 2})}), invalid_variant,
                     "$.v: variant index 2 out of range (2 alternatives), at offset 7");
  EXPECT_DECODE_FAIL(flags, cat({flags_prefix(), B({0, 0, 0, 0x80, 0x01})}), invalid_variant,
                     "$.v: variant index 128 out of range (2 alternatives), at offset 7");
  EXPECT_DECODE_FAIL(flags, cat({flags_prefix(), B({0, 0, 0, 0x80, 0x00})}), invalid_varint,
                     "$.v: varint is not minimally encoded, at offset 7");
  EXPECT_DECODE_FAIL(flags,
                     cat({flags_prefix(), B({0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})}),
                     invalid_variant, "$.v: variant index 18446744073709551615 out of range (2 alternatives), at offset 7");
  // An error inside an alternative names the alternative's index.
  EXPECT_DECODE_FAIL(flags, cat({flags_prefix(), B({0, 0, 0, 1, 5, 'a'})}), truncated,
                     "$.v[1]: truncated string, needs 5 bytes, 1 left, at offset 9");
  // vector<bool> elements are validated one by one.
  EXPECT_DECODE_FAIL(std::vector<bool>, B({3, 1, 0, 7}), invalid_bool,
                     "$[2]: invalid bool byte 0x07 (expected 0 or 1), at offset 3");
  using bool_array = std::array<bool, 3>;
  EXPECT_DECODE_FAIL(bool_array, B({1, 1, 9}), invalid_bool, "$[2]: invalid bool byte 0x09 (expected 0 or 1), at offset 2");
  // A present optional whose value is bad: the path does not change.
  EXPECT_DECODE_FAIL(std::optional<bool>, B({1, 3}), invalid_bool, "$: invalid bool byte 0x03 (expected 0 or 1), at offset 1");
}

TEST(hostile_values, varints) {
  EXPECT_DECODE_FAIL(std::string, B({0x80, 0x00}), invalid_varint, "$: varint is not minimally encoded, at offset 0");
  EXPECT_DECODE_FAIL(std::string, B({0xff, 0x00}), invalid_varint, "$: varint is not minimally encoded, at offset 0");
  EXPECT_DECODE_FAIL(std::string, B({0x81, 0x80, 0x00}), invalid_varint,
                     "$: varint is not minimally encoded, at offset 0");
  EXPECT_DECODE_FAIL(std::string, B({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}), invalid_varint,
                     "$: varint is not minimally encoded, at offset 0");
  // Tenth byte: only 0x01 fits in 64 bits.
  EXPECT_DECODE_FAIL(std::string, B({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02}), invalid_varint,
                     "$: varint exceeds 64 bits, at offset 0");
  EXPECT_DECODE_FAIL(std::string, B({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00}),
                     invalid_varint, "$: varint exceeds 64 bits, at offset 0");
  EXPECT_DECODE_FAIL(std::string, B({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}),
                     invalid_varint, "$: varint exceeds 64 bits, at offset 0");
  // 2^63 and 2^64-1 are valid varints (then too long for the input).
  EXPECT_DECODE_FAIL(std::string, B({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}), truncated,
                     "$: truncated string, needs 9223372036854775808 bytes, 0 left, at offset 10");
  EXPECT_DECODE_FAIL(std::string, B({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), truncated,
                     "$: truncated string, needs 18446744073709551615 bytes, 0 left, at offset 10");
  // The offset is where the varint starts, also inside a struct.
  EXPECT_DECODE_FAIL(point, cat({enc(std::int32_t{1}), enc(2.0), B({0x85, 0x00})}), invalid_varint,
                     "$.name: varint is not minimally encoded, at offset 12");
  EXPECT_DECODE_FAIL(std::vector<std::int32_t>, B({0x80, 0x00}), invalid_varint,
                     "$: varint is not minimally encoded, at offset 0");
  // Minimal multi-byte varints decode.
  std::string s;
  ASSERT_FALSE(decode(cat({B({0x80, 0x01}), bytes(128, std::byte{'a'})}), s));
  EXPECT_EQ(s.size(), 128U);
}

TEST(hostile_values, duplicate_keys) {
  EXPECT_DECODE_FAIL(std::set<std::int32_t>, cat({B({2}), enc(std::int32_t{1}), enc(std::int32_t{1})}), duplicate_key,
                     "$[1]: duplicate set element, at offset 5");
  EXPECT_DECODE_FAIL(std::unordered_set<std::int32_t>,
                     cat({B({3}), enc(std::int32_t{1}), enc(std::int32_t{2}), enc(std::int32_t{1})}), duplicate_key,
                     "$[2]: duplicate set element, at offset 9");
  EXPECT_DECODE_FAIL(std::set<std::string>, B({2, 1, 'a', 1, 'a'}), duplicate_key,
                     "$[1]: duplicate set element, at offset 3");
  using msi = std::map<std::string, std::int32_t>;
  EXPECT_DECODE_FAIL(msi, cat({B({2, 1, 'a'}), enc(std::int32_t{1}), B({1, 'a'}), enc(std::int32_t{2})}), duplicate_key,
                     "$[\"a\"]: duplicate map key, at offset 7");
  using umis = std::unordered_map<std::int32_t, std::string>;
  EXPECT_DECODE_FAIL(umis, cat({B({2}), enc(std::int32_t{42}), B({0}), enc(std::int32_t{42}), B({0})}), duplicate_key,
                     "$[42]: duplicate map key, at offset 6");
  using mbi = std::map<std::int8_t, bool>;
  EXPECT_DECODE_FAIL(mbi, B({2, 0xfd, 1, 0xfd, 0}), duplicate_key, "$[-3]: duplicate map key, at offset 3");
  // Keys neither string nor integer are named by their entry index.
  const bytes id = enc(refwire::uuid::from_string("00112233-4455-6677-8899-aabbccddeeff"));
  using mui = std::map<refwire::uuid, std::int32_t>;
  EXPECT_DECODE_FAIL(mui, cat({B({2}), id, enc(std::int32_t{1}), id, enc(std::int32_t{2})}), duplicate_key,
                     "$[1]: duplicate map key, at offset 21");
  // Inside a struct.
  EXPECT_DECODE_FAIL(with_maps, cat({B({2, 1, 'k'}), enc(std::int32_t{1}), B({1, 'k'}), enc(std::int32_t{2})}),
                     duplicate_key, "$.m[\"k\"]: duplicate map key, at offset 7");
}

TEST(hostile_values, trailing_bytes) {
  const bytes p = cat({enc(point{1, 2, "hi"}), B({0xaa, 0xbb, 0xcc})});
  refwire::error e = expect_fail<point>(p, refwire::errc::trailing_bytes, "$: 3 trailing bytes after the value, at offset 15");
  EXPECT_EQ(e.offset(), 15U);
  EXPECT_EQ(e.path(), "$");
  EXPECT_EQ(e.reason(), "3 trailing bytes after the value");
  EXPECT_DECODE_FAIL(empty, B({0}), trailing_bytes, "$: 1 trailing bytes after the value, at offset 0");
}

TEST(hostile_values, paths) {
  // Unnamed aggregate fields are .#<index>.
  EXPECT_DECODE_FAIL(agg, B({1, 2, 5}), invalid_bool, "$.#2: invalid bool byte 0x05 (expected 0 or 1), at offset 2");
  // Renamed fields show their wire name; base fields their own.
  EXPECT_DECODE_FAIL(renamed, cat({enc(std::int32_t{1}), B({4})}), invalid_bool,
                     "$.on: invalid bool byte 0x04 (expected 0 or 1), at offset 4");
  EXPECT_DECODE_FAIL(derived, B({3, 'a'}), truncated, "$.tag: truncated string, needs 3 bytes, 1 left, at offset 1");
  EXPECT_DECODE_FAIL(derived, B({0, 2}), invalid_bool, "$.ok: invalid bool byte 0x02 (expected 0 or 1), at offset 1");
  // Tuple and pair elements are [<index>].
  using tup = std::tuple<std::int8_t, std::string, bool>;
  EXPECT_DECODE_FAIL(tup, B({1, 0, 2}), invalid_bool, "$[2]: invalid bool byte 0x02 (expected 0 or 1), at offset 2");
  using pr = std::pair<std::string, bool>;
  EXPECT_DECODE_FAIL(pr, B({0x80}), truncated, "$[0]: truncated varint, needs 2 bytes, 1 left, at offset 0");
  // Map values: the key, then the value's own path.
  using msp = std::map<std::string, point>;
  EXPECT_DECODE_FAIL(msp, cat({B({1, 2, 'k', '1'}), enc(std::int32_t{1}), enc(1.0), B({9})}), truncated,
                     "$[\"k1\"].name: truncated string, needs 9 bytes, 0 left, at offset 17");
  using mip = std::map<std::int32_t, point>;
  EXPECT_DECODE_FAIL(mip, cat({B({1}), enc(std::int32_t{-7}), enc(std::int32_t{1}), enc(1.0), B({5})}), truncated,
                     "$[-7].name: truncated string, needs 5 bytes, 0 left, at offset 18");
  // The count is checked first: one entry needs at least 4 + 13 bytes.
  EXPECT_DECODE_FAIL(mip, cat({B({1}), enc(std::int32_t{-7}), B({1, 2})}), truncated,
                     "$: truncated map, 1 elements need at least 17 bytes each, 6 left, at offset 1");
  using mup = std::map<std::uint64_t, bool>;
  EXPECT_DECODE_FAIL(mup, cat({B({1}), enc(std::uint64_t{18446744073709551615ULL}), B({2})}), invalid_bool,
                     "$[18446744073709551615]: invalid bool byte 0x02 (expected 0 or 1), at offset 9");
  // Key text is escaped like a JSON string and cut after 64 bytes.
  using msb = std::map<std::string, bool>;
  EXPECT_DECODE_FAIL(msb, B({1, 5, 'a', '"', 'b', '\\', 0x01, 2}), invalid_bool,
                     "$[\"a\\\"b\\\\\\u0001\"]: invalid bool byte 0x02 (expected 0 or 1), at offset 7");
  const std::string long_key(70, 'k');
  EXPECT_DECODE_FAIL(msb, cat({B({1, 70}), bytes(70, std::byte{'k'}), B({2})}), invalid_bool,
                     "$[\"" + std::string(64, 'k') + "...\"]: invalid bool byte 0x02 (expected 0 or 1), at offset 72");
  // Set elements are [<index>].
  using ss = std::set<std::string>;
  EXPECT_DECODE_FAIL(ss, B({2, 0, 3}), truncated, "$[1]: truncated string, needs 3 bytes, 0 left, at offset 3");
}

TEST(hostile_values, durations_and_codecs) {
  // A coarser duration must hold a whole number of its unit, and fit its rep.
  EXPECT_DECODE_FAIL(timing, enc(std::int64_t{1500000}), invalid_value,
                     "$.ms: 1500000 ns is not a whole number of the field's duration unit (1000000 ns), at offset 0");
  EXPECT_DECODE_FAIL(timing, cat({enc(std::int64_t{2000000}), enc(std::int64_t{3000000000000000000})}), invalid_value,
                     "$.s32: 3000000000000000000 ns does not fit the field's duration type, at offset 8");
  EXPECT_DECODE_FAIL(timing, cat({enc(std::int64_t{0}), enc(std::int64_t{0}), enc(std::int64_t{-1})}), invalid_value,
                     "$.ts: -1 ns is not a whole number of the field's duration unit (1000000000 ns), at offset 16");
  timing t;
  ASSERT_FALSE(decode(cat({enc(std::int64_t{-2000000}), enc(std::int64_t{-2147483648000000000}),
                           enc(std::int64_t{-86400000000000})}),
                      t));
  EXPECT_EQ(t.ms.count(), -2);
  EXPECT_EQ(t.s32.count(), -2147483647 - 1);
  EXPECT_EQ(t.ts.time_since_epoch().count(), -86400);
  // A codec's from_wire that throws: invalid_value with its message, at the wire value.
  EXPECT_DECODE_FAIL(even, enc(std::int32_t{3}), invalid_value, "$: odd number 3, at offset 0");
  EXPECT_DECODE_FAIL(holds_even, cat({enc(std::int32_t{0}), enc(std::int32_t{-5})}), invalid_value,
                     "$.e: odd number -5, at offset 4");
  EXPECT_DECODE_FAIL(holds_even, cat({enc(std::int32_t{0}), B({1})}), truncated,
                     "$.e: truncated i32, needs 4 bytes, 1 left, at offset 4");
}

TEST(hostile_values, enums_take_any_underlying_value) {
  // Documented behaviour: an enum is its underlying integer; values without an
  // enumerator are not rejected.
  color c = color::red;
  ASSERT_FALSE(decode(B({0x99, 0x99}), c));
  EXPECT_EQ(static_cast<std::uint16_t>(c), 0x9999);
}

// --------------------------------------------------------------- prefix

TEST(hostile_prefix, consumed_bytes) {
  const bytes one = enc(point{1, 2, "hi"});
  const bytes two = cat({one, enc(point{3, 4, "there"}), B({0xee})});
  heap_copy copy(two);
  std::span<const std::byte> in = copy.span();
  point p;
  std::size_t used = 0;
  ASSERT_FALSE(refwire::deserialize_prefix<refwire::binary>(in, p, used));
  EXPECT_EQ(used, one.size());
  EXPECT_EQ(p.name, "hi");
  in = in.subspan(used);
  ASSERT_FALSE(refwire::deserialize_prefix<refwire::binary>(in, p, used));
  EXPECT_EQ(used, 18U);
  EXPECT_EQ(p.x, 3);
  EXPECT_EQ(p.name, "there");
  in = in.subspan(used);
  ASSERT_EQ(in.size(), 1U);
  // One byte left, not a point: truncated, nothing consumed.
  used = 77;
  refwire::error e = refwire::deserialize_prefix<refwire::binary>(in, p, used);
  EXPECT_EQ(e.code(), refwire::errc::truncated);
  EXPECT_EQ(e.message(), "$.x: truncated i32, needs 4 bytes, 1 left, at offset 0");
  EXPECT_EQ(used, 0U);
  // A value that takes no bytes consumes none, even from an empty input.
  empty nothing;
  used = 5;
  EXPECT_FALSE(refwire::deserialize_prefix<refwire::binary>(std::span<const std::byte>(), nothing, used));
  EXPECT_EQ(used, 0U);
  // The same input without prefix mode is a trailing-bytes error.
  EXPECT_EQ(refwire::deserialize<refwire::binary>(two, p).code(), refwire::errc::trailing_bytes);
}

// --------------------------------------------------------------- random

/// Decodes in as T; on failure checks the error is well formed; on success
/// checks the prefix form agrees. Returns whether the decode succeeded.
std::size_t g_successes = 0;

template <class T>
bool decode_checked(std::span<const std::byte> in) {
  T v{};
  refwire::error e = decode(in, v);
  if (!e) ++g_successes;
  if (e) {
    EXPECT_NE(e.code(), refwire::errc::ok);
    EXPECT_LE(e.offset(), in.size());
    EXPECT_EQ(e.path().substr(0, 1), "$");
    EXPECT_EQ(e.message(), e.path() + ": " + e.reason() + ", at offset " + std::to_string(e.offset()));
  }
  heap_copy copy(in);
  T w{};
  std::size_t used = 0;
  refwire::error e2 = refwire::deserialize_prefix<refwire::binary>(copy.span(), w, used);
  if (!e2) {
    EXPECT_LE(used, in.size());
    if (!e) {
      EXPECT_EQ(used, in.size());
    }
  } else {
    EXPECT_TRUE(e);  // if the whole input decodes, so does its prefix
    EXPECT_EQ(e2.code(), e.code());
  }
  return !e;
}

/// For types whose encoding is canonical: a successful decode re-encodes to the input.
template <class T>
void expect_canonical(std::span<const std::byte> in) {
  T v{};
  if (decode(in, v)) return;
  const bytes again = refwire::serialize(v);
  EXPECT_TRUE(std::equal(again.begin(), again.end(), in.begin(), in.end())) << "non-canonical input accepted";
}

using decoder = void (*)(std::span<const std::byte>);

template <class T>
void run_type(std::span<const std::byte> in) {
  (void)decode_checked<T>(in);
}

template <class T>
void run_canonical(std::span<const std::byte> in) {
  (void)decode_checked<T>(in);
  expect_canonical<T>(in);
}

const decoder all_decoders[] = {
    &run_canonical<point>,
    &run_canonical<order>,
    &run_canonical<node>,
    &run_canonical<chain>,
    &run_canonical<flags>,
    &run_canonical<agg>,
    &run_canonical<timing>,
    &run_canonical<std::vector<std::string>>,
    &run_canonical<std::tuple<std::uint8_t, std::optional<std::string>, std::vector<bool>>>,
    &run_type<mixed>,
    &run_type<with_maps>,
    &run_type<std::unordered_map<std::string, std::vector<std::int16_t>>>,
    &run_type<std::set<std::uint8_t>>,
};

TEST(hostile_random, random_buffers) {
  std::mt19937_64 rng(20240601);
  std::size_t n = 0;
  g_successes = 0;
  for (int round = 0; round < 4000; ++round) {
    const std::size_t len = rng() % 64;
    bytes in(len);
    // Bias towards small bytes so counts and tags are often plausible.
    for (auto& b : in) b = static_cast<std::byte>(rng() % 4 == 0 ? rng() % 256 : rng() % 4);
    for (decoder d : all_decoders) {
      d(in);
      ++n;
    }
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(n, 40000U);
  EXPECT_GT(g_successes, 100U);  // the loop also reaches the success paths
}

TEST(hostile_random, mutated_valid_encodings) {
  with_maps w;
  w.m = {{"a", 1}, {"bb", 2}};
  w.im = {{-1, {1, 2.0, "p"}}};
  w.s = {"x", "y"};
  const std::vector<std::pair<bytes, decoder>> seeds = {
      {enc(make_mixed()), &run_type<mixed>},
      {enc(w), &run_type<with_maps>},
      {enc(point{5, 1.5, "five"}), &run_canonical<point>},
      {enc(order{{{1, 1, "a"}, {2, 2, "b"}}}), &run_canonical<order>},
      {B({2, 1, 0, 0, 1, 0}), &run_canonical<node>},
  };
  std::mt19937_64 rng(7);
  g_successes = 0;
  for (int round = 0; round < 3000; ++round) {
    for (const auto& [seed, d] : seeds) {
      bytes in = seed;
      const int flips = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < flips; ++i) {
        const std::size_t at = rng() % in.size();
        switch (rng() % 4) {
          case 0: in[at] = static_cast<std::byte>(rng() % 256); break;
          case 1: in[at] ^= static_cast<std::byte>(1U << (rng() % 8)); break;
          case 2: in.erase(in.begin() + static_cast<std::ptrdiff_t>(at)); break;
          default: in.insert(in.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::byte>(rng() % 256));
        }
        if (in.empty()) in.push_back(std::byte{0});
      }
      d(in);
    }
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(g_successes, 1000U);
}

// ------------------------------------------------------- entry order
//
// Ordered containers are written sorted, and read in any order: a writer's
// unordered_map (same schema, same fingerprint) can be read into a std::map.
// Only duplicates are errors.
TEST(hostile_order, ordered_containers_accept_any_entry_order) {
  std::set<std::int32_t> s;
  const bytes unsorted = cat({B({2}), enc(std::int32_t{2}), enc(std::int32_t{1})});
  ASSERT_FALSE(decode(unsorted, s));
  EXPECT_EQ(s, (std::set<std::int32_t>{1, 2}));
  EXPECT_EQ(enc(s), cat({B({2}), enc(std::int32_t{1}), enc(std::int32_t{2})}));

  std::map<std::string, std::int32_t> m;
  ASSERT_FALSE(decode(cat({B({2, 1, 'b'}), enc(std::int32_t{1}), B({1, 'a'}), enc(std::int32_t{2})}), m));
  EXPECT_EQ(m, (std::map<std::string, std::int32_t>{{"a", 2}, {"b", 1}}));

  const std::unordered_map<std::string, std::int32_t> written{{"x", 1}, {"y", 2}, {"z", 3}};
  ASSERT_FALSE(decode(enc(written), m));
  EXPECT_EQ(m, (std::map<std::string, std::int32_t>{{"x", 1}, {"y", 2}, {"z", 3}}));

  // Out of order and duplicated is still a duplicate, reported where it is.
  refwire::error e = decode(cat({B({3}), enc(std::int32_t{5}), enc(std::int32_t{1}), enc(std::int32_t{5})}), s);
  EXPECT_EQ(e.code(), refwire::errc::duplicate_key);
  EXPECT_EQ(e.message(), "$[2]: duplicate set element, at offset 9");
}

// Found by these tests and fixed in the library (8d12c52): kept as regression tests.

// Floating-point durations go out as the nearest nanosecond count: 0.3 ms is
// 300000 ns (e0 93 04 00 ...), not 299999 (df 93 04 00 ...).
TEST(hostile_regressions, float_duration_encodes_to_nearest_nanosecond) {
  EXPECT_EQ(enc(std::chrono::duration<double, std::milli>(0.3)), enc(std::int64_t{300000}));
  EXPECT_EQ(enc(std::chrono::duration<double>(0.1)), enc(std::int64_t{100000000}));
  EXPECT_EQ(enc(std::chrono::duration<double>(-0.1)), enc(std::int64_t{-100000000}));
  std::chrono::duration<double> d{};
  ASSERT_FALSE(decode(enc(std::int64_t{1}), d));
  EXPECT_EQ(enc(d), enc(std::int64_t{1}));  // 1 ns survives the trip through double seconds
}

// An enum whose underlying type is bool is a bool on the wire: one byte, 0 or
// 1. Decoding 02 used to load an invalid bool (UBSan: "load of value 2, which
// is not a valid value for type 'bool'"), and encoding did not compile.
TEST(hostile_regressions, bool_enum_rejects_invalid_byte) {
  EXPECT_EQ(enc(yes_no::yes), B({1}));
  EXPECT_DECODE_FAIL(yes_no, B({2}), invalid_bool, "$: invalid bool byte 0x02 (expected 0 or 1), at offset 0");
  yes_no v = yes_no::no;
  ASSERT_FALSE(decode(B({1}), v));
  EXPECT_EQ(v, yes_no::yes);
}

}  // namespace hostile
