import { mkdirSync, mkdtempSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { golden } from './fixtures.js';
import type { GateDeps } from '../../src/gates/deps.js';
import { realDeps } from '../../src/gates/deps.js';
import { monoS } from '../../src/exec/clock.js';
import type { Silicon } from '../../src/silicon/types.js';

// A stand-in driver (sh) speaking the nh-ref line shapes, for failures the real engine cannot be made to
// have on demand: no load line, a crash mid-decode, a hang with a child, a lying verdict.
const DRIVER = String.raw`#!/bin/sh
mode="$FAKE_MODE"
if [ -n "$FAKE_CRASH_WHEN" ] && [ "$FAKE_CRASH_WHEN" = "$FAKE_FLAG" ]; then mode=crash; fi
d="$FAKE_DECODE_S"; [ -n "$d" ] || d=0.1
l="$FAKE_LOAD_S"; [ -n "$l" ] || l=0.05
# FAKE_COUNT_FILE counts the driver's runs; run number FAKE_SLOW_RUN decodes for FAKE_SLOW_S instead (one slow leg of a series).
if [ -n "$FAKE_COUNT_FILE" ]; then n=$(( $(cat "$FAKE_COUNT_FILE" 2>/dev/null || echo 0) + 1 )); echo "$n" >"$FAKE_COUNT_FILE"; [ "$n" = "$FAKE_SLOW_RUN" ] && d="$FAKE_SLOW_S"; fi
# FAKE_HOLD_FILE (with FAKE_COUNT_FILE): from the second run on, the driver waits (up to 60 s) for that file before
# it loads: a test releases it only after it has seen the first leg's line, so a line printed at the end cannot pass.
if [ -n "$FAKE_HOLD_FILE" ] && [ -n "$n" ] && [ "$n" -ge 2 ]; then i=0; while [ ! -e "$FAKE_HOLD_FILE" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; fi
[ "$mode" = "noload" ] || { sleep "$l"; echo "[nh-ref] engine loaded in $l s"; }
case "$mode" in
  hang) sleep 30 & echo "child $!"; wait; exit 0;;
  crash) echo "[nh-ref] prompt 0: prompt_tokens=3 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s"; echo "about to fail" >&2; kill -SEGV $$;;
esac
sleep "$d"
echo "[nh-ref] prompt 0: prompt_tokens=3 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s"
if [ "$mode" = "liar2" ]; then
  echo "[nh-ref] prompt 1: prompt_tokens=2 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s"
  echo "[nh-ref] TOKEN MATCH: 8/8 over 2 prompt(s) (full rows=2, short rows=0, mode=decode)"
  echo "[nh-ref] DIVERGENCE: made up"; exit 1
fi
if [ "$mode" = "liar" ]; then
  echo "[nh-ref] prompt 1: prompt_tokens=2 generated=4 golden_width=4 compared=4 matched=3 wall=0.01s"
  echo "[nh-ref]   got: 20 21 22 99"
  echo "[nh-ref] TOKEN MATCH: 8/8 over 2 prompt(s) (full rows=2, short rows=0, mode=decode)"
  echo "[nh-ref] STRICT PASS"; exit 0
fi
echo "[nh-ref] prompt 1: prompt_tokens=2 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s"
echo "[nh-ref] TOKEN MATCH: 8/8 over 2 prompt(s) (full rows=2, short rows=0, mode=decode)"
echo "[nh-ref] STRICT PASS"
`;

export interface FakeRepo {
  root: string;
  recipePath: string;
  goldenPath: string;
}

// A throwaway repo: recipes/fake.json, goldens/g-test/golden.json, driver.sh. Build steps are 'true'.
export function fakeRepo(env: Record<string, string>, timeoutS = 20): FakeRepo {
  const root = mkdtempSync(join(tmpdir(), 'nh-fake-'));
  mkdirSync(join(root, 'recipes'));
  mkdirSync(join(root, 'goldens', 'g-test'), { recursive: true });
  writeFileSync(join(root, 'driver.sh'), DRIVER, { mode: 0o755 });
  writeFileSync(join(root, 'goldens', 'g-test', 'golden.json'), JSON.stringify(golden()));
  const recipe = {
    schemaVersion: 1, name: 'fake', profile: 'nh-ref', sourceDir: '.', buildDir: 'build-{arch}',
    configure: ['true'], build: ['true'], archs: { cpu: {}, '90': {} },
    driver: { argv: ['sh', '{root}/driver.sh'], binary: '{root}/driver.sh', env, timeoutS },
    flags: { FLAG: { env: 'FAKE_FLAG', on: '1', off: '0', default: 'off' } },
    defaultGolden: 'g-test',
  };
  writeFileSync(join(root, 'recipes', 'fake.json'), JSON.stringify(recipe, null, 2));
  return { root, recipePath: join(root, 'recipes', 'fake.json'), goldenPath: join(root, 'goldens', 'g-test', 'golden.json') };
}

export const H200: Silicon = {
  kind: 'gpu', gpuName: 'NVIDIA H200', uuid: 'GPU-fake', computeCapability: '9.0', smArch: 'sm_90', archTarget: '90a',
  driverVersion: 'x', cudaDriverVersion: 'x', maxSmClockMHz: 1980, cpuModel: 'test CPU', source: 'claimed',
};

// Real executor and clock; the GPU side replaced by a sampler that writes 50%-busy samples every 20 ms
// (a stand-in: this host has no GPU). foreignPid, when set, shows up as a compute process during the leg.
export async function depsWithFakeGpu(opts: { foreignPid?: number } = {}): Promise<GateDeps> {
  const real = await realDeps();
  return {
    ...real,
    detectSilicon: async () => H200,
    computeProcesses: async () => ({ status: 'measured', backend: 'nvml', processes: [] }),
    openBusySampler: async ({ samplesPath }) => {
      writeFileSync(samplesPath, JSON.stringify({ kind: 'header', schemaVersion: 1, source: 'nvml', clock: 'monotonic_s', clockConversion: 'test', nominalPeriodMs: 20 }) + '\n');
      let count = 0;
      const timer = setInterval(() => {
        count += 1;
        appendFileSync(samplesPath, JSON.stringify({ kind: 'util', tS: monoS(process.hrtime.bigint()), gpuPct: 50, periodS: 0.02 }) + '\n');
        if (opts.foreignPid) appendFileSync(samplesPath, JSON.stringify({ kind: 'procs', tS: monoS(process.hrtime.bigint()), pids: [opts.foreignPid] }) + '\n');
      }, 20);
      const startS = monoS(process.hrtime.bigint());
      return {
        backend: 'nvml', deviceIndex: 0, samplesPath,
        stop: async () => {
          clearInterval(timer);
          return { backend: 'nvml', samplesPath, count, errors: [], partial: false, startS, stopS: monoS(process.hrtime.bigint()), samplerCpuS: null };
        },
      };
    },
  };
}
