#!/usr/bin/env bash
# The GPU proof battery (issue #23): every GPU-facing instrument and gate, re-proven in ONE device call on the
# H200, each check printed PASS / FAIL / SKIPPED / NOT RUN with its threshold and figure, exit non-zero (and
# which) when any fails. Any issue that changes code on the GPU path runs it before it is resolved.
#
#   here:  scripts/gpu/pack-prove.sh          (dist + node_modules + addon, node, doctest, llama.cpp source)
#   H200:  run(command="bash scripts/gpu/prove.sh", carry=[".device", ".carry/app", ".carry/doctest", ".carry/llama"])
#          run(command="bash scripts/gpu/prove.sh llama,a3-long")        (a subset, by name)
#   list:  bash scripts/gpu/prove.sh --list
#
# Checks, in order (each runs when selected, its needs are met and its estimate fits the budget):
#   probe       nh-gate probe names the silicon                              any arch
#   build       nh-gate build --flag DEVICE_MAMBA is BUILT (on cpu: no flag)  any arch
#   calibrate   busy vs CUDA-event truth at 4 duties (one-block, full-GPU, irregular bursts, torch bursts),
#               GPM SM_UTIL tracking duty, sampler CPU vs an nvidia-smi -lms 100 loop (scripts/calibrate/run.mjs)
#   busy-cli    nh-gate busy --start-marker 'LOAD READY' over the bursts load, 20% and 80%
#   ab-long     nh-gate ab --gate gates/nh-ref/device-ab-long.json: SUPPORTED
#   ab-medium   nh-gate ab --gate gates/nh-ref/device-ab-medium.json: SUPPORTED
#   a3-medium   nh-gate a3 --recipe nh-ref-medium: STRICT PASS                any arch
#   a3-long     nh-gate a3 --recipe nh-ref-long: STRICT PASS
#   slots, filled by other work; each runs its script when the script is in the tree, else SKIPPED by name:
#   ab-sequential  scripts/gpu/ab-sequential.sh   (DEVICE_MAMBA, sequential A/B)
#   mutants        scripts/gpu/mutate-device.sh   (device-code mutants and their proofs)
#   llama          scripts/gpu/llama-cpp.sh       (llama.cpp CUDA build, a3 and one A/B; needs .carry/llama;
#                                                  the build is kept on a warm machine, so a second call resumes it)
# A slot script runs from the repo root with OUT (its own folder, kept in the evidence), NH_GPU_ARCH,
# NH_GPU_JOBS and NH_PROVE_STEP_S (seconds it may use) set; it exits 0 when its checks pass and may print
# lines "PASS name — threshold: figure" / "FAIL …", recorded one check each.
#
# Budget: NH_PROVE_BUDGET_S (default 570) for all steps (estimates: --list; NH_PROVE_EST overrides them); a
# step whose estimate does not fit what is left is NOT RUN (budget) by name, and a step that runs past what is
# left is stopped and FAILs. Exit: 1 when a check failed, 3 when none failed but one did not run (or nothing
# was judged), 0 otherwise (SKIPPED is named, not a pass). NH_GPU_ARCH=cpu runs the same plumbing on a host
# without a GPU: the GPU checks are SKIPPED by name. NH_PROVE_LOCAL=1 uses this checkout's node, dist/ and
# addon instead of the carried ones, NH_PROVE_STAGE a working folder other than .gpu/prove (tests).
#
# Results, at most 8 files in $OUT (what is more is in evidence.tgz), written after every step so a call cut
# short still returns what it did: summary.txt, prove.log, busy-table.md (docs/gpu-verdicts.md's table),
# COMMIT, evidence.tgz (run directories, calibration rows and samples, slot outputs, checks.jsonl).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
SELF=$ROOT/scripts/gpu/prove.sh
ARCH=${NH_GPU_ARCH:-90}
JOBS=${NH_GPU_JOBS:-$(nproc 2>/dev/null || echo 4)}
BUDGET_S=${NH_PROVE_BUDGET_S:-570}
OUT=${OUT:-$ROOT/.gpu-out}
STAGE=${NH_PROVE_STAGE:-$ROOT/.gpu/prove}
ORDER=(probe build calibrate busy-cli ab-long ab-medium a3-medium a3-long ab-sequential mutants llama)
declare -A EST=([probe]=10 [build]=60 [calibrate]=150 [busy-cli]=30 [ab-long]=255 [ab-medium]=50 [a3-medium]=20 [a3-long]=90 [ab-sequential]=180 [mutants]=150 [llama]=240)
declare -A NEEDS_GPU=([probe]=0 [build]=0 [calibrate]=1 [busy-cli]=1 [ab-long]=1 [ab-medium]=1 [a3-medium]=0 [a3-long]=1 [ab-sequential]=1 [mutants]=1 [llama]=1)
declare -A SLOT=([ab-sequential]=scripts/gpu/ab-sequential.sh [mutants]=scripts/gpu/mutate-device.sh [llama]=scripts/gpu/llama-cpp.sh)
# Overrides without editing this file: NH_PROVE_EST="mutants=90,llama=300" (seconds), NH_PROVE_SLOT_MUTANTS=path.
est=${NH_PROVE_EST:-}
for kv in ${est//,/ }; do
  if ! [[ "$kv" =~ ^([a-z0-9-]+)=([0-9]+)$ ]] || [ -z "${EST[${BASH_REMATCH[1]}]:-}" ]; then
    echo "prove.sh: NH_PROVE_EST wants name=seconds,… with names from --list (got '$kv')" >&2
    exit 2
  fi
  EST[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done
for c in "${!SLOT[@]}"; do
  v="NH_PROVE_SLOT_$(tr 'a-z-' 'A-Z_' <<< "$c")"
  [ -z "${!v:-}" ] || SLOT[$c]=${!v}
done

if [ "${1:-}" = --list ]; then
  for c in "${ORDER[@]}"; do printf '%-14s ~%4s s  %s%s\n' "$c" "${EST[$c]}" "$([ "${NEEDS_GPU[$c]}" = 1 ] && echo 'GPU' || echo 'any arch')" "${SLOT[$c]:+  slot: ${SLOT[$c]}}"; done
  exit 0
fi
SELECTED=${1:-all}
if [ "$SELECTED" != all ] && [ "$SELECTED" != --step ]; then
  for c in ${SELECTED//,/ }; do
    [ -n "${EST[$c]:-}" ] || { echo "prove.sh: no check named '$c' (scripts/gpu/prove.sh --list names them)" >&2; exit 2; }
  done
fi
selected() { [ "$SELECTED" = all ] || case ",$SELECTED," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

export T0=${T0:-$(date +%s)}
export PROVE_CHECKS=$STAGE/checks.jsonl
LOG=$OUT/prove.log
say() { echo "[prove.sh $(date +%T) +$(( $(date +%s) - T0 ))s] $*" | tee -a "$LOG" >&2; }
lib() { node scripts/gpu/prove-lib.mjs "$@" | tee -a "$LOG"; }
unxz_to() { # unxz_to SRC DEST: xz when present, else Python's lzma (the GPU image has python3, not xz)
  if command -v xz >/dev/null 2>&1; then xz -dc "$1" > "$2"; else python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' "$1" "$2"; fi
}


nh() { # nh NAME ARGS...: one nh-gate command, its own results dir, output in $STAGE/NAME.txt; sets RC
  local name=$1; shift
  say "\$ nh-gate $*"
  node bin/nh-gate.js "$@" > "$STAGE/$name.txt" 2>&1
  RC=$?
  { echo "===== $name: nh-gate $* (exit $RC)"; cat "$STAGE/$name.txt"; } >> "$LOG"
}
results() { echo "$STAGE/results/$1"; }

step_probe() { # on a GPU arch the silicon must come from NVML and the busy sampler must be the addon
  nh probe probe
  local figure ok=0
  figure=$(grep -E '^(silicon|busy sampler)' "$STAGE/probe.txt" | tr -s ' ' | tr '\n' ';' | cut -c1-240)
  if [ "$ARCH" = cpu ]; then [ "$RC" = 0 ] && ok=1
  else [ "$RC" = 0 ] && grep -q '^silicon.*\[from nvml\]' "$STAGE/probe.txt" && grep -q '^busy sampler *nvml' "$STAGE/probe.txt" && ok=1; fi
  lib record probe probe "$([ "$ok" = 1 ] && echo PASS || echo FAIL)" "exit 0$([ "$ARCH" = cpu ] || echo '; silicon from NVML; busy sampler nvml')" "exit $RC; ${figure:-no silicon line}"
}
step_build() { # the device arm's cells only exist on a GPU arch
  if [ "$ARCH" = cpu ]; then nh build build --arch cpu --jobs "$JOBS"; else nh build build --arch "$ARCH" --flag DEVICE_MAMBA --jobs "$JOBS"; fi
  local word
  word=$(grep -m1 -oE 'BUILT|FAILED|DEGRADED[A-Z_]*|REFUSED' "$STAGE/build.txt")
  lib record build build "$([ "$RC" = 0 ] && echo PASS || echo FAIL)" 'exit 0, BUILT' "exit $RC; ${word:-no verdict word}; $(tail -n1 "$STAGE/build.txt" | cut -c1-160)"
}
step_calibrate() {
  sh native/calibrate/build.sh > "$STAGE/calibrate-build.txt" 2>&1 || { cat "$STAGE/calibrate-build.txt" >> "$LOG"; lib record calibrate calibrate FAIL 'native/calibrate/build.sh builds nh-duty' "$(tail -n2 "$STAGE/calibrate-build.txt" | tr '\n' ' ')"; return; }
  say "\$ node scripts/calibrate/run.mjs --out $STAGE/calibrate --seconds ${NH_CAL_SECONDS:-4}"
  node scripts/calibrate/run.mjs --out "$STAGE/calibrate" --seconds "${NH_CAL_SECONDS:-4}" > "$STAGE/calibrate.txt" 2>&1
  local rc=$?
  { echo "===== calibrate (exit $rc)"; cat "$STAGE/calibrate.txt"; } >> "$LOG"
  [ -f "$STAGE/calibrate/busy-table.md" ] && cp "$STAGE/calibrate/busy-table.md" "$OUT/busy-table.md"
  lib judge-calibrate calibrate "$STAGE/calibrate" "$rc" "$STAGE/calibrate.txt"
}
step_busy_cli() {
  [ -x native/calibrate/build/nh-duty ] || sh native/calibrate/build.sh >> "$LOG" 2>&1
  local d
  for d in 0.2 0.8; do
    nh "busy-cli-$d" busy --start-marker 'LOAD READY' --results-dir "$(results "busy-cli-$d")" -- \
      native/calibrate/build/nh-duty --pattern bursts --variant full-gpu --duty "$d" --seconds 5 --seed 2 --ready-line
    lib judge-busy-cli busy-cli "$d" "$(results "busy-cli-$d")" "$RC" "$STAGE/busy-cli-$d.txt"
  done
}
gate_step() { # gate_step NAME a3|ab ARGS...: an nh-gate a3/ab judged from its result.json
  local name=$1 kind=$2; shift 2
  nh "$name" "$kind" "$@" --arch "$ARCH" --jobs "$JOBS" --results-dir "$(results "$name")"
  lib judge-run "$name" "$kind" "$(results "$name")" "$RC" "$STAGE/$name.txt"
}
step_ab_long() { gate_step ab-long ab --gate gates/nh-ref/device-ab-long.json; }
step_ab_medium() { gate_step ab-medium ab --gate gates/nh-ref/device-ab-medium.json; }
step_a3_medium() { gate_step a3-medium a3 --recipe nh-ref-medium; }
step_a3_long() { gate_step a3-long a3 --recipe nh-ref-long; }
step_slot() { # step_slot NAME: the slot's script, judged by its own lines or its exit code
  local name=$1 script=${SLOT[$1]} left=$2
  mkdir -p "$STAGE/slots/$name"
  local -a env=(OUT="$STAGE/slots/$name" NH_GPU_ARCH="$ARCH" NH_GPU_JOBS="$JOBS" NH_PROVE_STEP_S="$left")
  # llama.cpp: its CUDA build bounded so a3 and one A/B still fit; the build folder survives on a warm machine.
  # NH_LLAMA_ABS (default no-cuda-graphs) names the A/Bs it runs: e.g. no-cuda-graphs,no-cuda-graphs-serve.
  [ "$name" = llama ] && env+=(NH_GPU_BUILD_S="$(( left > 200 ? left - 140 : 60 ))" NH_LLAMA_ABS="${NH_LLAMA_ABS:-no-cuda-graphs}")
  say "\$ ${env[*]} bash $script"
  env "${env[@]}" bash "$script" > "$STAGE/slot-$name.txt" 2>&1
  local rc=$?
  { echo "===== slot $name: $script (exit $rc)"; cat "$STAGE/slot-$name.txt"; } >> "$LOG"
  if [ "$name" = llama ]; then judge_llama "$rc"; else lib judge-lines "$name" "$rc" "$STAGE/slot-$name.txt"; fi
}
judge_llama() { # llama-cpp.sh exits 0 even when its build ran out of time: its exit-codes.txt says what ran
  local codes=$STAGE/slots/llama/exit-codes.txt step rc
  [ -f "$codes" ] || { lib record llama llama FAIL 'scripts/gpu/llama-cpp.sh writes exit-codes.txt' "exit $1: $(tail -n2 "$STAGE/slot-llama.txt" | tr '\n' ' ')"; return; }
  while read -r step rc; do
    case "$step" in
      build)
        if [ "$rc" = 0 ]; then lib record llama llama/build PASS 'CUDA build of llama-server, exit 0' 'BUILT'
        else lib record llama llama/build FAIL 'CUDA build of llama-server, exit 0' "exit $rc: not finished in its time (the build folder is kept on a warm machine: run prove.sh llama again)"; fi ;;
      a3|ab-*) lib record llama "llama/$step" "$([ "$rc" = 0 ] && echo PASS || echo FAIL)" 'exit 0 (a3: STRICT PASS; ab: the gate passes)' "exit $rc; $(grep -oE '^(STRICT PASS|NEAR-TIE PASS|DIVERGENCE|SUPPORTED|REFUTED|UNRESOLVED|VOID|NOT MEASURED)' "$ROOT/.gpu-stage/$step.txt" 2>/dev/null | tail -n1 | grep . || echo 'no verdict line')" ;;
    esac
  done < "$codes"
}

keep() { # the evidence so far into $OUT (at most 8 files there): rewritten after every step
  tar -czf "$OUT/evidence.tgz.tmp" -C "$STAGE" . 2>>"$LOG" && mv -f "$OUT/evidence.tgz.tmp" "$OUT/evidence.tgz"
  node scripts/gpu/prove-lib.mjs summary "$(head -n1 "$OUT/COMMIT")" > "$OUT/summary.txt" 2>&1
}

# A step runs in a child of this script (so a hung step can be stopped): `prove.sh --step FUNCTION ARGS...`.
if [ "${1:-}" = --step ]; then
  shift
  "$@"
  exit $?
fi

rm -rf "$STAGE" && mkdir -p "$STAGE" "$OUT"
: > "$PROVE_CHECKS"
: > "$LOG"
# ---- setup: node, the app (dist, runtime node_modules, the NVML addon), doctest's header ----
if [ "${NH_PROVE_LOCAL:-0}" != 1 ]; then
  [ -f .device/node.xz ] || { say "FATAL: .device/node.xz missing (run scripts/gpu/pack-prove.sh here, carry .device)"; exit 2; }
  [ -f .carry/app/app.tar.xz ] || { say "FATAL: .carry/app/app.tar.xz missing (run scripts/gpu/pack-prove.sh here, carry .carry/app)"; exit 2; }
  mkdir -p .gpu/bin
  [ -x .gpu/bin/node ] || { unxz_to .device/node.xz .gpu/bin/node.tmp && chmod +x .gpu/bin/node.tmp && mv .gpu/bin/node.tmp .gpu/bin/node; }
  export PATH="$ROOT/.gpu/bin:$PATH"
  unxz_to .carry/app/app.tar.xz .gpu/app.tar && rm -rf dist && tar -xf .gpu/app.tar -C "$ROOT" && rm -f .gpu/app.tar
  if [ -f addon/nh_nvml.node ]; then mkdir -p native/addon/build/Release && mv -f addon/nh_nvml.node native/addon/build/Release/ && rmdir addon; fi
fi
command -v node >/dev/null 2>&1 || { say "FATAL: no node on PATH"; exit 2; }
[ -f dist/cli/main.js ] || { say "FATAL: dist/cli/main.js missing (the app did not unpack; NH_PROVE_LOCAL=1 needs npm run build)"; exit 2; }
export CMAKE_INCLUDE_PATH="$ROOT/.carry${CMAKE_INCLUDE_PATH:+:$CMAKE_INCLUDE_PATH}"
export NH_GATE_LOCK="$ROOT/.nh-gate/gpu.lock"
{
  echo "packed from: $(cat .carry/app/PACKED_FROM 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "packed tree: $(cat .carry/app/PACKED_STATE 2>/dev/null || echo unknown)"
  echo "ran: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n); arch $ARCH; jobs $JOBS; budget ${BUDGET_S}s; checks $SELECTED"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader 2>/dev/null | head -1 || echo none)"
  echo "node $(node --version); nvcc $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo absent); python3 $(python3 -c 'import sys; print(sys.version.split()[0])' 2>/dev/null || echo absent)"
} > "$OUT/COMMIT"
say "$(tr '\n' ';' < "$OUT/COMMIT")"

for c in "${ORDER[@]}"; do
  selected "$c" || continue
  left=$(( BUDGET_S - ($(date +%s) - T0) ))
  if [ "${NEEDS_GPU[$c]}" = 1 ] && [ "$ARCH" = cpu ]; then
    lib record "$c" "$c" SKIPPED 'needs a GPU' 'NH_GPU_ARCH=cpu: not a GPU result'
  elif [ -n "${SLOT[$c]:-}" ] && [ ! -f "${SLOT[$c]}" ]; then
    lib record "$c" "$c" SKIPPED "slot: runs ${SLOT[$c]}" 'the script is not in this tree yet'
  elif [ "$c" = llama ] && [ ! -f .carry/llama/llama-src.tar.xz ]; then
    lib record llama llama SKIPPED 'slot: needs .carry/llama' 'not carried (run scripts/gpu/pack-llama.sh here, carry .carry/llama)'
  elif [ "${EST[$c]}" -gt "$left" ]; then
    lib record "$c" "$c" 'NOT RUN' "budget: needs ~${EST[$c]} s" "${left} s of ${BUDGET_S} s left — run it alone: scripts/gpu/prove.sh $c"
  else
    say "---- $c (estimate ${EST[$c]} s, ${left} s left)"
    s0=$(date +%s)
    if [ -n "${SLOT[$c]:-}" ]; then fn=(step_slot "$c" "$left"); else fn=("step_${c//-/_}"); fi
    # The step runs in a child with the time left: one that hangs is stopped and FAILs instead of the call.
    before=$(grep -c "\"step\":\"$c\"" "$PROVE_CHECKS")
    timeout --kill-after=10 "$left" bash "$SELF" --step "${fn[@]}"
    rc=$?
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then lib record "$c" "$c" FAIL "finishes within the ${left} s left" "stopped after $(( $(date +%s) - s0 )) s: the check did not finish"
    elif [ "$(grep -c "\"step\":\"$c\"" "$PROVE_CHECKS")" = "$before" ]; then lib record "$c" "$c" FAIL 'the step records its checks' "it recorded none (exit $rc)"; fi
    say "---- $c done in $(( $(date +%s) - s0 )) s"
  fi
  keep
done
say "files in \$OUT: $(cd "$OUT" && echo *)"
keep
if [ -f "$OUT/busy-table.md" ]; then printf '\nbusy-table.md (docs/gpu-verdicts.md, "After"):\n%s\n\n' "$(cat "$OUT/busy-table.md")" | tee -a "$LOG"; fi
tee -a "$LOG" < "$OUT/summary.txt"
node scripts/gpu/prove-lib.mjs summary > /dev/null
exit $?
