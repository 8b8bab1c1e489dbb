#!/usr/bin/env bash
# The sequential DEVICE_MAMBA A/B with a ratio and a points criterion (issue 20), for the lead to send through
# the device tool after `scripts/gpu/pack.sh` here:
#   run(command="bash scripts/gpu/ab-sequential.sh", carry=[".device", ".carry/app"], timeout_s=600)
# Steps: node and the app from the carry (as scripts/gpu/gates.sh unpacks them); the plan (--dry-run --json);
# the gate gates/nh-ref/device-ab-long-sequential.json (expected SUPPORTED after one ABBA block, 4 legs);
# its A/A calibration over 16 legs (expected MEASURED: the registered σ of each criterion holds on the H200).
# $OUT gets the three JSON documents, their exit codes, the log and the run directories as one tarball.
# NH_GPU_ARCH=cpu runs the same plumbing here (a CPU build refuses DEVICE_MAMBA=1: VOID by name, exit 2).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/.gpu-out}
ARCH=${NH_GPU_ARCH:-90}
GATE=gates/nh-ref/device-ab-long-sequential.json
mkdir -p "$OUT" "$ROOT/.gpu/bin"
LOG="$OUT/ab-sequential.log"
: > "$LOG"
say() { echo "[ab-sequential.sh] $*" | tee -a "$LOG"; }
unxz() { if command -v xz >/dev/null 2>&1; then xz -dc "$1"; else python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"; fi; }
if [ -f .device/node.xz ]; then unxz .device/node.xz > .gpu/bin/node && chmod +x .gpu/bin/node && export PATH="$ROOT/.gpu/bin:$PATH"; fi
if [ -f .carry/app/app.tar.xz ]; then
  unxz .carry/app/app.tar.xz | tar -xf - -C "$ROOT"
  if [ -f addon/nh_nvml.node ]; then mkdir -p native/addon/build/Release && mv addon/nh_nvml.node native/addon/build/Release/ && rmdir addon; fi
fi
[ -f dist/cli/main.js ] || { say "FATAL: no dist/ (carry .carry/app after scripts/gpu/pack.sh, or npm run build)"; exit 2; }
export NH_GATE_LOCK="$ROOT/.nh-gate/gpu.lock"
say "node $(node --version); arch $ARCH; gate $GATE"
: > "$OUT/ab-sequential-exit-codes.txt"
nh() { # nh NAME ARGS...: one nh-gate --json document into $OUT/NAME.json, stderr into the log
  local name=$1; shift
  say "\$ nh-gate $*"
  node bin/nh-gate.js "$@" --json > "$OUT/$name.json" 2>> "$LOG"
  local rc=$?
  say "exit $rc ($name)"
  echo "$name $rc" >> "$OUT/ab-sequential-exit-codes.txt"
}
nh ab-long-sequential-plan ab --gate "$GATE" --arch "$ARCH" --dry-run
nh ab-long-sequential ab --gate "$GATE" --arch "$ARCH"
nh ab-long-aa ab --gate "$GATE" --arch "$ARCH" --aa --budget 16
[ -d .nh-gate/runs ] && tar -czf "$OUT/ab-sequential-runs.tgz" .nh-gate/runs .nh-gate/ledger.jsonl 2>> "$LOG"
cat "$OUT/ab-sequential-exit-codes.txt" | tee -a "$LOG"
