# Sourced by run-tests.sh and run-examples.sh (from the repository root): the
# build directory, the job count, and refwire_configure, which configures that
# directory with g++ (ninja when there is no cache yet) plus the given flags.
# Environment: REFWIRE_BUILD_DIR (default build), REFWIRE_JOBS (default 2).
build=${REFWIRE_BUILD_DIR:-build}
jobs=${REFWIRE_JOBS:-2}

refwire_configure() {
  local generator=()
  if [[ ! -f $build/CMakeCache.txt ]] && command -v ninja >/dev/null 2>&1; then
    generator=(-G Ninja)
  fi
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$(command -v g++)" "$@"
}
