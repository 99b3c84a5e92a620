// JSON time representation: durations in their own unit, timestamps as RFC
// 3339 or epoch numbers (encode_options / decode_options ::timestamps), RFC
// 3339 leap seconds. Exact text, round trips field by field, and hostile
// input with its exact code, message and offset.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace {

using namespace std::chrono_literals;
using refwire::timestamp_format;

struct timing {
  std::chrono::nanoseconds ns{};
  std::chrono::milliseconds ms{};
  std::chrono::seconds s{};
  std::chrono::duration<std::int32_t, std::milli> ms32{};
  std::chrono::duration<double> secs_d{};
  std::chrono::duration<float, std::milli> ms_f{};
  refwire::timestamp when{};
  std::chrono::time_point<std::chrono::system_clock, std::chrono::milliseconds> when_ms{};
};
BOOST_DESCRIBE_STRUCT(timing, (), (ns, ms, s, ms32, secs_d, ms_f, when, when_ms))

template <class T>
refwire::error decode(std::string_view text, T& out, const refwire::decode_options& o = {}) {
  std::unique_ptr<char[]> copy(new char[text.size() == 0 ? 1 : text.size()]);  // exact size: ASan sees overreads
  if (!text.empty()) std::memcpy(copy.get(), text.data(), text.size());
  return refwire::deserialize<refwire::json>(std::string_view(copy.get(), text.size()), out, o);
}

template <class T>
std::string error_of(std::string_view text, const refwire::decode_options& o = {}) {
  T out{};
  const refwire::error e = decode(text, out, o);
  return e ? e.message() : "ok";
}

template <class T>
T from(std::string_view text, const refwire::decode_options& o = {}) {
  T out{};
  const refwire::error e = decode(text, out, o);
  EXPECT_FALSE(e) << e.message() << " for " << text;
  return out;
}

std::int64_t ns_of(std::string_view rfc3339) {
  return from<refwire::timestamp>("\"" + std::string(rfc3339) + "\"").time_since_epoch().count();
}

timing sample() {
  timing t;
  t.ns = 1500ns;
  t.ms = -1234ms;
  t.s = 86400s;
  t.ms32 = std::chrono::duration<std::int32_t, std::milli>(7);
  t.secs_d = std::chrono::duration<double>(0.25);
  t.ms_f = std::chrono::duration<float, std::milli>(1.5f);
  t.when = refwire::timestamp(std::chrono::nanoseconds(1'796'118'449'123'456'789LL));
  t.when_ms = decltype(t.when_ms)(std::chrono::milliseconds(1'796'118'449'123LL));
  return t;
}

void expect_same(const timing& a, const timing& b) {
  EXPECT_EQ(a.ns, b.ns);
  EXPECT_EQ(a.ms, b.ms);
  EXPECT_EQ(a.s, b.s);
  EXPECT_EQ(a.ms32, b.ms32);
  EXPECT_EQ(a.secs_d, b.secs_d);
  EXPECT_EQ(a.ms_f, b.ms_f);
  EXPECT_EQ(a.when, b.when);
  EXPECT_EQ(a.when_ms, b.when_ms);
}

}  // namespace

// ---------------------------------------------------------------- durations

TEST(json_durations, written_in_their_own_unit) {
  EXPECT_EQ(refwire::to_json(sample()),
            R"({"ns":1500,"ms":-1234,"s":86400,"ms32":7,"secs_d":0.25,"ms_f":1.5,)"
            R"("when":"2026-12-01T09:47:29.123456789Z","when_ms":"2026-12-01T09:47:29.123000000Z"})");
  EXPECT_EQ(refwire::to_json(std::chrono::milliseconds(1500)), "1500");
  EXPECT_EQ(refwire::to_json(std::chrono::minutes(-3)), "-3");
  EXPECT_EQ(refwire::to_json(std::chrono::hours(1)), "1");
  // A duration that does not fit int64 nanoseconds is fine in JSON: it is its own count.
  EXPECT_EQ(refwire::to_json(std::chrono::hours(10'000'000)), "10000000");
}

TEST(json_durations, round_trip_field_by_field) {
  const timing t = sample();
  expect_same(from<timing>(refwire::to_json(t)), t);
  expect_same(from<timing>(refwire::to_json(t, {.pretty = true})), t);
  // Binary and protobuf are unchanged (int64 nanoseconds), and still round-trip.
  expect_same(refwire::deserialize<timing>(refwire::serialize(t)), t);
  expect_same(refwire::deserialize<timing, refwire::protobuf>(refwire::serialize<refwire::protobuf>(t)), t);
}

