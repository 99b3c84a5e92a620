// bench/report.cpp: the driver of report.hpp, shared by bench_binary and bench_json.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "report.hpp"

namespace refwire_bench {

std::vector<bench_def>& registry() {
  static std::vector<bench_def> defs;
  return defs;
}

namespace {
std::string_view running_program = "bench";  // run_report() sets spec.program
}  // namespace

std::string_view program_name() { return running_program; }

std::string_view dir_name(direction d) { return d == direction::encode ? "encode" : "decode"; }

std::string ratio(double v) {
  if (std::isnan(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.2fx" : "%.1fx", v);
  return buf;
}

std::string goal_case(std::string_view data_set, direction d) {
  return std::string(data_set) + " " + std::string(dir_name(d));
}

goal faster_than_every_peer(const ns_lookup& ns, std::string_view data_set, direction d,
                            std::span<const std::string_view> peers, double tie_margin) {
  goal g{"faster than every peer", goal_case(data_set, d), "peer/refwire > 1", "", std::nullopt};
  const auto ref = ns(data_set, d, "refwire");
  std::optional<std::pair<double, std::string_view>> nearest;
  for (std::string_view peer : peers) {
    if (peer == "refwire" || peer == "floor") continue;
    if (const auto p = ns(data_set, d, peer); p && ref) {
      const double x = *p / *ref;
      if (!nearest || x < nearest->first) nearest = std::pair(x, peer);
    }
  }
  if (nearest) {
    g.measured = "nearest " + std::string(nearest->second) + " " + ratio(nearest->first);
    if (std::abs(nearest->first - 1.0) < tie_margin) g.measured += " (tie)";
    g.pass = nearest->first > 1.0;
  }
  return g;
}

namespace {

// ------------------------------------------------------------------ results

struct measured {
  std::vector<double> cpu_ns;  // one per repetition
  double bytes = 0;
  bool error = false;
};

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/// The console reporter, which also keeps every repetition. Unless verbose, it
/// shows only the median and the coefficient of variation of repeated runs.
class collecting_reporter : public benchmark::ConsoleReporter {
 public:
  explicit collecting_reporter(bool verbose) : verbose_(verbose) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> shown;
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Iteration) {
        measured& m = results_[r.run_name.function_name];
        if (r.error_occurred) {
          m.error = true;
        } else {
          m.cpu_ns.push_back(r.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(r.time_unit) * 1e9);
          if (auto it = r.counters.find("bytes"); it != r.counters.end()) m.bytes = it->second.value;
        }
        if (verbose_ || r.repetitions <= 1 || r.error_occurred) shown.push_back(r);
      } else if (verbose_ || r.aggregate_name == "median" || r.aggregate_name == "cv") {
        shown.push_back(r);
      }
    }
    if (!shown.empty()) ConsoleReporter::ReportRuns(shown);
  }

  [[nodiscard]] const std::map<std::string, measured>& results() const { return results_; }

 private:
  bool verbose_;
  std::map<std::string, measured> results_;
};

// -------------------------------------------------------------------- table

struct row {
  std::string data_set;
  direction dir;
  std::string peer;
  double ns = NAN;        // median CPU ns/op
  double mb_per_s = NAN;  // refwire's encoded bytes / ns
  double bytes = 0;       // this peer's own encoded size (floor: the raw field bytes)
  double vs_refwire = NAN;     // ns / refwire's ns
  double refwire_floor = NAN;  // on refwire's rows: refwire's ns / the floor's ns
  std::size_t reps = 0;
};

std::string peer_label(std::string_view peer, direction d, bool has_floor) {
  if (has_floor && peer == "floor") return d == direction::encode ? "floor (memcpy)" : "floor (deep copy)";
  return std::string(peer);
}

std::string data_set_label(std::string_view ds) {
  if (ds == "small") return "small";
  if (ds == "record") return "record";
  if (ds == "bulk_doubles") return "bulk doubles (1M)";
  if (ds == "bulk_strings") return "bulk strings (10k)";
  if (ds == "many") return "many records (10k)";
  return std::string(ds);
}

/// 1234567 -> "1,234,567".
std::string group_digits(unsigned long long n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

/// A time or a rate: 1234567.8 -> "1,234,568"; 12.34 -> "12.3"; 1.234 -> "1.23".
std::string grouped(double v) {
  if (std::isnan(v)) return "-";
  if (v < 100) {
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 10 ? "%.2f" : "%.1f", v);
    return buf;
  }
  return group_digits(static_cast<unsigned long long>(std::llround(v)));
}

/// A byte count.
std::string count(double v) {
  return std::isnan(v) ? "-" : group_digits(static_cast<unsigned long long>(std::llround(v)));
}

std::vector<row> build_rows(const std::map<std::string, measured>& results, const report_spec& spec) {
  std::vector<row> rows;
  for (std::string_view ds : data_set_names) {
    std::optional<double> basis;
    for (direction d : {direction::encode, direction::decode}) {
      auto find = [&](std::string_view peer) -> const measured* {
        auto it = results.find(bench_name(ds, d, peer));
        return it == results.end() || it->second.error || it->second.cpu_ns.empty() ? nullptr : &it->second;
      };
      const measured* ref = find("refwire");
      const measured* floor = spec.has_floor ? find("floor") : nullptr;
      const double ref_ns = ref != nullptr ? median(ref->cpu_ns) : NAN;
      const double floor_ns = floor != nullptr ? median(floor->cpu_ns) : NAN;
      for (std::string_view peer : spec.peers) {
        const measured* m = find(peer);
        if (m == nullptr) continue;
        if (!basis) basis = static_cast<double>(refwire_encoded_size(ds));
        row r;
        r.data_set = std::string(ds);
        r.dir = d;
        r.peer = std::string(peer);
        r.ns = median(m->cpu_ns);
        r.mb_per_s = *basis / r.ns * 1e3;
        r.bytes = m->bytes;
        r.vs_refwire = r.ns / ref_ns;
        if (spec.has_floor && peer == "refwire") r.refwire_floor = ref_ns / floor_ns;
        r.reps = m->cpu_ns.size();
        rows.push_back(std::move(r));
      }
    }
  }
  return rows;
}

const row* find_row(const std::vector<row>& rows, std::string_view ds, direction d, std::string_view peer) {
  for (const row& r : rows) {
    if (r.data_set == ds && r.dir == d && r.peer == peer) return &r;
  }
  return nullptr;
}

using table = std::vector<std::vector<std::string>>;  // the first line is the header

table table_cells(const std::vector<row>& rows, bool repeat_keys, bool has_floor) {
  table t{{"data set", "dir", "peer", "ns/op", "MB/s", "bytes", "peer/refwire"}};
  if (has_floor) t.front().push_back("refwire/floor");
  std::string last_ds;
  std::string last_dir;
  for (const row& r : rows) {
    const std::string ds = data_set_label(r.data_set);
    const std::string dir(dir_name(r.dir));
    const bool same_ds = !repeat_keys && ds == last_ds;
    const bool same_dir = same_ds && dir == last_dir;
    t.push_back({same_ds ? "" : ds, same_dir ? "" : dir, peer_label(r.peer, r.dir, has_floor), grouped(r.ns),
                 grouped(r.mb_per_s), count(r.bytes), ratio(r.vs_refwire)});
    if (has_floor) t.back().push_back(ratio(r.refwire_floor));
    last_ds = ds;
    last_dir = dir;
  }
  return t;
}

/// A terminal table; with group_blank_lines, a blank line before each row whose first cell is set.
void print_text(std::ostream& os, const table& t, const std::vector<bool>& right_aligned,
                bool group_blank_lines) {
  std::vector<std::size_t> width(t.front().size(), 0);
  for (const auto& line : t) {
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  }
  auto print_line = [&](const std::vector<std::string>& line) {
    std::string out;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const std::string pad(width[i] - line[i].size(), ' ');
      out += i == 0 ? "" : "  ";
      out += right_aligned[i] ? pad + line[i] : line[i] + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    os << out << '\n';
  };
  print_line(t.front());
  std::size_t total = 0;
  for (std::size_t w : width) total += w;
  os << std::string(total + 2 * (width.size() - 1), '-') << '\n';
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (group_blank_lines && i > 1 && !t[i][0].empty()) os << '\n';
    print_line(t[i]);
  }
}

