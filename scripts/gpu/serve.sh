#!/usr/bin/env bash
# nh-gate serve on the H200 (issue 26), for the lead to send through the device tool:
#   run(command="bash scripts/gpu/serve.sh", carry=[".device", ".carry/app", ".carry/llama"], timeout_s=600)
# after, here: scripts/ci/llama-cpp.sh, scripts/gpu/pack.sh, scripts/gpu/pack-llama.sh.
# Steps: unpack node, the app and llama.cpp's source (skipped where they are already here); CUDA build of
# llama-server for NH_GPU_ARCH (default 90; the recipe's arch entry), bounded so the call keeps time to hand its
# files back (a second call resumes the build); then nh-gate serve at two concurrencies (1 and 8), every served
# token checked against the golden, and a short sweep of rates. Results in $OUT: serve.log, exit codes, the
# summaries and serve-evidence.tgz (run directories and the ledger).
# Here, for the plumbing only (the CPU build in .cache, no GPU): NH_GPU_ARCH=cpu bash scripts/gpu/serve.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT_REAL=${OUT:-$ROOT/.gpu-out}
OUT=$ROOT/.gpu-stage-serve
rm -rf "$OUT"; mkdir -p "$OUT" "$OUT_REAL" .gpu/bin
ARCH=${NH_GPU_ARCH:-90}
JOBS=${NH_GPU_JOBS:-$(nproc 2>/dev/null || echo 4)}
REQ=${NH_SERVE_REQUESTS:-32}
LOG="$OUT/serve.log"
: > "$LOG"
say() { echo "[serve.sh] $*" | tee -a "$LOG"; }
# node, the app, llama.cpp's source and the model; nh and the bounded build (shared with llama-cpp.sh)
. scripts/gpu/llama-env.sh
llama_env || exit 2
RES=.nh-gate-serve
say "requests per load $REQ"
nh probe probe
if ! llama_build; then
  tar -czf "$OUT_REAL/serve-evidence.tgz" -C "$OUT" . ; cp "$LOG" "$OUT/exit-codes.txt" "$OUT_REAL/" 2>/dev/null
  say "build did not finish: run the same call again to resume it"; exit 0
fi
# Two concurrencies (the issue's evidence), then a sweep of open-loop rates with its knee.
nh serve-c1 serve --recipe llama-cpp --arch "$ARCH" --jobs "$JOBS" --concurrency 1 --requests "$REQ" --slo ttft=50ms,tpot=10ms --results-dir "$RES"
nh serve-c8 serve --recipe llama-cpp --arch "$ARCH" --jobs "$JOBS" --concurrency 8 --requests "$REQ" --slo ttft=50ms,tpot=10ms --results-dir "$RES"
nh serve-sweep serve --recipe llama-cpp --arch "$ARCH" --jobs "$JOBS" --sweep 4,16,64 --requests "$REQ" --results-dir "$RES"

if [ -d "$RES/runs" ]; then
  tar -czf "$OUT/runs-serve.tgz" "$RES/runs" "$RES/ledger.jsonl" 2>>"$LOG"
  i=0
  for d in "$RES"/runs/*serve-llama-cpp*; do i=$((i+1)); cp "$d/summary.md" "$OUT/summary-$i.md"; done
fi
say "files staged: $(ls "$OUT" | tr '\n' ' ')"
cat "$OUT/exit-codes.txt" | tee -a "$LOG"
tar -czf "$OUT_REAL/serve-evidence.tgz" -C "$OUT" .
cp "$LOG" "$OUT/exit-codes.txt" "$OUT_REAL/"
