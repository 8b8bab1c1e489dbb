#!/usr/bin/env bash
# Device-code mutants on the H200 (issue #22), for the lead to send through the device tool after
# `scripts/gpu/pack.sh` here:
#   run(command="bash scripts/gpu/mutate-device.sh", carry=[".device", ".carry/app", ".carry/doctest", ".carry/doctest-cmake"], timeout_s=600)
#   run(command="bash scripts/gpu/mutate-device.sh in-diff", carry=[same], timeout_s=600)
# It runs in the environment scripts/gpu/gates.sh sets up (scripts/gpu/env.sh: node, the app, doctest).
#   table (default): the rows of gates/nh-ref/mutations.json with "device": true (defects in native/engine/cuda/
#     that only the suite's GPU cases can see), after the suite's armed self-test, on arch NH_GPU_ARCH (90).
#     Exit 0 only when every row is as the table expects (CAUGHT, its named case failing) with its restore
#     proof (the restored tree rebuilt the baseline sha).
#   in-diff: `mutate --in-diff HEAD~1` in a scratch clone whose last commit changes three lines of the device
#     scan kernel (scripts/ci/plant-in-diff.mjs --device): the run that once read 12 of 12 VOID NOT_RESTORED.
#     Exit 0 when every device row is CAUGHT or SURVIVED with its restore proof (or excluded: UNVIABLE,
#     NOT_REBUILT), none VOID for reproducibility or a skipped GPU case.
# Last line: `device mutants: N judged, C CAUGHT, S SURVIVED, V VOID` (N = C + S + V, then `, T TIMEOUT` if any).
# Files in $OUT: mutate-device-<mode>.json (the mutate result), .txt (its stderr and the per-row lines), the log.
# NH_GPU_ARCH=cpu runs the same plumbing on a host without a GPU: every device row is VOID NO_GPU_ARCH, exit 3.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
MODE=${1:-table}
OUT=${OUT:-$ROOT/.gpu-out}
ARCH=${NH_GPU_ARCH:-90}
JOBS=${NH_GPU_MUTATE_JOBS:-4}
mkdir -p "$OUT"
LOG="$OUT/mutate-device-$MODE.log"
: > "$LOG"
say() { echo "[mutate-device.sh] $*" | tee -a "$LOG"; }
case "$MODE" in table|in-diff) ;; *) say "usage: mutate-device.sh [table|in-diff]"; exit 2 ;; esac

. scripts/gpu/env.sh
gpu_env || exit 2
say "mode $MODE; arch $ARCH; $JOBS scratch tree(s); nvcc: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo 'not found')"

RESULT="$OUT/mutate-device-$MODE.json"
if [ "$MODE" = table ]; then
  ids=$(node -e 'const t = JSON.parse(require("fs").readFileSync("gates/nh-ref/mutations.json", "utf8")); process.stdout.write(t.mutants.filter((m) => m.device).map((m) => m.id).join(","))')
  [ -n "$ids" ] || { say "FATAL: gates/nh-ref/mutations.json has no device rows"; exit 2; }
  say "\$ nh-gate mutate --arch $ARCH --only $ids --jobs $JOBS --json"
  node bin/nh-gate.js mutate --arch "$ARCH" --only "$ids" --jobs "$JOBS" --json > "$RESULT" 2>> "$LOG"
  rc=$?
else
  scratch="$ROOT/.gpu/device-in-diff"
  rm -rf "$scratch"
  node scripts/ci/plant-in-diff.mjs "$scratch" --device >> "$LOG" 2>&1 || { say "FATAL: could not plant the device change"; exit 70; }
  say "\$ (in $scratch) nh-gate mutate --table gates/nh-ref/mutations.json --in-diff HEAD~1 --arch $ARCH --jobs $JOBS --json"
  ( cd "$scratch" && node "$ROOT/bin/nh-gate.js" mutate --table gates/nh-ref/mutations.json --in-diff HEAD~1 --arch "$ARCH" --jobs "$JOBS" --json ) > "$RESULT" 2>> "$LOG"
  rc=$?
fi
say "nh-gate mutate exit $rc"
node scripts/gpu/device-summary.mjs "$RESULT" "$MODE" "$rc" | tee -a "$LOG"
exit "${PIPESTATUS[0]}"
