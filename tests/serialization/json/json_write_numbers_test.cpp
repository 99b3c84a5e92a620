// The integer text of the JSON encoder (detail/wire/itoa.hpp): every digit count,
// each power of ten and its neighbours, the type limits and a seeded sample,
// compared byte for byte with std::to_chars.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <deque>
#include <list>
#include <set>
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
  return std::string(buf, refwire::detail::wire::format_integer(buf, v));
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
    refwire::detail::wire::eight_digits(buf, x);
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

/// `[a,b,...]` from std::to_chars, the reference for a container of numbers.
template <class C>
std::string joined(const C& c) {
  std::string s = "[";
  for (const auto& x : c) {
    if (s.size() > 1) s += ',';
    s += expected(x);
  }
  return s + "]";
}

TEST(JsonWriteNumbers, ContainersOfEveryLengthAroundTheBlock) {
  std::mt19937_64 rng(7);
  for (std::size_t n : {0U, 1U, 2U, 3U, 127U, 128U, 129U, 255U, 256U, 257U, 1000U}) {
    std::vector<std::int64_t> big(n);
    std::vector<std::int32_t> ints(n);
    std::vector<double> reals(n);
    for (std::size_t i = 0; i < n; ++i) {
      big[i] = static_cast<std::int64_t>(rng());
      ints[i] = static_cast<std::int32_t>(rng() >> (rng() % 64));
      reals[i] = static_cast<double>(static_cast<std::int64_t>(rng())) / 1e7;
    }
    EXPECT_EQ(refwire::to_json(big), joined(big));
    EXPECT_EQ(refwire::to_json(ints), joined(ints));
    EXPECT_EQ(refwire::to_json(reals), joined(reals));
    const std::deque<std::int32_t> dq(ints.begin(), ints.end());
    const std::list<std::int32_t> li(ints.begin(), ints.end());
    const std::set<std::int64_t> st(big.begin(), big.end());
    EXPECT_EQ(refwire::to_json(dq), joined(dq));
    EXPECT_EQ(refwire::to_json(li), joined(li));
    EXPECT_EQ(refwire::to_json(st), joined(st));
  }
  const std::array<std::uint16_t, 4> a{0, 9, 10, 65535};
  EXPECT_EQ(refwire::to_json(a), "[0,9,10,65535]");
}

TEST(JsonWriteNumbers, NonFiniteElementStillNamed) {
  std::vector<double> v(300, 1.5);
  v[200] = std::nan("");
  try {
    (void)refwire::to_json(v);
    FAIL() << "NaN accepted";
  } catch (const refwire::encode_error& e) {
    EXPECT_STREQ(e.what(), "$[200]: NaN has no JSON encoding");
  }
}

/// `"YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ"` from gmtime_r, the reference for timestamps.
std::string reference_time(std::int64_t ns) {
  std::int64_t secs = ns / 1000000000;
  std::int64_t frac = ns % 1000000000;
  if (frac < 0) {
    frac += 1000000000;
    --secs;
  }
  const auto t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "\"%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ\"", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(frac));
  return buf;
}

TEST(JsonWriteNumbers, Timestamps) {
  std::vector<std::int64_t> v{0, 1, -1, 999999999, 1000000000, -1000000000, -1000000001, 86399999999999LL,
                              86400000000000LL, -86400000000000LL, 951782400000000000LL /* 2000-02-29 */,
                              std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
  std::mt19937_64 rng(99);
  for (int i = 0; i < 100000; ++i) v.push_back(static_cast<std::int64_t>(rng()));
  for (std::int64_t ns : v) {
    const refwire::timestamp t{std::chrono::nanoseconds(ns)};
    ASSERT_EQ(refwire::to_json(t), reference_time(ns)) << ns;
  }
}

}  // namespace
