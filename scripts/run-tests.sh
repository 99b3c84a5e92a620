#!/usr/bin/env bash
# Installs the dependencies, builds refwire and its tests with g++ in build/,
# and runs the whole suite with ctest.
# Usage: ./scripts/run-tests.sh   (from any directory)
# Environment: REFWIRE_WERROR=ON makes warnings errors (CI sets it);
#              REFWIRE_BUILD_DIR (default build), REFWIRE_BUILD_TYPE (default Release),
#              REFWIRE_JOBS (default 2).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/install-deps.sh

source scripts/build-env.sh
refwire_configure \
  -DCMAKE_BUILD_TYPE="${REFWIRE_BUILD_TYPE:-Release}" \
  -DREFWIRE_BUILD_TESTS=ON \
  -DREFWIRE_WERROR="${REFWIRE_WERROR:-OFF}"
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure --no-tests=error --timeout 300 -j "$jobs"
