// The conformance suite: one test body, every format (refwire::binary,
// refwire::json, refwire::protobuf). Each case runs the same values through
// each format: round trips compared field by field, every truncation, the
// decode_options limits at their edges, error paths, deserialize_prefix, and
// the throwing, non-throwing and prefix entry points agreeing on every decode.
//
// What a format does differently is said once, in its traits below (JSON needs
// names and has no NaN; protobuf is not self-delimiting and decodes a missing
// field as zero; the formats count nesting differently). Where a format does
// not do what the design promises, the test pins today's behaviour and says
// so in a comment starting "current behaviour:".
//
// A format added to the registry (refwire::formats) runs this suite once it has its traits.
#include <refwire/serialization.hpp>

#include <boost/mp11/algorithm.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <bitset>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <filesystem>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "../common/field_eq.hpp"
#include "../common/legacy_money.hpp"
#include "../common/types.hpp"
#include "../common/values.hpp"

namespace conformance {

using namespace shapes;
using bytes = std::vector<std::byte>;
using refwire::errc;
using testing_support::expect_fields_eq;
using testing_support::same_value;

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

/// Offsets at which the top-level fields of a protobuf message end (and 0): a
/// prefix ending at one of them is itself a complete, shorter message.
std::set<std::size_t> protobuf_field_ends(std::span<const std::byte> b) {
  std::set<std::size_t> ends{0};
  std::size_t i = 0;
  const auto varint = [&] {
    std::uint64_t v = 0;
    for (int shift = 0; i < b.size(); shift += 7) {
      const auto c = static_cast<std::uint8_t>(b[i++]);
      v |= std::uint64_t{c & 0x7fU} << shift;
      if ((c & 0x80U) == 0) break;
    }
    return v;
  };
  while (i < b.size()) {
    switch (varint() & 7U) {
      case 0: (void)varint(); break;
      case 1: i += 8; break;
      case 2: i += static_cast<std::size_t>(varint()); break;
      case 5: i += 4; break;
      default: ADD_FAILURE() << "refwire wrote a group or an invalid wire type"; return ends;
    }
    ends.insert(i);
  }
  return ends;
}

// ----------------------------------------------------------------- traits

template <class F>
struct traits;

template <>
struct traits<refwire::binary> {
  /// Plain aggregates (Boost.PFR, no names) are serializable.
  static constexpr bool aggregates = true;
  /// NaN and infinity have an encoding (bit-exact).
  static constexpr bool nan_and_infinity = true;
  /// std::string is bytes: invalid UTF-8 round-trips.
  static constexpr bool any_string_bytes = true;
  /// Map keys of any serializable type (uuid, records).
  static constexpr bool any_map_key = true;
  /// The value says where it ends: deserialize_prefix stops there, and bytes
  /// after it are errc::trailing_bytes for deserialize.
  static constexpr bool self_delimiting = true;
  /// Encoding a decoded value gives the same bytes (ordered containers).
  static constexpr bool canonical = true;
  /// Nesting levels a tree (a record holding vector<tree>) costs per level:
  /// the record and its vector.
  static constexpr std::uint32_t tree_depth_per_level = 2;
  /// Levels of a chain of n records linked by unique_ptr: records and pointers.
  static constexpr std::uint32_t chain_depth(std::uint32_t n) { return 2 * n - 1; }
  /// Levels of optional<optional<optional<i8>>> holding a value, and holding
  /// an optional holding nothing.
  static constexpr std::uint32_t optional3_depth = 3;
  static constexpr std::uint32_t optional2_depth = 2;
  /// A vector of arithmetic values is one memcpy and costs no nesting level.
  static constexpr bool arithmetic_vector_costs_a_level = false;
  /// std::array elements count against max_elements.
  static constexpr bool fixed_arrays_count_as_elements = false;
  /// Bytes max_alloc_bytes charges for a 10-byte vector<std::byte>.
  static constexpr std::uint64_t alloc_of_10_byte_blob = 10;

  /// The code every proper prefix of an encoding decodes to (ok: the prefix is a value).
  static errc prefix_code(std::span<const std::byte>, std::size_t) { return errc::truncated; }
  static void expect_truncation_reason(const refwire::error& e) {
    EXPECT_EQ(e.reason().rfind("truncated ", 0), 0U) << e.message();
  }
};

template <>
struct traits<refwire::json> {
  static constexpr bool aggregates = false;  // JSON needs names: a PFR aggregate is a compile error
  static constexpr bool nan_and_infinity = false;  // encode_error
  static constexpr bool any_string_bytes = false;  // invalid UTF-8 is an encode_error
  static constexpr bool any_map_key = true;  // non-string keys are written as [key, value] pairs
  static constexpr bool self_delimiting = true;
  static constexpr bool canonical = true;
  static constexpr std::uint32_t tree_depth_per_level = 2;
  static constexpr std::uint32_t chain_depth(std::uint32_t n) { return 2 * n - 1; }
  static constexpr std::uint32_t optional3_depth = 3;
  // current behaviour: an optional holding an empty optional is written null,
  // like an empty one, and decodes as empty (JSON has one null).
  static constexpr std::uint32_t optional2_depth = 0;
  static constexpr bool arithmetic_vector_costs_a_level = true;  // every JSON array is a level
  static constexpr bool fixed_arrays_count_as_elements = false;
  // current behaviour: JSON charges the base64 text's decoded upper bound
  // (12 bytes for the 16 characters of a 10-byte blob), not the blob's size.
  static constexpr std::uint64_t alloc_of_10_byte_blob = 12;

  // current behaviour: a prefix that ends just after a nested object's closing
  // brace is invalid_json ("invalid JSON structure"), not truncated like every
  // other prefix of the same text.
  static errc prefix_code(std::span<const std::byte> full, std::size_t len) {
    const bool number = !full.empty() && full[0] >= std::byte{'0'} && full[0] <= std::byte{'9'};
    if (number) return len == 0 ? errc::truncated : errc::ok;  // a shorter number
    return len > 0 && full[len - 1] == std::byte{'}'} ? errc::invalid_json : errc::truncated;
  }
  static void expect_truncation_reason(const refwire::error& e) {
    EXPECT_TRUE(e.reason() == "no JSON value" || e.reason() == "unterminated string" ||
                e.reason() == "unterminated object or array")
        << e.message();
  }
};

template <>
struct traits<refwire::protobuf> {
  static constexpr bool aggregates = true;  // positional: field number = position + 1
  static constexpr bool nan_and_infinity = true;
  static constexpr bool any_string_bytes = false;  // string fields must hold UTF-8: an encode_error
  static constexpr bool any_map_key = false;  // keys: integers, bool or string (protobuf's rule; a compile error)
  // A message does not say where it ends: deserialize_prefix takes the whole
  // input, and bytes after a message are more fields (a second message merges
  // into the first, last field wins).
  static constexpr bool self_delimiting = false;
  static constexpr bool canonical = true;
  // Only messages nest: a repeated field is no level of its own.
  static constexpr std::uint32_t tree_depth_per_level = 1;
  static constexpr std::uint32_t chain_depth(std::uint32_t n) { return n; }
  static constexpr std::uint32_t optional3_depth = 2;
  static constexpr std::uint32_t optional2_depth = 2;
  static constexpr bool arithmetic_vector_costs_a_level = false;
  // current behaviour: protobuf counts std::array (and C array) elements
  // against max_elements; binary and JSON do not.
  static constexpr bool fixed_arrays_count_as_elements = true;
  static constexpr std::uint64_t alloc_of_10_byte_blob = 10;

