#!/usr/bin/env bash
# The sequential DEVICE_MAMBA A/B with a ratio and a points criterion (issue 20), for the lead to send through
# the device tool after `scripts/gpu/pack.sh` here:
#   run(command="bash scripts/gpu/ab-sequential.sh", carry=[".device", ".carry/app", ".carry/doctest", ".carry/doctest-cmake"], timeout_s=600)
# Steps: node, the app and doctest from the carried folders (scripts/gpu/env.sh, as gates.sh); the plan
# (--dry-run --json); the gate gates/nh-ref/device-ab-long-sequential.json (expected SUPPORTED after one ABBA
# block, 4 legs: two host legs of about 65 s, two device legs of about 2.5 s, on the H200 figures of
# evidence/h200-r2); then, if the time left allows, an A/A of the device arm over 16 legs (--aa with
# --flag DEVICE_MAMBA=on,off: the host arm's 16 legs would take 17 minutes; the arms are a recorded deviation).
# $OUT gets the JSON documents, their exit codes, the log and the run directories as one tarball.
# Expected on the H200: exit 0 (SUPPORTED) for the A/B, exit 0 (MEASURED) for the A/A. Here:
#   NH_GPU_LOCAL=1 NH_GPU_ARCH=cpu NH_GPU_BUDGET_S=200 OUT=/tmp/o bash scripts/gpu/ab-sequential.sh
# runs the same plumbing (a CPU build lacks the device cells: both runs VOID DEGRADED_BUILD by name, exit 3).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/.gpu-out}
ARCH=${NH_GPU_ARCH:-90}
JOBS=${NH_GPU_JOBS:-$(nproc 2>/dev/null || echo 4)}
GATE=gates/nh-ref/device-ab-long-sequential.json
mkdir -p "$OUT"
LOG="$OUT/ab-sequential.log"
: > "$LOG"
say() { echo "[ab-sequential.sh] $*" | tee -a "$LOG"; }
T0=$(date +%s)

if [ "${NH_GPU_LOCAL:-}" = 1 ]; then
  # Here (no carried folders): this checkout's dist/ and node.
  [ -f dist/cli/main.js ] || { say "FATAL: no dist/ (npm run build)"; exit 2; }
  export NH_GATE_LOCK="$ROOT/.nh-gate/gpu.lock"
else
  . scripts/gpu/env.sh
  gpu_env || exit 2
fi
say "arch $ARCH; jobs $JOBS; gate $GATE"
: > "$OUT/ab-sequential-exit-codes.txt"
nh() { # nh NAME SECONDS ARGS...: one nh-gate --json document into $OUT/NAME.json, stderr into the log
  local name=$1 limit=$2; shift 2
  say "\$ nh-gate $* (limit ${limit}s)"
  timeout --signal=INT --kill-after=20 "$limit" node bin/nh-gate.js "$@" --json > "$OUT/$name.json" 2>> "$LOG"
  local rc=$?
  say "exit $rc ($name)"
  echo "$name $rc" >> "$OUT/ab-sequential-exit-codes.txt"
}
# Seconds left of the device tool's 600 s (NH_GPU_BUDGET_S shortens it for the CPU plumbing run here).
left() { echo $((${NH_GPU_BUDGET_S:-560} - ($(date +%s) - T0))); }
nh ab-long-sequential-plan 60 ab --gate "$GATE" --arch "$ARCH" --dry-run
nh ab-long-sequential "$(left)" ab --gate "$GATE" --arch "$ARCH" --jobs "$JOBS"
if [ "$(left)" -gt 120 ]; then
  nh ab-long-aa-device "$(left)" ab --gate "$GATE" --arch "$ARCH" --jobs "$JOBS" --aa --flag DEVICE_MAMBA=on,off --budget 16
else
  say "A/A skipped: $(left)s left"
fi
[ -d .nh-gate/runs ] && tar -czf "$OUT/ab-sequential-runs.tgz" .nh-gate/runs .nh-gate/ledger.jsonl 2>> "$LOG"
tee -a "$LOG" < "$OUT/ab-sequential-exit-codes.txt"
