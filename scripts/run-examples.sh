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
# The RPC example is two programs: the client runs against a server started here.
rpc_pair=(example_calc_server example_calc_client)
failed=()
for example in "${examples[@]}"; do
  name=${example##*/}
  if [[ " ${rpc_pair[*]} " == *" $name "* ]]; then
    continue
  fi
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

# run_rpc_example: starts example_calc_server in a temporary directory, reads
# the two URIs it prints, runs example_calc_client against them, stops the
# server with SIGTERM and waits for it.
run_rpc_example() {
  local dir out server_pid uris=() rc=0
  dir=$(mktemp -d -t refwire-rpc-example.XXXXXX)
  out=$dir/server.out
  mkfifo "$dir/ready"
  echo
  echo "== example_calc_server + example_calc_client"
  (cd "$build/examples" && exec ./example_calc_server "$dir" >"$dir/ready" </dev/null) &
  server_pid=$!
  # the server prints one URI per line once it listens
  if ! timeout 30 head -n 2 "$dir/ready" >"$out"; then
    echo "-- example_calc_server did not start" >&2
    rc=1
  else
    mapfile -t uris <"$out"
    echo "server listens on: ${uris[*]}"
    (cd "$build/examples" && timeout 60 ./example_calc_client "${uris[0]}" "${uris[1]}" </dev/null) || rc=1
  fi
  kill -TERM "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  rm -rf "$dir"
  return "$rc"
}
if [[ -x $build/examples/example_calc_server && -x $build/examples/example_calc_client ]]; then
  if ! run_rpc_example; then
    echo "-- example_calc_client failed" >&2
    failed+=(example_calc_client)
  fi
fi

echo
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run-examples: ${#failed[@]} of ${#examples[@]} examples failed: ${failed[*]}" >&2
  exit 1
fi
echo "run-examples: all ${#examples[@]} examples ran"
