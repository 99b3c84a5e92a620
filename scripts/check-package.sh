#!/usr/bin/env bash
# Checks that refwire is usable the two ways a user consumes it:
#   1. installed: cmake --install to a temporary prefix, then find_package(refwire CONFIG)
#   2. vendored:  add_subdirectory of this source tree
# Builds tests/package both ways and runs the consumers, including the README's
# example (whose output must match the README), then builds the all-shapes
# consumer (tests/package/all_shapes.cpp, -Wall -Wextra -Werror) against the
# installed package with each consumer compiler at each optimisation level and
# runs it. Needs the packages of scripts/install-deps.sh. Environment: CXX
# (compiler of the library and the first consumers, default g++),
# CONSUMER_CXX (compilers of the all-shapes consumer, default "g++ clang++-14";
# one that is not installed is skipped with a note), CONSUMER_OPT (default
# "-O1 -O2 -O3"), KEEP_TMP=1 keeps the temporary directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

cxx=${CXX:-g++}
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
jobs=${REFWIRE_JOBS:-2}

tmp=$(mktemp -d -t refwire-package.XXXXXX)
if [[ ${KEEP_TMP:-0} == 1 ]]; then
  echo "check-package: keeping $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi
prefix=$tmp/prefix

echo "== check-package: build and install refwire to a temporary prefix"
cmake -S "$root" -B "$tmp/refwire" "${generator[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DREFWIRE_BUILD_TESTS=OFF -DREFWIRE_BUILD_EXAMPLES=OFF >"$tmp/refwire-configure.log" \
  || { cat "$tmp/refwire-configure.log"; exit 1; }
cmake --build "$tmp/refwire" -j "$jobs"
cmake --install "$tmp/refwire" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
# The package must be relocatable: no path of the source or build tree in it.
if grep -rlF -e "$root" -e "$tmp/refwire" "$prefix/lib"/cmake/refwire; then
  echo "check-package: the installed CMake files above name the source or build tree" >&2
  exit 1
fi
# Move the prefix so that only a relocatable package still works.
mv "$prefix" "$tmp/moved-prefix"
prefix=$tmp/moved-prefix

# build_consumer <dir> <cmake flags...>: builds tests/package and runs its checks.
build_consumer() {
  local dir=$1
  shift
  cmake -S "$root/tests/package" -B "$dir" "${generator[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE=Release "$@"
  cmake --build "$dir" -j "$jobs"
  "$dir/consumer"
  "$dir/consumer_serialization"
  "$dir/consumer_rpc"
  "$dir/consumer_shapes"
  "$dir/consumer_transports"
}

echo "== check-package: consumer via find_package(refwire CONFIG)"
build_consumer "$tmp/consumer-installed" -DCMAKE_PREFIX_PATH="$prefix"
# The README's example prints what the README says it prints.
"$tmp/consumer-installed/readme_example" >"$tmp/readme.out"
if ! diff -u "$tmp/consumer-installed/readme_example.expected" "$tmp/readme.out"; then
  echo "check-package: the README example's output differs from the README (above: - README, + actual)" >&2
  exit 1
fi
echo "README example: output as documented"

echo "== check-package: consumer via add_subdirectory(refwire source tree)"
build_consumer "$tmp/consumer-subdir" -DREFWIRE_SOURCE_DIR="$root"
"$tmp/consumer-subdir/readme_example" >/dev/null

echo "== check-package: all-shapes consumer, -Wall -Wextra -Werror, per compiler and -O level"
built=()
for consumer_cxx in ${CONSUMER_CXX:-g++ clang++-14}; do
  if ! command -v "$consumer_cxx" >/dev/null 2>&1; then
    echo "check-package: $consumer_cxx not installed, skipped"
    continue
  fi
  for opt in ${CONSUMER_OPT:--O1 -O2 -O3}; do
    dir=$tmp/shapes-$(basename "$consumer_cxx")$opt
    cmake -S "$root/tests/package" -B "$dir" "${generator[@]}" -DCMAKE_CXX_COMPILER="$consumer_cxx" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" -DREFWIRE_CONSUMER_OPT="$opt" >"$dir.configure.log" \
      || { cat "$dir.configure.log"; exit 1; }
    cmake --build "$dir" -j "$jobs" --target consumer_shapes
    "$dir/consumer_shapes"
    built+=("$consumer_cxx $opt")
  done
done
if [[ ${#built[@]} -eq 0 ]]; then
  echo "check-package: no consumer compiler found (CONSUMER_CXX=${CONSUMER_CXX:-g++ clang++-14})" >&2
  exit 1
fi

echo "check-package: ok (installed package and add_subdirectory; all shapes with: ${built[*]})"
