// bench_protobuf: refwire's protobuf format against protoc-generated code
// (peers.proto), on the data sets of datasets.hpp, in one run:
//   refwire        serialize<protobuf>(v, buffer) / deserialize<protobuf>(bytes, fresh value)
//   pb+copy        the struct copied into a reused message, ByteSizeLong + SerializeWithCachedSizesToArray /
//                  ParseFromArray into a reused message, then copied into a fresh struct
//   pb filled      serialize an already-filled message only / parse only (into a reused message)
//   refwire reused decode only: deserialize<protobuf>(bytes, one value reused across iterations), which
//                  keeps its strings' and vectors' capacity like the reused message of "pb filled"
//   pb io          the struct written / read by hand with protobuf's io and wire-format helpers
//                  (pb_io.hpp: WireFormatLite::Write*ToArray, CodedInputStream), no message in between
// Ratios are peer time / refwire time (> 1: refwire is faster). Before timing,
// the byte sizes are compared with the generated code's and each side decodes
// the other's bytes to the original value; a mismatch aborts.
//
//   bench_protobuf                             # 5 repetitions each, medians, the table and the goals
//   bench_protobuf --benchmark_repetitions=9   # any Google Benchmark flag
//   bench_protobuf --markdown                  # the tables as Markdown too
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>

#include <refwire/serialization.hpp>

#include "getters.hpp"
#include "pb_convert.hpp"
#include "pb_io.hpp"
#include "peers.pb.h"

