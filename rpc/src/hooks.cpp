// The hooks' clock (replaceable by tests), memory_stats and stream_logger.

#include <refwire/rpc/hooks.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <new>
#include <string>
#include <tuple>

namespace refwire::rpc {

namespace detail {

namespace {

std::chrono::steady_clock::time_point steady_now() noexcept { return std::chrono::steady_clock::now(); }

std::atomic<hook_clock_fn> hook_clock{&steady_now};

}  // namespace

void set_hook_clock(hook_clock_fn f) noexcept { hook_clock.store(f != nullptr ? f : &steady_now); }

std::chrono::steady_clock::time_point hook_now() noexcept { return hook_clock.load(std::memory_order_relaxed)(); }

}  // namespace detail

// ---- memory_stats ------------------------------------------------------------

namespace {

using std::chrono::nanoseconds;

// Bucket 0 holds [0, 1 µs). Bucket b = 1 + 8k + j (k >= 0, 0 <= j < 8) holds
// [125 ns * 2^k * (8 + j), 125 ns * 2^k * (9 + j)): the doubling [2^k µs,
// 2^(k+1) µs) cut into 8 equal slices. The last bucket also holds everything
// past its lower bound (about 62.6 min).
constexpr std::size_t last_bucket = memory_stats::bucket_count - 1;

std::size_t bucket_of(nanoseconds latency) noexcept {
  const auto ns = latency.count();
  if (ns < 1000) return 0;  // negative latencies too: a clock that went back
  // eighths of a microsecond: >= 8
  auto q = static_cast<std::uint64_t>(ns) / 125;
  std::size_t k = 0;
  while (q >= 16) {
    q >>= 1;
    ++k;
  }
  const std::size_t b = 1 + 8 * k + static_cast<std::size_t>(q - 8);
  return std::min(b, last_bucket);
}

/// [lower, upper) of bucket b in ns; the last bucket's upper is its lower.
std::pair<std::int64_t, std::int64_t> bucket_bounds(std::size_t b) noexcept {
  if (b == 0) return {0, 1000};
  const std::size_t k = (b - 1) / 8;
  const auto j = static_cast<std::int64_t>((b - 1) % 8);
  const std::int64_t unit = std::int64_t{125} << k;
  return {unit * (8 + j), unit * (9 + j)};
}

/// The middle of the bucket holding the call of rank ceil(p/1000 * calls),
/// never more than max (the last bucket, open-ended, has no middle: max).
nanoseconds percentile(const std::array<std::uint64_t, memory_stats::bucket_count>& buckets, std::uint64_t calls,
                       unsigned per_mille, nanoseconds max) noexcept {
  if (calls == 0) return nanoseconds{0};
  std::uint64_t rank = (calls * per_mille + 999) / 1000;
  if (rank == 0) rank = 1;
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    seen += buckets[b];
    if (seen < rank) continue;
    if (b == last_bucket) return max;
    const auto [lo, hi] = bucket_bounds(b);
    return std::min(nanoseconds{lo + (hi - lo) / 2}, max);
  }
  return max;
}

}  // namespace

void memory_stats::record(const call_record& r) noexcept {
  try {
    const std::lock_guard lock(mutex_);
    entry* e = nullptr;
    for (auto& candidate : entries_) {
      if (candidate.method_id == r.method_id && candidate.side == r.side && candidate.method == r.method) {
        e = &candidate;
        break;
      }
    }
    if (e == nullptr) {
      // The one allocation a method costs: its entry, on its first record.
      entry& fresh = entries_.emplace_back();
      try {
        fresh.method.assign(r.method);
      } catch (...) {
        entries_.pop_back();
        throw;
      }
      fresh.method_id = r.method_id;
      fresh.side = r.side;
      e = &fresh;
    }
    ++e->calls;
    ++e->by_code[static_cast<std::size_t>(r.code) % code_slots];
    e->request_bytes += r.request_bytes;
    e->response_bytes += r.response_bytes;
    e->max = std::max(e->max, r.latency);
    ++e->buckets[bucket_of(r.latency)];
  } catch (...) {
    // bad_alloc for a new method's entry (or a mutex that cannot lock): this
    // record is dropped; the call itself is not the sink's to fail.
  }
}

std::vector<memory_stats::method_summary> memory_stats::snapshot() const {
  std::vector<method_summary> out;
  {
    const std::lock_guard lock(mutex_);
    out.reserve(entries_.size());
    for (const auto& e : entries_) {
      if (e.calls == 0) continue;  // kept by reset() so that recording stays allocation-free
      method_summary s;
      s.method = e.method;
      s.side = e.side;
      s.calls = e.calls;
      s.by_code = e.by_code;
      s.request_bytes = e.request_bytes;
      s.response_bytes = e.response_bytes;
      s.max = e.max;
      s.p50 = percentile(e.buckets, e.calls, 500, e.max);
      s.p90 = percentile(e.buckets, e.calls, 900, e.max);
      s.p99 = percentile(e.buckets, e.calls, 990, e.max);
      out.push_back(std::move(s));
    }
  }
  std::sort(out.begin(), out.end(), [](const method_summary& a, const method_summary& b) {
    return std::tie(a.method, a.side) < std::tie(b.method, b.side);
  });
  return out;
}

