#!/usr/bin/env bash
# One GPU-host call for the device arm: CUDA builds (90: the arm; 80: SASS-only, so a cc 9.0 GPU
# has NO kernel and the reference tier must announce itself), the doctest suites with the device
# cases running, tiny tokens vs the oracle golden on every arm, and device vs host per-token time
# on the medium preset. Usage (repo root): OUT=dir native/engine/scripts/h200-check.sh
set -uo pipefail
root="$(pwd)"
out="${OUT:-/tmp/nh-ref-h200}"
mkdir -p "$out"
eng="$root/native/engine"
doc="-DNH_REF_DOCTEST_INCLUDE=$root/.carry"
sum="$out/summary.txt"
log="$out/runs.log"
: >"$sum"; : >"$log"
note() { echo "$*" | tee -a "$sum"; }

nvidia-smi --query-gpu=name,uuid,compute_cap,driver_version,clocks.max.sm --format=csv,noheader | tee -a "$sum"
note "host: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
B="${NH_REF_PREBUILT:-$root/b90}"
if [ -z "${NH_REF_PREBUILT:-}" ]; then
  NH_REF_JOBS=12 "$eng/scripts/build-cuda.sh" 90 "$root/b90" "$doc" >"$out/build90.log" 2>&1 &
  NH_REF_JOBS=4 "$eng/scripts/build-cuda.sh" 80 "$root/b80" -DNH_REF_TESTS=OFF >"$out/build80.log" 2>&1 &
  wait
  grep -hE "nh-ref feature|nh-ref-build|error" "$out/build90.log" "$out/build80.log" | tee -a "$sum"
  if [ ! -x "$B/nh-ref-gen" ] && [ -x "$root/.carry/nhref-prebuilt/nh-ref-gen" ]; then
    B="$root/.carry/nhref-prebuilt"; note "BUILD ON THIS HOST FAILED: using the binaries built elsewhere in $B"
  fi
fi
"$B/nh-ref-ckpt" --preset tiny --out "$B/tiny.ckpt" | tee -a "$sum"
"$B/nh-ref-ckpt" --preset medium --out "$B/medium.ckpt" | tee -a "$sum"

"$B/nh-ref-tests" >"$out/suites.log" 2>&1; note "nh-ref-tests rc=$?"
grep -E "MESSAGE|test cases|assertions|Status" "$out/suites.log" | tee -a "$sum"

G="$root/goldens/nh-ref-tiny"
run() {  # label, env..., -- args...
  local label="$1"; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  local one="$out/one.log"
  env "${envs[@]}" "$@" >"$one" 2>&1
  local rc=$?
  { echo "=== $label: ${envs[*]} $*"; cat "$one"; } >>"$log"
  note "$label rc=$rc :: $(grep -E 'TOKEN MATCH|STRICT|DIVERGENCE|REFUSING|timing' "$one" | tr '\n' ' ')"
  note "$label reference-tier lines: $(grep -c 'reference-tier' "$one"); first decode ARM line: $(grep -m1 'ARM step T=1 nd=1' "$one")"
}
for dev in 0 1; do
  for step in 1 0; do
    run "tiny dev=$dev step=$step" NH_REF_DEVICE_MAMBA=$dev NH_REF_MAMBA_DECODE_STEP=$step NH_REF_ARM_TRACE=1 -- \
      "$B/nh-ref-gen" --checkpoint "$B/tiny.ckpt" --golden "$G" --mode both --events "$out/ev-tiny-$dev-$step.jsonl"
  done
done
run "tiny sm80-build dev=1 (reference tier expected)" NH_REF_DEVICE_MAMBA=1 NH_REF_ARM_TRACE=0 -- \
  "$root/b80/nh-ref-gen" --checkpoint "$B/tiny.ckpt" --golden "$G"

P1="The quick brown fox"; P2="In a hybrid decoder, the state"; P3="def fib(n):"
for rep in 1 2; do
  for dev in 0 1; do
    run "medium dev=$dev step=1 rep=$rep" NH_REF_DEVICE_MAMBA=$dev NH_REF_MAMBA_DECODE_STEP=1 -- \
      "$B/nh-ref-gen" --checkpoint "$B/medium.ckpt" --preset medium --prompt "$P1" --prompt "$P2" --prompt "$P3" --max-new 32 \
      --events "$out/ev-medium-$dev-$rep.jsonl"
  done
done
run "medium dev=1 step=0" NH_REF_DEVICE_MAMBA=1 NH_REF_MAMBA_DECODE_STEP=0 -- \
  "$B/nh-ref-gen" --checkpoint "$B/medium.ckpt" --preset medium --prompt "$P1" --prompt "$P2" --prompt "$P3" --max-new 32 \
  --events "$out/ev-medium-1-step0.jsonl"
for f in "$out"/ev-*.jsonl; do python3 "$eng/scripts/events_per_token.py" "$f" | sed "s#$out/##" | tee -a "$sum"; done
# Medium tokens: device vs host, per prompt (no medium golden: the host arm is the reference here).
awk '/^=== medium dev=0 step=1 rep=1/{f=1;next} /^===/{f=0} f && /tokens:/' "$log" >"$out/medium-host.tok"
awk '/^=== medium dev=1 step=1 rep=1/{f=1;next} /^===/{f=0} f && /tokens:/' "$log" >"$out/medium-dev.tok"
awk '/^=== medium dev=1 step=0/{f=1;next} /^===/{f=0} f && /tokens:/' "$log" >"$out/medium-dev0.tok"
if cmp -s "$out/medium-host.tok" "$out/medium-dev.tok" && cmp -s "$out/medium-host.tok" "$out/medium-dev0.tok"; then
  note "medium tokens: device (both decode arms) == host on all prompts ($(wc -l <"$out/medium-host.tok") rows)"
else
  note "medium tokens DIFFER between device and host:"; diff "$out/medium-host.tok" "$out/medium-dev.tok" | tee -a "$sum"
fi
rm -f "$out"/*.tok "$out"/one.log "$out"/ev-tiny-0-*.jsonl "$out"/ev-tiny-1-0.jsonl "$out"/ev-medium-*-2.jsonl "$out"/ev-medium-1-step0.jsonl
ls "$out"