namespace refwire_bench {
namespace {

constexpr std::string_view peers[] = {"refwire", "pb+copy", "pb filled", "refwire reused", "pb io"};

struct info {
  std::size_t refwire_bytes = 0;
  std::size_t pb_bytes = 0;
  bool same_bytes = false;
};
std::map<std::string, info>& infos() {
  static std::map<std::string, info> m;
  return m;
}

[[noreturn]] void die(const std::string& ds, const char* what) {
  std::fprintf(stderr, "bench_protobuf: %s: %s\n", ds.c_str(), what);
  std::abort();
}

std::vector<std::byte> pb_bytes(const google::protobuf::MessageLite& m) {
  std::vector<std::byte> out(m.ByteSizeLong());
  m.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(out.data()));
  return out;
}

template <class T, class Message>
void register_set(const std::string& ds, const T& (*get)()) {
  {  // checks, once
    const T& v = get();
    const std::vector<std::byte> rw = refwire::serialize<refwire::protobuf>(v);
    Message m;
    to_pb(v, m);
    const std::vector<std::byte> pb = pb_bytes(m);
    infos()[ds] = {rw.size(), pb.size(), rw == pb};
    if (rw.size() != pb.size()) die(ds, "refwire's encoding and the generated code's differ in size");
    T back{};
    if (refwire::deserialize<refwire::protobuf>(pb, back) || !(back == v)) die(ds, "refwire misreads protobuf's bytes");
    Message parsed;
    T back2{};
    if (!parsed.ParseFromArray(rw.data(), static_cast<int>(rw.size())) || !from_pb(parsed, back2) || !(back2 == v))
      die(ds, "protobuf misreads refwire's bytes");
    std::vector<std::byte> io;
    pb_io::encode(v, io);
    if (io != rw) die(ds, "the pb_io encoder's bytes differ from refwire's");
    T back3{};
    if (!pb_io::decode(rw, back3) || !(back3 == v)) die(ds, "the pb_io decoder misreads refwire's bytes");
  }
  const auto name = [&](const char* dir, std::string_view peer) { return ds + "/" + dir + "/" + std::string(peer); };

  benchmark::RegisterBenchmark(name("encode", "refwire").c_str(), [get](benchmark::State& st) {
    const T& v = get();
    std::vector<std::byte> buf;
    refwire::serialize<refwire::protobuf>(v, buf);
    for (auto _ : st) {
      refwire::serialize<refwire::protobuf>(v, buf);
      benchmark::DoNotOptimize(buf.data());
      benchmark::ClobberMemory();
    }
  });
  benchmark::RegisterBenchmark(name("encode", "pb+copy").c_str(), [get](benchmark::State& st) {
    const T& v = get();
    Message m;
    std::vector<std::byte> buf;
    for (auto _ : st) {
      to_pb(v, m);
      buf.resize(m.ByteSizeLong());
      m.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(buf.data()));
      benchmark::DoNotOptimize(buf.data());
      benchmark::ClobberMemory();
    }
  });
  benchmark::RegisterBenchmark(name("encode", "pb filled").c_str(), [get](benchmark::State& st) {
    Message m;
    to_pb(get(), m);
    std::vector<std::byte> buf;
    for (auto _ : st) {
      buf.resize(m.ByteSizeLong());
      m.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(buf.data()));
      benchmark::DoNotOptimize(buf.data());
      benchmark::ClobberMemory();
    }
  });
  benchmark::RegisterBenchmark(name("encode", "pb io").c_str(), [get](benchmark::State& st) {
    const T& v = get();
    std::vector<std::byte> buf;
    for (auto _ : st) {
      pb_io::encode(v, buf);
      benchmark::DoNotOptimize(buf.data());
      benchmark::ClobberMemory();
    }
  });
  benchmark::RegisterBenchmark(name("decode", "refwire").c_str(), [get](benchmark::State& st) {
    const std::vector<std::byte> in = refwire::serialize<refwire::protobuf>(get());
    for (auto _ : st) {
      T out{};
      if (refwire::deserialize<refwire::protobuf>(in, out)) [[unlikely]] st.SkipWithError("decode failed");
      benchmark::DoNotOptimize(out);
      benchmark::ClobberMemory();
    }
  });
  benchmark::RegisterBenchmark(name("decode", "pb+copy").c_str(), [get](benchmark::State& st) {
    const std::vector<std::byte> in = refwire::serialize<refwire::protobuf>(get());
    Message m;
    for (auto _ : st) {
      T out{};
      if (!m.ParseFromArray(in.data(), static_cast<int>(in.size())) || !from_pb(m, out)) [[unlikely]]
        st.SkipWithError("decode failed");
      benchmark::DoNotOptimize(out);
      benchmark::ClobberMemory();
    }
  });
  benchmark::RegisterBenchmark(name("decode", "refwire reused").c_str(), [get](benchmark::State& st) {
    const std::vector<std::byte> in = refwire::serialize<refwire::protobuf>(get());
    T out{};
    if (refwire::deserialize<refwire::protobuf>(in, out)) st.SkipWithError("decode failed");
    for (auto _ : st) {
      if (refwire::deserialize<refwire::protobuf>(in, out)) [[unlikely]] st.SkipWithError("decode failed");
      benchmark::DoNotOptimize(out);
      benchmark::ClobberMemory();
    }
  });
  benchmark::RegisterBenchmark(name("decode", "pb io").c_str(), [get](benchmark::State& st) {
    const std::vector<std::byte> in = refwire::serialize<refwire::protobuf>(get());
    for (auto _ : st) {
      T out{};
      if (!pb_io::decode(in, out)) [[unlikely]] st.SkipWithError("decode failed");
      benchmark::DoNotOptimize(out);
      benchmark::ClobberMemory();
    }
  });
  benchmark::RegisterBenchmark(name("decode", "pb filled").c_str(), [get](benchmark::State& st) {
    const std::vector<std::byte> in = refwire::serialize<refwire::protobuf>(get());
    Message m;
    for (auto _ : st) {
      if (!m.ParseFromArray(in.data(), static_cast<int>(in.size()))) [[unlikely]] st.SkipWithError("decode failed");
      benchmark::DoNotOptimize(m);
      benchmark::ClobberMemory();
    }
  });
}

class collecting_reporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, std::vector<double>> ns;
  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> shown;
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Iteration && !r.error_occurred) {
        ns[r.run_name.function_name].push_back(r.GetAdjustedCPUTime() /
                                               benchmark::GetTimeUnitMultiplier(r.time_unit) * 1e9);
      }
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") shown.push_back(r);
      if (r.run_type == Run::RT_Iteration && r.repetitions <= 1) shown.push_back(r);
    }
    if (!shown.empty()) ConsoleReporter::ReportRuns(shown);
  }
};

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

std::string fmt(double v, const char* f = "%.1f") {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace
}  // namespace refwire_bench

