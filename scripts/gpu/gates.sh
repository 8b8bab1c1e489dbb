#!/usr/bin/env bash
# The H200 run of issue #4's live gates, for the lead to send through the device tool:
#   run(command="bash scripts/gpu/gates.sh", carry=[".device", ".carry/app", ".carry/doctest", ".carry/doctest-cmake"], timeout_s=600)
# after `scripts/gpu/pack.sh` here. It needs only the repo copy, .device/node.xz, .carry/app/app.tar.xz
# (dist + runtime node_modules + the NVML addon) and .carry/doctest* (the GPU image has no doctest-dev).
# Steps: probe the silicon; build the CUDA recipe for NH_GPU_ARCH (default 90); nh-gate a3 --arch 90
# (device arm on, busy over the decode window); nh-gate ab --gate gates/nh-ref/device-ab.json (DEVICE_MAMBA,
# per-leg busy and per-token). Results: at most 8 files in $OUT, tarballs for the run directories.
# NH_GPU_ARCH=cpu runs the same plumbing on a host without a GPU (how its CPU parts are tested).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/.gpu-out}
ARCH=${NH_GPU_ARCH:-90}
JOBS=${NH_GPU_JOBS:-$(nproc 2>/dev/null || echo 4)}
mkdir -p "$OUT"
LOG="$OUT/gates.log"
: > "$LOG"
say() { echo "[gates.sh] $*" | tee -a "$LOG"; }

# 1–3. node, the app and doctest, from the carried folders (scripts/gpu/env.sh, shared with mutate-device.sh)
. scripts/gpu/env.sh
gpu_env || exit 2
say "arch $ARCH; jobs $JOBS"

# nh (env.sh) writes each command's output and exit code under .gpu, staged into $OUT at the end
NH_STAGE="$ROOT/.gpu"
: > "$ROOT/.gpu/exit-codes.txt"

nh probe probe
nh build build --arch "$ARCH" --flag DEVICE_MAMBA --jobs "$JOBS"
nh a3 a3 --arch "$ARCH" --jobs "$JOBS"
nh ab-device ab --gate gates/nh-ref/device-ab.json --arch "$ARCH" --jobs "$JOBS"
nh a3-medium a3 --recipe nh-ref-medium --arch "$ARCH" --jobs "$JOBS"
nh ab-device-medium ab --gate gates/nh-ref/device-ab-medium.json --arch "$ARCH" --jobs "$JOBS"
if [ "$ARCH" != cpu ] && command -v nvcc >/dev/null 2>&1; then
  sh native/calibrate/build.sh >> "$LOG" 2>&1
  nh busy-duty busy -- native/calibrate/build/nh-duty --duty 0.33 --seconds 4 --variant full-gpu
fi

# 4. results: run directories and the ledger as one tarball (the tool returns files ≤ 2 folders deep)
if [ -d .nh-gate/runs ]; then
  tar -czf "$OUT/runs.tgz" .nh-gate/runs .nh-gate/ledger.jsonl 2>>"$LOG"
  for d in .nh-gate/runs/*; do
    case "$d" in *a3-nh-ref-medium*) cp "$d/summary.md" "$OUT/summary-a3-medium.md" ;; *a3*) cp "$d/summary.md" "$OUT/summary-a3.md" ;; *medium-device*) cp "$d/summary.md" "$OUT/summary-ab-device-medium.md" ;; *device*) cp "$d/summary.md" "$OUT/summary-ab-device.md"; cp "$d/report.html" "$OUT/report-ab-device.html" ;; esac
  done
fi
say "files in \$OUT: $(ls "$OUT" | tr '\n' ' ')"
cat "$ROOT/.gpu/exit-codes.txt" | tee -a "$LOG"
