#!/usr/bin/env bash
# The H200 run of issue #11 (GPU verdicts), sent through the device tool from a copy of this worktree:
#   scripts/gpu/i11-stage.sh here (stages .i11/ in the session's checkout), then
#   run(command="bash .i11/go.sh STEPS", carry=[".i11"]) — go.sh unpacks the worktree into /tmp/w and runs this.
# STEPS (comma list): probe,build,tests,ab-long,busy,calibrate,a3,ab-medium (run in that order) — each step's
# output is appended to $OUT/all.txt as it finishes, so a run cut short still returns what it did.
# Results: at most 8 files in $OUT (the run directories go into one runs.tgz).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/.gpu-out}
STEPS=${1:-probe,build,tests,a3,ab-medium,calibrate}
ARCH=${NH_GPU_ARCH:-90}
JOBS=${NH_GPU_JOBS:-$(nproc 2>/dev/null || echo 4)}
mkdir -p "$OUT" .gpu
LOG="$OUT/log.txt"
: > "$LOG"
say() { echo "[i11.sh $(date +%T)] $*" | tee -a "$LOG"; }
has() { case ",$STEPS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
export PATH="$ROOT/.gpu/bin:$PATH" CMAKE_INCLUDE_PATH="$ROOT/.carry" NH_GATE_LOCK="$ROOT/.nh-gate/gpu.lock"
say "node $(node --version 2>&1); nvcc $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*'); steps $STEPS"
nh() { # nh NAME ARGS...: one nh-gate command into $OUT/NAME.txt (stdout+stderr), its exit code in exit-codes
  local name=$1; shift
  say "\$ nh-gate $*"
  local t0=$(date +%s.%N)
  node bin/nh-gate.js "$@" > "$ROOT/.gpu/$name.txt" 2>&1
  local rc=$?
  echo "$name $rc $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1fs", b-a}')" >> "$ROOT/.gpu/exit-codes.txt"
  say "exit $rc ($name)"
  { echo "===== $name: nh-gate $*"; cat "$ROOT/.gpu/$name.txt"; } >> "$OUT/all.txt"  # kept even if a later step runs out of time
}
keep() { tar -czf "$OUT/runs.tgz" .nh-gate/runs .nh-gate/ledger.jsonl $( [ -d .gpu/calibrate ] && echo .gpu/calibrate ) 2>>"$LOG"; }
: > "$ROOT/.gpu/exit-codes.txt"
has probe && nh probe probe
has build && nh build build --arch "$ARCH" --flag DEVICE_MAMBA --jobs "$JOBS"
if has tests; then
  say "device doctest cases"
  .nh-gate/build/nh-ref-$ARCH/nh-ref-tests --test-case='device*' > .gpu/tests.txt 2>&1; echo "tests $?" >> .gpu/exit-codes.txt
fi
has ab-long && { nh ab-long ab --flag DEVICE_MAMBA --gate gates/nh-ref/device-ab-long.json --arch "$ARCH" --jobs "$JOBS"; keep; }
if has calibrate || has busy; then sh native/calibrate/build.sh >> "$LOG" 2>&1; fi
if has calibrate; then
  say "calibrate"
  node scripts/calibrate/run.mjs --out .gpu/calibrate --seconds "${NH_CAL_SECONDS:-4}" > .gpu/calibrate.txt 2>&1; echo "calibrate $?" >> .gpu/exit-codes.txt
  { echo "===== calibrate"; cat .gpu/calibrate.txt; } >> "$OUT/all.txt"; keep
fi
if has busy; then
  # A known 80% duty load, then 1 s of idle teardown: the marker window and the last-line window exclude it.
  duty="echo duty start; native/calibrate/build/nh-duty --duty 0.8 --seconds 3 --variant full-gpu; echo duty done; sleep 1"
  nh busy-marker busy --start-marker 'duty start' --end-marker 'duty done' -- sh -c "$duty"
  nh busy-lastline busy -- sh -c "$duty"
  nh busy-never busy --end-marker 'never printed' -- sh -c "$duty"
fi
has a3 && nh a3-medium a3 --recipe nh-ref-medium --arch "$ARCH" --jobs "$JOBS"
has ab-medium && nh ab-medium ab --gate gates/nh-ref/device-ab-medium.json --arch "$ARCH" --jobs "$JOBS"
[ -f .gpu/tests.txt ] && { echo "===== device doctest cases"; cat .gpu/tests.txt; } >> "$OUT/all.txt"
cat .gpu/exit-codes.txt | tee -a "$LOG"
keep
ls -la "$OUT" | tee -a "$LOG"
