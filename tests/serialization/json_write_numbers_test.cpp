// The JSON encoder's integer text (detail/json_write.hpp): every digit count,
// each power of ten and its neighbours, the type limits and a seeded sample,
// compared byte for byte with std::to_chars.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

template <class T>
std::string expected(T v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

template <class T>
std::string formatted(T v) {
  char buf[32];
  return std::string(buf, refwire::detail::json::format_integer(buf, v));
}

/// Every power of ten in T's range, its neighbours, and the limits.
template <class T>
std::vector<T> edge_values() {
  std::vector<T> v{std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T{0}, T{1}};
  using U = std::make_unsigned_t<T>;
  U p = 1;
  for (;;) {
    for (U d : {U{0}, U{1}}) {
      v.push_back(static_cast<T>(p - d));
      v.push_back(static_cast<T>(p + d));
      if constexpr (std::is_signed_v<T>) v.push_back(static_cast<T>(U{0} - p + d));
    }
    if (p > std::numeric_limits<U>::max() / 10) break;
    p *= 10;
  }
  return v;
}

template <class T>
void check_type() {
  for (T x : edge_values<T>()) EXPECT_EQ(formatted(x), expected(x)) << expected(x);
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 200000; ++i) {
    // Uniform bits, and values of every magnitude (a random shift).
    const auto bits = rng();
    const T a = static_cast<T>(bits);
    const T b = static_cast<T>(bits >> (rng() % 64));
    ASSERT_EQ(formatted(a), expected(a));
    ASSERT_EQ(formatted(b), expected(b));
  }
}

TEST(JsonWriteNumbers, Unsigned32) { check_type<std::uint32_t>(); }
TEST(JsonWriteNumbers, Signed32) { check_type<std::int32_t>(); }
TEST(JsonWriteNumbers, Unsigned64) { check_type<std::uint64_t>(); }
TEST(JsonWriteNumbers, Signed64) { check_type<std::int64_t>(); }
TEST(JsonWriteNumbers, SmallTypes) {
  for (int x = -128; x < 128; ++x) EXPECT_EQ(formatted(static_cast<std::int8_t>(x)), expected(x));
  for (int x = 0; x < 65536; ++x) EXPECT_EQ(formatted(static_cast<std::uint16_t>(x)), expected(x));
}

TEST(JsonWriteNumbers, EveryU32BelowOneMillionAndEightDigitPadding) {
  for (std::uint32_t x = 0; x < 1000000; ++x) ASSERT_EQ(formatted(x), expected(x));
  // eight_digits: zero-padded, every leading-pair value and each pair boundary.
  for (std::uint32_t x : {0U, 1U, 9U, 10U, 99U, 100U, 9999U, 10000U, 999999U, 1000000U, 9999999U, 10000000U,
                          12345678U, 99999999U}) {
    char buf[8];
    refwire::detail::json::eight_digits(buf, x);
    std::string want = expected(x);
    want.insert(0, 8 - want.size(), '0');
    EXPECT_EQ(std::string(buf, 8), want);
  }
}

TEST(JsonWriteNumbers, InDocuments) {
  const std::vector<std::int64_t> v{0, -1, 9, 10, 99, 100, 123456, -1000000000000000000LL,
                                    std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
  EXPECT_EQ(refwire::to_json(v),
            "[0,-1,9,10,99,100,123456,-1000000000000000000,-9223372036854775808,9223372036854775807]");
  EXPECT_EQ(refwire::to_json(std::numeric_limits<std::uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(refwire::to_json(std::uint64_t{10000000000000000ULL}), "10000000000000000");
}

}  // namespace