int main(int argc, char** argv) {
  using namespace refwire_bench;
  bool markdown = false;
  std::vector<char*> args;
  bool has_reps = false;
  bool has_min_time = false;
  for (int i = 0; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--markdown") {
      markdown = true;
      continue;
    }
    has_reps = has_reps || a.rfind("--benchmark_repetitions", 0) == 0;
    has_min_time = has_min_time || a.rfind("--benchmark_min_time", 0) == 0;
    args.push_back(argv[i]);
  }
  static char reps[] = "--benchmark_repetitions=5";
  static char min_time[] = "--benchmark_min_time=0.1";
  if (!has_reps) args.push_back(reps);
  if (!has_min_time) args.push_back(min_time);
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());

  register_set<small, pb::Small>("small", get::small_value);
  register_set<record, pb::Record>("record", get::record_value);
  register_set<doubles, pb::Doubles>("bulk_doubles", get::bulk_doubles);
  register_set<strings, pb::Strings>("bulk_strings", get::bulk_strings);
  register_set<records, pb::Records>("many", get::many);

  collecting_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);

  const char* sets[] = {"small", "record", "bulk_doubles", "bulk_strings", "many"};
  std::string table =
      "| data set | op | refwire ns/op | refwire MB/s | pb+copy ns/op | pb+copy / refwire | pb filled ns/op | "
      "pb filled / refwire | bytes (refwire = protoc) |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---|\n";
  // The second table: refwire decoding into a reused value (against the reused
  // message of "pb filled": both keep their allocations) and protobuf's own io
  // helpers driven by hand (pb_io.hpp).
  std::string table2 =
      "| data set | op | refwire ns/op | refwire reused ns/op | pb filled / refwire reused | pb io ns/op | "
      "pb io / refwire |\n"
      "|---|---|---:|---:|---:|---:|---:|\n";
  bool goals_met = true;
  std::string misses;
  std::string reused_misses;
  for (const char* ds : sets) {
    for (const char* dir : {"encode", "decode"}) {
      const auto get_ns = [&](std::string_view peer) {
        return median(reporter.ns[std::string(ds) + "/" + dir + "/" + std::string(peer)]);
      };
      const double rw = get_ns(peers[0]);
      const double copy = get_ns(peers[1]);
      const double filled = get_ns(peers[2]);
      const info& in = infos()[ds];
      const double mbs = static_cast<double>(in.refwire_bytes) / rw * 1e3;
      const double r_copy = copy / rw;
      const double r_filled = filled / rw;
      if (std::isnan(rw)) continue;
      table += std::string("| ") + ds + " | " + dir + " | " + fmt(rw) + " | " + fmt(mbs, "%.0f") + " | " + fmt(copy) +
               " | " + fmt(r_copy, "%.2fx") + " | " + fmt(filled) + " | " + fmt(r_filled, "%.2fx") + " | " +
               std::to_string(in.refwire_bytes) + (in.same_bytes ? " (identical)" : " (same size)") + " |\n";
      if (!(r_copy >= 3.0)) {
        goals_met = false;
        misses += std::string("  ") + ds + " " + dir + ": " + fmt(r_copy, "%.2fx") + " vs pb+copy (goal 3x)\n";
      }
      if (!(r_filled >= 1.5)) {
        goals_met = false;
        misses += std::string("  ") + ds + " " + dir + ": " + fmt(r_filled, "%.2fx") + " vs pb filled (goal 1.5x)\n";
      }
      const double reused = get_ns(peers[3]);
      const double io = get_ns(peers[4]);
      table2 += std::string("| ") + ds + " | " + dir + " | " + fmt(rw) + " | " + fmt(reused) + " | " +
                fmt(filled / reused, "%.2fx") + " | " + fmt(io) + " | " + fmt(io / rw, "%.2fx") + " |\n";
      if (!std::isnan(reused) && !(filled / reused >= 1.5)) {
        reused_misses += std::string("  ") + ds + " " + dir + ": " + fmt(filled / reused, "%.2fx") +
                         " vs pb filled, both into a reused value (goal 1.5x)\n";
      }
    }
  }
  std::printf("\nMedians of the repetitions (CPU time).\n\n%s\n", table.c_str());
  std::printf("Decoding into a reused value, and protobuf's io helpers by hand:\n\n%s\n", table2.c_str());
  if (goals_met) {
    std::printf("Goals (>= 3x vs pb+copy, >= 1.5x vs pb filled, encode and decode): all met\n");
  } else {
    std::printf("Goals (>= 3x vs pb+copy, >= 1.5x vs pb filled, encode and decode): missed:\n%s", misses.c_str());
  }
  if (reused_misses.empty()) {
    std::printf("Decode like for like (refwire reused vs pb filled, >= 1.5x): all met\n");
  } else {
    std::printf("Decode like for like (refwire reused vs pb filled, >= 1.5x): missed:\n%s", reused_misses.c_str());
  }
  if (markdown) std::printf("\n<!-- markdown -->\n%s\n%s", table.c_str(), table2.c_str());
  benchmark::Shutdown();
  return 0;
}
