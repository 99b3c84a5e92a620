// Encode errors name the value that has no encoding, one style in every
// format: what() is "<path>: <reason>", the path spelled as in decode errors.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace {

using millis = std::chrono::duration<std::int64_t, std::milli>;
constexpr millis too_long{std::numeric_limits<std::int64_t>::max()};
const std::string range_reason =
    "a duration of 9223372036854775807 x 1/1000 s does not fit in int64 nanoseconds";

struct leg {
  std::string name;
  millis took{};
};
BOOST_DESCRIBE_STRUCT(leg, (), (name, took))

struct trip {
  std::int32_t id = 0;
  std::vector<leg> legs;
  std::map<std::string, millis> waits;
  std::map<std::int32_t, millis> by_stop;
  std::variant<std::int32_t, millis> extra;
  std::tuple<std::int32_t, millis> pair;
};
BOOST_DESCRIBE_STRUCT(trip, (), (id, legs, waits, by_stop, extra, pair))

struct plain {
  std::int32_t a = 0;
  millis b{};
};  // a PFR aggregate: fields have no names

template <class F, class T>
std::pair<std::string, std::string> encode_failure_of(const T& v) {
  try {
    (void)refwire::serialize<F>(v);
  } catch (const refwire::encode_error& e) {
    EXPECT_EQ(std::string(e.what()), e.path() + ": " + e.reason());
    return {e.path(), e.reason()};
  }
  ADD_FAILURE() << "no encode_error";
  return {};
}

template <class F>
void expect_trip_paths() {
  {
    trip t;
    t.legs.resize(3);
    t.legs[2].took = too_long;
    EXPECT_EQ(encode_failure_of<F>(t), std::pair(std::string("$.legs[2].took"), range_reason));
  }
  {
    trip t;
    t.waits["a\"b"] = too_long;
    EXPECT_EQ(encode_failure_of<F>(t), std::pair(std::string("$.waits[\"a\\\"b\"]"), range_reason));
  }
  {
    trip t;
    t.by_stop[-7] = too_long;
    EXPECT_EQ(encode_failure_of<F>(t), std::pair(std::string("$.by_stop[-7]"), range_reason));
  }
  {
    trip t;
    t.extra = too_long;
    EXPECT_EQ(encode_failure_of<F>(t), std::pair(std::string("$.extra[1]"), range_reason));
  }
  {
    trip t;
    std::get<1>(t.pair) = too_long;
    EXPECT_EQ(encode_failure_of<F>(t), std::pair(std::string("$.pair[1]"), range_reason));
  }
  EXPECT_EQ(encode_failure_of<F>(too_long), std::pair(std::string("$"), range_reason));
}

TEST(encode_errors, binary_paths) { expect_trip_paths<refwire::binary>(); }
TEST(encode_errors, json_paths) { expect_trip_paths<refwire::json>(); }

TEST(encode_errors, binary_aggregate_fields_by_position) {
  plain p;
  p.b = too_long;
  EXPECT_EQ(encode_failure_of<refwire::binary>(p), std::pair(std::string("$.#1"), range_reason));
}

TEST(encode_errors, nanosecond_durations_cannot_fail) {
  // Only types whose encoding can fail pay for the path bookkeeping.
  static_assert(!refwire::detail::bin::can_fail<std::chrono::nanoseconds>);
  static_assert(!refwire::detail::bin::can_fail<refwire::timestamp>);
  static_assert(!refwire::detail::bin::can_fail<std::chrono::duration<std::int32_t, std::milli>>);
  static_assert(refwire::detail::bin::can_fail<millis>);
  static_assert(refwire::detail::bin::can_fail<trip>);
  static_assert(refwire::detail::bin::can_fail<std::chrono::duration<double>>);
  SUCCEED();
}

TEST(encode_errors, nothing_is_left_in_the_reused_buffer_state) {
  std::vector<std::byte> buf;
  trip t;
  t.legs.resize(1);
  t.legs[0].took = too_long;
  EXPECT_THROW(refwire::serialize<refwire::binary>(t, buf), refwire::encode_error);
  t.legs[0].took = millis(5);
  refwire::serialize<refwire::binary>(t, buf);
  EXPECT_EQ(refwire::deserialize<trip>(buf).legs[0].took, millis(5));
}

}  // namespace
