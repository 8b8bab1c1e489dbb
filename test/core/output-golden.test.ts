import { reason } from '../../src/verdict/reasons.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measured, refused, withheld } from '../../src/quantity/make.js';
import { perOutputToken } from '../../src/quantity/perToken.js';
import { RESULT_SCHEMA_VERSION, type LegRecord, type RunResult } from '../../src/results/types.js';
import type { Silicon } from '../../src/silicon/types.js';
import { textReport } from '../../src/report/live.js';
import { SERIALIZERS } from '../../src/report/exports.js';
import { renderSummaryMd } from '../../src/report/summary.js';
import { renderHtml } from '../../src/report/html.js';
import { leg } from '../gates/fixtures.js';
import { serveAbRun } from './serveRun.js';

// Every output a run makes from its result (the default text, --verbose, the four exports, summary.md and
// report.html), for runs that hold every kind of leg (a serve A/B's loads among them), pinned in test/core/golden/output/. A deliberate change
// is accepted explicitly: NHG_ACCEPT=1 npx vitest run test/core/output-golden.test.ts (then review the diff).
const DIR = join(import.meta.dirname, 'golden', 'output');

const GPU: Silicon = {
  kind: 'gpu', gpuName: 'NVIDIA H200', uuid: 'GPU-1', computeCapability: '9.0', smArch: 'sm_90', archTarget: '90a',
  driverVersion: '570', cudaDriverVersion: '12.8', maxSmClockMHz: 1980, cpuModel: 'EPYC', source: 'nvml',
};

// A sampled GPU leg: per-token over a decode window, busy, GPM activity, clocks.
function gpu(index: number, arm: 'A' | 'B', windowS: number, busyPct: number): LegRecord {
  const l = leg(index, arm, null);
  const n = { samples: { value: 20, unit: 'samples', label: 'clock samples in the window' } };
  return {
    ...l, label: `${arm}${index} DEVICE_MAMBA=${arm === 'A' ? 'off' : 'on'}`, logFile: `legs/leg-0${index + 1}-${arm}.log`,
    process: { ...l.process, startS: 5 * index, endS: 5 * index + windowS + 1.25 },
    decodeWindow: { startS: 5 * index + 1, endS: 5 * index + 1 + windowS, source: 'harness' },
    tokens: { source: 'events', mode: 'decode', prompts: [], compared: 96, matched: 96, fullRows: 3, shortRows: 0, word: 'STRICT PASS', reasons: [], witness: 'harness' },
    quantities: {
      perOutputToken: perOutputToken({ decodeWindowS: windowS, tokensCompared: 96, loadS: 12.5 }),
      busy: measured('GPU busy (time-weighted)', 'busyTimeWeighted', busyPct, '%', { samples: { value: 21, unit: 'samples' }, windowS: { value: windowS, unit: 's' }, coverage: { value: 1, unit: 'fraction' }, samplePeriodS: { value: 0.2, unit: 's' } }),
      smUtil: measured('SM activity (GPM SM_UTIL)', 'gpmActivity', busyPct / 3, '%', { intervals: { value: 30, unit: 'intervals' } }),
      smClockMin: measured('SM clock (min)', 'smClock', 1845, 'MHz', n),
      smClockMedian: measured('SM clock (median)', 'smClock', 1980, 'MHz', n),
    },
    samplerBackend: 'nvml',
    clocks: { throttled: false, throttleReasons: [], reasons: {}, samples: 20, line: 'SM clock min 1845 MHz, median 1980 MHz over 20 clock sample(s); clock-event reasons none' },
  };
}

