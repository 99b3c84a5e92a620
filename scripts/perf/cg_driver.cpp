// cg_driver.cpp: the refwire rows of bench_binary, bench_json, bench_protobuf
// and bench_compression as plain loops of a fixed iteration count, for
// callgrind (Debian's Google Benchmark 1.7.1 has no `--benchmark_min_time=Nx`).
//
// Built by callgrind-rows.sh (next to this file) with the same compiler flags
// as the bench target it stands for, once per program:
//   -DCG_PROGRAM=1  bench_binary       (bench/peer_refwire.cpp's codec)
//   -DCG_PROGRAM=2  bench_json         (bench/json_peers.cpp's refwire codec)
//   -DCG_PROGRAM=3  bench_protobuf     (bench/bench_protobuf.cpp's refwire rows)
//   -DCG_PROGRAM=4  bench_compression  (bench/compression.cpp, included with main renamed)
//
// Each loop body is the bench's own (the same refwire call, the same
// DoNotOptimize / ClobberMemory, encode into a reused buffer after one warm-up
// encode, decode into a fresh value; bench_protobuf's "refwire reused" rows
// decode into one reused value). For each row and each count n of
// {n1 (warm-up, discarded), n1, n2}, the row's setup runs afresh (not
// collected), then the loop of n iterations runs with callgrind collecting,
// then CALLGRIND_DUMP_STATS_AT("<row>|<tag>|<n>"). callgrind-rows.sh takes
// (Ir(n2) - Ir(n1)) / (n2 - n1).
//
//   valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no cg_bench_binary [--dir=<dir>] [<row>...]
//   cg_bench_binary --list          # program <TAB> row <TAB> n1 <TAB> n2 of every row
//   cg_bench_binary --native        # the same loops without valgrind (sanity run; client requests are no-ops), ns/op
// <row>...: run only the rows of exactly these names (e.g. small/encode/refwire);
// --dir=<dir>: where bench_compression's snapshot rows write their files
// (default: the system temporary directory).
#include <valgrind/callgrind.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>

#if CG_PROGRAM == 4
// compression.cpp's own *rows* data set (trade rows) and its options.
#define main bench_compression_main
#include "compression.cpp"
#undef main
#else
#include "getters.hpp"
#endif

#include <refwire/serialization.hpp>