void print_markdown(std::ostream& os, const table& t, const std::vector<bool>& right_aligned) {
  auto line = [&](const std::vector<std::string>& cells) {
    os << '|';
    for (const std::string& c : cells) os << ' ' << c << " |";
    os << '\n';
  };
  line(t.front());
  os << '|';
  for (bool r : right_aligned) os << (r ? " ---: |" : " --- |");
  os << '\n';
  for (std::size_t i = 1; i < t.size(); ++i) line(t[i]);
}

// -------------------------------------------------------------------- goals

table goal_cells(const std::vector<goal>& goals) {
  table t{{"status", "goal", "case", "target", "measured"}};
  for (const goal& g : goals) {
    t.push_back({!g.pass ? "n/a" : *g.pass ? "PASS" : "MISS", g.what, g.where, g.target,
                 g.measured.empty() ? "not measured" : g.measured});
  }
  return t;
}

// --------------------------------------------------------------------- main

struct options {
  bool markdown = false;
  std::string markdown_file;
  bool check = false;
  bool verbose = false;
};

#if defined(__clang__)
constexpr std::string_view compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
constexpr std::string_view compiler = "g++ " __VERSION__;
#else
constexpr std::string_view compiler = "unknown";
#endif

std::string describe_run(const std::vector<row>& rows, std::string_view footnote) {
  std::size_t reps_min = 0;
  std::size_t reps_max = 0;
  for (const row& r : rows) {
    reps_min = reps_min == 0 ? r.reps : std::min(reps_min, r.reps);
    reps_max = std::max(reps_max, r.reps);
  }
  std::ostringstream os;
  os << "Median CPU time of " << reps_min;
  if (reps_max != reps_min) os << "-" << reps_max;
  os << (reps_max == 1 ? " repetition" : " repetitions")
     << "; " << footnote << ". Compiler: " << compiler.substr(0, compiler.find_last_not_of(' ') + 1)
     << ".";
  return os.str();
}

}  // namespace

