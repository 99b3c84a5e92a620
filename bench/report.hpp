#pragma once
// bench/report.hpp: the driver that bench_binary (main.cpp) and bench_json
// (json_main.cpp) share: the command line, running the registered benchmarks
// in table order, the medians of the repetitions, the console and Markdown
// tables and the goals. Each program supplies what differs in a report_spec.
//
//   prog                          # 5 repetitions of >= 0.1 s, then the table and the goals
//   prog --markdown               # the same, plus the table as Markdown (for docs)
//   prog --markdown=results.md    # the Markdown into a file
//   prog --check-goals            # exit status 2 when a goal is missed
//   prog --verbose                # every repetition on the console, not only medians
//   prog --benchmark_filter=record --benchmark_repetitions=9   # any Google Benchmark flag
//
// Times are CPU time per operation, the median of the repetitions.
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness.hpp"

namespace refwire_bench {

/// One row of the goals table.
struct goal {
  std::string what;
  std::string where;
  std::string target;
  std::string measured;
  std::optional<bool> pass;  // empty: not measured in this run
};

/// The median CPU ns/op of (data set, direction, peer); empty when it was not measured.
using ns_lookup = std::function<std::optional<double>(std::string_view, direction, std::string_view)>;

/// What one program's report is made of.
struct report_spec {
  std::string_view program;                 // "bench_binary": the prefix of its messages
  std::string_view title;                   // "refwire binary vs peers.": before the console table
  std::string_view footnote;                // what MB/s and bytes mean, after the repetitions count
  std::span<const std::string_view> peers;  // in table order; "refwire" is the basis of peer/refwire
  bool has_floor = false;  // a "floor" peer: the refwire/floor column and the "floor (memcpy)" labels
  std::function<void()> register_benchmarks;  // fills registry() (and may drop some of it again)
  std::function<std::vector<goal>(const ns_lookup&)> goals;
};

/// "encode" or "decode".
std::string_view dir_name(direction d);

/// A ratio for the tables: 1.234 -> "1.23x"; 12.34 -> "12.3x"; NaN -> "".
std::string ratio(double v);

/// The "case" cell of a goal: "record encode".
std::string goal_case(std::string_view data_set, direction d);

/// The goal "faster than every peer" on one case: measured is the nearest of
/// peers ("refwire" and "floor" left out) as peer/refwire, marked " (tie)"
/// when within tie_margin of 1 (0: never).
goal faster_than_every_peer(const ns_lookup& ns, std::string_view data_set, direction d,
                            std::span<const std::string_view> peers, double tie_margin);

/// Parses the command line, runs spec's benchmarks and prints the report;
/// returns main()'s exit status (2: --check-goals and a goal was missed).
int run_report(int argc, char** argv, const report_spec& spec);

}  // namespace refwire_bench