namespace {

/// Three significant digits in the largest unit that keeps the value at 1 or
/// more: "640 ns", "9.10 µs", "12.0 µs", "410 µs", "1.00 ms", "2.50 s".
std::string format_duration(nanoseconds d) {
  const auto ns = d.count();
  char buf[32];
  if (ns < 1000) {
    std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(std::max<std::int64_t>(ns, 0)));
    return buf;
  }
  static constexpr const char* units[] = {"µs", "ms", "s"};
  double x = static_cast<double>(ns) / 1000.0;
  std::size_t u = 0;
  // Move up while the value would print as 1000 or more in this unit.
  while (x >= 999.5 && u + 1 < std::size(units)) {
    x /= 1000.0;
    ++u;
  }
  const int decimals = x < 9.995 ? 2 : x < 99.95 ? 1 : 0;
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, x, units[u]);
  return buf;
}

std::string format_count(std::uint64_t n) { return std::to_string(n); }

/// Columns on a terminal: UTF-8 continuation bytes take none.
std::size_t display_width(std::string_view s) noexcept {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

void pad_to(std::string& out, std::string_view cell, std::size_t width, bool left) {
  const std::size_t w = display_width(cell);
  if (!left) out.append(width > w ? width - w : 0, ' ');
  out += cell;
  if (left) out.append(width > w ? width - w : 0, ' ');
}

}  // namespace

std::string memory_stats::table() const {
  const auto rows = snapshot();
  const bool both_sides = std::any_of(rows.begin(), rows.end(), [](const auto& s) { return s.side == call_side::client; }) &&
                          std::any_of(rows.begin(), rows.end(), [](const auto& s) { return s.side == call_side::server; });

  std::vector<std::string> header = {"method", "calls", "errors", "p50", "p90", "p99", "max", "req B/call", "resp B/call"};
  if (both_sides) header.insert(header.begin() + 1, "side");
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size());
  for (const auto& s : rows) {
    const auto per_call = [&](std::uint64_t sum) { return format_count((sum + s.calls / 2) / s.calls); };
    std::vector<std::string> row = {s.method,
                                    format_count(s.calls),
                                    format_count(s.errors()),
                                    format_duration(s.p50),
                                    format_duration(s.p90),
                                    format_duration(s.p99),
                                    format_duration(s.max),
                                    per_call(s.request_bytes),
                                    per_call(s.response_bytes)};
    if (both_sides) row.insert(row.begin() + 1, s.side == call_side::client ? "client" : "server");
    cells.push_back(std::move(row));
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = display_width(header[c]);
    for (const auto& row : cells) width[c] = std::max(width[c], display_width(row[c]));
  }
  const std::size_t left_columns = both_sides ? 2 : 1;  // method (and side) read left to right

  std::string out;
  const auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out += "  ";
      // Right-aligned numbers, so no line ends in blanks.
      pad_to(out, row[c], width[c], c < left_columns);
    }
    out += '\n';
  };
  line(header);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    line(cells[i]);
    if (rows[i].errors() == 0) continue;
    out += "  errors:";
    bool first = true;
    for (std::size_t code = 1; code < code_slots; ++code) {
      if (rows[i].by_code[code] == 0) continue;
      out += first ? " " : ", ";
      first = false;
      const auto name = to_string(static_cast<status_code>(code));
      if (name == "unknown") {
        out += "code ";
        out += std::to_string(code);
      } else {
        out += name;
      }
      out += ' ';
      out += format_count(rows[i].by_code[code]);
    }
    out += '\n';
  }
  return out;
}

void memory_stats::reset() noexcept {
  const std::lock_guard lock(mutex_);
  // The entries stay (zeroed), so recording after a reset allocates nothing;
  // snapshot() leaves out the ones with no call since.
  for (auto& e : entries_) {
    e.calls = 0;
    e.by_code = {};
    e.request_bytes = 0;
    e.response_bytes = 0;
    e.max = nanoseconds{0};
    e.buckets = {};
  }
}

// ---- logging ------------------------------------------------------------------

std::string_view to_string(log_level l) noexcept {
  switch (l) {
    case log_level::debug: return "debug";
    case log_level::info: return "info";
    case log_level::warning: return "warning";
    case log_level::error: return "error";
    case log_level::off: return "off";
  }
  return "unknown";
}

void stream_logger::write(log_level level, std::string_view message) noexcept {
  if (!enabled(level) || out_ == nullptr) return;
  static constexpr std::string_view prefix = "refwire rpc ";
  const std::string_view name = to_string(level);
  const std::size_t size = prefix.size() + name.size() + 2 + message.size() + 1;
  // The line is put together first so that it reaches the FILE* in one
  // fwrite: whole lines, even when other code writes to the same stream.
  char small[512];
  std::string large;
  char* line = small;
  if (size > sizeof small) {
    try {
      large.resize(size);
      line = large.data();
    } catch (...) {
      line = nullptr;
    }
  }
  const std::lock_guard lock(mutex_);
  if (line == nullptr) {
    // No memory for a long line: its pieces, still under the lock.
    std::fwrite(prefix.data(), 1, prefix.size(), out_);
    std::fwrite(name.data(), 1, name.size(), out_);
    std::fwrite(": ", 1, 2, out_);
    std::fwrite(message.data(), 1, message.size(), out_);
    std::fwrite("\n", 1, 1, out_);
  } else {
    char* p = line;
    p = std::copy(prefix.begin(), prefix.end(), p);
    p = std::copy(name.begin(), name.end(), p);
    *p++ = ':';
    *p++ = ' ';
    p = std::copy(message.begin(), message.end(), p);
    *p++ = '\n';
    std::fwrite(line, 1, size, out_);
  }
  std::fflush(out_);
}

}  // namespace refwire::rpc
