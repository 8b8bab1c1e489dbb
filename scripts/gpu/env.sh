# Sourced by the H200 scripts (gates.sh, mutate-device.sh): what the device tool's bare image lacks, set up
# from the carried folders. The caller is at the repo root with ROOT=$PWD and has defined say().
#   gpu_env: node from .device/node.xz onto PATH; the app (.carry/app/app.tar.xz: dist/, the runtime
#   node_modules, the NVML addon) unpacked where the loader looks; CMake pointed at the carried doctest
#   (.carry/doctest for find_path, .carry/doctest-cmake for find_package); the GPU lock under .nh-gate.
#   Returns 2, having said why, when a carried part is missing.
#   nh NAME ARGS...: one nh-gate command, logged, its output and exit code kept (below).

unxz_to() { # unxz_to SRC DEST: xz when present, else Python's lzma (the GPU image has python3)
  if command -v xz >/dev/null 2>&1; then xz -dc "$1" > "$2"; else python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' "$1" "$2"; fi
}

gpu_env() {
  [ -f .device/node.xz ] || { say "FATAL: .device/node.xz missing (carry .device)"; return 2; }
  mkdir -p .gpu/bin
  unxz_to .device/node.xz .gpu/bin/node && chmod +x .gpu/bin/node
  export PATH="$ROOT/.gpu/bin:$PATH"
  [ -f .carry/app/app.tar.xz ] || { say "FATAL: .carry/app/app.tar.xz missing (run scripts/gpu/pack.sh, carry .carry/app)"; return 2; }
  unxz_to .carry/app/app.tar.xz .gpu/app.tar && tar -xf .gpu/app.tar -C "$ROOT" && rm -f .gpu/app.tar
  if [ -f addon/nh_nvml.node ]; then mkdir -p native/addon/build/Release && mv addon/nh_nvml.node native/addon/build/Release/ && rmdir addon; fi
  export CMAKE_INCLUDE_PATH="$ROOT/.carry${CMAKE_INCLUDE_PATH:+:$CMAKE_INCLUDE_PATH}"
  if [ -d .carry/doctest-cmake ]; then export doctest_DIR="$ROOT/.carry/doctest-cmake"; fi
  export NH_GATE_LOCK="$ROOT/.nh-gate/gpu.lock"
  say "node $(node --version) at $(command -v node); app unpacked from .carry/app (packed from $(cat .carry/app/PACKED_FROM 2>/dev/null || echo '?'))"
}

nh() { # nh NAME ARGS...: one nh-gate command, its output in the log and in STAGE/NAME.txt, its exit code in
  # STAGE/exit-codes.txt (STAGE: $NH_STAGE, else $OUT); never stops the caller
  local name=$1 stage=${NH_STAGE:-$OUT}; shift
  say "\$ nh-gate $*"
  node bin/nh-gate.js "$@" > "$stage/$name.txt" 2>&1
  local rc=$?
  cat "$stage/$name.txt" >> "$LOG"
  say "exit $rc ($name)"
  echo "$name $rc" >> "$stage/exit-codes.txt"
  return 0
}