TEST(json_durations, read_as_their_own_unit) {
  EXPECT_EQ(from<std::chrono::milliseconds>("1500"), 1500ms);
  EXPECT_EQ(from<std::chrono::seconds>("-2"), -2s);
  EXPECT_EQ(from<std::chrono::duration<double>>("1e-3"), std::chrono::duration<double>(0.001));
  EXPECT_EQ(from<std::chrono::duration<double>>("2"), std::chrono::duration<double>(2));
  EXPECT_EQ(error_of<std::chrono::milliseconds>("1.5"), "$: expected integer, got number, at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<std::chrono::milliseconds>(R"("1500ms")"),
            "$: expected integer, got string, at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<timing>(R"({"ms32":2147483648})"),
            "$.ms32: 2147483648 is out of range for i32, at offset 8 (line 1, column 9)");
  EXPECT_EQ(error_of<timing>(R"({"ms_f":1e39})"), "$.ms_f: 1e+39 is out of range for f32, at offset 8 (line 1, column 9)");
  EXPECT_EQ(error_of<timing>(R"({"s":9223372036854775808})"),
            "$.s: 9223372036854775808 is out of range for integer, at offset 5 (line 1, column 6)");
}

TEST(json_durations, nan_is_an_encode_error) {
  timing t;
  t.secs_d = std::chrono::duration<double>(std::numeric_limits<double>::quiet_NaN());
  try {
    (void)refwire::to_json(t);
    FAIL() << "no encode_error";
  } catch (const refwire::encode_error& e) {
    EXPECT_STREQ(e.what(), "$.secs_d: NaN has no JSON encoding");
  }
}

// ---------------------------------------------------------- epoch timestamps

