#!/usr/bin/env bash
# llama.cpp on the H200 (issue #10), for the lead to send through the device tool:
#   run(command="bash scripts/gpu/llama-cpp.sh", carry=[".device", ".carry/app", ".carry/llama"], timeout_s=600)
# after, here: scripts/ci/llama-cpp.sh, scripts/gpu/pack.sh, scripts/gpu/pack-llama.sh.
# Steps: unpack node, the app and llama.cpp's source; CUDA build of llama-server for NH_GPU_ARCH (default 90:
# -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90, the recipe's arch entry); nh-gate a3 --recipe llama-cpp;
# nh-gate ab --gate gates/llama-cpp/no-cuda-graphs-ab.json (GGML_CUDA_DISABLE_GRAPHS=1 vs unset) and the
# FLASH_ATTN A/B, each with per-leg busy and per-token. The build is incremental: if a call runs out of
# time during it, the same call again resumes it (the build folder is kept on a warm machine).
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
unxz_to() { # unxz_to SRC DEST: xz when present, else Python's lzma
  if command -v xz >/dev/null 2>&1; then xz -dc "$1" > "$2"; else python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' "$1" "$2"; fi
}

# 1. node and the app (as scripts/gpu/gates.sh does)
[ -f .device/node.xz ] || { say "FATAL: .device/node.xz missing (carry .device)"; exit 2; }
[ -x .gpu/bin/node ] || { unxz_to .device/node.xz .gpu/bin/node && chmod +x .gpu/bin/node; }
export PATH="$ROOT/.gpu/bin:$PATH"
[ -f .carry/app/app.tar.xz ] || { say "FATAL: .carry/app/app.tar.xz missing (scripts/gpu/pack.sh, carry .carry/app)"; exit 2; }
if [ ! -d dist ] || [ ! -d node_modules/zod ]; then
  unxz_to .carry/app/app.tar.xz .gpu/app.tar && tar -xf .gpu/app.tar -C "$ROOT" && rm -f .gpu/app.tar
  if [ -f addon/nh_nvml.node ]; then mkdir -p native/addon/build/Release && mv addon/nh_nvml.node native/addon/build/Release/ && rmdir addon; fi
fi
say "node $(node --version); arch $ARCH; jobs $JOBS"

# 2. llama.cpp's source and the model, where the recipe looks for them
[ -f .carry/llama/llama-src.tar.xz ] || { say "FATAL: .carry/llama missing (scripts/gpu/pack-llama.sh, carry .carry/llama)"; exit 2; }
SRC=.cache/llama.cpp/src
if [ ! -f "$SRC/tools/server/CMakeLists.txt" ]; then
  mkdir -p "$SRC" && unxz_to .carry/llama/llama-src.tar.xz .gpu/llama-src.tar && tar -xf .gpu/llama-src.tar -C "$SRC" && rm -f .gpu/llama-src.tar
fi
mkdir -p ".cache/llama.cpp/build-$ARCH" && cp .carry/llama/tiny-llama.gguf ".cache/llama.cpp/build-$ARCH/tiny-llama.gguf"
say "llama.cpp $(cat .carry/llama/COMMIT) in $SRC"
export NH_GATE_LOCK="$ROOT/.nh-gate/gpu.lock"

nh() { # nh NAME ARGS...: one nh-gate command, output in the log and in $OUT/NAME.txt, exit code kept
  local name=$1; shift
  say "\$ nh-gate $*"
  node bin/nh-gate.js "$@" > "$OUT/$name.txt" 2>&1
  local rc=$?
  cat "$OUT/$name.txt" >> "$LOG"
  say "exit $rc ($name)"
  echo "$name $rc" >> "$OUT/exit-codes.txt"
  return 0
}
: > "$OUT/exit-codes.txt"

nh probe probe
# The CUDA build is bounded so the call always has time left to hand its files back; a second call resumes it.
say "\$ nh-gate build --recipe llama-cpp --arch $ARCH (at most ${NH_GPU_BUILD_S:-460} s)"
timeout "${NH_GPU_BUILD_S:-460}" node bin/nh-gate.js build --recipe llama-cpp --arch "$ARCH" --jobs "$JOBS" > "$OUT/build.txt" 2>&1
brc=$?; cat "$OUT/build.txt" >> "$LOG"; echo "build $brc" >> "$OUT/exit-codes.txt"; say "exit $brc (build)"
if [ "$brc" != 0 ]; then
  tar -czf "$OUT_REAL/llama-evidence.tgz" -C "$OUT" . ; cp "$LOG" "$OUT/exit-codes.txt" "$OUT_REAL/" 2>/dev/null
  say "build did not finish (exit $brc): run the same call again to resume it"; exit 0
fi
nh a3 a3 --recipe llama-cpp --arch "$ARCH" --jobs "$JOBS"
# NH_LLAMA_ABS picks the A/Bs (default both; scripts/gpu/prove.sh runs one).
ABS=${NH_LLAMA_ABS:-no-cuda-graphs,flash-attn}
case ",$ABS," in *,no-cuda-graphs,*) nh ab-no-cuda-graphs ab --gate gates/llama-cpp/no-cuda-graphs-ab.json --arch "$ARCH" --jobs "$JOBS" ;; esac
case ",$ABS," in *,flash-attn,*) nh ab-flash-attn ab --gate gates/llama-cpp/flash-attn-ab.json --arch "$ARCH" --jobs "$JOBS" ;; esac

if [ -d .nh-gate/runs ]; then
  tar -czf "$OUT/runs-llama.tgz" .nh-gate/runs .nh-gate/ledger.jsonl 2>>"$LOG"
  for d in .nh-gate/runs/*; do
    case "$d" in *a3-llama*) cp "$d/summary.md" "$OUT/summary-a3.md" ;; *no-cuda-graphs*) cp "$d/summary.md" "$OUT/summary-ab-no-cuda-graphs.md" ;; *flash-attn*) cp "$d/summary.md" "$OUT/summary-ab-flash-attn.md" ;; esac
  done
fi
say "files staged: $(ls "$OUT" | tr '\n' ' ')"
cat "$OUT/exit-codes.txt" | tee -a "$LOG"
tar -czf "$OUT_REAL/llama-evidence.tgz" -C "$OUT" .
cp "$LOG" "$OUT/exit-codes.txt" "$OUT_REAL/"
