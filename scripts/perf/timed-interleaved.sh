#!/usr/bin/env bash
# Usage: scripts/perf/timed-interleaved.sh <old-bench-build-dir> <new-bench-build-dir> <out.md>
# Example (from the repo root):
#   scripts/perf/timed-interleaved.sh <old-checkout>/build-bench build-bench timed.md
#
# Runs bench_binary, bench_json, bench_protobuf and bench_compression of two
# builds interleaved (for each program: old, new, old, new, ... ROUNDS times
# each), every run a FULL run of the program (no filter: filtered bench_json
# runs distort some rows) with a shorter min time, the times written by Google
# Benchmark's own JSON file reporter (--benchmark_out). For each refwire row
# (binary/json: <set>/<dir>/refwire; protobuf: also "refwire reused";
# compression: every row) a run's value is the median of its repetitions
# (CPU time; wall time for the snapshot rows, as bench_compression itself
# reports them), and the table gives the median over the rounds.
#
# Output: <out.md>: a Markdown table (program, row, old median, new median,
#         new/old, the median of the per-round new/old ratios (round i's new
#         run against round i's old run), a flag when new/old > LIMIT) and the
#         per-round values; the first table is also printed. The raw JSON
#         files and logs stay in <out.md>.d/.
# Env: ROUNDS (5), REPS (3: --benchmark_repetitions per run), MIN_TIME (0.05:
#      --benchmark_min_time per repetition), PROGRAMS (all four), LIMIT (1.05).
# With the defaults, about 2 minutes per round (old and new runs together) on
# a 2-core machine, so about 10 minutes for 5 rounds. Timings are noisy when the
# machine is shared: read the "median of round ratios" column.
set -euo pipefail

usage() { echo "usage: $0 <old-bench-build-dir> <new-bench-build-dir> <out.md>"; }
if [[ ${1:-} == -h || ${1:-} == --help ]]; then usage; exit 0; fi
if [[ $# -ne 3 ]]; then
  usage >&2
  exit 1
fi
OLD=$(cd "$1" && pwd)
NEW=$(cd "$2" && pwd)
OUT=$(realpath -m "$3")
ROUNDS=${ROUNDS:-5}
REPS=${REPS:-3}
MIN_TIME=${MIN_TIME:-0.05}
LIMIT=${LIMIT:-1.05}
PROGRAMS=${PROGRAMS:-"bench_binary bench_json bench_protobuf bench_compression"}
D="$OUT.d"
rm -rf "$D"
mkdir -p "$D/snap"

for b in "$OLD" "$NEW"; do
  for p in $PROGRAMS; do
    [[ -x "$b/bench/$p" ]] || { echo "$0: $b/bench/$p is missing (build it first)" >&2; exit 1; }
  done
done

start=$(date +%s)
for p in $PROGRAMS; do
  for ((i = 1; i <= ROUNDS; i++)); do
    for side in old new; do
      b=$OLD
      [[ $side == new ]] && b=$NEW
      extra=()
      [[ $p == bench_compression ]] && extra=(--dir="$D/snap")
      t0=$(date +%s)
      "$b/bench/$p" --benchmark_repetitions="$REPS" --benchmark_min_time="$MIN_TIME" \
        --benchmark_out="$D/$p.$side.$i.json" --benchmark_out_format=json "${extra[@]}" \
        >"$D/$p.$side.$i.log" 2>&1 || { echo "$0: $b/bench/$p failed, see $D/$p.$side.$i.log" >&2; exit 1; }
      echo "$p $side round $i: $(( $(date +%s) - t0 )) s"
    done
  done
done

python3 - "$D" "$OUT" "$OLD" "$NEW" "$ROUNDS" "$REPS" "$MIN_TIME" "$LIMIT" "$PROGRAMS" <<'EOF'
import glob, json, os, statistics, sys
d, out, old, new, rounds, reps, min_time, limit, programs = sys.argv[1:]
limit = float(limit)
programs = programs.split()

def refwire_row(prog, name):
    parts = name.split("/")
    if prog == "bench_compression":
        return True
    return len(parts) == 3 and parts[2] in ("refwire", "refwire reused")

unit = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
# values[(prog, row)][side] = [per-round median ns]
values = {}
order = []
for prog in programs:
    for side in ("old", "new"):
        for i in range(1, int(rounds) + 1):
            f = os.path.join(d, f"{prog}.{side}.{i}.json")
            with open(f) as fh:
                data = json.load(fh)
            per = {}
            for b in data["benchmarks"]:
                if b.get("run_type") != "iteration" or b.get("error_occurred"):
                    continue
                name = b.get("run_name", b["name"])
                if name.endswith("/real_time"):
                    name = name[: -len("/real_time")]
                if not refwire_row(prog, name):
                    continue
                key = "real_time" if "snapshot" in name else "cpu_time"
                per.setdefault(name, []).append(b[key] * unit[b.get("time_unit", "ns")])
                if (prog, name) not in values:
                    values[(prog, name)] = {"old": [], "new": []}
                    order.append((prog, name))
            for name, v in per.items():
                values[(prog, name)][side].append(statistics.median(v))

def fmt(ns):
    if ns != ns:
        return "-"
    if ns < 1e3:
        return f"{ns:.1f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.2f} us"
    return f"{ns / 1e6:.3f} ms"

lines = []
lines.append(f"Old: `{old}`  ")
lines.append(f"New: `{new}`  ")
lines.append(f"{rounds} interleaved rounds (old, new) per program, full runs, each run "
             f"--benchmark_repetitions={reps} --benchmark_min_time={min_time}; a run's value is the median of its "
             f"repetitions (CPU time; wall time for snapshot rows), the table the median over the rounds.")
lines.append("")
lines.append("| program | row | old median | new median | new/old | median of round ratios | |")
lines.append("| --- | --- | ---: | ---: | ---: | ---: | --- |")
flagged = 0
for prog, name in order:
    v = values[(prog, name)]
    o = statistics.median(v["old"]) if v["old"] else float("nan")
    n = statistics.median(v["new"]) if v["new"] else float("nan")
    r = n / o if o == o and n == n and o > 0 else float("nan")
    paired = [b / a for a, b in zip(v["old"], v["new"]) if a > 0]
    pr = statistics.median(paired) if paired else float("nan")
    flag = ""
    if r == r and r > limit:
        flag = f"**over {limit:.2f}**"
        flagged += 1
    if len(v["old"]) != int(rounds) or len(v["new"]) != int(rounds):
        flag += f" (rounds: {len(v['old'])} old, {len(v['new'])} new)"
    lines.append(f"| {prog} | {name} | {fmt(o)} | {fmt(n)} | {r:.3f} | {pr:.3f} | {flag} |")
lines.append("")
lines.append(f"Rows over {limit:.2f}: {flagged} of {len(order)}.")
lines.append("")
lines.append("Per-round values (ns; old / new):")
lines.append("")
lines.append("| program | row | old | new |")
lines.append("| --- | --- | --- | --- |")
for prog, name in order:
    v = values[(prog, name)]
    lines.append(f"| {prog} | {name} | {', '.join(f'{x:.4g}' for x in v['old'])} | "
                 f"{', '.join(f'{x:.4g}' for x in v['new'])} |")
with open(out, "w") as fh:
    fh.write("\n".join(lines) + "\n")
print("\n".join(lines[:len(order) + 7]))
EOF
rm -rf "$D/snap"
echo "== $OUT ($(( $(date +%s) - start )) s)"
