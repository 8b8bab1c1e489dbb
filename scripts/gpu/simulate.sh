#!/usr/bin/env bash
# Runs gates.sh (or another scripts/gpu script: simulate.sh mutate-device.sh in-diff) here the way the device
# tool would: a copy of the working tree (tracked + untracked-not-ignored files, no dist/ or node_modules/),
# the carried folders beside it, PATH without this host's node first.
# NH_GPU_ARCH defaults to cpu here (no GPU): it proves the unpacking, the CLI and the collection steps.
set -euo pipefail
cd "$(dirname "$0")/../.."
sim=$(mktemp -d /tmp/nh-devsim-XXXX)
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$sim"
cp -a .device "$sim/.device"
mkdir -p "$sim/.carry" && cp -a .carry/app .carry/doctest .carry/doctest-cmake "$sim/.carry/"
export OUT="$sim/OUT"
script=${1:-gates.sh}
shift $(( $# > 0 ? 1 : 0 ))
rc=0
( cd "$sim" && NH_GPU_ARCH=${NH_GPU_ARCH:-cpu} NH_GPU_JOBS=2 NH_GPU_MUTATE_JOBS=${NH_GPU_MUTATE_JOBS:-1} bash "scripts/gpu/$script" "$@" ) || rc=$?
echo "simulate: $sim (OUT: $OUT)"
ls -la "$OUT"
exit "$rc"
