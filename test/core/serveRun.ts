import { GoldenSchema } from '../../src/config/golden.js';
import { measured } from '../../src/quantity/make.js';
import { assessLoad } from '../../src/serve/assess.js';
import { serveLegRecord } from '../../src/serve/abLegRecord.js';
import { servePoint } from '../../src/serve/record.js';
import type { PlannedLeg } from '../../src/plan/plan.js';
import type { RequestObservation, Slo } from '../../src/serve/types.js';
import { RESULT_SCHEMA_VERSION, type LegRecord, type RunResult } from '../../src/results/types.js';
import type { Silicon } from '../../src/silicon/types.js';
import { reason } from '../../src/verdict/reasons.js';
import { tinyGolden } from './fixtures.js';

// A serve A/B's result as `nh-gate ab --gate <a gate with a serve block>` records it, built from real load
// assessments (src/serve/assess.ts) over scripted requests, so the tables and exports read serve legs exactly
// as a run writes them: passing legs, a leg with one wrong response, and an INVALID load with a timed-out request.

const golden = GoldenSchema.parse(tinyGolden());
const shape = { kind: 'concurrency', inFlight: 2 } as const;
const limits = { minRequests: 4, minDurationS: 0, maxLateS: 0.1 };
const CPU: Silicon = { kind: 'cpu-only', gpuName: null, uuid: null, computeCapability: null, smArch: null, archTarget: null, driverVersion: null, cudaDriverVersion: null, maxSmClockMHz: null, cpuModel: 'AMD EPYC', source: 'none' };

// Four requests of three tokens, the first sent 0.25 s into the load, each `slow` s apart with token gaps of
// 0.1 × slow s.
function requests(slow: number, o: { wrong?: number; timeout?: number } = {}): RequestObservation[] {
  return [0, 1, 2, 3].map((index) => {
    const at = (t: number): number => 0.25 + t * slow;
    const r: RequestObservation = {
      index, prompt: index, scheduledS: null, sentS: at(index), tokenS: [1, 2, 3].map((k) => at(index + 0.1 * k)),
      ids: index === o.wrong ? [5, 9, 7] : [5, 6, 7], endS: at(index + 0.4), end: 'done', error: null, engine: null,
    };
    return index === o.timeout ? { ...r, ids: [5], tokenS: [r.tokenS[0]!], end: 'timeout', endS: at(index) + 9 } : r;
  });
}

function legInput(index: number, arm: 'A' | 'B', slow: number) {
  const n = arm === 'A' ? 1 : 2;
  const planned = { index, arm, label: `${arm}${index} THREADS=${n}`, env: { LLAMA_ARG_THREADS: String(n) }, mode: 'decode' } as PlannedLeg;
  const process = { argv: ['llama-server'], exitCode: null, signal: 'SIGTERM' as const, timedOut: false, interrupted: false, spawnError: null, end: 'signal SIGTERM', startS: 3 * index, endS: 3 * index + 1.5 + 4 * slow, lastLines: [] };
  return { planned, flagEnv: { LLAMA_ARG_THREADS: String(n) }, binarySha256: 'e'.repeat(64), process, logFile: `legs/leg-0${index + 1}-${arm}.server.log`, silicon: CPU };
}

export function serveLeg(index: number, arm: 'A' | 'B', slow: number, slo: Slo | null, o: { wrong?: number; timeout?: number } = {}): LegRecord {
  const reqs = requests(slow, o);
  const a = assessLoad({ golden, requests: reqs, shape, slo, loadS: 0.5, limits, server: { alive: true, why: null } });
  return serveLegRecord({ ...legInput(index, arm, slow), point: servePoint(shape, reqs, a), tokens: a.tokens, verdict: a.verdict, loadS: 0.5, why: null }).record;
}

// A leg whose server never got ready: no load, so no requests and no figures.
export function serverFailedLeg(index: number, arm: 'A' | 'B'): LegRecord {
  return serveLegRecord({ ...legInput(index, arm, 0), point: null, tokens: null, verdict: null, loadS: null, why: 'the server ended before it was ready (exit 1)' }).record;
}

// Six legs ABBAAB: B is 1.1× slower; leg 3 served one wrong token, leg 4's load had a request time out.
export function serveAbRun(slo: Slo | null = { ttftS: 2, tpotS: 0.5 }): RunResult {
  const legs = [serveLeg(0, 'A', 1, slo), serveLeg(1, 'B', 1.1, slo), serveLeg(2, 'B', 1.1, slo, { wrong: 2 }), serveLeg(3, 'A', 1, slo, { timeout: 3 }), serveLeg(4, 'A', 1.02, slo), serveLeg(5, 'B', 1.12, slo)];
  return {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: { name: 'nh-gate', version: '0.1.0' }, command: 'ab', argv: ['ab'], runDir: '/runs/20261202T000000Z-threads-serve-ab',
    startedAt: '2026-12-02T00:00:00.000Z', finishedAt: '2026-12-02T00:00:30.000Z', status: 'complete', recipe: { name: 'llama-cpp', path: null },
    golden: { name: 'nh-ref-tiny', revision: 'r1', path: null }, gate: { name: 'threads-serve-ab', path: 'gates/llama-cpp/threads-serve-ab.json', sha256: 'f'.repeat(64), hypothesis: null },
    arch: 'cpu', silicon: CPU, build: null,
    plan: { text: 'form: fixed N (one binary)\n  leg 1: A1 THREADS=1 (mode serve)', order: 'abba', seed: null, legs: 6, warmupLegs: 0 },
    legs,
    quantities: { tpotP50Ratio: measured('tpotP50 ratio B/A', 'ratio', 1.1, 'x', { numerator: { value: 0.11, unit: 's' }, denominator: { value: 0.1, unit: 's' } }) },
    comparison: null,
    verdict: { word: 'UNRESOLVED', exitClass: 'void', reasons: [reason('LEG_NOT_PASSED', 'leg 3 (B2 THREADS=2): DIVERGENCE — WRONG_TOKENS (no speed taken from it)'), reason('LEG_NOT_PASSED', 'leg 4 (A1 THREADS=1): VOID — UNFINISHED (no speed taken from it)')] },
    notes: [],
  };
}
