# Sourced by the llama.cpp H200 scripts (llama-cpp.sh, serve.sh): what both need before their own runs.
# The caller is at the repo root with ROOT, OUT (the staging folder), LOG, ARCH and JOBS set and say() defined.
#   llama_env:   node and the app (the carried ones on the GPU host; this checkout's where they are already
#                here, so `NH_GPU_ARCH=cpu bash scripts/gpu/serve.sh` runs the plumbing locally), llama.cpp's
#                source and the tiny model where the recipe looks for them, the GPU lock under .nh-gate.
#   nh NAME ARGS...: (env.sh) one nh-gate command, its output in $OUT/NAME.txt, its exit code in $OUT/exit-codes.txt.
#   llama_build: `nh-gate build --recipe llama-cpp` for ARCH, bounded (NH_GPU_BUILD_S, default 460 s) so the call
#                keeps time to hand its files back; returns the build's exit code (a second call resumes it).
# Returns 2, having said why, when a carried part is missing.

# unxz_to and nh, written once in env.sh (the other H200 scripts' environment)
. scripts/gpu/env.sh

llama_env() {
  mkdir -p .gpu/bin
  if [ -f .device/node.xz ]; then
    [ -x .gpu/bin/node ] || { unxz_to .device/node.xz .gpu/bin/node && chmod +x .gpu/bin/node; }
    export PATH="$ROOT/.gpu/bin:$PATH"
  fi
  command -v node >/dev/null || { say "FATAL: no node here and no .device/node.xz (carry .device)"; return 2; }
  if [ ! -d dist ] || [ ! -d node_modules/zod ]; then
    [ -f .carry/app/app.tar.xz ] || { say "FATAL: no dist/ and no .carry/app/app.tar.xz (scripts/gpu/pack.sh, carry .carry/app)"; return 2; }
    unxz_to .carry/app/app.tar.xz .gpu/app.tar && tar -xf .gpu/app.tar -C "$ROOT" && rm -f .gpu/app.tar
    if [ -f addon/nh_nvml.node ]; then mkdir -p native/addon/build/Release && mv addon/nh_nvml.node native/addon/build/Release/ && rmdir addon; fi
  fi
  local src=.cache/llama.cpp/src build=.cache/llama.cpp/build-$ARCH
  if [ ! -f "$src/tools/server/CMakeLists.txt" ]; then
    [ -f .carry/llama/llama-src.tar.xz ] || { say "FATAL: no llama.cpp source in $src and no .carry/llama (scripts/gpu/pack-llama.sh, carry .carry/llama)"; return 2; }
    mkdir -p "$src" && unxz_to .carry/llama/llama-src.tar.xz .gpu/llama-src.tar && tar -xf .gpu/llama-src.tar -C "$src" && rm -f .gpu/llama-src.tar
  fi
  mkdir -p "$build"
  if [ ! -f "$build/tiny-llama.gguf" ]; then
    [ -f .carry/llama/tiny-llama.gguf ] || { say "FATAL: no $build/tiny-llama.gguf and no .carry/llama (scripts/gpu/pack-llama.sh)"; return 2; }
    cp .carry/llama/tiny-llama.gguf "$build/tiny-llama.gguf"
  fi
  export NH_GATE_LOCK="$ROOT/.nh-gate/gpu.lock"
  : > "$OUT/exit-codes.txt"
  say "node $(node --version); arch $ARCH; jobs $JOBS; llama.cpp $(git -C "$src" rev-parse --short HEAD 2>/dev/null || cat .carry/llama/COMMIT 2>/dev/null || echo '?') in $src"
}

llama_build() {
  say "\$ nh-gate build --recipe llama-cpp --arch $ARCH (at most ${NH_GPU_BUILD_S:-460} s)"
  timeout "${NH_GPU_BUILD_S:-460}" node bin/nh-gate.js build --recipe llama-cpp --arch "$ARCH" --jobs "$JOBS" > "$OUT/build.txt" 2>&1
  local rc=$?
  cat "$OUT/build.txt" >> "$LOG"; echo "build $rc" >> "$OUT/exit-codes.txt"; say "exit $rc (build)"
  return $rc
}