function gpuRun(): RunResult {
  const warm = gpu(0, 'A', 3, 40);
  const a1 = { ...gpu(1, 'B', 1.5, 81), samplerNote: 'sampled by nvml (GPM every 0.1 s)', slurm: { jobId: '41', node: 'n1', state: 'COMPLETED', reason: null, exitCode: '0:0', source: 'sacct' as const }, silicon: GPU };
  const a2 = gpu(2, 'A', 3.25, 41);
  const hot = { ...gpu(3, 'A', 3.5, 42), clocks: { throttled: true, throttleReasons: ['SwThermalSlowdown'], reasons: { SwThermalSlowdown: 4 }, samples: 20, line: 'SM clock min 1410 MHz, median 1755 MHz over 20 clock sample(s); clock-event reasons SwThermalSlowdown×4 — THROTTLED (SwThermalSlowdown)' } };
  const dead: LegRecord = {
    ...leg(4, 'B', null, { verdict: 'VOID' }), label: 'B4 DEVICE_MAMBA=on', logFile: 'legs/leg-05-B.log', referenceTierLines: 2,
    voidReasons: [{ code: 'TIMEOUT', message: 'the driver ran past its limit; its process tree was killed' }],
    quantities: { perOutputToken: refused('per output token', 'TIMEOUT', 'the leg is void — no speed is taken from it'), busy: withheld('GPU busy (time-weighted)', 'CROSS_SILICON', 'taken on other silicon') },
  };
  const wrong: LegRecord = {
    ...gpu(5, 'B', 1.75, 79), verdict: 'DIVERGENCE', contention: { foreignPids: [], checked: true, note: '', cpu: 'CPU_CONTENDED: other processes used 1.9 of 2.0 CPU-s' },
    tokens: { source: 'engine claim', mode: 'decode', compared: 96, matched: 95, fullRows: 3, shortRows: 0, word: 'DIVERGENCE', reasons: [{ code: 'WRONG_TOKENS', message: '1 token differs' }], witness: 'engine',
      prompts: [{ prompt: 2, goldenWidth: 32, generated: 32, compared: 32, matched: 31, status: 'divergence', firstMismatch: { position: 7, got: 99, exp: 12, marginNats: 1.25 }, got: [1, 99], exp: [1, 12] }] },
    crossCheck: { engineWord: 'STRICT PASS', engineExit: 0, engineCompared: 96, engineMatched: 96, agree: false, explanation: 'the engine says 96/96, the harness 95/96' },
  };
  wrong.quantities = { ...wrong.quantities, perOutputToken: perOutputToken({ decodeWindowS: 1.75, tokensCompared: 96, tokensMatched: 95 }) };
  return {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: { name: 'nh-gate', version: '0.1.0' }, command: 'ab', argv: ['ab'], runDir: '/runs/20261201T000000Z-dev-ab',
    startedAt: '2026-12-01T00:00:00.000Z', finishedAt: '2026-12-01T00:01:00.000Z', status: 'complete', recipe: { name: 'nh-ref', path: null },
    golden: { name: 'nh-ref-tiny', revision: 'r1', path: null }, gate: { name: 'dev-ab', path: 'gates/dev.json', sha256: 'c'.repeat(64), hypothesis: null },
    arch: '90', silicon: GPU,
    build: { recipe: 'nh-ref', arch: '90', sourceDir: '/s', buildDir: '/b', jobs: 2, cells: [], requiredCells: [], missingCells: [], compileErrors: 0, enospcHits: 0, noWork: true, stepsRun: 0, outputs: [{ path: '/b/nh-ref-gen', sha256: 'd'.repeat(64) }], verdict: 'BUILT', voidReason: null, message: 'nothing to rebuild', cause: [], prerequisite: null, logFile: 'build.log' },
    plan: { text: 'A/B of DEVICE_MAMBA (NH_REF_DEVICE_MAMBA): A=off B=on, order abba, 6 legs\n  leg 1: warm-up 1 (A, discarded)', order: 'abba', seed: null, legs: 6, warmupLegs: 1 },
    legs: [warm, a1, a2, hot, dead, wrong],
    quantities: { ratio: measured('per output token ratio B/A', 'ratio', 0.48, 'x', { numerator: { value: 0.016, unit: 's' }, denominator: { value: 0.0333, unit: 's' } }) },
    comparison: null, verdict: { word: 'VOID', exitClass: 'void', reasons: [reason('LEG_NOT_PASSED', 'leg 5 (B4 DEVICE_MAMBA=on): VOID — TIMEOUT'), reason('LEG_NOT_PASSED', 'leg 6 diverged')] }, notes: ['warm-up: the first 1 leg(s) ran and were discarded (gate warmupLegs)'],
  };
}

// a3 in both modes on a CPU host: one leg per mode, no arms.
function a3Run(): RunResult {
  const decode = { ...leg(0, 'A', 0.000184), arm: 'single' as const, label: 'a3 decode', samplerNote: 'no GPU on this host — busy not sampled' };
  const prefill = { ...decode, index: 1, label: 'a3 fresh-prefill', mode: 'fresh-prefill', quantities: { perOutputToken: perOutputToken({ decodeWindowS: 0.5, tokensCompared: 128 }) } };
  return { ...gpuRun(), command: 'a3', gate: null, silicon: null, arch: 'cpu', runDir: '/runs/a3', plan: { text: 'A3: 2 leg(s)', order: 'single', seed: null, legs: 2 }, legs: [decode, prefill], quantities: {}, notes: [], verdict: { word: 'STRICT PASS', exitClass: 'passed', reasons: [] } };
}

// A run that stopped at its build: no legs at all.
function buildFailed(): RunResult {
  return { ...a3Run(), runDir: '/runs/bf', plan: null, legs: [], build: null, recipe: null, golden: null, status: 'failed', verdict: { word: 'VOID', exitClass: 'void', reasons: [reason('BUILD_FAILED', 'configure failed')] } };
}

function text(r: RunResult, verbose: boolean): string {
  const out: string[] = [];
  const t = textReport((s) => out.push(s), { verbose });
  t.saved({ ...r, legs: r.legs.slice(0, 1), status: 'running' });
  t.saved(r);
  t.end(r);
  return out.join('');
}

function outputs(): Record<string, string> {
  const files: Record<string, string> = {};
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10"/></svg>';
  for (const [name, r] of [['gpu-ab', gpuRun()], ['a3-both', a3Run()], ['build-failed', buildFailed()], ['serve-ab', serveAbRun()]] as const) {
    files[`${name}.txt`] = text(r, false);
    files[`${name}.verbose.txt`] = text(r, true);
    for (const [format, serialize] of Object.entries(SERIALIZERS)) files[`${name}.${format}`] = serialize(r);
    files[`${name}.summary.md`] = renderSummaryMd(r, ['ab-per-token.svg']);
    files[`${name}.html`] = renderHtml(r, [{ file: 'ab-per-token.svg', svg }]);
  }
  return files;
}

describe('output golden files', () => {
  const actual = outputs();
  if (process.env.NHG_ACCEPT === '1') {
    mkdirSync(DIR, { recursive: true });
    for (const [f, s] of Object.entries(actual)) writeFileSync(join(DIR, f), s);
  }
  for (const [f, s] of Object.entries(actual)) {
    it(`${f} matches test/core/golden/output/${f}`, () => {
      const path = join(DIR, f);
      // A missing golden fails: it is never written without NHG_ACCEPT=1.
      expect(existsSync(path), `${path} is missing: review the output and accept it with NHG_ACCEPT=1`).toBe(true);
      expect(s).toBe(readFileSync(path, 'utf8'));
    });
  }
});
