#!/usr/bin/env bash
# Installs the dependencies, builds the examples (Release, g++) in build/ and
# runs every one of them, showing what each prints.
# Usage: ./scripts/run-examples.sh   (from any directory)
# Environment: REFWIRE_BUILD_DIR (default build), REFWIRE_JOBS (default 2); see build-env.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/install-deps.sh

source scripts/build-env.sh
refwire_configure \
  -DCMAKE_BUILD_TYPE=Release \
  -DREFWIRE_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$build" -j "$jobs" --target refwire_examples

mapfile -t examples < <(find "$build/examples" -maxdepth 1 -type f -name 'example_*' -perm -u+x | sort)
if [[ ${#examples[@]} -eq 0 ]]; then
  echo "run-examples: no example programs found in $build/examples" >&2
  exit 1
fi
# Examples that keep state between runs (a snapshot file) take a directory:
# each is run twice in a fresh temporary one, so both runs are shown.
two_runs=(example_cache)
failed=()
for example in "${examples[@]}"; do
  name=${example##*/}
  if [[ " ${two_runs[*]} " == *" $name "* ]]; then
    state=$(mktemp -d -t refwire-example.XXXXXX)
    for run in 1 2; do
      echo
      echo "== $name (run $run of 2, state in a temporary directory)"
      if ! (cd "$build/examples" && timeout 120 "./$name" "$state" </dev/null); then
        echo "-- $name failed (run $run)" >&2
        failed+=("$name")
        break
      fi
    done
    rm -rf "$state"
    continue
  fi
  echo
  echo "== $name"
  if ! (cd "$build/examples" && timeout 120 "./$name" </dev/null); then
    echo "-- $name failed" >&2
    failed+=("$name")
  fi
done
echo
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run-examples: ${#failed[@]} of ${#examples[@]} examples failed: ${failed[*]}" >&2
  exit 1
fi
echo "run-examples: all ${#examples[@]} examples ran"
