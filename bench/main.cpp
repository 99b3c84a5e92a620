// bench_binary: refwire's binary format against protobuf, FlatBuffers, cereal
// and the memcpy / deep-copy floors, on the data sets of datasets.hpp.
//
//   bench_binary                          # 5 repetitions of >= 0.1 s, then the table and the goals
//   bench_binary --markdown               # the same, plus the table as Markdown (for docs)
//   bench_binary --markdown=results.md    # the Markdown into a file
//   bench_binary --check-goals            # exit status 2 when a goal is missed
//   bench_binary --verbose                # every repetition on the console, not only medians
//   bench_binary --benchmark_filter=record --benchmark_repetitions=9   # any Google Benchmark flag
//
// Times are CPU time per operation, the median of the repetitions. The flags,
// the tables and the goals report are report.cpp's; this file has the peers
// and the goals.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "report.hpp"

namespace refwire_bench {
namespace {

void register_benchmarks() {
  register_refwire();
  register_protobuf();
  register_flatbuffers();
  register_cereal();
  register_floor();
}

/// bench_binary's goals, from the median ns/op of each (data set, direction, peer).
std::vector<goal> check_goals(const ns_lookup& ns) {
  std::vector<goal> goals;
  // 1. refwire beats every peer everywhere.
  for (std::string_view ds : data_set_names) {
    for (direction d : {direction::encode, direction::decode}) {
      // Within 3% is a tie on this kind of machine (memory-bound cases sit there).
      goals.push_back(faster_than_every_peer(ns, ds, d, peer_names, 0.03));
    }
  }
  // 2. record and many: 10x protobuf's encode, 6x its decode.
  for (std::string_view ds : {std::string_view("record"), std::string_view("many")}) {
    for (direction d : {direction::encode, direction::decode}) {
      const double need = d == direction::encode ? 10.0 : 6.0;
      goal g{"vs protobuf", goal_case(ds, d), "protobuf/refwire >= " + ratio(need), "", std::nullopt};
      const auto ref = ns(ds, d, "refwire");
      const auto pb = ns(ds, d, "protobuf");
      if (ref && pb) {
        g.measured = ratio(*pb / *ref);
        g.pass = *pb / *ref >= need;
      }
      goals.push_back(std::move(g));
    }
  }
  // 3./4. decode within 1.5x of the deep copy, encode within 3.5x of memcpy.
  for (direction d : {direction::decode, direction::encode}) {
    const double limit = d == direction::decode ? 1.5 : 3.5;
    for (std::string_view ds : data_set_names) {
      goal g{d == direction::decode ? "vs deep copy" : "vs memcpy", goal_case(ds, d),
             "refwire/floor <= " + ratio(limit), "", std::nullopt};
      const auto ref = ns(ds, d, "refwire");
      const auto floor = ns(ds, d, "floor");
      if (ref && floor) {
        g.measured = ratio(*ref / *floor);
        g.pass = *ref / *floor <= limit;
      }
      goals.push_back(std::move(g));
    }
  }
  // 5. bulk vector<double>: within 1.1x of the floor both ways.
  for (direction d : {direction::encode, direction::decode}) {
    goal g{"bulk doubles at memory speed", goal_case("bulk_doubles", d), "refwire/floor <= 1.10x", "", std::nullopt};
    const auto ref = ns("bulk_doubles", d, "refwire");
    const auto floor = ns("bulk_doubles", d, "floor");
    if (ref && floor) {
      g.measured = ratio(*ref / *floor);
      g.pass = *ref / *floor <= 1.1;
    }
    goals.push_back(std::move(g));
  }
  return goals;
}

/// What run_report() needs to know about bench_binary.
const report_spec bench_binary_report{
    .program = "bench_binary",
    .title = "refwire binary vs peers.",
    .footnote = "MB/s = refwire's encoded size / time (the same basis for every peer); bytes = the peer's own size"
                " (floor: the raw field bytes)",
    .peers = peer_names,
    .has_floor = true,
    .register_benchmarks = register_benchmarks,
    .goals = check_goals};

}  // namespace
}  // namespace refwire_bench

int main(int argc, char** argv) { return refwire_bench::run_report(argc, argv, refwire_bench::bench_binary_report); }
