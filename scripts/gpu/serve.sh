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
unxz_to() { # unxz_to SRC DEST: xz when present, else Python's lzma
  if command -v xz >/dev/null 2>&1; then xz -dc "$1" > "$2"; else python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' "$1" "$2"; fi
}

# 1. node and the app: the carried ones on the GPU host; this checkout's where they are already here.
if [ -f .device/node.xz ]; then
  [ -x .gpu/bin/node ] || { unxz_to .device/node.xz .gpu/bin/node && chmod +x .gpu/bin/node; }
  export PATH="$ROOT/.gpu/bin:$PATH"
fi
command -v node >/dev/null || { say "FATAL: no node here and no .device/node.xz (carry .device)"; exit 2; }
if [ ! -d dist ] || [ ! -d node_modules/zod ]; then
  [ -f .carry/app/app.tar.xz ] || { say "FATAL: no dist/ and no .carry/app/app.tar.xz (scripts/gpu/pack.sh, carry .carry/app)"; exit 2; }
  unxz_to .carry/app/app.tar.xz .gpu/app.tar && tar -xf .gpu/app.tar -C "$ROOT" && rm -f .gpu/app.tar
  if [ -f addon/nh_nvml.node ]; then mkdir -p native/addon/build/Release && mv addon/nh_nvml.node native/addon/build/Release/ && rmdir addon; fi
fi
say "node $(node --version); arch $ARCH; jobs $JOBS; requests per load $REQ"

# 2. llama.cpp's source and the tiny model, where the recipe looks for them
SRC=.cache/llama.cpp/src
BUILD=.cache/llama.cpp/build-$ARCH
if [ ! -f "$SRC/tools/server/CMakeLists.txt" ]; then
  [ -f .carry/llama/llama-src.tar.xz ] || { say "FATAL: no llama.cpp source in $SRC and no .carry/llama (scripts/gpu/pack-llama.sh, carry .carry/llama)"; exit 2; }
  mkdir -p "$SRC" && unxz_to .carry/llama/llama-src.tar.xz .gpu/llama-src.tar && tar -xf .gpu/llama-src.tar -C "$SRC" && rm -f .gpu/llama-src.tar
fi
mkdir -p "$BUILD"
[ -f "$BUILD/tiny-llama.gguf" ] || cp .carry/llama/tiny-llama.gguf "$BUILD/tiny-llama.gguf"
export NH_GATE_LOCK="$ROOT/.nh-gate/gpu.lock"
RES=.nh-gate-serve

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
say "\$ nh-gate build --recipe llama-cpp --arch $ARCH (at most ${NH_GPU_BUILD_S:-460} s)"
timeout "${NH_GPU_BUILD_S:-460}" node bin/nh-gate.js build --recipe llama-cpp --arch "$ARCH" --jobs "$JOBS" > "$OUT/build.txt" 2>&1
brc=$?; cat "$OUT/build.txt" >> "$LOG"; echo "build $brc" >> "$OUT/exit-codes.txt"; say "exit $brc (build)"
if [ "$brc" != 0 ]; then
  tar -czf "$OUT_REAL/serve-evidence.tgz" -C "$OUT" . ; cp "$LOG" "$OUT/exit-codes.txt" "$OUT_REAL/" 2>/dev/null
  say "build did not finish (exit $brc): run the same call again to resume it"; exit 0
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
