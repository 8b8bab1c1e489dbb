#!/usr/bin/env bash
# llama.cpp on the H200 (issue #10), for the lead to send through the device tool:
#   run(command="bash scripts/gpu/llama-cpp.sh", carry=[".device", ".carry/app", ".carry/llama"], timeout_s=600)
# after, here: scripts/ci/llama-cpp.sh, scripts/gpu/pack.sh, scripts/gpu/pack-llama.sh.
# Steps: unpack node, the app and llama.cpp's source; CUDA build of llama-server for NH_GPU_ARCH (default 90:
# -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90, the recipe's arch entry); nh-gate a3 --recipe llama-cpp;
# nh-gate ab --gate gates/llama-cpp/no-cuda-graphs-ab.json (GGML_CUDA_DISABLE_GRAPHS=1 vs unset) and the
# FLASH_ATTN A/B, each with per-leg busy and per-token; NH_LLAMA_ABS=no-cuda-graphs-serve adds the same flag
# under load (gates/llama-cpp/no-cuda-graphs-serve-ab.json: 8 requests in flight, every response token-checked).
# The build is incremental: if a call runs out of time during it, the same call again resumes it (the build
# folder is kept on a warm machine).
# Results in $OUT: llama-cpp.log, summaries, runs-llama.tgz, exit codes.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
# The device returns at most 8 files: everything is staged here and handed back as one tarball + the log.
OUT_REAL=${OUT:-$ROOT/.gpu-out}
OUT=$ROOT/.gpu-stage
rm -rf "$OUT"; mkdir -p "$OUT_REAL"
ARCH=${NH_GPU_ARCH:-90}
JOBS=${NH_GPU_JOBS:-$(nproc 2>/dev/null || echo 4)}
mkdir -p "$OUT" .gpu/bin
LOG="$OUT/llama-cpp.log"
mkdir -p "$OUT"
: > "$LOG"
say() { echo "[llama-cpp.sh] $*" | tee -a "$LOG"; }
# node, the app, llama.cpp's source and the model; nh and the bounded build (shared with serve.sh)
. scripts/gpu/llama-env.sh
llama_env || exit 2
nh probe probe
# The CUDA build is bounded so the call always has time left to hand its files back; a second call resumes it.
if ! llama_build; then
  tar -czf "$OUT_REAL/llama-evidence.tgz" -C "$OUT" . ; cp "$LOG" "$OUT/exit-codes.txt" "$OUT_REAL/" 2>/dev/null
  say "build did not finish: run the same call again to resume it"; exit 0
fi
nh a3 a3 --recipe llama-cpp --arch "$ARCH" --jobs "$JOBS"
# NH_LLAMA_ABS picks the A/Bs (default both; scripts/gpu/prove.sh runs one).
ABS=${NH_LLAMA_ABS:-no-cuda-graphs,flash-attn}
case ",$ABS," in *,no-cuda-graphs,*) nh ab-no-cuda-graphs ab --gate gates/llama-cpp/no-cuda-graphs-ab.json --arch "$ARCH" --jobs "$JOBS" ;; esac
# Under load: 8 requests in flight, every response token-checked (an ab gate with a serve block).
case ",$ABS," in *,no-cuda-graphs-serve,*) nh ab-no-cuda-graphs-serve ab --gate gates/llama-cpp/no-cuda-graphs-serve-ab.json --arch "$ARCH" --jobs "$JOBS" ;; esac
case ",$ABS," in *,flash-attn,*) nh ab-flash-attn ab --gate gates/llama-cpp/flash-attn-ab.json --arch "$ARCH" --jobs "$JOBS" ;; esac

if [ -d .nh-gate/runs ]; then
  tar -czf "$OUT/runs-llama.tgz" .nh-gate/runs .nh-gate/ledger.jsonl 2>>"$LOG"
  for d in .nh-gate/runs/*; do
    case "$d" in *a3-llama*) cp "$d/summary.md" "$OUT/summary-a3.md" ;; *no-cuda-graphs-serve*) cp "$d/summary.md" "$OUT/summary-ab-no-cuda-graphs-serve.md" ;; *no-cuda-graphs*) cp "$d/summary.md" "$OUT/summary-ab-no-cuda-graphs.md" ;; *flash-attn*) cp "$d/summary.md" "$OUT/summary-ab-flash-attn.md" ;; esac
  done
fi
say "files staged: $(ls "$OUT" | tr '\n' ' ')"
cat "$OUT/exit-codes.txt" | tee -a "$LOG"
tar -czf "$OUT_REAL/llama-evidence.tgz" -C "$OUT" .
cp "$LOG" "$OUT/exit-codes.txt" "$OUT_REAL/"
