#!/usr/bin/env bash
# Runs a GPU script here the way the device tool would: a copy of the working tree (tracked + untracked-not-ignored
# files, no dist/ or node_modules/), the carried folders beside it, OUT pointing into the copy.
# NH_GPU_ARCH defaults to cpu here (no GPU): it proves the unpacking, the CLI and the collection steps.
#   scripts/gpu/simulate.sh                                  # scripts/gpu/gates.sh (issue #4)
#   scripts/gpu/simulate.sh scripts/gpu/prove.sh probe,build # the proof battery (issue #23), after pack-prove.sh
#   scripts/gpu/simulate.sh mutate-device.sh in-diff         # a bare name is looked up in scripts/gpu/
set -euo pipefail
cd "$(dirname "$0")/../.." || exit 2
script=${1:-scripts/gpu/gates.sh}
shift || true
sim=$(mktemp -d /tmp/nh-devsim-XXXX)
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$sim"
for p in .device .carry/app .carry/doctest .carry/doctest-cmake .carry/llama; do
  [ -e "$p" ] && mkdir -p "$sim/$(dirname "$p")" && cp -a "$p" "$sim/$p"
done
export OUT="$sim/OUT"
rc=0
case $script in */*) ;; *) script=scripts/gpu/$script ;; esac
( cd "$sim" && NH_GPU_ARCH=${NH_GPU_ARCH:-cpu} NH_GPU_JOBS=${NH_GPU_JOBS:-2} NH_GPU_MUTATE_JOBS=${NH_GPU_MUTATE_JOBS:-1} bash "$script" "$@" ) || rc=$?
echo "simulate: $sim (OUT: $OUT), exit $rc"
ls -la "$OUT"
exit "$rc"
