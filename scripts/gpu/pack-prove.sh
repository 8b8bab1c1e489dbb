#!/usr/bin/env bash
# Packs what scripts/gpu/prove.sh needs on the H200 (issue #23), in this checkout — the one the device tool
# sends. The GPU host has no Node, no npm, no network and no doctest-dev:
#   .carry/app/      dist/, the runtime node_modules and the NVML addon (scripts/gpu/pack.sh, which rebuilds the
#                    addon and checks its ABI), PACKED_FROM (the commit) and PACKED_STATE (clean, or how dirty)
#   .device/node.xz  this machine's node (as /work/shared/device/carry-node.sh packs it)
#   .carry/doctest/  doctest's header, found through CMAKE_INCLUDE_PATH for the engine's device suites
#   .carry/llama/    llama.cpp's source and the tiny GGUF (scripts/gpu/pack-llama.sh), when .cache/llama.cpp/src
#                    is here; without it the battery's llama slot is SKIPPED by name
# then prints the carry list and checks what travels against the device tool's limits (8 carried paths; the
# working tree and the carried paths 64 MiB in all).
# Usage (repo root, after npm ci): scripts/gpu/pack-prove.sh
set -euo pipefail
cd "$(dirname "$0")/../.." || exit 2

scripts/gpu/pack.sh
dirty=$(git status --porcelain --untracked-files=no | wc -l)
if [ "$dirty" = 0 ]; then echo "clean at $(git rev-parse HEAD)"; else echo "$(git rev-parse HEAD) with $dirty uncommitted change(s) to tracked files"; fi > .carry/app/PACKED_STATE

mkdir -p .device
[ -s .device/node.xz ] && xz -dc .device/node.xz | cmp -s - "$(readlink -f "$(command -v node)")" || {
  echo "pack-prove: packing $(command -v node) ($(node --version)) into .device/node.xz"
  xz -T2 -6 -c "$(readlink -f "$(command -v node)")" > .device/node.xz.tmp && mv .device/node.xz.tmp .device/node.xz
}

header=/usr/include/doctest/doctest.h
[ -f "$header" ] || { echo "pack-prove: $header is missing: apt-get install doctest-dev" >&2; exit 2; }
mkdir -p .carry/doctest && cp "$header" .carry/doctest/doctest.h

carry=(.device .carry/app .carry/doctest)
src=.cache/llama.cpp/src
if [ -d "$src/.git" ]; then
  [ "$(cat .carry/llama/COMMIT 2>/dev/null)" = "$(git -C "$src" rev-parse HEAD)" ] && [ -s .carry/llama/llama-src.tar.xz ] || scripts/gpu/pack-llama.sh
  carry+=(.carry/llama)
else
  echo "pack-prove: no $src here (scripts/ci/llama-cpp.sh makes it): the llama slot will be SKIPPED"
fi

# What travels is the working tree (tracked and untracked-not-ignored files, shared/) and the carried paths.
total=$(git ls-files -co --exclude-standard -z | du -cb --files0-from=- 2>/dev/null | tail -n1 | cut -f1)
[ -d shared ] && total=$(( total + $(du -sb shared | cut -f1) ))
printf 'pack-prove: %-16s %6.1f MiB\n' 'working tree' "$(awk -v b="$total" 'BEGIN { print b / 1048576 }')"
for p in "${carry[@]}"; do
  b=$(du -sb "$p" | cut -f1)
  total=$(( total + b ))
  printf 'pack-prove: %-16s %6.1f MiB\n' "$p" "$(awk -v b="$b" 'BEGIN { print b / 1048576 }')"
done
limit=$(( 64 * 1048576 ))
printf 'pack-prove: %-16s %6.1f MiB of 64 MiB; %s\n' total "$(awk -v b="$total" 'BEGIN { print b / 1048576 }')" "$(cat .carry/app/PACKED_STATE)"
[ "$total" -le "$limit" ] || { echo "pack-prove: the working tree and the carry are over the device tool's 64 MiB" >&2; exit 2; }
list=$(printf '"%s", ' "${carry[@]}")
echo "run(command=\"bash scripts/gpu/prove.sh\", carry=[${list%, }], timeout_s=600)"