namespace cg {

using refwire_bench::data;

struct row {
  std::string name;
  std::size_t n1;
  std::size_t n2;
  std::function<std::function<void(std::size_t)>()> prepare;  // setup; returns the loop
};

std::vector<row>& rows() {
  static std::vector<row> r;
  return r;
}

void add(std::string name, std::size_t n1, std::size_t n2, std::function<std::function<void(std::size_t)>()> prep) {
  rows().push_back({std::move(name), n1, n2, std::move(prep)});
}

/// Iteration counts by data set: (n1, n2).
struct counts {
  std::size_t n1, n2;
};
counts counts_for(std::string_view ds, bool heavy = false) {
  if (ds == "small") return {2000, 6000};
  if (ds == "record") return {1000, 3000};
  if (ds == "rows") return {4, 12};
  if (heavy) return {1, 2};  // JSON bulk doubles and many: ~50-500M instructions per op
  if (ds == "bulk_strings") return {3, 9};
  if (ds == "bulk_doubles") return {3, 9};
  return {2, 5};  // many
}

#if CG_PROGRAM == 1 || CG_PROGRAM == 2 || CG_PROGRAM == 3
#if CG_PROGRAM == 1
using fmt = refwire::binary;
constexpr const char* program = "bench_binary";
#elif CG_PROGRAM == 2
using fmt = refwire::json;
constexpr const char* program = "bench_json";
#else
using fmt = refwire::protobuf;
constexpr const char* program = "bench_protobuf";
#endif

// bench/harness.hpp add_codec with bench's refwire_codec (binary, json), or
// bench_protobuf.cpp's refwire rows (the same calls).
template <class T>
void add_set(const std::string& ds, const T& (*get)()) {
  const bool heavy = CG_PROGRAM == 2 && (ds == "bulk_doubles" || ds == "many");
  const counts c = counts_for(ds, heavy);
  add(ds + "/encode/refwire", c.n1, c.n2, [get]() -> std::function<void(std::size_t)> {
    auto buffer = std::make_shared<std::vector<std::byte>>();
    refwire::serialize<fmt>(get(), *buffer);  // warm-up
    return [get, buffer](std::size_t n) {
      const T& value = get();
      std::vector<std::byte>& buf = *buffer;
      for (std::size_t i = 0; i < n; ++i) {
        refwire::serialize<fmt>(value, buf);
        const std::byte* out = buf.data();
        benchmark::DoNotOptimize(out);
        benchmark::ClobberMemory();
      }
    };
  });
  add(ds + "/decode/refwire", c.n1, c.n2, [get]() -> std::function<void(std::size_t)> {
    auto input = std::make_shared<std::vector<std::byte>>(refwire::serialize<fmt>(get()));
    {
      T check{};
      if (refwire::deserialize<fmt>(*input, check) || !(check == get())) {
        std::fprintf(stderr, "cg: decode check failed\n");
        std::abort();
      }
    }
    return [input](std::size_t n) {
      const std::span<const std::byte> in(*input);
      for (std::size_t i = 0; i < n; ++i) {
        T out{};
        if (refwire::deserialize<fmt>(in, out)) [[unlikely]] std::abort();
        benchmark::DoNotOptimize(out);
        benchmark::ClobberMemory();
      }
    };
  });
#if CG_PROGRAM == 3
  add(ds + "/decode/refwire reused", c.n1, c.n2, [get]() -> std::function<void(std::size_t)> {
    auto input = std::make_shared<std::vector<std::byte>>(refwire::serialize<fmt>(get()));
    auto out = std::make_shared<T>();
    if (refwire::deserialize<fmt>(*input, *out)) std::abort();
    return [input, out](std::size_t n) {
      const std::span<const std::byte> in(*input);
      T& o = *out;
      for (std::size_t i = 0; i < n; ++i) {
        if (refwire::deserialize<fmt>(in, o)) [[unlikely]] std::abort();
        benchmark::DoNotOptimize(o);
        benchmark::ClobberMemory();
      }
    };
  });
#endif
}

void register_rows() {
  namespace get = refwire_bench::get;
  add_set<refwire_bench::small>("small", get::small_value);
  add_set<refwire_bench::record>("record", get::record_value);
  add_set<refwire_bench::doubles>("bulk_doubles", get::bulk_doubles);
  add_set<refwire_bench::strings>("bulk_strings", get::bulk_strings);
  add_set<refwire_bench::records>("many", get::many);
}
#endif

#if CG_PROGRAM == 4
constexpr const char* program = "bench_compression";
std::filesystem::path snap_dir;

// compression.cpp's encode() / decode() loops.
template <class T>
void add_pair(const std::string& set, const T& value) {
  const counts c = counts_for(set);
  for (bool lz4 : {false, true}) {
    const std::string tag = lz4 ? "binary+lz4" : "binary";
    add(set + "/encode/" + tag, c.n1, c.n2, [&value, lz4]() -> std::function<void(std::size_t)> {
      auto out = std::make_shared<std::vector<std::byte>>();
      refwire::serialize<refwire::binary>(value, *out, lz4 ? lz4_encode : refwire::encode_options{});
      return [&value, lz4, out](std::size_t n) {
        std::vector<std::byte>& o = *out;
        for (std::size_t i = 0; i < n; ++i) {
          refwire::serialize<refwire::binary>(value, o, lz4 ? lz4_encode : refwire::encode_options{});
          benchmark::DoNotOptimize(o.data());
          benchmark::ClobberMemory();
        }
      };
    });
    add(set + "/decode/" + tag, c.n1, c.n2, [&value, lz4]() -> std::function<void(std::size_t)> {
      auto in = std::make_shared<std::vector<std::byte>>(
          refwire::serialize(value, lz4 ? lz4_encode : refwire::encode_options{}));
      const refwire::decode_options o = lz4 ? lz4_decode : refwire::decode_options{};
      if (!(refwire::deserialize<T>(*in, o) == value)) std::abort();
      return [in, o](std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
          T out = refwire::deserialize<T>(*in, o);
          benchmark::DoNotOptimize(out);
          benchmark::ClobberMemory();
        }
      };
    });
  }
}

