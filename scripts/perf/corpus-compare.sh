#!/usr/bin/env bash
# Usage: scripts/perf/corpus-compare.sh <repo-dir> <out.txt>
# Example (old checkout, then this one, from the repo root):
#   scripts/perf/corpus-compare.sh <old-checkout> old.txt && scripts/perf/corpus-compare.sh . new.txt && diff old.txt new.txt
#
# Builds <repo-dir>'s refwire_serialization (Release, in <repo-dir>/build-corpus,
# -j2; only that target), compiles corpus_compare.cpp (next to this script)
# against <repo-dir>'s public headers, tests/fuzz/fuzz_types.hpp and that
# static library (+ simdjson, lz4, xxhash, found with pkg-config), and runs it
# over <repo-dir>/tests/fuzz/corpus: every corpus file and a fixed set of
# mutations of it, one line per (input, entry point), see corpus_compare.cpp.
# Prints the line count and how many results start with each word (accept,
# reject, threw, skip, ...). Compare two revisions with `diff old.txt new.txt`.
set -euo pipefail

usage() { echo "usage: $0 <repo-dir> <out.txt>"; }
if [[ ${1:-} == -h || ${1:-} == --help ]]; then usage; exit 0; fi
if [[ $# -ne 2 ]]; then
  usage >&2
  exit 1
fi
REPO=$(cd "$1" && pwd)
OUT=$(realpath -m "$2")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD="$REPO/build-corpus"
start=$(date +%s)
mkdir -p "$BUILD"

cmake -S "$REPO" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DREFWIRE_BUILD_TESTS=OFF -DREFWIRE_BUILD_EXAMPLES=OFF -DREFWIRE_BUILD_BENCH=OFF -DREFWIRE_INSTALL=OFF \
  >"$BUILD/configure.log" 2>&1 || { cat "$BUILD/configure.log" >&2; exit 1; }
cmake --build "$BUILD" -j2 --target refwire_serialization >"$BUILD/build.log" 2>&1 ||
  { tail -50 "$BUILD/build.log" >&2; exit 1; }
LIB=$(find "$BUILD" -name 'librefwire_serialization.a' | head -1)
[[ -n "$LIB" ]] || { echo "$0: no librefwire_serialization.a under $BUILD" >&2; exit 1; }

CXX=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
# shellcheck disable=SC2046
"${CXX:-c++}" -std=gnu++20 -O2 -DNDEBUG -I"$REPO/serialization/include" -I"$REPO/tests/fuzz" \
  "$HERE/corpus_compare.cpp" -o "$BUILD/corpus_compare" "$LIB" $(pkg-config --libs simdjson liblz4 libxxhash)

"$BUILD/corpus_compare" "$REPO/tests/fuzz/corpus" >"$OUT"
echo "== $(wc -l <"$OUT") lines in $OUT ($(( $(date +%s) - start )) s)"
cut -f5 "$OUT" | awk '{ print $1 }' | sort | uniq -c