int run_report(int argc, char** argv, const report_spec& spec) {
  running_program = spec.program;
  options opt;
  std::vector<char*> args;
  bool has_repetitions = false;
  bool has_min_time = false;
  for (int i = 0; i < argc; ++i) {
    const std::string_view a(argv[i]);
    if (i > 0 && a == "--markdown") {
      opt.markdown = true;
    } else if (i > 0 && a.starts_with("--markdown=")) {
      opt.markdown = true;
      opt.markdown_file = std::string(a.substr(std::strlen("--markdown=")));
    } else if (i > 0 && a == "--check-goals") {
      opt.check = true;
    } else if (i > 0 && a == "--verbose") {
      opt.verbose = true;
    } else {
      has_repetitions = has_repetitions || a.starts_with("--benchmark_repetitions");
      has_min_time = has_min_time || a.starts_with("--benchmark_min_time");
      args.push_back(argv[i]);
    }
  }
  // Defaults: 5 repetitions of at least 0.1 s each (about a minute in all).
  std::string default_reps = "--benchmark_repetitions=5";
  std::string default_min_time = "--benchmark_min_time=0.1";
  if (!has_repetitions) args.push_back(default_reps.data());
  if (!has_min_time) args.push_back(default_min_time.data());
  int n = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;

  spec.register_benchmarks();
  auto index_of = [](const auto& names, std::string_view name) {
    return static_cast<std::size_t>(std::find(std::begin(names), std::end(names), name) - std::begin(names));
  };
  std::stable_sort(registry().begin(), registry().end(), [&](const bench_def& a, const bench_def& b) {
    const auto ka = std::tuple(index_of(data_set_names, a.data_set), a.dir, index_of(spec.peers, a.peer));
    const auto kb = std::tuple(index_of(data_set_names, b.data_set), b.dir, index_of(spec.peers, b.peer));
    return ka < kb;
  });
  for (const bench_def& d : registry()) {
    benchmark::RegisterBenchmark(bench_name(d.data_set, d.dir, d.peer).c_str(), d.run)->Unit(benchmark::kNanosecond);
  }

  collecting_reporter reporter(opt.verbose);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  const std::vector<row> rows = build_rows(reporter.results(), spec);
  if (rows.empty()) return 0;
  const std::vector<goal> goals = spec.goals([&](std::string_view ds, direction d, std::string_view peer) {
    const row* r = find_row(rows, ds, d, peer);
    return r == nullptr ? std::nullopt : std::optional<double>(r->ns);
  });
  std::vector<bool> table_align = {false, false, false, true, true, true, true};
  if (spec.has_floor) table_align.push_back(true);
  const std::vector<bool> goal_align = {false, false, false, false, false};

  std::cout << "\n" << spec.title << " " << describe_run(rows, spec.footnote) << "\n\n";
  print_text(std::cout, table_cells(rows, false, spec.has_floor), table_align, true);
  std::size_t passed = 0;
  std::size_t measured_goals = 0;
  for (const goal& g : goals) {
    if (g.pass) ++measured_goals;
    if (g.pass && *g.pass) ++passed;
  }
  std::cout << "\nGoals: " << passed << " of " << measured_goals << " measured goals met\n\n";
  print_text(std::cout, goal_cells(goals), goal_align, false);

  if (opt.markdown) {
    std::ostringstream md;
    md << describe_run(rows, spec.footnote) << "\n\n";
    print_markdown(md, table_cells(rows, false, spec.has_floor), table_align);
    md << "\nGoals: " << passed << " of " << measured_goals << " measured goals met.\n\n";
    print_markdown(md, goal_cells(goals), goal_align);
    if (opt.markdown_file.empty()) {
      std::cout << "\n" << md.str();
    } else {
      std::ofstream f(opt.markdown_file);
      f << md.str();
      if (!f) {
        std::cerr << spec.program << ": cannot write " << opt.markdown_file << '\n';
        return 1;
      }
    }
  }
  return opt.check && passed != measured_goals ? 2 : 0;
}

}  // namespace refwire_bench
