#!/usr/bin/env bash
# Configures and builds the CUDA device arm (compiles here even without a GPU; nvcc 13.0).
# usage: native/engine/scripts/build-cuda.sh [ARCH] [BUILD_DIR] [extra cmake args...]
#   ARCH defaults to 90; BUILD_DIR to .nh-gate/build/nh-ref-ARCH (under the repo root).
# Prints the feature table and the wall seconds of configure and build.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
engine="$(dirname "$here")"
root="$(cd "$engine/../.." && pwd)"
arch="${1:-90}"
build="${2:-$root/.nh-gate/build/nh-ref-$arch}"
shift $(( $# > 2 ? 2 : $# )) || true
jobs="${NH_REF_JOBS:-$(nproc)}"
t0=$(date +%s.%N)
cmake -S "$engine" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNH_REF_CUDA=ON \
  "-DNH_REF_CUDA_ARCHITECTURES=$arch" "$@"
t1=$(date +%s.%N)
cmake --build "$build" --parallel "$jobs"
t2=$(date +%s.%N)
awk -v a="$arch" -v b="$build" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v j="$jobs" \
  'BEGIN { printf "[nh-ref-build] arch=%s build=%s configure=%.1fs build=%.1fs jobs=%s\n", a, b, t1 - t0, t2 - t1, j }'
