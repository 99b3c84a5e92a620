// bench_compression: lz4 on vs off with the binary format on the data sets of
// datasets.hpp (sizes, encode and decode time, MB/s of the uncompressed
// encoding), plus *rows* (10,000 repetitive trade rows, defined here), and
// save_snapshot / load_snapshot on *record* and *many*.
//
//   bench_compression                       # 5 repetitions, then the table
//   bench_compression --dir=/var/tmp        # where the snapshot files go (default: the system temp dir)
//   bench_compression --benchmark_filter=many   # any Google Benchmark flag
//
// Encode/decode times are CPU time per operation (median of the repetitions);
// snapshot times are wall time, since save_snapshot waits for two fsyncs
// (file and directory), which dominate on a real disk and cost nothing on tmpfs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <benchmark/benchmark.h>
#include <unistd.h>

#include "datasets.hpp"

namespace {

using refwire_bench::data;

const refwire::encode_options lz4_encode{.compression = refwire::compression::lz4};
const refwire::decode_options lz4_decode{.compression = refwire::compression::lz4};

std::filesystem::path g_dir;

// *rows*: a data set of this benchmark only, repetitive like real tables (a
// few symbols, rounded prices, small enums), where lz4 has something to find;
// the shared data sets are uniformly random text and numbers, lz4's worst case.
enum class side : std::uint8_t { buy, sell };
BOOST_DESCRIBE_ENUM(side, buy, sell)
struct trade {
  std::string symbol;
  double price = 0;
  std::int64_t quantity = 0;
  side direction = side::buy;
  std::string venue;
  friend bool operator==(const trade&, const trade&) = default;
};
BOOST_DESCRIBE_STRUCT(trade, (), (symbol, price, quantity, direction, venue))
using trades = std::vector<trade>;

const trades& rows_data() {
  static const trades t = [] {
    refwire_bench::generator g(refwire_bench::default_seed + 100);
    const char* symbols[] = {"ACME", "GLOBEX", "INITECH", "UMBRELLA", "HOOLI", "STARK", "WAYNE", "TYRELL"};
    const char* venues[] = {"XNAS", "XNYS", "BATS"};
    trades v(10'000);
    for (trade& x : v) {
      x.symbol = symbols[g.between(0, 7)];
      x.price = static_cast<double>(g.between(1000, 1100)) / 4;
      x.quantity = static_cast<std::int64_t>(g.between(1, 10) * 100);
      x.direction = g.coin() ? side::buy : side::sell;
      x.venue = venues[g.between(0, 2)];
    }
    return v;
  }();
  return t;
}

template <class T>
void encode(benchmark::State& state, const T& value, bool lz4) {
  std::vector<std::byte> out;
  const std::size_t raw = refwire::serialize(value).size();
  refwire::serialize<refwire::binary>(value, out, lz4 ? lz4_encode : refwire::encode_options{});
  for (auto _ : state) {
    refwire::serialize<refwire::binary>(value, out, lz4 ? lz4_encode : refwire::encode_options{});
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["bytes"] = static_cast<double>(out.size());
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(raw));
}

template <class T>
void decode(benchmark::State& state, const T& value, bool lz4) {
  const std::vector<std::byte> in = refwire::serialize(value, lz4 ? lz4_encode : refwire::encode_options{});
  const std::size_t raw = refwire::serialize(value).size();
  const refwire::decode_options o = lz4 ? lz4_decode : refwire::decode_options{};
  if (!(refwire::deserialize<T>(in, o) == value)) {
    state.SkipWithError("round trip differs");
    return;
  }
  for (auto _ : state) {
    T out = refwire::deserialize<T>(in, o);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.counters["bytes"] = static_cast<double>(in.size());
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(raw));
}

template <class T>
void save(benchmark::State& state, const T& value, bool lz4, const std::string& name) {
  const std::filesystem::path p = g_dir / name;
  for (auto _ : state) refwire::save_snapshot(p, value, lz4 ? lz4_encode : refwire::encode_options{});
  state.counters["bytes"] = static_cast<double>(std::filesystem::file_size(p));
}

template <class T>
void load(benchmark::State& state, const T& value, bool lz4, const std::string& name) {
  const std::filesystem::path p = g_dir / name;
  refwire::save_snapshot(p, value, lz4 ? lz4_encode : refwire::encode_options{});
  if (!(refwire::load_snapshot<T>(p) == value)) {
    state.SkipWithError("snapshot round trip differs");
    return;
  }
  for (auto _ : state) {
    T out = refwire::load_snapshot<T>(p);
    benchmark::DoNotOptimize(out);
  }
  state.counters["bytes"] = static_cast<double>(std::filesystem::file_size(p));
}

template <class T>
void add_codec_pair(const std::string& set, const T& value) {
  for (bool lz4 : {false, true}) {
    const std::string tag = lz4 ? "binary+lz4" : "binary";
    benchmark::RegisterBenchmark((set + "/encode/" + tag).c_str(), [&value, lz4](benchmark::State& s) {
      encode(s, value, lz4);
    });
    benchmark::RegisterBenchmark((set + "/decode/" + tag).c_str(), [&value, lz4](benchmark::State& s) {
      decode(s, value, lz4);
    });
  }
}

template <class T>
void add_snapshot(const std::string& set, const T& value) {
  for (bool lz4 : {false, true}) {
    const std::string tag = lz4 ? "binary+lz4" : "binary";
    const std::string file = "bench-" + set + (lz4 ? "-lz4" : "") + ".rfw";
    benchmark::RegisterBenchmark((set + "/save_snapshot/" + tag).c_str(), [&value, lz4, file](benchmark::State& s) {
      save(s, value, lz4, file);
    })->UseRealTime();
    benchmark::RegisterBenchmark((set + "/load_snapshot/" + tag).c_str(), [&value, lz4, file](benchmark::State& s) {
      load(s, value, lz4, file);
    })->UseRealTime();
  }
}

struct result {
  double ns = NAN;
  double bytes = NAN;
};

class reporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> shown;
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Iteration) {
        if (!r.error_occurred) {
          const double t = r.run_name.function_name.find("snapshot") != std::string::npos ? r.GetAdjustedRealTime()
                                                                                           : r.GetAdjustedCPUTime();
          samples_[r.run_name.function_name].push_back(t / benchmark::GetTimeUnitMultiplier(r.time_unit) * 1e9);
          if (auto it = r.counters.find("bytes"); it != r.counters.end()) bytes_[r.run_name.function_name] = it->second.value;
        }
        if (r.repetitions <= 1 || r.error_occurred) shown.push_back(r);
      } else if (r.aggregate_name == "median") {
        shown.push_back(r);
      }
    }
    if (!shown.empty()) ConsoleReporter::ReportRuns(shown);
  }
  result get(const std::string& name) const {
    result out;
    if (auto it = samples_.find(name); it != samples_.end() && !it->second.empty()) {
      std::vector<double> v = it->second;
      std::sort(v.begin(), v.end());
      out.ns = v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    }
    if (auto it = bytes_.find(name); it != bytes_.end()) out.bytes = it->second;
    return out;
  }

 private:
  std::map<std::string, std::vector<double>> samples_;
  std::map<std::string, double> bytes_;
};

