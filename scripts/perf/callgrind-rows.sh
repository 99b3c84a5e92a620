#!/usr/bin/env bash
# Usage: scripts/perf/callgrind-rows.sh <bench-build-dir> <out.tsv>   (a Ninja bench build dir)
# Example (old build, then new build, from the repo root):
#   scripts/perf/callgrind-rows.sh <old-checkout>/build-bench old.tsv && scripts/perf/callgrind-rows.sh build-bench new.tsv
#
# Instructions per operation (callgrind Ir) of every refwire row of
# bench_binary, bench_json, bench_protobuf and bench_compression.
#
# How: cg_driver.cpp (next to this script) repeats each row's loop body (the
# bench's own refwire calls) a fixed number of times; it is compiled once per
# program with the exact compile flags and link libraries that
# <bench-build-dir>'s build.ninja uses for that bench target (so the driver
# sees the same headers, the same -O3 and that build's
# librefwire_serialization.a). The sources are those of the checkout the build
# dir was configured from (CMAKE_HOME_DIRECTORY in its CMakeCache.txt). Under
# callgrind (--instr-atstart=no --collect-atstart=no; the driver collects only
# around the loop and dumps after it) each row runs three times with fresh
# setup: n1 iterations (warm-up, discarded), n1, n2;
# Ir/op = (Ir(n2) - Ir(n1)) / (n2 - n1).
# The drivers run from one fixed scratch directory with an empty environment,
# so that stack addresses (and memcpy alignment paths) are the same for every
# build dir: measure both builds of a comparison with the same scratch
# directory (the default, or the same CG_WORK) and the same TMPDIR. The scratch
# directory is deleted and recreated at the start of each run, so run only one
# of these scripts at a time.
#
# Output: <out.tsv>: program <TAB> row <TAB> Ir/op (one decimal);
#         <out.tsv>.raw: every dump (program, row, tag, n, Ir) and, at the end,
#         a steady-state check per row: Ir/op from the difference, Ir(n1)/n1
#         and Ir(warm-up)/n1.
# Env: CG_WORK: the scratch directory (default "${TMPDIR:-/tmp}/refwire-cg";
#      removed and recreated by every run);
#      CG_BUILD_ONLY=1 only builds the drivers into $CG_WORK/bin;
#      CG_ONLY="small/encode/refwire many/decode/refwire" runs only those rows
#      (exact row names, of every program that has them);
#      CG_PROGRAMS="binary json" only those programs (default: binary json
#      protobuf compression).
# Needs valgrind, ninja and the valgrind headers (valgrind/callgrind.h).
set -euo pipefail

