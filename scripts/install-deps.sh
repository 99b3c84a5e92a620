#!/usr/bin/env bash
# Installs every Debian package refwire needs to build, test, fuzz and benchmark.
# Idempotent: prints nothing and touches nothing when all of them are installed.
# Usage: ./scripts/install-deps.sh   (as root, or as a user who can sudo)
set -euo pipefail

packages=(
  # toolchain
  cmake ninja-build g++ clang libclang-rt-14-dev pkg-config
  # the library
  libboost1.81-dev libsimdjson-dev libprotobuf-dev protobuf-compiler libprotoc-dev liblz4-dev libxxhash-dev libssl-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # benchmark peers (not msgpack-cxx: Debian's pulls in Boost 1.74)
  libflatbuffers-dev flatbuffers-compiler libcereal-dev nlohmann-json3-dev rapidjson-dev libcapnp-dev capnproto
  libgrpc++-dev protobuf-compiler-grpc
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [[ $status == installed ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: not root and no sudo; install them and run again" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