  /// A prefix ending where a top-level field ends is a complete, shorter message.
  static errc prefix_code(std::span<const std::byte> full, std::size_t len) {
    return protobuf_field_ends(full).count(len) != 0 ? errc::ok : errc::truncated;
  }
  static void expect_truncation_reason(const refwire::error& e) {
    EXPECT_EQ(e.reason().rfind("truncated ", 0), 0U) << e.message();
  }
};

// ---------------------------------------------------------------- helpers

template <class F, class T>
bytes encode(const T& v) {
  return refwire::serialize<F>(v);
}

std::string text_of(const bytes& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

/// An exact-size heap copy: under ASan, a read past the end is an error.
class heap_copy {
 public:
  explicit heap_copy(std::span<const std::byte> in) : size_(in.size()), data_(new std::byte[in.size() + 1]) {
    if (size_ != 0) std::memcpy(data_.get(), in.data(), size_);
  }
  [[nodiscard]] std::span<const std::byte> span() const { return {data_.get(), size_}; }

 private:
  std::size_t size_;
  std::unique_ptr<std::byte[]> data_;
};

/// Decodes in into out with the non-throwing entry point and checks that the
/// throwing and the prefix entry points agree with it: the same outcome, the
/// same message, code, offset and path; a failed prefix decode consumes
/// nothing; a successful one consumes the whole input (the input here is one
/// value). A failure must be well formed. Returns the non-throwing result.
template <class F, class T>
refwire::error decode(std::span<const std::byte> in, T& out, const refwire::decode_options& o = {}) {
  const heap_copy copy(in);
  refwire::error e = refwire::deserialize<F>(copy.span(), out, o);
  if (e) {
    EXPECT_NE(e.code(), errc::ok);
    EXPECT_LE(e.offset(), in.size()) << e.message();
    EXPECT_EQ(e.path().substr(0, 1), "$") << e.message();
    // Text formats add the line and column of the offset; binary formats have none.
    const std::string where = e.line() == 0 ? std::string() : " (line " + std::to_string(e.line()) + ", column " + std::to_string(e.column()) + ")";
    EXPECT_EQ(e.line() == 0, e.column() == 0) << e.message();
    EXPECT_EQ(e.message(), e.path() + ": " + e.reason() + ", at offset " + std::to_string(e.offset()) + where);
  }
  try {
    (void)refwire::deserialize<T, F>(copy.span(), o);
    EXPECT_FALSE(e) << "the throwing deserialize did not throw: " << e.message();
  } catch (const refwire::decode_error& d) {
    EXPECT_TRUE(e) << "the throwing deserialize threw: " << d.what();
    EXPECT_EQ(std::string(d.what()), e.message());
    EXPECT_EQ(d.code(), e.code());
    EXPECT_EQ(d.offset(), e.offset());
    EXPECT_EQ(d.path(), e.path());
  }
  T prefixed{};
  std::size_t used = 12345;
  const refwire::error p = refwire::deserialize_prefix<F>(copy.span(), prefixed, used, o);
  if (!e) {
    EXPECT_FALSE(p) << p.message();
    EXPECT_EQ(used, in.size());
  } else if (e.code() != errc::trailing_bytes) {
    EXPECT_EQ(p.code(), e.code());
    EXPECT_EQ(p.message(), e.message());
    EXPECT_EQ(used, 0U) << "consumed set on failure";
  }
  return e;
}

template <class F, class T>
refwire::error decode_as(std::span<const std::byte> in, const refwire::decode_options& o = {}) {
  T out{};
  return decode<F>(in, out, o);
}

/// Decodes in as T and expects the code and the path.
template <class F, class T>
void expect_error(std::span<const std::byte> in, errc code, const std::string& path,
                  const refwire::decode_options& o = {}) {
  const refwire::error e = decode_as<F, T>(in, o);
  EXPECT_EQ(refwire::to_string(e.code()), refwire::to_string(code)) << e.message();
  EXPECT_EQ(e.path(), path) << e.message();
}

/// Extra checks of every JSON round trip: the pretty text decodes to the same
/// value, and nlohmann-json accepts the text.
template <class F, class T>
void format_extras(const T& v, const bytes& encoded, const T& decoded, bool canonical) {
  if constexpr (std::is_same_v<F, refwire::json>) {
    const std::string pretty = refwire::to_json(v, {.pretty = true});
    T from_pretty{};
    const refwire::error e = decode<F>(refwire::detail::as_bytes(pretty), from_pretty);
    EXPECT_FALSE(e) << e.message() << "\n" << pretty;
    if (canonical) {
      EXPECT_EQ(text_of(encode<F>(from_pretty)), text_of(encoded)) << "pretty decodes differently";
    } else if constexpr (std::equality_comparable<T>) {
      EXPECT_TRUE(from_pretty == decoded) << "pretty decodes differently";
    } else {
      ADD_FAILURE() << "an unordered type without operator==";
    }
    EXPECT_TRUE(nlohmann::json::accept(text_of(encoded))) << text_of(encoded);
  } else {
    (void)v, (void)encoded, (void)decoded, (void)canonical;
  }
}

/// Encodes, decodes (every entry point) and, for ordered types, checks that
/// re-encoding gives the same bytes. Returns the decoded value.
template <class F, class T>
T round_trip(const T& v, bool ordered = true) {
  const bytes b = encode<F>(v);
  T out{};
  const refwire::error e = decode<F>(b, out);
  EXPECT_FALSE(e) << e.message();
  const bool canonical = ordered && traits<F>::canonical;
  if (canonical) {
    EXPECT_EQ(encode<F>(out), b) << "re-encoding differs";
  }
  format_extras<F>(v, b, out, canonical);
  return out;
}

/// round_trip, then the decoded value compared field by field.
template <class F, class T>
void expect_round_trip(const T& v, bool ordered = true) {
  expect_fields_eq(round_trip<F>(v, ordered), v);
}

/// Every proper prefix of v's encoding fails (or, in protobuf, is a shorter
/// message) with the code the format gives, never a crash; the whole decodes.
template <class F, class T>
void expect_every_truncation_fails(const T& v) {
  const bytes full = encode<F>(v);
  SCOPED_TRACE(::testing::Message() << "full encoding " << full.size() << " bytes");
  {
    T whole{};
    const refwire::error e = decode<F>(full, whole);
    ASSERT_FALSE(e) << e.message();
  }
  for (std::size_t len = 0; len < full.size(); ++len) {
    SCOPED_TRACE(::testing::Message() << "prefix of " << len << " bytes");
    const std::span<const std::byte> prefix(full.data(), len);
    const refwire::error e = decode_as<F, T>(prefix);
    const errc want = traits<F>::prefix_code(full, len);
    EXPECT_EQ(refwire::to_string(e.code()), refwire::to_string(want)) << e.message();
    if (e.code() == errc::truncated) traits<F>::expect_truncation_reason(e);
  }
}

tree tree_of(std::size_t levels) {  // levels nested trees, the innermost has no kids
  tree t;
  tree* p = &t;
  for (std::size_t i = 1; i < levels; ++i) {
    p->kids.resize(1);
    p = &p->kids[0];
  }
  return t;
}

chain chain_of(std::size_t n) {  // n records linked by next, holding 1 ... n
  chain c{1, nullptr};
  chain* p = &c;
  for (std::size_t i = 2; i <= n; ++i) {
    p->next = std::make_unique<chain>(chain{static_cast<std::int32_t>(i), nullptr});
    p = p->next.get();
  }
  return c;
}

template <class F>
class conformance : public ::testing::Test {};

// The ctest names are conformance.<case><refwire::binary>, ... (gtest's
// conformance/0.<case>, where TypeParam = refwire::binary).
// Every format of the registry (refwire::formats, formats.hpp).
using formats = boost::mp11::mp_rename<refwire::formats, ::testing::Types>;
TYPED_TEST_SUITE(conformance, formats);

// ------------------------------------------------------------- round trips

TYPED_TEST(conformance, round_trip_scalars_default) {
  using F = TypeParam;
  const scalars zero;
  expect_round_trip<F>(zero);
  scalars zero_enums;  // every field zero, enums included: an empty protobuf message
  zero_enums.col = color{0};
  zero_enums.pe = plain_enum{0};
  expect_round_trip<F>(zero_enums);
}

TYPED_TEST(conformance, round_trip_scalars_at_their_limits) {
  using F = TypeParam;
  const scalars hi = max_scalars();
  expect_round_trip<F>(hi);
  scalars lo = max_scalars();
  lo.c = std::numeric_limits<char>::min();
  lo.i8 = std::numeric_limits<std::int8_t>::max();
  lo.u8 = 0;
  lo.i16 = std::numeric_limits<std::int16_t>::max();
  lo.u16 = 0;
  lo.i32 = std::numeric_limits<std::int32_t>::max();
  lo.u32 = 0;
  lo.i64 = std::numeric_limits<std::int64_t>::max();
  lo.u64 = 0;
  lo.f = std::numeric_limits<float>::denorm_min();
  lo.d = std::numeric_limits<double>::denorm_min();
  lo.col = color::green;
  lo.pe = pe_a;
  lo.c16 = 0;
  lo.c32 = 0;
  expect_round_trip<F>(lo);
  scalars mid = lo;
  mid.f = std::numeric_limits<float>::lowest();
  mid.d = std::numeric_limits<double>::max();
  mid.b = false;
  mid.col = static_cast<color>(7);  // no enumerator: the number
  mid.pe = static_cast<plain_enum>(12345);
  expect_round_trip<F>(mid);
}

TYPED_TEST(conformance, round_trip_floats_bit_exact) {
  using F = TypeParam;
  for (double d : {0.1, 1.0 / 3, -0.0, 1e300, -1e-300, 5e-324, 1.7976931348623157e308, 123456789012345678.0,
                   9007199254740993.0, 0.30000000000000004}) {
    const std::vector<double> v{d};
    const auto back = round_trip<F>(v);
    ASSERT_EQ(back.size(), 1U);
    EXPECT_TRUE(same_value(back[0], d)) << d;
  }
  for (float f : {0.1F, -0.0F, 3.4028235e38F, 1e-45F, 16777217.0F}) {
    const std::vector<float> v{f};
    const auto back = round_trip<F>(v);
    ASSERT_EQ(back.size(), 1U);
    EXPECT_TRUE(same_value(back[0], f)) << f;
  }
  scalars s;
  s.d = -0.0;
  s.f = -0.0F;
  const scalars z = round_trip<F>(s);
  EXPECT_TRUE(std::signbit(z.d));
  EXPECT_TRUE(std::signbit(z.f));

  scalars nan;
  nan.d = std::numeric_limits<double>::quiet_NaN();
  nan.f = -0.0F;
  scalars nanf;
  nanf.f = std::numeric_limits<float>::quiet_NaN();
  nanf.d = -0.0;
  std::vector<double> inf{1, -std::numeric_limits<double>::infinity()};
  if constexpr (traits<F>::nan_and_infinity) {
    expect_round_trip<F>(nan);
    EXPECT_TRUE(std::isnan(round_trip<F>(nan).d));
    EXPECT_TRUE(std::signbit(round_trip<F>(nan).f));
    expect_round_trip<F>(nanf);
    EXPECT_TRUE(std::isnan(round_trip<F>(nanf).f));
    EXPECT_EQ(round_trip<F>(inf), inf);
  } else {
    try {
      (void)encode<F>(nan);
      ADD_FAILURE() << "NaN encoded";
    } catch (const refwire::encode_error& e) {
      EXPECT_STREQ(e.what(), "$.d: NaN has no JSON encoding");
    }
    try {
      (void)encode<F>(nanf);
      ADD_FAILURE() << "NaN encoded";
    } catch (const refwire::encode_error& e) {
      EXPECT_STREQ(e.what(), "$.f: NaN has no JSON encoding");
    }
    try {
      (void)encode<F>(inf);
      ADD_FAILURE() << "infinity encoded";
    } catch (const refwire::encode_error& e) {
      EXPECT_STREQ(e.what(), "$[1]: infinity has no JSON encoding");
    }
  }
}

TYPED_TEST(conformance, round_trip_containers_empty) {
  using F = TypeParam;
  const containers none;
  expect_round_trip<F>(none);
}

TYPED_TEST(conformance, round_trip_containers_full) {
  using F = TypeParam;
  // Unicode, a NUL, escapes, empty and long elements, every container kind.
  const containers c = json_full_containers();
  const containers back = round_trip<F>(c, /*ordered=*/false);  // unordered_map / unordered_set
  expect_fields_eq(back, c);
  EXPECT_EQ(back.text.size(), c.text.size()) << "embedded NUL kept";
  if constexpr (traits<F>::nan_and_infinity) {
    const containers inf = full_containers();  // infinity among the doubles
    expect_fields_eq(round_trip<F>(inf, /*ordered=*/false), inf);
  }
}

TYPED_TEST(conformance, round_trip_large_vectors) {
  using F = TypeParam;
  for (int variant = 0; variant < 2; ++variant) {
    containers c;
    c.doubles.resize(100'000);
    for (std::size_t i = 0; i < c.doubles.size(); ++i) {
      c.doubles[i] = static_cast<double>(i) * 0.25 - (variant == 0 ? 0.0 : 7.1);
    }
    c.strings.resize(5'000);
    for (std::size_t i = 0; i < c.strings.size(); ++i) {
      c.strings[i] = std::string(i % 70, static_cast<char>('a' + i % 26));
    }
    if (variant == 1) c.text = std::string(100'000, 'x') + "\"\\\n" + std::string(5000, '\x01');
    expect_round_trip<F>(c);
  }
}

TYPED_TEST(conformance, round_trip_wrappers_empty) {
  using F = TypeParam;
  const wrappers w;
  const wrappers back = round_trip<F>(w);
  expect_fields_eq(back, w);
  EXPECT_FALSE(back.ptr);
  EXPECT_FALSE(back.null_ptr);
  EXPECT_EQ(back.var.index(), 0U);
}

TYPED_TEST(conformance, round_trip_wrappers_full) {
  using F = TypeParam;
  const wrappers w = full_wrappers();
  expect_round_trip<F>(w);
}

TYPED_TEST(conformance, round_trip_every_variant_alternative) {
  using F = TypeParam;
  wrappers w;
  for (std::size_t i = 0; i < 3; ++i) {
    if (i == 0) w.var = 17;
    if (i == 1) w.var = std::string("s");
    if (i == 2) w.var = inner{1, "i"};
    const wrappers back = round_trip<F>(w);
    ASSERT_EQ(back.var.index(), i);
    EXPECT_EQ(back.var, w.var);
  }
  // Zero values in each alternative (protobuf: an empty oneof member is still there).
  w.var = std::int32_t{0};
  EXPECT_EQ(round_trip<F>(w).var, w.var);
  w.var = std::string();
  EXPECT_EQ(round_trip<F>(w).var, w.var);
  w.var = inner{};
  EXPECT_EQ(round_trip<F>(w).var, w.var);
  w.var2 = std::monostate{};
  EXPECT_EQ(round_trip<F>(w).var2, w.var2);
  w.var2 = 0.0;
  EXPECT_EQ(round_trip<F>(w).var2, w.var2);
}

TYPED_TEST(conformance, round_trip_time_extremes) {
  using F = TypeParam;
  using std::chrono::nanoseconds;
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  wrappers w;
  w.ns = nanoseconds(hi);
  w.when = refwire::timestamp(nanoseconds(hi));
  expect_round_trip<F>(w);
  w.ns = nanoseconds(lo);
  w.sec = std::chrono::seconds(9'000'000'000LL);
  for (std::int64_t t : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1}, hi}) {
    w.when = refwire::timestamp(nanoseconds(t));
    expect_round_trip<F>(w);
  }
  w.when = refwire::timestamp(nanoseconds(lo));
  w.when_s = {};
  expect_round_trip<F>(w);  // the earliest timestamp (protobuf: -9223372037 s + 145224192 ns)
}

TYPED_TEST(conformance, round_trip_base_class_fields) {
  using F = TypeParam;
  derived d;
  d.id = 7;
  d.tag = "base two";
  d.value = 1.5;
  expect_round_trip<F>(d);
  tag_derived t;
  t.tag = "t";
  t.ok = true;
  const tag_derived back = round_trip<F>(t);
  EXPECT_EQ(back.tag, "t");
  EXPECT_TRUE(back.ok);
}

TYPED_TEST(conformance, round_trip_described_class_with_private_members) {
  using F = TypeParam;
  const account a("ada", -123456789);
  const account back = round_trip<F>(a);
  EXPECT_EQ(back.owner(), "ada");
  EXPECT_EQ(back.cents(), -123456789);
}

TYPED_TEST(conformance, round_trip_plain_aggregates) {
  using F = TypeParam;
  if constexpr (traits<F>::aggregates) {
    const plain p{-3, "pfr", {1.0, 2.0}, {5, "inner"}};
    EXPECT_EQ(round_trip<F>(p), p);
    const agg a{1, 255, true};
    const agg ab = round_trip<F>(a);
    EXPECT_EQ(ab.a, 1);
    EXPECT_EQ(ab.b, 255);
    EXPECT_TRUE(ab.c);
    const fuzz_plain fp{0x0102, "pfr", {5, 6}, 77};
    const fuzz_plain fb = round_trip<F>(fp);
    EXPECT_EQ(fb.a, fp.a);
    EXPECT_EQ(fb.b, fp.b);
    EXPECT_EQ(fb.c, fp.c);
    EXPECT_EQ(fb.d, fp.d);
    const std::vector<empty_aggregate> none(3);
    EXPECT_EQ(round_trip<F>(none).size(), 3U);
  } else {
    // A named format: a plain aggregate is a compile error ("this format needs
    // field names"), checked by tests/compile_fail/json_needs_names.cpp.
    static_assert(!F::positional && refwire::aggregate_record<plain>);
  }
}

TYPED_TEST(conformance, round_trip_recursive_types) {
  using F = TypeParam;
  node n;
  n.value = 1;
  n.kids.resize(2);
  n.kids[0].value = 2;
  n.kids[1].kids.resize(1);
  n.kids[1].kids[0].value = 3;
  n.next = std::make_unique<node>();
  n.next->value = 4;
  n.next->next = std::make_unique<node>();
  n.next->next->value = -9;
  const node back = round_trip<F>(n);
  EXPECT_EQ(back, n);
  ASSERT_TRUE(back.next && back.next->next);
  EXPECT_EQ(back.next->next->value, -9);
  const tree t = tree_of(10);
  const tree tb = round_trip<F>(t);
  std::size_t levels = 1;
  for (const tree* p = &tb; !p->kids.empty(); p = &p->kids[0]) ++levels;
  EXPECT_EQ(levels, 10U);
  const chain c = chain_of(5);
  const chain cb = round_trip<F>(c);
  std::size_t links = 0;
  for (const chain* p = &cb; p != nullptr; p = p->next.get()) {
    EXPECT_EQ(p->v, static_cast<std::int32_t>(links + 1));
    ++links;
  }
  EXPECT_EQ(links, 5U);
}

TYPED_TEST(conformance, round_trip_empty_struct) {
  using F = TypeParam;
  const empty e;
  EXPECT_EQ(round_trip<F>(e), e);
  const std::vector<empty> many(4);
  EXPECT_EQ(round_trip<F>(many).size(), 4U);
}

TYPED_TEST(conformance, round_trip_codec_surrogate) {
  using F = TypeParam;
  const legacy::wallet w{"bob", legacy::money(250), {legacy::money(1), legacy::money(2), legacy::money(0)}};
  EXPECT_EQ(round_trip<F>(w), w);
  // The codec's from_wire throwing is errc::invalid_value with its message, at the value's path.
  const legacy::wallet neg{"eve", legacy::money(-1), {}};
  const refwire::error e = decode_as<F, legacy::wallet>(encode<F>(neg));
  EXPECT_EQ(e.code(), errc::invalid_value);
  EXPECT_EQ(e.path(), "$.balance");
  EXPECT_EQ(e.reason(), "money cannot be negative");
  if constexpr (std::is_same_v<F, refwire::binary>) {
    EXPECT_EQ(e.message(), "$.balance: money cannot be negative, at offset 4");
  }
  const holds_even h{4, even{-6}};
  const holds_even hb = round_trip<F>(h);
  EXPECT_EQ(hb.a, 4);
  EXPECT_EQ(hb.e.v, -6);
  const holds_even odd{0, even{-5}};
  const refwire::error o = decode_as<F, holds_even>(encode<F>(odd));
  EXPECT_EQ(o.code(), errc::invalid_value);
  EXPECT_EQ(o.path(), "$.e");
  EXPECT_EQ(o.reason(), "odd number -5");
}

TYPED_TEST(conformance, round_trip_renamed_and_skipped_fields) {
  using F = TypeParam;
  with_attrs a;
  a.keep = 1;
  a.cache = "not written";
  a.after = 2;
  const bytes b = encode<F>(a);
  EXPECT_EQ(text_of(b).find("not written"), std::string::npos) << "a skipped field is never on the wire";
  with_attrs into;
  into.cache = "kept";
  ASSERT_FALSE(decode<F>(b, into));
  EXPECT_EQ(into.keep, 1);
  EXPECT_EQ(into.after, 2);
  EXPECT_EQ(into.cache, "kept") << "decode leaves a skipped field as it was";
  const renamed r{-4, true};
  const renamed rb = round_trip<F>(r);
  EXPECT_EQ(rb.id, -4);
  EXPECT_TRUE(rb.flag);
}

TYPED_TEST(conformance, round_trip_top_level_shapes) {
  using F = TypeParam;
  EXPECT_EQ(round_trip<F>(std::int32_t{-5}), -5);
  EXPECT_EQ(round_trip<F>(std::uint64_t{42}), 42U);
  EXPECT_EQ(round_trip<F>(std::int64_t{-1}), -1);
  EXPECT_EQ(round_trip<F>(true), true);
  EXPECT_EQ(round_trip<F>(false), false);
  EXPECT_EQ(round_trip<F>(2.5), 2.5);
  EXPECT_EQ(round_trip<F>('A'), 'A');
  EXPECT_EQ(round_trip<F>(std::byte{0x7f}), std::byte{0x7f});
  EXPECT_EQ(round_trip<F>(color::blue), color::blue);
  EXPECT_EQ(round_trip<F>(pe_b), pe_b);
  EXPECT_EQ(round_trip<F>(yes_no::yes), yes_no::yes);
  EXPECT_EQ(round_trip<F>(level::high), level::high);
  EXPECT_EQ(round_trip<F>(std::string("a\"b")), "a\"b");
  EXPECT_EQ(round_trip<F>(std::string()), "");
  EXPECT_EQ(round_trip<F>(std::vector<std::int32_t>{1, 2, 3}), (std::vector<std::int32_t>{1, 2, 3}));
  EXPECT_EQ(round_trip<F>(std::vector<std::string>{"a", ""}), (std::vector<std::string>{"a", ""}));
  EXPECT_EQ(round_trip<F>(std::vector<bool>{true, false, true}), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(round_trip<F>(std::deque<std::uint16_t>{7, 8}), (std::deque<std::uint16_t>{7, 8}));
  EXPECT_EQ(round_trip<F>(std::list<std::string>{"l1", ""}), (std::list<std::string>{"l1", ""}));
  EXPECT_EQ(round_trip<F>(std::vector<std::byte>{}), std::vector<std::byte>{});
  const std::vector<std::byte> blob{std::byte{0}, std::byte{0xff}, std::byte{'f'}, std::byte{'o'}};
  EXPECT_EQ(round_trip<F>(blob), blob);
  EXPECT_EQ(round_trip<F>(std::optional<std::int32_t>{}), std::nullopt);
  EXPECT_EQ(round_trip<F>(std::optional<std::int32_t>{0}), 0);
  EXPECT_EQ(round_trip<F>(std::optional<std::string>{"o"}), "o");
  using opt2 = std::optional<std::optional<std::int32_t>>;
  EXPECT_EQ(round_trip<F>(opt2(std::in_place, 7)), opt2(std::in_place, 7));
  EXPECT_EQ(round_trip<F>(opt2()), opt2());
  const opt2 holds_empty(std::in_place, std::nullopt);
  if constexpr (std::is_same_v<F, refwire::json>) {
    // current behaviour: written null, like an empty optional, so it decodes as empty.
    EXPECT_EQ(text_of(encode<F>(holds_empty)), "null");
    EXPECT_EQ(round_trip<F>(holds_empty), opt2());
  } else {
    EXPECT_EQ(round_trip<F>(holds_empty), holds_empty);
  }
  EXPECT_EQ(*round_trip<F>(std::make_unique<std::int32_t>(5)), 5);
  EXPECT_FALSE(round_trip<F>(std::unique_ptr<std::int32_t>()));
  EXPECT_EQ((round_trip<F>(std::array<std::int32_t, 3>{1, -2, 3})), (std::array<std::int32_t, 3>{1, -2, 3}));
  EXPECT_EQ((round_trip<F>(std::array<std::string, 2>{"a", "b"})), (std::array<std::string, 2>{"a", "b"}));
  EXPECT_EQ(round_trip<F>(std::set<std::string>{"b", "a", "\xc3\xbc"}), (std::set<std::string>{"a", "b", "\xc3\xbc"}));
  using msi = std::map<std::string, std::int32_t>;
  EXPECT_EQ(round_trip<F>(msi{{"", 0}, {"alpha", 1}}), (msi{{"", 0}, {"alpha", 1}}));
  using mis = std::map<std::int32_t, std::string>;
  EXPECT_EQ(round_trip<F>(mis{{-1, "a"}, {7, "b"}}), (mis{{-1, "a"}, {7, "b"}}));
  using umis = std::unordered_map<std::int32_t, std::string>;
  EXPECT_EQ(round_trip<F>(umis{{1, "one"}, {2, "two"}}, false), (umis{{1, "one"}, {2, "two"}}));
  using usi = std::unordered_set<std::int64_t>;
  EXPECT_EQ(round_trip<F>(usi{-1, 0, 1LL << 50}, false), (usi{-1, 0, 1LL << 50}));
  using tup = std::tuple<bool, std::int64_t, std::string, std::vector<std::int32_t>>;
  EXPECT_EQ(round_trip<F>(tup{true, -7, "t", {1, 2}}), (tup{true, -7, "t", {1, 2}}));
  using pr = std::pair<std::int32_t, std::string>;
  EXPECT_EQ(round_trip<F>(pr{42, "answer"}), (pr{42, "answer"}));
  using var = std::variant<std::int32_t, std::string>;
  EXPECT_EQ(round_trip<F>(var{std::string("x")}), (var{std::string("x")}));
  const auto id = refwire::uuid::from_string("123e4567-e89b-12d3-a456-426614174000");
  EXPECT_EQ(round_trip<F>(id), id);
  EXPECT_EQ(round_trip<F>(refwire::uuid{}), refwire::uuid{});
  static_assert(refwire::can_carry<refwire::uuid, F>);  // an aggregate, but with a shape of its own
  if constexpr (std::is_same_v<F, refwire::json>) {
    EXPECT_EQ(refwire::to_json(id), "\"123e4567-e89b-12d3-a456-426614174000\"");
  }
  EXPECT_EQ(round_trip<F>(std::optional<refwire::uuid>{id}), id);
  EXPECT_EQ(round_trip<F>(std::vector<refwire::uuid>{id, refwire::uuid{}}), (std::vector<refwire::uuid>{id, refwire::uuid{}}));
  const refwire::timestamp ts(std::chrono::nanoseconds(1'700'000'000'123'456'789LL));
  EXPECT_EQ(round_trip<F>(ts), ts);
  EXPECT_EQ(round_trip<F>(std::chrono::milliseconds(-1234)), std::chrono::milliseconds(-1234));
  EXPECT_EQ(round_trip<F>(std::chrono::duration<std::int16_t>(90)), std::chrono::duration<std::int16_t>(90));
  if constexpr (traits<F>::any_map_key) {
    using mui = std::map<refwire::uuid, std::int32_t>;
    EXPECT_EQ(round_trip<F>(mui{{id, 1}, {refwire::uuid{}, 2}}), (mui{{id, 1}, {refwire::uuid{}, 2}}));
    using mri = std::map<inner, std::int32_t>;
    EXPECT_EQ(round_trip<F>(mri{{inner{1, "x"}, 2}}), (mri{{inner{1, "x"}, 2}}));
    with_maps wm;
    wm.m = {{"a", 1}, {"bb", 2}};
    wm.im = {{-1, {1, 2.0, "p"}}};
    wm.s = {"x", "y"};
    wm.um = {{id, 3}};
    const with_maps wb = round_trip<F>(wm);
    EXPECT_EQ(wb.m, wm.m);
    EXPECT_EQ(wb.im.size(), 1U);
    EXPECT_EQ(wb.im.at(-1).name, "p");
    EXPECT_EQ(wb.s, wm.s);
    EXPECT_EQ(wb.um, wm.um);
  }
}

TYPED_TEST(conformance, round_trip_every_shape_at_once) {
  using F = TypeParam;
  const mixed m = make_mixed();
  const mixed back = round_trip<F>(m);
  EXPECT_EQ(back.s, m.s);
  EXPECT_EQ(back.map.size(), 2U);
  ASSERT_TRUE(back.ptr);
  EXPECT_EQ(*back.ptr, "pointee");
  EXPECT_EQ(back.e.v, 8);
  ordered_shapes o;
  o.c = fuzz_color::green;
  o.yn = yes_no::yes;
  o.ch = 'q';
  o.s = "string";
  o.blob = {std::byte{1}, std::byte{0xff}};
  o.carr[1] = -8;
  o.set = {-1, 2, 300};
  o.map = {{-2, "m2"}, {3, "m3"}};
  o.opt = bare_point{9, 9.0, "nine"};
  o.s16 = std::chrono::duration<std::int16_t>(90);
  o.e = fuzz_even{8};
  const ordered_shapes ob = round_trip<F>(o);
  EXPECT_EQ(ob.carr[1], -8);
  EXPECT_EQ(ob.map, o.map);
  const ordered_shapes defaults_only;
  (void)round_trip<F>(defaults_only);
}

TYPED_TEST(conformance, strings_are_utf8) {
  using F = TypeParam;
  std::string s = "grüße, 世界, \xF0\x9F\x98\x80, q\" b\\ n\n t\t c\x01 d\x7f";
  s.push_back('\0');
  s += "end";
  EXPECT_EQ(round_trip<F>(s), s);
  inner in{1, "x\xff"};
  if constexpr (traits<F>::any_string_bytes) {
    EXPECT_EQ(round_trip<F>(in), in);
  } else {
    try {
      (void)encode<F>(in);
      ADD_FAILURE() << "invalid UTF-8 encoded";
    } catch (const refwire::encode_error& e) {
      if constexpr (std::is_same_v<F, refwire::json>) {
        EXPECT_STREQ(e.what(), "$.s: string is not valid UTF-8 (byte 0xff at index 1)");
      } else {
        EXPECT_STREQ(e.what(),
                     "$.s: protobuf string fields must hold UTF-8; \"x\\xff\" does not (use std::vector<std::byte> "
                     "for bytes)");
      }
      EXPECT_EQ(e.path(), "$.s");
    }
  }
}

TYPED_TEST(conformance, durations_that_do_not_fit_are_encode_errors) {
  using F = TypeParam;
  wrappers w;
  w.sec = std::chrono::seconds(std::numeric_limits<std::int64_t>::max() / 1000);
  if constexpr (std::is_same_v<F, refwire::json>) {  // JSON writes a duration's own count: it always fits
    EXPECT_NO_THROW((void)encode<F>(w));
    return;
  }
  try {
    (void)encode<F>(w);
    ADD_FAILURE() << "no encode_error";
  } catch (const refwire::encode_error& e) {
    // One style in every format: the path, then the reason.
    EXPECT_STREQ(e.what(), "$.sec: a duration of 9223372036854775 x 1/1 s does not fit in int64 nanoseconds");
    EXPECT_EQ(e.path(), "$.sec");
    EXPECT_EQ(e.reason(), "a duration of 9223372036854775 x 1/1 s does not fit in int64 nanoseconds");
  }
}

// ----------------------------------------------------------- the entry points

TYPED_TEST(conformance, entry_points_agree) {
  using F = TypeParam;
  const inner v{5, "hello"};
  const bytes b = encode<F>(v);
  // The no-throw form (Format first) and the throwing form (T first), bytes and text input.
  inner a;
  ASSERT_FALSE(refwire::deserialize<F>(b, a));
  EXPECT_EQ(a, v);
  EXPECT_EQ((refwire::deserialize<inner, F>(b)), v);
  EXPECT_EQ((refwire::deserialize<inner, F>(text_of(b))), v);
  inner t;
  ASSERT_FALSE(refwire::deserialize<F>(std::string_view(text_of(b)), t));
  EXPECT_EQ(t, v);
  // Into a reused buffer: cleared, capacity kept.
  bytes buf(1000, std::byte{0x55});
  const auto cap = buf.capacity();
  refwire::serialize<F>(v, buf);
  EXPECT_EQ(buf, b);
  EXPECT_EQ(buf.capacity(), cap);
  // Both agree on a failure (decode checks every entry point on every input).
  const refwire::error e = decode_as<F, inner>(std::span<const std::byte>(b).first(b.size() - 1));
  EXPECT_TRUE(e);
}

TYPED_TEST(conformance, decode_into_an_existing_value_overwrites_it) {
  using F = TypeParam;
  const containers none;
  containers target = json_full_containers();
  ASSERT_FALSE(decode<F>(encode<F>(none), target));
  expect_fields_eq(target, none);
  const wrappers empty_w;
  wrappers wt = full_wrappers();
  ASSERT_FALSE(decode<F>(encode<F>(empty_w), wt));
  expect_fields_eq(wt, empty_w);
}

TYPED_TEST(conformance, deserialize_prefix_consumes_exactly_the_value) {
  using F = TypeParam;
  const bytes one = encode<F>(bare_point{1, 2, "hi"});
  const bytes two = encode<F>(bare_point{3, 4, "there"});
  bytes stream = one;
  stream.insert(stream.end(), two.begin(), two.end());
  const heap_copy copy(stream);
  std::span<const std::byte> in = copy.span();
  bare_point p;
  std::size_t used = 0;
  ASSERT_FALSE(refwire::deserialize_prefix<F>(in, p, used));
  if constexpr (traits<F>::self_delimiting) {
    EXPECT_EQ(used, one.size());
    EXPECT_EQ(p.x, 1);
    EXPECT_EQ(p.name, "hi");
    in = in.subspan(used);
    ASSERT_FALSE(refwire::deserialize_prefix<F>(in, p, used));
    EXPECT_EQ(used, two.size());
    EXPECT_EQ(p.x, 3);
    EXPECT_EQ(p.name, "there");
    // Without prefix mode, the second value is trailing bytes at the end of the first.
    bare_point whole;
    const refwire::error e = decode<F>(stream, whole);
    EXPECT_EQ(e.code(), errc::trailing_bytes) << e.message();
    EXPECT_EQ(e.path(), "$");
    EXPECT_EQ(e.offset(), one.size());
  } else {
    // The whole input is one message: the second's fields win.
    EXPECT_EQ(used, stream.size());
    EXPECT_EQ(p.x, 3);
    EXPECT_EQ(p.y, 4);
    EXPECT_EQ(p.name, "there");
  }
  // A value that encodes to nothing consumes nothing.
  const empty none;
  const bytes e = encode<F>(none);
  bytes after = e;
  after.push_back(std::byte{' '});
  empty out;
  used = 99;
  if constexpr (traits<F>::self_delimiting) {
    ASSERT_FALSE(refwire::deserialize_prefix<F>(after, out, used));
    EXPECT_EQ(used, e.size());
  } else {
    EXPECT_TRUE(e.empty());
    ASSERT_FALSE(refwire::deserialize_prefix<F>(std::span<const std::byte>(), out, used));
    EXPECT_EQ(used, 0U);
  }
}

TYPED_TEST(conformance, empty_input) {
  using F = TypeParam;
  if constexpr (std::is_same_v<F, refwire::protobuf>) {
    // The empty message: every field zero.
    bare_point p{1, 2, "x"};
    ASSERT_FALSE(decode<F>(std::span<const std::byte>(), p));
    EXPECT_EQ(p.x, 0);
    EXPECT_EQ(p.name, "");
    EXPECT_FALSE((decode_as<F, std::int32_t>(std::span<const std::byte>())));
  } else {
    expect_error<F, bare_point>(std::span<const std::byte>(), errc::truncated,
                                std::is_same_v<F, refwire::binary> ? "$.x" : "$");
    expect_error<F, std::int32_t>(std::span<const std::byte>(), errc::truncated, "$");
  }
}

TYPED_TEST(conformance, missing_and_unknown_fields) {
  using F = TypeParam;
  // A reader whose type has fields the writer's did not.
  const empty writer;
  defaults d;
  const refwire::error e = decode<F>(encode<F>(writer), d);
  if constexpr (std::is_same_v<F, refwire::binary>) {
    // Positional and exact: the value ends early.
    EXPECT_EQ(e.code(), errc::truncated);
    EXPECT_EQ(e.path(), "$.x");
  } else if constexpr (std::is_same_v<F, refwire::json>) {
    // Missing keys keep their default.
    ASSERT_FALSE(e) << e.message();
    EXPECT_EQ(d.x, 5);
    EXPECT_EQ(d.s, "hi");
    EXPECT_TRUE(d.b);
    EXPECT_EQ(d.p, (point{7, 1.5, "p"}));
    EXPECT_EQ(d.o, 3);
  } else {
    // Proto3: a missing field is zero, not the C++ default initializer.
    ASSERT_FALSE(e) << e.message();
    EXPECT_EQ(d.x, 0);
    EXPECT_EQ(d.s, "");
    EXPECT_FALSE(d.b);
    EXPECT_EQ(d.p, point{});
    EXPECT_FALSE(d.o);
  }
  // A reader whose type lacks fields the writer's had.
  const defaults full;
  empty reader;
  const bytes b = encode<F>(full);
  const refwire::error u = decode<F>(b, reader);
  const refwire::error strict = decode<F>(b, reader, {.reject_unknown_fields = true});
  if constexpr (std::is_same_v<F, refwire::binary>) {
    EXPECT_EQ(u.code(), errc::trailing_bytes);
    EXPECT_EQ(strict.code(), errc::trailing_bytes);
  } else {
    EXPECT_FALSE(u) << u.message();  // skipped
    EXPECT_EQ(strict.code(), errc::unknown_field) << strict.message();
    EXPECT_EQ(strict.path(), "$");
  }
}

// ------------------------------------------------------------- truncation

TYPED_TEST(conformance, every_truncation_fails) {
  using F = TypeParam;
  expect_every_truncation_fails<F>(bare_point{-1, 3.25, "name"});
  expect_every_truncation_fails<F>(point_list{{{1, 1.0, "a"}, {2, 2.0, ""}, {3, 3.0, "ccc"}}});
  expect_every_truncation_fails<F>(max_scalars());
  expect_every_truncation_fails<F>(json_full_containers());
  expect_every_truncation_fails<F>(full_wrappers());
  expect_every_truncation_fails<F>(make_mixed());
  tree t;
  t.kids.resize(2);
  t.kids[1].kids.resize(3);
  expect_every_truncation_fails<F>(t);
  expect_every_truncation_fails<F>(chain_of(3));
  node n;
  n.kids.resize(1);
  n.next = std::make_unique<node>();
  n.next->value = 3;
  expect_every_truncation_fails<F>(n);
  expect_every_truncation_fails<F>(legacy::wallet{"bob", legacy::money(250), {legacy::money(1)}});
  expect_every_truncation_fails<F>(std::vector<std::string>{"ab", "", "cdef"});
  expect_every_truncation_fails<F>(std::unordered_map<std::int32_t, std::string>{{1, "one"}, {2, "two"}});
  expect_every_truncation_fails<F>(std::string(300, 'z'));  // a two-byte length
  expect_every_truncation_fails<F>(std::uint64_t{42});
  if constexpr (traits<F>::any_map_key) {
    with_maps w;
    w.m = {{"a", 1}, {"bb", 2}};
    w.im = {{-1, {1, 2.0, "p"}}};
    w.s = {"x", "y"};
    w.um = {{refwire::uuid::from_string("00112233-4455-6677-8899-aabbccddeeff"), 3}};
    expect_every_truncation_fails<F>(w);
    expect_every_truncation_fails<F>(sample_convention());
  }
}

// ------------------------------------------------------------------ limits

TYPED_TEST(conformance, depth_limit_at_the_edge) {
  using F = TypeParam;
  using tr = traits<F>;
  // A tree of n levels: exactly its cost fits, one level less fails at the innermost level.
  for (std::uint32_t n : {1U, 2U, 4U, 30U}) {
    SCOPED_TRACE(::testing::Message() << n << " levels");
    const bytes b = encode<F>(tree_of(n));
    const std::uint32_t cost = tr::tree_depth_per_level * n;
    EXPECT_FALSE((decode_as<F, tree>(b, {.max_depth = cost})));
    // The last level that does not fit: the innermost record's vector, or (protobuf) the record.
    const std::string path = "$" + repeat(".kids[0]", n - 1) + (tr::tree_depth_per_level == 2 ? ".kids" : "");
    expect_error<F, tree>(b, errc::depth_limit, path, {.max_depth = cost - 1});
  }
  // The default limit, 128: the first level past it is the record.
  const std::uint32_t fit = 128 / tr::tree_depth_per_level;
  EXPECT_FALSE((decode_as<F, tree>(encode<F>(tree_of(fit)))));
  expect_error<F, tree>(encode<F>(tree_of(fit + 1)), errc::depth_limit, "$" + repeat(".kids[0]", fit));
  // Through unique_ptr.
  for (std::uint32_t n : {1U, 3U, 20U}) {
    SCOPED_TRACE(::testing::Message() << n << " links");
    const bytes b = encode<F>(chain_of(n));
    EXPECT_FALSE((decode_as<F, chain>(b, {.max_depth = tr::chain_depth(n)})));
    if (tr::chain_depth(n) > 0) {
      expect_error<F, chain>(b, errc::depth_limit, "$" + repeat(".next", n - 1), {.max_depth = tr::chain_depth(n) - 1});
    }
  }
  // Optionals count only when present.
  using opt3 = std::optional<std::optional<std::optional<std::int8_t>>>;
  const opt3 deep(std::in_place, std::in_place, std::int8_t{5});
  EXPECT_FALSE((decode_as<F, opt3>(encode<F>(deep), {.max_depth = tr::optional3_depth})));
  expect_error<F, opt3>(encode<F>(deep), errc::depth_limit, "$", {.max_depth = tr::optional3_depth - 1});
  const opt3 shallow(std::in_place, std::in_place, std::nullopt);  // the innermost empty
  EXPECT_FALSE((decode_as<F, opt3>(encode<F>(shallow), {.max_depth = tr::optional2_depth})));
  if constexpr (tr::optional2_depth > 0) {
    expect_error<F, opt3>(encode<F>(shallow), errc::depth_limit, "$", {.max_depth = tr::optional2_depth - 1});
  }
  // A record is one level; a scalar none.
  expect_error<F, bare_point>(encode<F>(bare_point{}), errc::depth_limit, "$", {.max_depth = 0});
  EXPECT_FALSE((decode_as<F, bare_point>(encode<F>(bare_point{}), {.max_depth = 1})));
  EXPECT_FALSE((decode_as<F, std::int32_t>(encode<F>(std::int32_t{5}), {.max_depth = 0})));
  EXPECT_FALSE((decode_as<F, std::string>(encode<F>(std::string("abc")), {.max_depth = 0})));
  const std::vector<std::int32_t> ints{1, 2};
  if constexpr (tr::arithmetic_vector_costs_a_level) {
    expect_error<F, std::vector<std::int32_t>>(encode<F>(ints), errc::depth_limit, "$", {.max_depth = 0});
  } else {
    EXPECT_FALSE((decode_as<F, std::vector<std::int32_t>>(encode<F>(ints), {.max_depth = 0})));
  }
  EXPECT_FALSE((decode_as<F, std::vector<std::int32_t>>(encode<F>(ints), {.max_depth = 1})));
}

TYPED_TEST(conformance, element_limit_at_the_edge) {
  using F = TypeParam;
  const bytes ten = encode<F>(std::vector<std::int32_t>(10, 1));
  EXPECT_FALSE((decode_as<F, std::vector<std::int32_t>>(ten, {.max_elements = 10})));
  expect_error<F, std::vector<std::int32_t>>(ten, errc::element_limit, "$", {.max_elements = 9});
  // Summed over every container of the value.
  using vv = std::vector<std::vector<std::int32_t>>;
  const bytes nested = encode<F>(vv{{1, 2, 3}, {4, 5, 6}});
  EXPECT_FALSE((decode_as<F, vv>(nested, {.max_elements = 8})));
  expect_error<F, vv>(nested, errc::element_limit, "$[1]", {.max_elements = 7});
  // Map entries and set elements count; the bytes of strings and blobs do not.
  using msi = std::map<std::string, std::int32_t>;
  const bytes map3 = encode<F>(msi{{"a", 1}, {"b", 2}, {"c", 3}});
  EXPECT_FALSE((decode_as<F, msi>(map3, {.max_elements = 3})));
  expect_error<F, msi>(map3, errc::element_limit, "$", {.max_elements = 2});
  const bytes set3 = encode<F>(std::set<std::int32_t>{1, 2, 3});
  EXPECT_FALSE((decode_as<F, std::set<std::int32_t>>(set3, {.max_elements = 3})));
  expect_error<F, std::set<std::int32_t>>(set3, errc::element_limit, "$", {.max_elements = 2});
  const bytes items = encode<F>(point_list{{{1, 2, "a"}, {3, 4, "bb"}, {5, 6, "c"}}});
  EXPECT_FALSE((decode_as<F, point_list>(items, {.max_elements = 3})));
  expect_error<F, point_list>(items, errc::element_limit, "$.items", {.max_elements = 2});
  EXPECT_FALSE((decode_as<F, std::string>(encode<F>(std::string(1000, 'a')), {.max_elements = 0})));
  EXPECT_FALSE((decode_as<F, std::vector<std::byte>>(encode<F>(std::vector<std::byte>(10)), {.max_elements = 0})));
  // Fixed-size arrays.
  const bytes arr = encode<F>(std::array<std::int32_t, 3>{1, 2, 3});
  EXPECT_FALSE((decode_as<F, std::array<std::int32_t, 3>>(arr, {.max_elements = 3})));
  const containers none;
  if constexpr (traits<F>::fixed_arrays_count_as_elements) {
    expect_error<F, std::array<std::int32_t, 3>>(arr, errc::element_limit, "$", {.max_elements = 2});
    expect_error<F, containers>(encode<F>(none), errc::element_limit, "$.arr", {.max_elements = 0});
  } else {
    EXPECT_FALSE((decode_as<F, std::array<std::int32_t, 3>>(arr, {.max_elements = 2})));
    EXPECT_FALSE((decode_as<F, containers>(encode<F>(none), {.max_elements = 0})));
  }
}

TYPED_TEST(conformance, allocation_limit_at_the_edge) {
  using F = TypeParam;
  const bytes s100 = encode<F>(std::string(100, 'a'));
  EXPECT_FALSE((decode_as<F, std::string>(s100, {.max_alloc_bytes = 100})));
  expect_error<F, std::string>(s100, errc::allocation_limit, "$", {.max_alloc_bytes = 99});
  const bytes d4 = encode<F>(std::vector<double>(4, 1.0));
  EXPECT_FALSE((decode_as<F, std::vector<double>>(d4, {.max_alloc_bytes = 32})));
  expect_error<F, std::vector<double>>(d4, errc::allocation_limit, "$", {.max_alloc_bytes = 31});
  // A pointee is charged its size.
  const bytes ptr = encode<F>(std::make_unique<std::int64_t>(5));
  EXPECT_FALSE((decode_as<F, std::unique_ptr<std::int64_t>>(ptr, {.max_alloc_bytes = 8})));
  expect_error<F, std::unique_ptr<std::int64_t>>(ptr, errc::allocation_limit, "$", {.max_alloc_bytes = 7});
  // A vector of strings: sizeof(std::string) per element, then each string's bytes.
  const std::uint64_t str = sizeof(std::string);
  const bytes strs = encode<F>(std::vector<std::string>{"abc", "defg"});
  EXPECT_FALSE((decode_as<F, std::vector<std::string>>(strs, {.max_alloc_bytes = 2 * str + 7})));
  // current behaviour: JSON, not knowing the count in advance, charges an
  // element's storage together with its string and reports the vector ($),
  // binary and protobuf the string ($[1]).
  expect_error<F, std::vector<std::string>>(strs, errc::allocation_limit,
                                            std::is_same_v<F, refwire::json> ? "$" : "$[1]",
                                            {.max_alloc_bytes = 2 * str + 6});
  // Summed over the whole value, down to where the budget runs out.
  const bytes name10 = encode<F>(bare_point{1, 2, std::string(10, 'n')});
  EXPECT_FALSE((decode_as<F, bare_point>(name10, {.max_alloc_bytes = 10})));
  expect_error<F, bare_point>(name10, errc::allocation_limit, "$.name", {.max_alloc_bytes = 9});
  const bytes items = encode<F>(point_list{{{1, 2, "a"}, {3, 4, "bb"}, {5, 6, "c"}, {7, 8, std::string(20, 'z')}}});
  const std::uint64_t all = 4 * sizeof(bare_point) + 1 + 2 + 1 + 20;
  EXPECT_FALSE((decode_as<F, point_list>(items, {.max_alloc_bytes = all})));
  expect_error<F, point_list>(items, errc::allocation_limit, "$.items[3].name", {.max_alloc_bytes = all - 1});
  // A byte blob.
  const std::uint64_t blob = traits<F>::alloc_of_10_byte_blob;
  const bytes b10 = encode<F>(std::vector<std::byte>(10, std::byte{7}));
  EXPECT_FALSE((decode_as<F, std::vector<std::byte>>(b10, {.max_alloc_bytes = blob})));
  expect_error<F, std::vector<std::byte>>(b10, errc::allocation_limit, "$", {.max_alloc_bytes = blob - 1});
}

// ------------------------------------------------------------------- paths

TYPED_TEST(conformance, error_paths_have_one_style) {
  using F = TypeParam;
  using legacy::money;
  constexpr bool pb = std::is_same_v<F, refwire::protobuf>;
  constexpr bool js = std::is_same_v<F, refwire::json>;
  const auto expect_path = [](const legacy::ledger& l, const std::string& path) {
    SCOPED_TRACE(path);
    const refwire::error e = decode_as<F, legacy::ledger>(encode<F>(l));
    EXPECT_EQ(e.code(), errc::invalid_value) << e.message();
    EXPECT_EQ(e.reason(), "money cannot be negative");
    EXPECT_EQ(e.path(), path) << e.message();
  };
  {
    legacy::ledger l;
    l.items.resize(4);
    l.items[3].balance = money(-1);
    expect_path(l, "$.items[3].balance");
  }
  {
    legacy::ledger l;
    l.items.resize(3);
    l.items[2].history = {money(1), money(-2)};
    // current behaviour: protobuf names a packed run of codec values, not the element.
    expect_path(l, pb ? "$.items[2].history" : "$.items[2].history[1]");
  }
  {
    legacy::ledger l;
    l.m = {{"a", money(1)}, {"key", money(-1)}};
    expect_path(l, "$.m[\"key\"]");
  }
  {
    legacy::ledger l;
    l.by_id = {{7, money(-1)}};
    // current behaviour: JSON quotes an integer key (its text in the object).
    expect_path(l, js ? "$.by_id[\"7\"]" : "$.by_id[7]");
  }
  {
    legacy::ledger l;
    l.opt = money(-1);
    expect_path(l, "$.opt");
  }
  {
    legacy::ledger l;
    l.var = money(-1);
    expect_path(l, "$.var[1]");
  }
  {
    legacy::ledger l;
    std::get<1>(l.tup) = money(-1);
    expect_path(l, "$.tup[1]");
  }
  {
    legacy::ledger l;
    l.arr[1] = money(-1);
    expect_path(l, pb ? "$.arr" : "$.arr[1]");  // current behaviour: see history above
  }
  {
    legacy::ledger l;
    l.ptr = std::make_unique<money>(-1);
    expect_path(l, "$.ptr");
  }
  // At the top level, keys are escaped like JSON strings.
  using msm = std::map<std::string, money>;
  expect_error<F, msm>(encode<F>(msm{{"k\"ey", money(-3)}}), errc::invalid_value, "$[\"k\\\"ey\"]");
  using vm = std::vector<money>;
  expect_error<F, vm>(encode<F>(vm{money(1), money(-3)}), errc::invalid_value, pb ? "$" : "$[1]");
}

// ------------------------------------- shared_ptr, multi containers, bitset, path, u8string

shared_chain shared_chain_of(std::size_t n) {  // n records linked by shared_ptr, holding 1 ... n
  shared_chain c{1, nullptr};
  shared_chain* p = &c;
  for (std::size_t i = 2; i <= n; ++i) {
    p->next = std::make_shared<shared_chain>(shared_chain{static_cast<std::int32_t>(i), nullptr});
    p = p->next.get();
  }
  return c;
}

TYPED_TEST(conformance, round_trip_std_types) {
  using F = TypeParam;
  const std_types full = full_std_types();
  const std_types back = round_trip<F>(full);
  expect_fields_eq(back, full);
  // Duplicates kept, in order for equal keys.
  EXPECT_EQ(back.mm.count("a"), 3U);
  EXPECT_EQ(back.ms.count(1), 2U);
  EXPECT_EQ(back.mss.count("x"), 2U);
  EXPECT_EQ(back.mm_inner.size(), 3U);
  const auto [first, last] = back.mm_inner.equal_range(inner{1, "k"});
  ASSERT_EQ(std::distance(first, last), 2);
  EXPECT_EQ(first->second, 1);
  EXPECT_EQ(std::next(first)->second, 2);
  // Values, not identity: one object pointed to twice is two equal objects after a decode.
  ASSERT_EQ(back.sps.size(), 3U);
  ASSERT_TRUE(back.sps[0] && back.sps[1]);
  EXPECT_NE(back.sps[0].get(), back.sps[1].get());
  EXPECT_EQ(*back.sps[0], *back.sps[1]);
  EXPECT_FALSE(back.sps[2]);
  EXPECT_EQ(back.sp.use_count(), 1);
  EXPECT_TRUE(back.file.generic_u8string() == full.file.generic_u8string());
  EXPECT_EQ(back.bits70, full.bits70);
  expect_round_trip<F>(std_types{});
  expect_every_truncation_fails<F>(full);
}

TYPED_TEST(conformance, round_trip_std_unordered) {
  using F = TypeParam;
  std_unordered u;
  u.umm = {{1, "a"}, {1, "b"}, {2, ""}, {1, "a"}};
  u.ums = {"x", "x", "y"};
  EXPECT_EQ(round_trip<F>(u, false), u);
  EXPECT_EQ(round_trip<F>(std_unordered{}, false), std_unordered{});
}

TYPED_TEST(conformance, round_trip_std_types_at_the_top_level) {
  using F = TypeParam;
  EXPECT_EQ(round_trip<F>(std::bitset<12>(0xabc)), std::bitset<12>(0xabc));
  EXPECT_EQ(round_trip<F>(std::bitset<64>(~0ULL)), std::bitset<64>(~0ULL));
  EXPECT_EQ(round_trip<F>(std::bitset<1>(1)), std::bitset<1>(1));
  EXPECT_TRUE(round_trip<F>(std::u8string(u8"\u00e9t\u00e9")) == std::u8string(u8"\u00e9t\u00e9"));
  EXPECT_EQ(round_trip<F>(std::filesystem::path("/a/b.c")), std::filesystem::path("/a/b.c"));
  EXPECT_EQ(round_trip<F>(std::filesystem::path()), std::filesystem::path());
  using mm = std::multimap<std::int32_t, std::string>;
  EXPECT_EQ(round_trip<F>(mm{{1, "a"}, {1, "b"}}), (mm{{1, "a"}, {1, "b"}}));
  EXPECT_EQ(round_trip<F>(std::multiset<std::int8_t>{1, 1}), (std::multiset<std::int8_t>{1, 1}));
  const auto sp = round_trip<F>(std::make_shared<std::string>("pointee"));
  ASSERT_TRUE(sp);
  EXPECT_EQ(*sp, "pointee");
  EXPECT_FALSE(round_trip<F>(std::shared_ptr<std::string>()));
  const shared_chain c = round_trip<F>(shared_chain_of(4));
  ASSERT_TRUE(c.next && c.next->next && c.next->next->next);
  EXPECT_EQ(c.next->next->next->v, 4);
  EXPECT_FALSE(c.next->next->next->next);
}

TYPED_TEST(conformance, shared_ptr_limits_like_unique_ptr) {
  using F = TypeParam;
  using tr = traits<F>;
  // Nesting: a chain through shared_ptr costs what one through unique_ptr does.
  for (std::uint32_t n : {1U, 3U, 20U}) {
    SCOPED_TRACE(::testing::Message() << n << " links");
    const bytes b = encode<F>(shared_chain_of(n));
    EXPECT_FALSE((decode_as<F, shared_chain>(b, {.max_depth = tr::chain_depth(n)})));
    expect_error<F, shared_chain>(b, errc::depth_limit, "$" + repeat(".next", n - 1),
                                  {.max_depth = tr::chain_depth(n) - 1});
  }
  // A chain longer than the default limit is an error, not a stack overflow.
  const bytes deep = encode<F>(shared_chain_of(200));
  EXPECT_EQ((decode_as<F, shared_chain>(deep).code()), errc::depth_limit);
  // A pointee is charged its size.
  const bytes ptr = encode<F>(std::make_shared<std::int64_t>(5));
  EXPECT_FALSE((decode_as<F, std::shared_ptr<std::int64_t>>(ptr, {.max_alloc_bytes = 8})));
  expect_error<F, std::shared_ptr<std::int64_t>>(ptr, errc::allocation_limit, "$", {.max_alloc_bytes = 7});
  // A decode never writes into the object the pointer held: it gets a new one.
  auto shared = std::make_shared<inner>(inner{1, "old"});
  std_types into;
  into.sp = shared;
  std_types v;
  v.sp = std::make_shared<inner>(inner{2, "new"});
  ASSERT_FALSE(decode<F>(encode<F>(v), into));
  ASSERT_TRUE(into.sp);
  EXPECT_EQ(into.sp->s, "new");
  EXPECT_EQ(shared->s, "old");
  EXPECT_NE(into.sp.get(), shared.get());
}

TYPED_TEST(conformance, multi_containers_keep_duplicates_sets_reject_them) {
  using F = TypeParam;
  const bytes twice = encode<F>(std::multiset<std::int32_t>{4, 4});
  EXPECT_FALSE((decode_as<F, std::multiset<std::int32_t>>(twice)));
  expect_error<F, std::set<std::int32_t>>(twice, errc::duplicate_key, std::is_same_v<F, refwire::protobuf> ? "$" : "$[1]");
  // An element budget counts every entry, duplicates included.
  using mm = std::multimap<std::string, std::int32_t>;
  const bytes three = encode<F>(mm{{"k", 1}, {"k", 2}, {"k", 3}});
  EXPECT_FALSE((decode_as<F, mm>(three, {.max_elements = 3})));
  EXPECT_EQ((decode_as<F, mm>(three, {.max_elements = 2})).code(), errc::element_limit);
}

TYPED_TEST(conformance, path_and_u8string_must_be_utf8) {
  using F = TypeParam;
  constexpr bool bin = std::is_same_v<F, refwire::binary>;
  constexpr bool js = std::is_same_v<F, refwire::json>;
  // A path whose bytes are not UTF-8 has no encoding in any format.
  const std::filesystem::path bad = std::string("a/\xff");
  try {
    (void)encode<F>(bad);
    ADD_FAILURE() << "a non-UTF-8 path encoded";
  } catch (const refwire::encode_error& e) {
    if constexpr (bin) {
      EXPECT_STREQ(e.what(), "$: a std::filesystem::path travels as UTF-8 text; \"a/\\xff\" is not UTF-8");
    } else if constexpr (js) {
      EXPECT_STREQ(e.what(), "$: string is not valid UTF-8 (byte 0xff at index 2)");
    } else {
      EXPECT_STREQ(e.what(),
                   "$: protobuf string fields must hold UTF-8; \"a/\\xff\" does not (use std::vector<std::byte> "
                   "for bytes)");
    }
  }
  std_types holder;
  holder.file = bad;
  try {
    (void)encode<F>(holder);
    ADD_FAILURE() << "a non-UTF-8 path encoded";
  } catch (const refwire::encode_error& e) {
    EXPECT_EQ(e.path(), "$.file");
  }
  // A u8string is text too in JSON and protobuf; binary writes its bytes as they are.
  const std::u8string raw = {u8'o', static_cast<char8_t>(0xc3)};
  if constexpr (bin) {
    EXPECT_TRUE(round_trip<F>(raw) == raw);
  } else {
    EXPECT_THROW((void)encode<F>(raw), refwire::encode_error);
  }
  // On read: the string "a\xff" (written as bytes a std::string may hold, or by hand in JSON).
  const bytes text = js ? bytes{std::byte{'"'}, std::byte{'a'}, std::byte{0xff}, std::byte{'"'}}
                        : encode<refwire::binary>(std::string("a\xff"));
  if constexpr (bin) {
    const refwire::error e = decode_as<F, std::filesystem::path>(text);
    EXPECT_EQ(e.message(), "$: path is not valid UTF-8, at offset 0");
    EXPECT_EQ(e.code(), errc::invalid_utf8);
    EXPECT_FALSE((decode_as<F, std::u8string>(text)));
  } else if constexpr (js) {
    EXPECT_EQ((decode_as<F, std::filesystem::path>(text)).code(), errc::invalid_utf8);
    EXPECT_EQ((decode_as<F, std::u8string>(text)).code(), errc::invalid_utf8);
  } else {
    // field 1 (the wrapper of a top-level string), length 2, 'a', 0xff
    const bytes pb{std::byte{0x0a}, std::byte{0x02}, std::byte{'a'}, std::byte{0xff}};
    const refwire::error e = decode_as<F, std::filesystem::path>(pb);
    EXPECT_EQ(e.message(), "$: string is not valid UTF-8, at offset 1");
    EXPECT_EQ((decode_as<F, std::u8string>(pb)).message(), "$: string is not valid UTF-8, at offset 1");
  }
}

TYPED_TEST(conformance, bitsets_are_checked_on_read) {
  using F = TypeParam;
  using b12 = std::bitset<12>;
  if constexpr (std::is_same_v<F, refwire::binary>) {
    EXPECT_EQ(encode<F>(b12(0x801)), (bytes{std::byte{0x01}, std::byte{0x08}}));
    // Bit 12 set: a padding bit, reported at the last byte.
    const refwire::error e = decode_as<F, b12>(bytes{std::byte{0x01}, std::byte{0x18}});
    EXPECT_EQ(e.message(),
              "$: bitset<12> has padding bits set (the bits of the last byte past bit 11 must be zero), at offset 1");
    EXPECT_EQ(e.code(), errc::invalid_value);
    expect_error<F, b12>(bytes{std::byte{0x01}}, errc::truncated, "$");
    EXPECT_EQ((decode_as<F, b12>(bytes{std::byte{0x01}})).reason(), "truncated bitset, needs 2 bytes, 1 left");
  } else if constexpr (std::is_same_v<F, refwire::json>) {
    EXPECT_EQ(text_of(encode<F>(b12(0x801))), "\"100000000001\"");
    const auto bad = [](std::string_view t) { return decode_as<F, b12>(refwire::detail::as_bytes(t)); };
    EXPECT_EQ(bad("\"10000000001\"").message(),
              "$: invalid bitset<12> (12 characters '0' or '1') \"10000000001\", at offset 0 (line 1, column 1)");
    EXPECT_EQ(bad("\"10000000001x\"").code(), errc::invalid_value);
    EXPECT_EQ(bad("\"1000000000012\"").code(), errc::invalid_value);
    EXPECT_EQ(bad("2049").code(), errc::type_mismatch);
  } else {
    // field 1, length 2, 01 08
    EXPECT_EQ(encode<F>(b12(0x801)), (bytes{std::byte{0x0a}, std::byte{0x02}, std::byte{0x01}, std::byte{0x08}}));
    EXPECT_EQ(encode<F>(b12()), bytes{});  // all zeros: proto3's empty bytes, not written
    const refwire::error e = decode_as<F, b12>(bytes{std::byte{0x0a}, std::byte{0x02}, std::byte{0x01}, std::byte{0x18}});
    EXPECT_EQ(e.message(),
              "$: bitset<12> has padding bits set (the bits of the last byte past bit 11 must be zero), at offset 3");
    EXPECT_EQ((decode_as<F, b12>(bytes{std::byte{0x0a}, std::byte{0x01}, std::byte{0x01}})).message(),
              "$: a bitset<12> needs 2 bytes (or none), got 1, at offset 1");
    EXPECT_FALSE((decode_as<F, b12>(bytes{std::byte{0x0a}, std::byte{0x00}})));
  }
}

TYPED_TEST(conformance, std_types_hostile_counts) {
  using F = TypeParam;
  if constexpr (std::is_same_v<F, refwire::binary>) {
    // A count of 2^62 entries in a few bytes: truncated before anything is allocated.
    const bytes huge{std::byte{0x80}, std::byte{0x80}, std::byte{0x80}, std::byte{0x80}, std::byte{0x80},
                     std::byte{0x80}, std::byte{0x80}, std::byte{0x80}, std::byte{0x40}};
    EXPECT_EQ((decode_as<F, std::multimap<std::int32_t, std::int32_t>>(huge)).reason(),
              "truncated map, 4611686018427387904 elements need at least 8 bytes each, 0 left");
    EXPECT_EQ((decode_as<F, std::multiset<std::string>>(huge)).reason(),
              "truncated set, 4611686018427387904 elements need at least 1 byte each, 0 left");
    EXPECT_EQ((decode_as<F, std::vector<std::bitset<12>>>(huge)).reason(),
              "truncated vector, 4611686018427387904 elements need at least 2 bytes each, 0 left");
    EXPECT_EQ((decode_as<F, std::vector<std::bitset<0>>>(huge)).code(), errc::element_limit);
  } else {
    // Many entries, each charged: the element budget stops them.
    std::multiset<std::int32_t> many;
    for (int i = 0; i < 100; ++i) many.insert(7);
    EXPECT_EQ((decode_as<F, std::multiset<std::int32_t>>(encode<F>(many), {.max_elements = 99})).code(),
              errc::element_limit);
  }
}

}  // namespace conformance