usage() { echo "usage: $0 <bench-build-dir> <out.tsv>"; }
if [[ ${1:-} == -h || ${1:-} == --help ]]; then usage; exit 0; fi
if [[ $# -ne 2 ]]; then
  usage >&2
  exit 1
fi
BUILD=$(cd "$1" && pwd)
OUT=$(realpath -m "$2")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DRIVER="$HERE/cg_driver.cpp"
SRC=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt")
[[ -n "$SRC" && -d "$SRC" ]] || { echo "$0: no CMAKE_HOME_DIRECTORY in $BUILD/CMakeCache.txt" >&2; exit 1; }
# Fixed per run (not mktemp): the drivers' paths and environment, and so their
# stack addresses, must be the same for the two builds being compared.
WORK=$(realpath -m "${CG_WORK:-${TMPDIR:-/tmp}/refwire-cg}")
[[ $WORK != / ]] || { echo "$0: CG_WORK must not be /" >&2; exit 1; }
VALGRIND=$(command -v valgrind) || { echo "$0: valgrind not found" >&2; exit 1; }
PROGRAMS=${CG_PROGRAMS:-"binary json protobuf compression"}

start=$(date +%s)
rm -rf "$WORK"
mkdir -p "$WORK/bin" "$WORK/out" "$WORK/snap" "$WORK/obj"

echo "== $BUILD (source $SRC): the library"
cmake --build "$BUILD" -j2 --target refwire_serialization >/dev/null

# The compile command of one bench source, and the link command of its target, from build.ninja.
compile_flags() {  # target source-basename
  local cmd
  cmd=$(cd "$BUILD" && ninja -t commands "bench/$1" | grep -F -- "bench/CMakeFiles/$1.dir/$2.o -c " | head -1)
  [[ -n "$cmd" ]] || { echo "$0: no compile command for $1/$2" >&2; exit 1; }
  # drop the compiler, the dependency-file and output options and the source
  echo "$cmd" | sed -E 's/^[^ ]+ //; s/ -MD / /; s/ -MT [^ ]+/ /; s/ -MF [^ ]+/ /; s/ -o [^ ]+/ /; s/ -c [^ ]+$//'
}
link_libs() {  # target
  local cmd
  cmd=$(cd "$BUILD" && ninja -t commands "bench/$1" | tail -1)
  echo "$cmd" | sed -E 's/^: && //; s/ && :$//; s/^[^ ]+ //' | tr ' ' '\n' |
    grep -v -E '^$|^bench/CMakeFiles/.*\.o$|^-o$|^bench/'"$1"'$' | tr '\n' ' '
}
CXX=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
CXX=${CXX:-c++}

declare -A TARGET=([binary]=bench_binary [json]=bench_json [protobuf]=bench_protobuf [compression]=bench_compression)
declare -A SOURCE=([binary]=peer_refwire.cpp [json]=json_peers.cpp [protobuf]=bench_protobuf.cpp [compression]=compression.cpp)
declare -A NUM=([binary]=1 [json]=2 [protobuf]=3 [compression]=4)

for p in $PROGRAMS; do
  t=${TARGET[$p]}
  flags=$(compile_flags "$t" "${SOURCE[$p]}")
  libs=$(link_libs "$t")
  echo "== build cg_$t"
  # shellcheck disable=SC2086
  (cd "$BUILD" && "$CXX" $flags -Wno-unused -I"$SRC/bench" -DCG_PROGRAM=${NUM[$p]} -c "$DRIVER" -o "$WORK/obj/cg_$t.o" &&
     "$CXX" -O3 -DNDEBUG "$WORK/obj/cg_$t.o" -o "$WORK/bin/cg_$t" $libs)
done

: >"$OUT.raw"
if [[ -n "${CG_BUILD_ONLY:-}" ]]; then echo "drivers in $WORK/bin"; exit 0; fi
for p in $PROGRAMS; do
  t=${TARGET[$p]}
  echo "== callgrind cg_$t"
  t0=$(date +%s)
  rm -f "$WORK/out/"*
  # A constant environment (the same strings for every build), so the client's stack starts at the same address.
  # shellcheck disable=SC2086
  (cd "$WORK" && env -i PATH=/usr/bin:/bin HOME=/tmp TMPDIR="$WORK/snap" \
     "$VALGRIND" --tool=callgrind --instr-atstart=no --collect-atstart=no \
       --callgrind-out-file="$WORK/out/cg.out" "$WORK/bin/cg_$t" --dir="$WORK/snap" ${CG_ONLY:-} \
       >"$WORK/cg_$t.log" 2>&1) || { cat "$WORK/cg_$t.log" >&2; exit 1; }
  for f in "$WORK/out/"cg.out*; do
    awk -v prog="$t" '
      /^desc: Trigger: Client Request: / { sub(/^desc: Trigger: Client Request: /, ""); label = $0 }
      /^summary: / { ir = $2 }
      /^totals: / { if (ir == "") ir = $2 }
      END { if (label != "") { n = split(label, a, "|"); printf "%s\t%s\t%s\t%s\t%s\n", prog, a[1], a[2], a[3], (ir == "" ? 0 : ir) } }
    ' "$f"
  done | sort -t$'\t' -k2,2 -k3,3 >>"$OUT.raw"
  echo "   $(( $(date +%s) - t0 )) s"
done

# Ir/op per row, in the drivers' row order.
: >"$OUT"
for p in $PROGRAMS; do
  t=${TARGET[$p]}
  "$WORK/bin/cg_$t" --list --dir="$WORK/snap" | while IFS=$'\t' read -r prog row _ _; do
    awk -F'\t' -v prog="$prog" -v row="$row" '
      $1 == prog && $2 == row { ir[$3] = $5; n[$3] = $4 }
      END {
        if (!("n1" in ir) || !("n2" in ir)) exit
        printf "%s\t%s\t%.1f\n", prog, row, (ir["n2"] - ir["n1"]) / (n["n2"] - n["n1"])
      }' "$OUT.raw"
  done >>"$OUT"
done
# Steady-state check into the raw file: Ir(n1)/n1 against the difference.
awk -F'\t' '{ ir[$1"\t"$2"\t"$3] = $5; n[$1"\t"$2"\t"$3] = $4; k[$1"\t"$2] = 1 }
  END { for (r in k) printf "# %s\t%.1f\t%.1f\t%.1f\n", r, (ir[r"\tn2"] - ir[r"\tn1"]) / (n[r"\tn2"] - n[r"\tn1"]),
        ir[r"\tn1"] / n[r"\tn1"], ir[r"\twarm"] / n[r"\twarm"] }' "$OUT.raw" | sort >"$WORK/steady"
{ echo "# program row Ir/op(diff) Ir(n1)/n1 Ir(warm)/n1"; cat "$WORK/steady"; } >>"$OUT.raw"
rm -rf "$WORK/snap"
echo "== $(wc -l <"$OUT") rows in $OUT ($(( $(date +%s) - start )) s)"
