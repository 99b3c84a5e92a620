// bench_json: refwire's JSON format against RapidJSON, nlohmann-json and
// simdjson's DOM (decode only), on the data sets of datasets.hpp. The flags,
// the tables and the goals report are bench_binary's (report.cpp); this file
// has the peers and the goals.
//
//   bench_json                          # 5 repetitions of >= 0.1 s, then the table and the goals
//   bench_json --markdown               # the same, plus the table as Markdown (for docs)
//   bench_json --markdown=results.md    # the Markdown into a file
//   bench_json --check-goals            # exit status 2 when a goal is missed
//   bench_json --verbose                # every repetition on the console, not only medians
//   bench_json --benchmark_filter=record --benchmark_repetitions=9   # any Google Benchmark flag
//
// Times are CPU time per operation, the median of the repetitions.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "report.hpp"

namespace refwire_bench {

void register_json_refwire();
void register_json_rapidjson();
void register_json_nlohmann();
void register_json_simdjson();

/// bench_json's peers, in table order.
inline constexpr std::string_view json_peer_names[] = {"refwire", "rapidjson", "nlohmann", "simdjson_dom"};

namespace {

void register_benchmarks() {
  register_json_refwire();
  register_json_rapidjson();
  register_json_nlohmann();
  register_json_simdjson();
  // simdjson has no struct writer: its encode rows would only time refwire again.
  std::erase_if(registry(), [](const bench_def& d) { return d.peer == "simdjson_dom" && d.dir == direction::encode; });
}

/// bench_json's goals, from the median ns/op of each (data set, direction, peer).
std::vector<goal> check_goals(const ns_lookup& ns) {
  std::vector<goal> goals;
  // record: >= 2.5x RapidJSON and >= 10x nlohmann, both directions.
  for (direction d : {direction::encode, direction::decode}) {
    for (auto [peer, need] : {std::pair<std::string_view, double>{"rapidjson", 2.5}, {"nlohmann", 10.0}}) {
      goal g{"vs " + std::string(peer), goal_case("record", d), std::string(peer) + "/refwire >= " + ratio(need), "",
             std::nullopt};
      const auto ref = ns("record", d, "refwire");
      const auto p = ns("record", d, peer);
      if (ref && p) {
        g.measured = ratio(*p / *ref);
        g.pass = *p / *ref >= need;
      }
      goals.push_back(std::move(g));
    }
  }
  // Everywhere: faster than every peer.
  for (std::string_view ds : data_set_names) {
    for (direction d : {direction::encode, direction::decode}) {
      goals.push_back(faster_than_every_peer(ns, ds, d, json_peer_names, 0));
    }
  }
  return goals;
}

/// What run_report() needs to know about bench_json.
const report_spec bench_json_report{
    .program = "bench_json",
    .title = "refwire JSON vs peers.",
    .footnote = "MB/s = refwire's JSON size / time (the same basis for every peer); bytes = the peer's own size",
    .peers = json_peer_names,
    .register_benchmarks = register_benchmarks,
    .goals = check_goals};

}  // namespace
}  // namespace refwire_bench

int main(int argc, char** argv) { return refwire_bench::run_report(argc, argv, refwire_bench::bench_json_report); }