std::string fmt_time(double ns) {
  char buf[32];
  if (std::isnan(ns)) return "-";
  if (ns < 1e3) {
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  } else if (ns < 1e6) {
    std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  }
  return buf;
}

std::string fmt_rate(double bytes, double ns) {
  if (std::isnan(ns) || std::isnan(bytes)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", bytes / ns * 1e3);  // bytes/ns * 1e9 / 1e6
  return buf;
}

void print_tables(const reporter& r) {
  std::printf("\n## lz4 with the binary format (CPU time, median; MB/s of the uncompressed encoding)\n\n");
  std::printf("| data set | binary bytes | lz4 bytes | ratio | encode | encode lz4 | decode | decode lz4 | MB/s enc / lz4 | MB/s dec / lz4 |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (std::string_view set : {"small", "record", "bulk_doubles", "bulk_strings", "many", "rows"}) {
    const std::string s(set);
    const result e = r.get(s + "/encode/binary"), ez = r.get(s + "/encode/binary+lz4");
    const result d = r.get(s + "/decode/binary"), dz = r.get(s + "/decode/binary+lz4");
    if (std::isnan(e.ns) && std::isnan(ez.ns)) continue;
    std::printf("| %s | %.0f | %.0f | %.2f | %s | %s | %s | %s | %s / %s | %s / %s |\n", s.c_str(), e.bytes, ez.bytes,
                e.bytes / ez.bytes, fmt_time(e.ns).c_str(), fmt_time(ez.ns).c_str(), fmt_time(d.ns).c_str(),
                fmt_time(dz.ns).c_str(), fmt_rate(e.bytes, e.ns).c_str(), fmt_rate(e.bytes, ez.ns).c_str(),
                fmt_rate(e.bytes, d.ns).c_str(), fmt_rate(e.bytes, dz.ns).c_str());
  }
  std::printf("\n## snapshots in %s (wall time, median)\n\n", g_dir.c_str());
  std::printf("| data set | file bytes | save | load | file bytes lz4 | save lz4 | load lz4 |\n|---|---:|---:|---:|---:|---:|---:|\n");
  for (std::string_view set : {"record", "many"}) {
    const std::string s(set);
    const result sv = r.get(s + "/save_snapshot/binary"), ld = r.get(s + "/load_snapshot/binary");
    const result svz = r.get(s + "/save_snapshot/binary+lz4"), ldz = r.get(s + "/load_snapshot/binary+lz4");
    if (std::isnan(sv.ns) && std::isnan(svz.ns)) continue;
    std::printf("| %s | %.0f | %s | %s | %.0f | %s | %s |\n", s.c_str(), sv.bytes, fmt_time(sv.ns).c_str(),
                fmt_time(ld.ns).c_str(), svz.bytes, fmt_time(svz.ns).c_str(), fmt_time(ldz.ns).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args;
  std::string repetitions = "--benchmark_repetitions=5";
  std::string min_time = "--benchmark_min_time=0.1";
  bool reps_given = false, min_given = false;
  g_dir = std::filesystem::temp_directory_path();
  for (int i = 0; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.rfind("--dir=", 0) == 0) {
      g_dir = std::string(a.substr(6));
      continue;
    }
    reps_given = reps_given || a.rfind("--benchmark_repetitions", 0) == 0;
    min_given = min_given || a.rfind("--benchmark_min_time", 0) == 0;
    args.push_back(argv[i]);
  }
  if (!reps_given) args.push_back(repetitions.data());
  if (!min_given) args.push_back(min_time.data());
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());

  const auto& d = data();
  add_codec_pair("small", d.small_value);
  add_codec_pair("record", d.record_value);
  add_codec_pair("bulk_doubles", d.bulk_doubles);
  add_codec_pair("bulk_strings", d.bulk_strings);
  add_codec_pair("many", d.many);
  add_codec_pair("rows", rows_data());
  add_snapshot("record", d.record_value);
  add_snapshot("many", d.many);

  reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  print_tables(rep);
  for (const char* f : {"bench-record.rfw", "bench-record-lz4.rfw", "bench-many.rfw", "bench-many-lz4.rfw"}) {
    std::error_code ec;
    std::filesystem::remove(g_dir / f, ec);
  }
  return 0;
}
