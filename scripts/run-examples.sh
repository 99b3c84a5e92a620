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
failed=()
for example in "${examples[@]}"; do
  echo
  echo "== ${example##*/}"
  if ! (cd "$build/examples" && timeout 120 "./${example##*/}" </dev/null); then
    echo "-- ${example##*/} failed" >&2
    failed+=("${example##*/}")
  fi
done
echo
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run-examples: ${#failed[@]} of ${#examples[@]} examples failed: ${failed[*]}" >&2
  exit 1
fi
echo "run-examples: all ${#examples[@]} examples ran"
