// Encode errors name the value that has no encoding, one style in every
// format: what() is "<path>: <reason>", the path spelled as in decode errors.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
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

// Protobuf strings must hold UTF-8.
struct tagged {
  std::vector<std::string> names;
  std::map<std::string, std::vector<std::string>> tags;
  std::optional<std::string> note;
  std::set<std::string> labels;
};
BOOST_DESCRIBE_STRUCT(tagged, (), (names, tags, note, labels))

const std::string not_utf8 = "ok\xff";
const std::string utf8_reason =
    "protobuf string fields must hold UTF-8; \"ok\\xff\" does not (use std::vector<std::byte> for bytes)";

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
// JSON writes a duration as the count of its own period, which always fits:
// the same values encode (the JSON paths of encode failures are tested with
// NaN and invalid UTF-8 in the JSON suites).
TEST(encode_errors, json_writes_durations_in_their_own_unit) {
  trip t;
  t.legs.resize(1);
  t.legs[0].took = too_long;
  EXPECT_NE(refwire::to_json(t).find("9223372036854775807"), std::string::npos);
  EXPECT_EQ(refwire::to_json(too_long), "9223372036854775807");
}
TEST(encode_errors, protobuf_paths) { expect_trip_paths<refwire::protobuf>(); }

TEST(encode_errors, binary_aggregate_fields_by_position) {
  plain p;
  p.b = too_long;
  EXPECT_EQ(encode_failure_of<refwire::binary>(p), std::pair(std::string("$.#1"), range_reason));
}

TEST(encode_errors, protobuf_aggregate_fields_by_position) {
  plain p;
  p.b = too_long;
  EXPECT_EQ(encode_failure_of<refwire::protobuf>(p), std::pair(std::string("$.#1"), range_reason));
}

TEST(encode_errors, protobuf_strings_that_are_not_utf8) {
  {
    trip t;
    t.legs.resize(3);
    t.legs[2].name = not_utf8;
    try {
      (void)refwire::serialize<refwire::protobuf>(t);
      ADD_FAILURE() << "no encode_error";
    } catch (const refwire::encode_error& e) {
      EXPECT_STREQ(e.what(), ("$.legs[2].name: " + utf8_reason).c_str());
    }
  }
  {
    tagged t;
    t.names = {"a", "b", not_utf8};
    EXPECT_EQ(encode_failure_of<refwire::protobuf>(t), std::pair(std::string("$.names[2]"), utf8_reason));
  }
  {
    tagged t;
    t.tags["k"] = {"a", not_utf8};
    EXPECT_EQ(encode_failure_of<refwire::protobuf>(t), std::pair(std::string("$.tags[\"k\"][1]"), utf8_reason));
  }
  {
    tagged t;
    t.note = not_utf8;
    EXPECT_EQ(encode_failure_of<refwire::protobuf>(t), std::pair(std::string("$.note"), utf8_reason));
  }
  {
    tagged t;
    t.labels = {"a", not_utf8, "z"};
    EXPECT_EQ(encode_failure_of<refwire::protobuf>(t), std::pair(std::string("$.labels[1]"), utf8_reason));
  }
  // A top-level string is field 1 of a wrapper message: the value itself.
  EXPECT_EQ(encode_failure_of<refwire::protobuf>(not_utf8), std::pair(std::string("$"), utf8_reason));
  EXPECT_EQ(encode_failure_of<refwire::protobuf>(std::vector<std::string>{"x", not_utf8}),
            std::pair(std::string("$[1]"), utf8_reason));
  // The other formats have no such rule (binary) or their own reason (JSON).
  EXPECT_NO_THROW((void)refwire::serialize<refwire::binary>(not_utf8));
}

TEST(encode_errors, nanosecond_durations_cannot_fail) {
  // Only types whose encoding can fail pay for the path bookkeeping.
  static_assert(!refwire::detail::bin::can_fail<std::chrono::nanoseconds>);
  static_assert(!refwire::detail::bin::can_fail<refwire::timestamp>);
  static_assert(!refwire::detail::bin::can_fail<std::chrono::duration<std::int32_t, std::milli>>);
  static_assert(refwire::detail::bin::can_fail<millis>);
  static_assert(refwire::detail::bin::can_fail<trip>);
  static_assert(refwire::detail::bin::can_fail<std::chrono::duration<double>>);
  static_assert(!refwire::detail::bin::can_fail<std::string>);
  // protobuf: strings too (UTF-8), and timestamps through the same nanoseconds.
  static_assert(!refwire::detail::pb::can_fail<std::chrono::nanoseconds>);
  static_assert(!refwire::detail::pb::can_fail<refwire::timestamp>);
  static_assert(!refwire::detail::pb::can_fail<std::vector<std::int32_t>>);
  static_assert(refwire::detail::pb::can_fail<millis>);
  static_assert(refwire::detail::pb::can_fail<std::string>);
  static_assert(refwire::detail::pb::can_fail<std::map<std::int32_t, std::string>>);
  static_assert(refwire::detail::pb::can_fail<tagged>);
  static_assert(refwire::detail::pb::can_fail<plain>);
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

  // A format's encode appends: a failed protobuf encode leaves what was there before.
  std::vector<std::byte> out{std::byte{0xaa}};
  t.legs[0].name = not_utf8;
  EXPECT_THROW(refwire::protobuf::encode(t, out, {}), refwire::encode_error);
  EXPECT_EQ(out, std::vector<std::byte>{std::byte{0xaa}});
}

}  // namespace