TEST(json_timestamps, epoch_forms_exact_text) {
  const refwire::timestamp t(std::chrono::nanoseconds(1'796'118'449'123'456'789LL));
  auto text = [&](timestamp_format f, refwire::timestamp v) { return refwire::to_json(v, {.timestamps = f}); };
  EXPECT_EQ(text(timestamp_format::rfc3339, t), R"("2026-12-01T09:47:29.123456789Z")");
  EXPECT_EQ(text(timestamp_format::epoch_seconds, t), "1796118449.123456789");
  EXPECT_EQ(text(timestamp_format::epoch_milliseconds, t), "1796118449123.456789");
  EXPECT_EQ(text(timestamp_format::epoch_microseconds, t), "1796118449123456.789");
  EXPECT_EQ(text(timestamp_format::epoch_nanoseconds, t), "1796118449123456789");
  // Whole values have no fraction; trailing zeros are dropped.
  const refwire::timestamp whole(std::chrono::seconds(1'796'118'449));
  EXPECT_EQ(text(timestamp_format::epoch_seconds, whole), "1796118449");
  EXPECT_EQ(text(timestamp_format::epoch_milliseconds, whole), "1796118449000");
  EXPECT_EQ(text(timestamp_format::epoch_seconds, whole + 500ms), "1796118449.5");
  // Before the epoch: the sign, then the magnitude.
  EXPECT_EQ(text(timestamp_format::epoch_seconds, refwire::timestamp(-1ns)), "-0.000000001");
  EXPECT_EQ(text(timestamp_format::epoch_seconds, refwire::timestamp(-1500ms)), "-1.5");
  EXPECT_EQ(text(timestamp_format::epoch_seconds, refwire::timestamp(0ns)), "0");
  EXPECT_EQ(text(timestamp_format::epoch_seconds, refwire::timestamp::min()), "-9223372036.854775808");
  EXPECT_EQ(text(timestamp_format::epoch_nanoseconds, refwire::timestamp::max()), "9223372036854775807");
  // A coarse time point and pretty output.
  timing v = sample();
  EXPECT_EQ(refwire::to_json(v, {.timestamps = timestamp_format::epoch_milliseconds}),
            R"({"ns":1500,"ms":-1234,"s":86400,"ms32":7,"secs_d":0.25,"ms_f":1.5,)"
            R"("when":1796118449123.456789,"when_ms":1796118449123})");
  EXPECT_EQ(refwire::to_json(v.when_ms, {.pretty = true, .timestamps = timestamp_format::epoch_seconds}),
            "1796118449.123");
}

TEST(json_timestamps, epoch_round_trip_field_by_field) {
  const timing t = sample();
  for (const timestamp_format f :
       {timestamp_format::rfc3339, timestamp_format::epoch_seconds, timestamp_format::epoch_milliseconds,
        timestamp_format::epoch_microseconds, timestamp_format::epoch_nanoseconds}) {
    const std::string text = refwire::to_json(t, {.timestamps = f});
    expect_same(from<timing>(text, {.timestamps = f}), t);
  }
  for (const std::int64_t ns : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1},
                                std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    const refwire::timestamp v{std::chrono::nanoseconds(ns)};
    const std::string text = refwire::to_json(v, {.timestamps = timestamp_format::epoch_seconds});
    EXPECT_EQ(from<refwire::timestamp>(text, {.timestamps = timestamp_format::epoch_seconds}), v) << text;
  }
}

TEST(json_timestamps, reader_takes_either_form) {
  const refwire::decode_options ms{.timestamps = timestamp_format::epoch_milliseconds};
  const refwire::decode_options s{.timestamps = timestamp_format::epoch_seconds};
  using refwire::timestamp;
  EXPECT_EQ(from<timestamp>("1796118449123", ms).time_since_epoch().count(), 1'796'118'449'123'000'000LL);
  EXPECT_EQ(from<timestamp>(R"("2026-12-01T09:47:29.123456789Z")", ms).time_since_epoch().count(),
            1'796'118'449'123'456'789LL);
  // Exact from the text, not through a double (19 significant digits).
  EXPECT_EQ(from<timestamp>("1796118449.123456789", s).time_since_epoch().count(), 1'796'118'449'123'456'789LL);
  EXPECT_EQ(from<timestamp>("1.796118449123456789e9", s).time_since_epoch().count(), 1'796'118'449'123'456'789LL);
  EXPECT_EQ(from<timestamp>("17961184491234567.89E-4", ms).time_since_epoch().count(), 1'796'118'449'123'456'789LL);
  EXPECT_EQ(from<timestamp>("-0.5", s).time_since_epoch().count(), -500'000'000LL);
  EXPECT_EQ(from<timestamp>("0.000000001000000", s).time_since_epoch().count(), 1);
  EXPECT_EQ(from<timestamp>("0e99", s).time_since_epoch().count(), 0);
  EXPECT_EQ(from<timestamp>("-9223372036.854775808", s), timestamp::min());
  EXPECT_EQ(from<timestamp>("9223372036854775807", {.timestamps = timestamp_format::epoch_nanoseconds}),
            timestamp::max());
  // In a struct, and at the root with whitespace around it.
  timing t = from<timing>(R"({"when": 1796118449.5 , "when_ms":1796118449.123})", s);
  EXPECT_EQ(t.when.time_since_epoch().count(), 1'796'118'449'500'000'000LL);
  EXPECT_EQ(t.when_ms.time_since_epoch().count(), 1'796'118'449'123LL);
  EXPECT_EQ(from<timestamp>(" 12 ", s).time_since_epoch().count(), 12'000'000'000LL);
}

TEST(json_timestamps, hostile_epoch_numbers) {
  const refwire::decode_options s{.timestamps = timestamp_format::epoch_seconds};
  using refwire::timestamp;
  // The default reads RFC 3339 only.
  EXPECT_EQ(error_of<timestamp>("1796118449"), "$: expected string, got number, at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<timestamp>("true", s),
            "$: expected RFC 3339 string or epoch number, got bool, at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<timestamp>("1.0000000001", s),
            "$: epoch timestamp 1.0000000001 (seconds) is finer than a nanosecond, at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<timestamp>("9223372037", s),
            "$: epoch timestamp 9223372037 (seconds) is outside the int64 nanosecond range (1677-09-21 to "
            "2262-04-11), at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<timestamp>("-9223372036.854775809", s),
            "$: epoch timestamp -9223372036.854775809 (seconds) is outside the int64 nanosecond range (1677-09-21 "
            "to 2262-04-11), at offset 0 (line 1, column 1)");
  // A number no double holds is rejected as everywhere else in refwire.
  EXPECT_EQ(error_of<timestamp>("1e400", s), error_of<double>("1e400"));
  EXPECT_EQ(error_of<timing>(R"({"when":1e400})", s), "$.when: invalid number, at offset 8 (line 1, column 9)");
  EXPECT_EQ(error_of<timestamp>("1e-400", s),
            "$: epoch timestamp 1e-400 (seconds) is finer than a nanosecond, at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<timestamp>("123456789012345678901234567890", s),
            "$: epoch timestamp 123456789012345678901234567890 (seconds) is outside the int64 nanosecond range "
            "(1677-09-21 to 2262-04-11), at offset 0 (line 1, column 1)");
  EXPECT_EQ(error_of<timestamp>("0.12345678901234567891", s),
            "$: epoch timestamp 0.12345678901234567891 (seconds) is finer than a nanosecond, at offset 0 (line 1, "
            "column 1)");
  EXPECT_EQ(error_of<timing>(R"({"when_ms":1796118449.0005})", s),
            "$.when_ms: 1796118449000500000 ns is not a whole number of the field's duration unit (1000000 ns), at "
            "offset 11 (line 1, column 12)");
  EXPECT_EQ(error_of<timing>(R"({"when":01})", s),
            R"($.when: invalid number "01": leading zeros are not allowed, at offset 8 (line 1, column 9))");
  EXPECT_EQ(error_of<timing>(R"({"when":-})", s),
            R"($.when: invalid number "-": expected a digit after '-', at offset 8 (line 1, column 9))");
  EXPECT_EQ(error_of<timing>(R"({"when":"2026-12-01"})", s),
            R"($.when: invalid RFC 3339 timestamp "2026-12-01" (missing the time: expected 'T' and HH:MM:SS after the date), at offset 19 (line 1, column 20))");
  // A long number is cut in the message.
  const std::string long_number = "1." + std::string(100, '1');
  EXPECT_EQ(error_of<timestamp>(long_number, s),
            "$: epoch timestamp 1.11111111111111111111111111111111111111... (seconds) is finer than a nanosecond, "
            "at offset 0 (line 1, column 1)");
}

// ---------------------------------------------------------------- leap seconds

TEST(json_timestamps, leap_seconds) {
  // 23:59:60 UTC is read as 23:59:59.999999999 (the fraction is dropped).
  const std::int64_t last = ns_of("2016-12-31T23:59:59.999999999Z");
  EXPECT_EQ(ns_of("2016-12-31T23:59:60Z"), last);
  EXPECT_EQ(ns_of("2016-12-31T23:59:60.5Z"), last);
  EXPECT_EQ(ns_of("2016-12-31T23:59:60.123456789z"), last);
  EXPECT_EQ(ns_of("2016-12-31 23:59:60Z"), last);
  EXPECT_EQ(ns_of("2016-12-31T18:59:60-05:00"), last);
  EXPECT_EQ(ns_of("2017-01-01T05:29:60+05:30"), last);
  EXPECT_EQ(ns_of("2017-01-01T00:59:60+01:00"), last);
  EXPECT_EQ(ns_of("1990-12-31T23:59:60Z"), ns_of("1990-12-31T23:59:59.999999999Z"));
  // Any date is fine (the grammar allows second 60 on any day).
  EXPECT_EQ(ns_of("2026-06-15T23:59:60Z"), ns_of("2026-06-15T23:59:59.999999999Z"));
  EXPECT_LT(ns_of("2016-12-31T23:59:59.5Z"), ns_of("2016-12-31T23:59:60Z"));
  EXPECT_LT(ns_of("2016-12-31T23:59:60Z"), ns_of("2017-01-01T00:00:00Z"));
  // Not at 23:59 UTC once the offset is applied.
  EXPECT_EQ(error_of<refwire::timestamp>(R"("2016-12-31T23:59:60+01:00")"),
            R"($: invalid RFC 3339 timestamp "2016-12-31T23:59:60+01:00" (no such time of day: a leap second (second 60) is only at 23:59 UTC, this is 22:59 UTC), at offset 18 (line 1, column 19))");
  EXPECT_EQ(error_of<refwire::timestamp>(R"("2016-12-31T12:30:60Z")"),
            R"($: invalid RFC 3339 timestamp "2016-12-31T12:30:60Z" (no such time of day: a leap second (second 60) is only at 23:59 UTC, this is 12:30 UTC), at offset 18 (line 1, column 19))");
  EXPECT_EQ(ns_of("2016-12-31T23:58:60.5-00:01"), last);  // 23:59 UTC
  EXPECT_EQ(error_of<refwire::timestamp>(R"("2016-12-31T23:59:61Z")"),
            R"($: invalid RFC 3339 timestamp "2016-12-31T23:59:61Z" (no such time of day: second 61), at offset 18 (line 1, column 19))");
  EXPECT_EQ(error_of<refwire::timestamp>(R"("2016-12-31T23:59:60")"),
            R"($: invalid RFC 3339 timestamp "2016-12-31T23:59:60" (missing time-zone offset: expected 'Z' or +HH:MM after the seconds), at offset 20 (line 1, column 21))");
  // A coarse field: 23:59:59.999999999 is not a whole number of seconds.
  using sec_tp = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>;
  EXPECT_EQ(error_of<sec_tp>(R"("2016-12-31T23:59:60Z")"),
            "$: 1483228799999999999 ns is not a whole number of the field's duration unit (1000000000 ns), at offset 0 "
            "(line 1, column 1)");
}