// compression.cpp's save() / load() loops (files in snap_dir).
template <class T>
void add_snap(const std::string& set, const T& value) {
  const counts c = set == "many" ? counts{2, 5} : counts{5, 15};  // save: ~10 ms of fsync each
  for (bool lz4 : {false, true}) {
    const std::string tag = lz4 ? "binary+lz4" : "binary";
    const std::string file = "bench-" + set + (lz4 ? "-lz4" : "") + ".rfw";
    add(set + "/save_snapshot/" + tag, c.n1, c.n2, [&value, lz4, file]() -> std::function<void(std::size_t)> {
      const std::filesystem::path p = snap_dir / file;
      return [&value, lz4, p](std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) refwire::save_snapshot(p, value, lz4 ? lz4_encode : refwire::encode_options{});
      };
    });
    add(set + "/load_snapshot/" + tag, c.n1, c.n2, [&value, lz4, file]() -> std::function<void(std::size_t)> {
      const std::filesystem::path p = snap_dir / file;
      refwire::save_snapshot(p, value, lz4 ? lz4_encode : refwire::encode_options{});
      if (!(refwire::load_snapshot<T>(p) == value)) std::abort();
      return [p](std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
          T out = refwire::load_snapshot<T>(p);
          benchmark::DoNotOptimize(out);
        }
      };
    });
  }
}

void register_rows() {
  const auto& d = data();
  add_pair("small", d.small_value);
  add_pair("record", d.record_value);
  add_pair("bulk_doubles", d.bulk_doubles);
  add_pair("bulk_strings", d.bulk_strings);
  add_pair("many", d.many);
  add_pair("rows", rows_data());
  add_snap("record", d.record_value);
  add_snap("many", d.many);
}
#endif

}  // namespace cg

int main(int argc, char** argv) {
  bool list = false;
  bool native = false;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--list") {
      list = true;
    } else if (a == "--native") {
      native = true;
    } else if (a.rfind("--dir=", 0) == 0) {
#if CG_PROGRAM == 4
      cg::snap_dir = std::string(a.substr(6));
#endif
    } else {
      only.emplace_back(a);
    }
  }
#if CG_PROGRAM == 4
  if (cg::snap_dir.empty()) cg::snap_dir = std::filesystem::temp_directory_path();
#endif
  cg::register_rows();
  if (list) {
    for (const cg::row& r : cg::rows()) std::printf("%s\t%s\t%zu\t%zu\n", cg::program, r.name.c_str(), r.n1, r.n2);
    return 0;
  }
  (void)cg::data();  // all data sets generated before instrumentation starts
#if CG_PROGRAM == 4
  (void)rows_data();
#endif
  CALLGRIND_START_INSTRUMENTATION;
  for (const cg::row& r : cg::rows()) {
    if (!only.empty()) {
      bool hit = false;
      for (const std::string& o : only) hit = hit || r.name == o;
      if (!hit) continue;
    }
    const struct {
      const char* tag;
      std::size_t n;
    } runs[] = {{"warm", r.n1}, {"n1", r.n1}, {"n2", r.n2}};
    for (const auto& run : runs) {
      std::function<void(std::size_t)> loop = r.prepare();
      const auto t0 = std::chrono::steady_clock::now();
      CALLGRIND_TOGGLE_COLLECT;
      loop(run.n);
      CALLGRIND_TOGGLE_COLLECT;
      const auto t1 = std::chrono::steady_clock::now();
      const std::string label = r.name + "|" + run.tag + "|" + std::to_string(run.n);
      CALLGRIND_DUMP_STATS_AT(label.c_str());
      if (native) {
        std::printf("%s\t%s\t%.1f ns/op\n", cg::program, label.c_str(),
                    std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(run.n));
      }
    }
  }
  return 0;
}
