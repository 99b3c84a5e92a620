// The hooks (refwire/rpc/hooks.hpp) on their own, without a connection:
// memory_stats (its histogram, percentiles, counters, ordering, reset, table
// and many recording threads), stream_logger's lines, the log levels, and the
// replaceable hook clock.
#include <refwire/rpc/hooks.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#if defined(__SANITIZE_THREAD__)
#define HOOKS_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HOOKS_TEST_TSAN 1
#endif
#endif
#ifndef HOOKS_TEST_TSAN
// Counts allocations (not under ThreadSanitizer, whose runtime defines operator new).
#include "../serialization/common/alloc_watch.hpp"
#endif

namespace {

using namespace std::chrono_literals;
using refwire::rpc::call_record;
using refwire::rpc::call_side;
using refwire::rpc::log_level;
using refwire::rpc::memory_stats;
using refwire::rpc::status_code;
using std::chrono::nanoseconds;

call_record rec(std::string_view method, nanoseconds latency, status_code code = status_code::ok,
                call_side side = call_side::server, std::size_t req = 0, std::size_t resp = 0) {
  call_record r;
  r.side = side;
  r.method = method;
  r.method_id = static_cast<std::uint32_t>(std::hash<std::string_view>{}(method));
  r.code = code;
  r.latency = latency;
  r.request_bytes = req;
  r.response_bytes = resp;
  return r;
}

void record_n(memory_stats& s, int n, const call_record& r) {
  for (int i = 0; i < n; ++i) s.record(r);
}

memory_stats::method_summary only(const memory_stats& s) {
  auto snap = s.snapshot();
  EXPECT_EQ(snap.size(), 1U);
  return snap.empty() ? memory_stats::method_summary{} : snap.front();
}

// ---- percentiles --------------------------------------------------------------

TEST(memory_stats, a_percentile_is_the_middle_of_the_bucket_holding_its_rank) {
  memory_stats s;
  record_n(s, 50, rec("m", 1500ns));   // [1500, 1625) ns: 8 buckets per doubling from 1 µs
  record_n(s, 40, rec("m", 3000ns));   // [3000, 3250)
  record_n(s, 9, rec("m", 10'000ns));  // [10 µs, 11 µs)
  record_n(s, 1, rec("m", 1s));
  const auto m = only(s);
  EXPECT_EQ(m.calls, 100U);
  EXPECT_EQ(m.p50, 1562ns);   // rank 50
  EXPECT_EQ(m.p90, 3125ns);   // rank 90
  EXPECT_EQ(m.p99, 10'500ns); // rank 99
  EXPECT_EQ(m.max, 1s);
}

TEST(memory_stats, ranks_round_up_and_the_first_bucket_is_everything_under_a_microsecond) {
  memory_stats s;
  record_n(s, 1, rec("m", 0ns));
  record_n(s, 1, rec("m", 999ns));    // [0, 1 µs): middle 500 ns
  record_n(s, 1, rec("m", 1000ns));   // [1000, 1125)
  record_n(s, 1, rec("m", 2s));
  const auto m = only(s);
  EXPECT_EQ(m.p50, 500ns);   // rank 2 of 4
  EXPECT_EQ(m.p90, 2s);      // rank 4 of 4: [1.879 s, 2.147 s) has its middle past max
  EXPECT_EQ(m.p99, 2s);
  memory_stats t;
  record_n(t, 3, rec("m", 1000ns));
  record_n(t, 1, rec("m", 8000ns));   // [8000, 9000)
  const auto n = only(t);
  EXPECT_EQ(n.p50, 1062ns);  // rank 2 of 4, the middle of [1000, 1125) rounded down
  EXPECT_EQ(n.p90, 8000ns);  // rank 4, the middle (8500) past max: max
}

TEST(memory_stats, a_percentile_is_never_more_than_max) {
  memory_stats s;
  record_n(s, 10, rec("m", 1500ns));  // the middle of its bucket is 1562 ns
  const auto m = only(s);
  EXPECT_EQ(m.p50, 1500ns);
  EXPECT_EQ(m.p99, 1500ns);
  EXPECT_EQ(m.max, 1500ns);
}

TEST(memory_stats, the_last_bucket_is_open_ended_and_its_percentile_is_max) {
  memory_stats s;
  record_n(s, 3, rec("m", 2h));
  record_n(s, 1, rec("m", 5h));
  const auto m = only(s);
  EXPECT_EQ(m.p50, 5h);
  EXPECT_EQ(m.max, 5h);
}

TEST(memory_stats, a_single_latency_is_within_7_percent_from_1us_to_100s) {
  memory_stats s;
  // 1 µs to 100 s, 40 steps per decade, and the bucket edges themselves.
  std::vector<std::int64_t> values;
  for (int i = 0; i <= 320; ++i) values.push_back(std::llround(1000.0 * std::pow(10.0, i / 40.0)));
  for (std::int64_t lo = 1000; lo < 100'000'000'000; lo *= 2)
    for (int j = 0; j < 8; ++j) {
      values.push_back(lo + lo * j / 8);
      values.push_back(lo + lo * (j + 1) / 8 - 1);
    }
  for (const auto v : values) {
    s.reset();
    s.record(rec("m", nanoseconds{v}));
    s.record(rec("m", 1h));  // so that max does not bound the percentile
    const auto m = only(s);
    const double error = std::abs(static_cast<double>(m.p50.count() - v)) / static_cast<double>(v);
    EXPECT_LE(error, 0.07) << v << " ns read as " << m.p50.count() << " ns";
  }
}

TEST(memory_stats, percentiles_of_a_wide_distribution_are_within_7_percent) {
  memory_stats s;
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> exponent(0.0, 8.0);  // 10^0 .. 10^8 µs: 1 µs .. 100 s
  std::vector<std::int64_t> truth;
  for (int i = 0; i < 20'000; ++i) {
    const auto v = std::llround(1000.0 * std::pow(10.0, exponent(rng)));
    truth.push_back(v);
    s.record(rec("m", nanoseconds{v}));
  }
  std::sort(truth.begin(), truth.end());
  const auto m = only(s);
  const auto at = [&](double p) {
    return static_cast<double>(truth[static_cast<std::size_t>(std::ceil(p * static_cast<double>(truth.size()))) - 1]);
  };
  EXPECT_LE(std::abs(static_cast<double>(m.p50.count()) - at(0.50)) / at(0.50), 0.07);
  EXPECT_LE(std::abs(static_cast<double>(m.p90.count()) - at(0.90)) / at(0.90), 0.07);
  EXPECT_LE(std::abs(static_cast<double>(m.p99.count()) - at(0.99)) / at(0.99), 0.07);
  EXPECT_EQ(m.max.count(), truth.back());
}

TEST(memory_stats, max_is_exact) {
  memory_stats s;
  s.record(rec("m", 1'234'567ns));
  s.record(rec("m", 7ns));
  s.record(rec("m", 1'234'566ns));
  EXPECT_EQ(only(s).max, 1'234'567ns);
}

// ---- counters -----------------------------------------------------------------

TEST(memory_stats, errors_are_counted_by_code) {
  memory_stats s;
  record_n(s, 5, rec("m", 1us));
  record_n(s, 3, rec("m", 1us, status_code::deadline_exceeded));
  record_n(s, 1, rec("m", 1us, status_code::unavailable));
  record_n(s, 2, rec("m", 1us, status_code::unauthenticated));  // 16, the last slot
  const auto m = only(s);
  EXPECT_EQ(m.calls, 11U);
  EXPECT_EQ(m.errors(), 6U);
  EXPECT_EQ(m.count(status_code::ok), 5U);
  EXPECT_EQ(m.count(status_code::deadline_exceeded), 3U);
  EXPECT_EQ(m.count(status_code::unavailable), 1U);
  EXPECT_EQ(m.count(status_code::unauthenticated), 2U);
  EXPECT_EQ(m.count(status_code::internal), 0U);
  EXPECT_EQ(m.by_code[4], 3U);
  EXPECT_EQ(m.by_code[14], 1U);
  EXPECT_EQ(m.by_code[16], 2U);
}

TEST(memory_stats, bytes_are_summed) {
  memory_stats s;
  s.record(rec("m", 1us, status_code::ok, call_side::client, 10, 4));
  s.record(rec("m", 1us, status_code::ok, call_side::client, 30, 0));
  s.record(rec("m", 1us, status_code::internal, call_side::client, 5'000'000'000, 6));
  const auto m = only(s);
  EXPECT_EQ(m.request_bytes, 5'000'000'040U);
  EXPECT_EQ(m.response_bytes, 10U);
  EXPECT_EQ(m.side, call_side::client);
  EXPECT_EQ(m.method, "m");
}

TEST(memory_stats, snapshot_is_sorted_by_method_then_side) {
  memory_stats s;
  s.record(rec("calc.v1.range", 1us, status_code::ok, call_side::server));
  s.record(rec("calc.v1.add", 1us, status_code::ok, call_side::server));
  s.record(rec("zeta.v1.x", 1us, status_code::ok, call_side::client));
  s.record(rec("calc.v1.add", 1us, status_code::ok, call_side::client));
  s.record(rec("calc.v1.add", 2us, status_code::ok, call_side::client));
  const auto snap = s.snapshot();
  ASSERT_EQ(snap.size(), 4U);
  EXPECT_EQ(snap[0].method, "calc.v1.add");
  EXPECT_EQ(snap[0].side, call_side::client);
  EXPECT_EQ(snap[0].calls, 2U);
  EXPECT_EQ(snap[1].method, "calc.v1.add");
  EXPECT_EQ(snap[1].side, call_side::server);
  EXPECT_EQ(snap[1].calls, 1U);
  EXPECT_EQ(snap[2].method, "calc.v1.range");
  EXPECT_EQ(snap[3].method, "zeta.v1.x");
  EXPECT_EQ(snap[3].side, call_side::client);
}

TEST(memory_stats, the_method_name_is_copied_and_not_kept) {
  memory_stats s;
  {
    std::string name = "calc.v1.add";
    s.record(rec(name, 1us));
    name.assign("xxxx.xx.xxx");
  }
  EXPECT_EQ(only(s).method, "calc.v1.add");
}

TEST(memory_stats, reset_forgets_every_call) {
  memory_stats s;
  record_n(s, 4, rec("a", 1ms, status_code::internal, call_side::server, 7, 9));
  record_n(s, 2, rec("b", 2ms));
  s.reset();
  EXPECT_TRUE(s.snapshot().empty());
  EXPECT_EQ(s.table(), "method  calls  errors  p50  p90  p99  max  req B/call  resp B/call\n");
  s.record(rec("a", 3us, status_code::ok, call_side::server, 1, 2));
  const auto m = only(s);
  EXPECT_EQ(m.method, "a");
  EXPECT_EQ(m.calls, 1U);
  EXPECT_EQ(m.errors(), 0U);
  EXPECT_EQ(m.request_bytes, 1U);
  EXPECT_EQ(m.response_bytes, 2U);
  EXPECT_EQ(m.max, 3us);
  EXPECT_EQ(m.p99, 3us);
}

TEST(memory_stats, records_from_8_threads_at_once_add_up) {
  memory_stats s;
  constexpr int threads = 8;
  constexpr int per_thread = 20'000;
  const std::string_view methods[] = {"calc.v1.add", "calc.v1.range", "calc.v1.log"};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        const auto code = i % 10 == 0 ? status_code::unavailable : status_code::ok;
        const auto side = t % 2 == 0 ? call_side::client : call_side::server;
        s.record(rec(methods[i % 3], nanoseconds{1000 + i}, code, side, 3, 5));
      }
    });
  }
  // A reader at the same time sees consistent rows.
  for (int i = 0; i < 20; ++i) {
    for (const auto& m : s.snapshot()) {
      EXPECT_EQ(m.request_bytes, 3 * m.calls);
      EXPECT_EQ(m.response_bytes, 5 * m.calls);
    }
  }
  for (auto& th : pool) th.join();
  const auto snap = s.snapshot();
  ASSERT_EQ(snap.size(), 6U);
  std::uint64_t calls = 0, unavailable = 0;
  for (const auto& m : snap) {
    calls += m.calls;
    unavailable += m.count(status_code::unavailable);
    EXPECT_EQ(m.request_bytes, 3 * m.calls);
    EXPECT_EQ(m.response_bytes, 5 * m.calls);
    EXPECT_EQ(m.calls, m.count(status_code::ok) + m.count(status_code::unavailable));
  }
  EXPECT_EQ(calls, std::uint64_t{threads} * per_thread);
  EXPECT_EQ(unavailable, std::uint64_t{threads} * (per_thread / 10));
  // calc.v1.add on the client: threads 0, 2, 4, 6, every i % 3 == 0.
  EXPECT_EQ(snap[0].method, "calc.v1.add");
  EXPECT_EQ(snap[0].side, call_side::client);
  EXPECT_EQ(snap[0].calls, 4U * ((per_thread + 2) / 3));
  EXPECT_EQ(snap[0].max, nanoseconds{1000 + 19'998});
}

TEST(memory_stats, recording_a_known_method_allocates_nothing) {
#ifdef HOOKS_TEST_TSAN
  GTEST_SKIP() << "allocations are not counted under ThreadSanitizer";
#else
  memory_stats s;
  s.record(rec("calc.v1.add", 1us));
  s.record(rec("calc.v1.add", 1us, status_code::ok, call_side::client));
  const auto r = rec("calc.v1.add", 5ms, status_code::deadline_exceeded, call_side::client, 1, 2);
  refwire_test::alloc_watch w;
  for (int i = 0; i < 1000; ++i) s.record(r);
  s.reset();
  s.record(r);
  EXPECT_EQ(w.count(), 0U);
#endif
}

// ---- the table ------------------------------------------------------------------

// One side only: no side column. The golden text docs/rpc.md shows ("Hooks").
TEST(memory_stats, table_golden) {
  memory_stats s;
  const auto add = [&](nanoseconds d, status_code c = status_code::ok) {
    s.record(rec("calc.v1.add", d, c, call_side::server, 16, c == status_code::ok ? 8 : 40));
  };
  for (int i = 0; i < 9000; ++i) add(9us);
  for (int i = 0; i < 900; ++i) add(12us);
  for (int i = 0; i < 96; ++i) add(30us);
  for (int i = 0; i < 3; ++i) add(410us, status_code::deadline_exceeded);
  add(1200us, status_code::unavailable);
  for (int i = 0; i < 3; ++i) s.record(rec("calc.v1.range", 1500us, status_code::ok, call_side::server, 4, 12'000));
  s.record(rec("calc.v1.range", 2500ms, status_code::ok, call_side::server, 4, 12'000'000));
  s.record(rec("calc.v1.log", 640ns, status_code::ok, call_side::server, 23, 0));
  s.record(rec("calc.v1.log", 700ns, status_code::ok, call_side::server, 25, 0));
  EXPECT_EQ(s.table(),
            "method         calls  errors      p50      p90      p99      max  req B/call  resp B/call\n"
            "calc.v1.add    10000       4  9.50 µs  9.50 µs  12.5 µs  1.20 ms          16            8\n"
            "  errors: deadline_exceeded 3, unavailable 1\n"
            "calc.v1.log        2       0   500 ns   500 ns   500 ns   700 ns          24            0\n"
            "calc.v1.range      4       0  1.47 ms   2.49 s   2.49 s   2.50 s           4      3009000\n");
}

// Both sides in one sink (a process that calls and serves): a side column.
TEST(memory_stats, table_golden_with_both_sides) {
  memory_stats s;
  s.record(rec("calc.v1.add", 20us, status_code::ok, call_side::client, 12, 4));
  s.record(rec("calc.v1.add", 31us, status_code::cancelled, call_side::client, 12, 0));
  s.record(rec("calc.v1.add", 9us, status_code::ok, call_side::server, 12, 4));
  s.record(rec("report.v2.scan_everything", 61s, status_code::deadline_exceeded, call_side::client, 8, 0));
  EXPECT_EQ(s.table(),
            "method                     side    calls  errors      p50      p90      p99      max  req B/call  resp B/call\n"
            "calc.v1.add                client      2       1  21.0 µs  31.0 µs  31.0 µs  31.0 µs          12            2\n"
            "  errors: cancelled 1\n"
            "calc.v1.add                server      1       0  9.00 µs  9.00 µs  9.00 µs  9.00 µs          12            4\n"
            "report.v2.scan_everything  client      1       1   60.8 s   60.8 s   60.8 s   61.0 s           8            0\n"
            "  errors: deadline_exceeded 1\n");
}

TEST(memory_stats, table_units_keep_3_significant_digits) {
  const auto cell = [](nanoseconds d) {
    memory_stats s;
    s.record(rec("m", d));
    const std::string t = s.table();
    // The max column of the only row.
    const auto row = t.substr(t.find('\n') + 1);
    std::vector<std::string> words;
    std::string w;
    for (char c : row) {
      if (c == ' ' || c == '\n') {
        if (!w.empty()) words.push_back(w);
        w.clear();
      } else {
        w += c;
      }
    }
    return words.at(9) + " " + words.at(10);  // m calls errors p50 u p90 u p99 u max u ...
  };
  EXPECT_EQ(cell(5ns), "5 ns");
  EXPECT_EQ(cell(999ns), "999 ns");
  EXPECT_EQ(cell(1000ns), "1.00 µs");
  EXPECT_EQ(cell(1234ns), "1.23 µs");
  EXPECT_EQ(cell(99'949ns), "99.9 µs");
  EXPECT_EQ(cell(99'950ns), "100 µs");
  EXPECT_EQ(cell(999'499ns), "999 µs");
  EXPECT_EQ(cell(999'500ns), "1.00 ms");
  EXPECT_EQ(cell(45'600'000ns), "45.6 ms");
  EXPECT_EQ(cell(999'600'000ns), "1.00 s");
  EXPECT_EQ(cell(2h), "7200 s");
}

// ---- logging --------------------------------------------------------------------

TEST(log_level, names) {
  EXPECT_EQ(refwire::rpc::to_string(log_level::debug), "debug");
  EXPECT_EQ(refwire::rpc::to_string(log_level::info), "info");
  EXPECT_EQ(refwire::rpc::to_string(log_level::warning), "warning");
  EXPECT_EQ(refwire::rpc::to_string(log_level::error), "error");
  EXPECT_EQ(refwire::rpc::to_string(log_level::off), "off");
  EXPECT_EQ(refwire::rpc::to_string(static_cast<log_level>(9)), "unknown");
}

struct null_logger final : refwire::rpc::logger {
  using logger::logger;
  void write(log_level, std::string_view) noexcept override {}
};

TEST(logger, enabled_at_each_level) {
  const log_level all[] = {log_level::debug, log_level::info, log_level::warning, log_level::error, log_level::off};
  for (const auto configured : all) {
    const null_logger log(configured);
    EXPECT_EQ(log.level(), configured);
    for (const auto message : all) {
      const bool expected = message != log_level::off && static_cast<int>(message) >= static_cast<int>(configured);
      EXPECT_EQ(log.enabled(message), expected)
          << "logger at " << to_string(configured) << ", message at " << to_string(message);
    }
  }
  // Spelled out: a logger at off logs nothing, one at debug everything but off.
  EXPECT_FALSE(null_logger(log_level::off).enabled(log_level::error));
  EXPECT_TRUE(null_logger(log_level::debug).enabled(log_level::debug));
  EXPECT_FALSE(null_logger(log_level::warning).enabled(log_level::info));
  EXPECT_TRUE(null_logger(log_level::warning).enabled(log_level::warning));
  EXPECT_EQ(null_logger().level(), log_level::info);
  EXPECT_EQ(null_logger().slow_call(), 0us);
  EXPECT_EQ(null_logger(log_level::info, 250ms).slow_call(), 250ms);
}

std::string read_all(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return out;
}

TEST(stream_logger, writes_one_line_per_message_at_or_above_its_level) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    refwire::rpc::stream_logger log(f, log_level::info);
    log.write(log_level::info, "server: connection from tcp://127.0.0.1:50000 opened");
    log.write(log_level::debug, "dropped: below the logger's level");
    log.write(log_level::warning, "calc.v1.add: took 1.20 s");
    log.write(log_level::error, "");
    log.write(log_level::off, "dropped: off is not a message level");
  }
  EXPECT_EQ(read_all(f),
            "refwire rpc info: server: connection from tcp://127.0.0.1:50000 opened\n"
            "refwire rpc warning: calc.v1.add: took 1.20 s\n"
            "refwire rpc error: \n");
  std::fclose(f);
}

TEST(stream_logger, a_long_message_is_one_whole_line) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  const std::string message(5000, 'x');
  refwire::rpc::stream_logger log(f, log_level::debug);
  log.write(log_level::debug, message);
  EXPECT_EQ(read_all(f), "refwire rpc debug: " + message + "\n");
  std::fclose(f);
}

TEST(stream_logger, lines_from_many_threads_do_not_interleave) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  refwire::rpc::stream_logger log(f, log_level::debug);
  constexpr int threads = 8;
  constexpr int lines = 300;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      // Some lines longer than the logger's stack buffer.
      const std::string body(static_cast<std::size_t>(100 + 300 * t), static_cast<char>('a' + t));
      for (int i = 0; i < lines; ++i) log.write(log_level::warning, body);
    });
  }
  for (auto& th : pool) th.join();
  const std::string text = read_all(f);
  std::fclose(f);
  std::vector<int> seen(threads, 0);
  std::size_t start = 0;
  int total = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    ASSERT_NE(end, std::string::npos);
    const std::string_view line(text.data() + start, end - start);
    const std::string_view prefix = "refwire rpc warning: ";
    ASSERT_TRUE(line.starts_with(prefix)) << line.substr(0, 60);
    const auto body = line.substr(prefix.size());
    ASSERT_FALSE(body.empty());
    const int t = body[0] - 'a';
    ASSERT_TRUE(t >= 0 && t < threads);
    EXPECT_EQ(body, std::string(static_cast<std::size_t>(100 + 300 * t), static_cast<char>('a' + t)));
    ++seen[static_cast<std::size_t>(t)];
    ++total;
    start = end + 1;
  }
  EXPECT_EQ(total, threads * lines);
  for (int t = 0; t < threads; ++t) EXPECT_EQ(seen[static_cast<std::size_t>(t)], lines) << t;
}

// ---- the hook clock -------------------------------------------------------------

std::atomic<int> clock_reads{0};
std::chrono::steady_clock::time_point counting_clock() noexcept {
  return std::chrono::steady_clock::time_point{std::chrono::seconds(clock_reads.fetch_add(1) + 1000)};
}

TEST(hook_clock, a_counting_clock_replaces_it_and_nullptr_restores_steady_clock) {
  using refwire::rpc::detail::hook_now;
  using refwire::rpc::detail::set_hook_clock;
  clock_reads = 0;
  set_hook_clock(&counting_clock);
  EXPECT_EQ(hook_now(), std::chrono::steady_clock::time_point{1000s});
  EXPECT_EQ(hook_now(), std::chrono::steady_clock::time_point{1001s});
  EXPECT_EQ(clock_reads.load(), 2);
  set_hook_clock(nullptr);
  const auto before = std::chrono::steady_clock::now();
  const auto now = hook_now();
  const auto after = std::chrono::steady_clock::now();
  EXPECT_LE(before, now);
  EXPECT_LE(now, after);
  EXPECT_EQ(clock_reads.load(), 2);
}

}  // namespace
