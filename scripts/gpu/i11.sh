#!/usr/bin/env bash
# The H200 run of issue #11 (GPU verdicts), sent through the device tool from a copy of this worktree:
#   scripts/gpu/i11-stage.sh here (stages .i11/ in the session's checkout), then
#   run(command="bash .i11/go.sh STEPS", carry=[".i11"]) — go.sh unpacks the worktree into /tmp/w and runs this.
# STEPS (comma list): probe,build,tests,a3,ab-medium,ab-long,calibrate,busy — each writes $OUT/<step>.txt.
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
}
: > "$ROOT/.gpu/exit-codes.txt"
has probe && nh probe probe
has build && nh build build --arch "$ARCH" --flag DEVICE_MAMBA --jobs "$JOBS"
if has tests; then
  say "device doctest cases"
  .nh-gate/build/nh-ref-$ARCH/nh-ref-tests --test-case='device*' > .gpu/tests.txt 2>&1; echo "tests $?" >> .gpu/exit-codes.txt
fi
has a3 && nh a3-medium a3 --recipe nh-ref-medium --arch "$ARCH" --jobs "$JOBS"
has ab-medium && nh ab-medium ab --gate gates/nh-ref/device-ab-medium.json --arch "$ARCH" --jobs "$JOBS"
has ab-long && nh ab-long ab --flag DEVICE_MAMBA --gate gates/nh-ref/device-ab-long.json --arch "$ARCH" --jobs "$JOBS"
has ab-long-json && nh ab-long-json ab --flag DEVICE_MAMBA --gate gates/nh-ref/device-ab-long.json --arch "$ARCH" --jobs "$JOBS" --json
if has calibrate || has busy; then sh native/calibrate/build.sh >> "$LOG" 2>&1; fi
if has calibrate; then
  say "calibrate"
  node scripts/calibrate/run.mjs --out .gpu/calibrate --seconds "${NH_CAL_SECONDS:-4}" > .gpu/calibrate.txt 2>&1; echo "calibrate $?" >> .gpu/exit-codes.txt
fi
if has busy; then
  nh busy-marker busy --end-marker 'duty done' -- native/calibrate/build/nh-duty --duty 0.33 --seconds 3 --variant full-gpu
  nh busy-nomarker busy --end-marker 'never printed' -- native/calibrate/build/nh-duty --duty 0.33 --seconds 1 --variant full-gpu
fi
cat .gpu/exit-codes.txt | tee -a "$LOG"
tar -czf "$OUT/runs.tgz" .nh-gate/runs .nh-gate/ledger.jsonl .gpu/calibrate 2>>"$LOG"
cat .gpu/*.txt > "$OUT/all.txt" 2>/dev/null
ls -la "$OUT" | tee -a "$LOG"
