import { describe, expect, it } from 'vitest';
import { GoldenSchema } from '../../src/config/golden.js';
import { GateSchema } from '../../src/config/gate.js';
import { CRITERION_METRICS, isServeMetric } from '../../src/config/criteria.js';
import { ServeLoadSchema, serveLoadOf } from '../../src/config/serveLoad.js';
import { bindClaim, checkProducible, claimSpecOf } from '../../src/gates/ab/claim.js';
import { judgeAb } from '../../src/gates/ab/judge/judge.js';
import { assessLoad } from '../../src/serve/assess.js';
import { describeServeLeg, SERVE_LEG_QUANTITIES, serveLegQuantities, serveLegRecord, serveLegWord, type ServeLegInput } from '../../src/serve/abLegRecord.js';
import { servePoint } from '../../src/serve/record.js';
import { measured } from '../../src/quantity/make.js';
import { reason, formatReason } from '../../src/verdict/reasons.js';
import type { PlannedLeg } from '../../src/plan/plan.js';
import type { RequestObservation } from '../../src/serve/types.js';
import type { LegRecord } from '../../src/results/types.js';
import { tinyGolden } from './fixtures.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadResume } from '../../src/gates/series/resume.js';

// A serve A/B's pure parts: the gate's serve block as a load, the serve criterion metrics and where they may be
// used, one load's assessment as one leg (its token word, its quantities, its plot point), and the one A/B judge
// over such legs (a criterion with its interval; a leg with a wrong response named and not taken a speed from).

const golden = GoldenSchema.parse(tinyGolden());
const shape = { kind: 'concurrency', inFlight: 2 } as const;
const limits = { minRequests: 4, minDurationS: 0, maxLateS: 0.1 };
// Four requests, each right ([5, 6, 7]); `slow` stretches every token gap (a slower arm), `wrong` plants a bad id.
function requests(slow = 1, wrong: number | null = null): RequestObservation[] {
  return [0, 1, 2, 3].map((index) => ({
    index, prompt: index, scheduledS: null, sentS: index * slow, tokenS: [1, 2, 3].map((k) => (index + 0.1 * k) * slow),
    ids: index === wrong ? [5, 9, 7] : [5, 6, 7], endS: (index + 0.4) * slow, end: 'done', error: null, engine: null,
  }));
}
const planned = (index: number, arm: 'A' | 'B'): PlannedLeg => ({ index, arm, label: `${arm}${index} THREADS=${arm === 'A' ? 1 : 2}`, env: { LLAMA_ARG_THREADS: arm === 'A' ? '1' : '2' }, mode: 'decode' }) as PlannedLeg;
const proc = { argv: ['llama-server'], exitCode: null, signal: 'SIGTERM', timedOut: false, interrupted: false, spawnError: null, end: 'signal SIGTERM', startS: 0, endS: 1, lastLines: [] };

function legOf(index: number, arm: 'A' | 'B', slow: number, wrong: number | null = null, over: Partial<ServeLegInput> = {}): LegRecord {
  const reqs = requests(slow, wrong);
  const a = assessLoad({ golden, requests: reqs, shape, slo: { ttftS: 2 }, loadS: 0.5, limits, server: { alive: true, why: null } });
  return serveLegRecord({
    planned: planned(index, arm), flagEnv: { LLAMA_ARG_THREADS: arm === 'A' ? '1' : '2' }, binarySha256: 'sha', process: proc, logFile: 'legs/x.server.log',
    silicon: { kind: 'cpu' } as never, point: servePoint(shape, reqs, a), tokens: a.tokens, verdict: a.verdict, loadS: 0.5, why: null, ...over,
  }).record;
}

describe('the gate\'s serve block', () => {
  it('a concurrency load: stop, limits, SLO and slots as nh-gate serve takes them', () => {
    const b = ServeLoadSchema.parse({ concurrency: 2, requests: 8, slo: 'ttft=2s,tpot=500ms' });
    expect(serveLoadOf(b, 4)).toEqual({
      shape: { kind: 'concurrency', inFlight: 2 }, stop: { minRequests: 8, minDurationS: 0, maxRequests: 8 },
      limits: { minRequests: 8, minDurationS: 0, maxLateS: 0.1 }, slo: { ttftS: 2, tpotS: 0.5 }, requestTimeoutS: 120, slots: 2,
    });
  });

  it('a rate load: seeded, the recipe\'s slots, a duration lifts the request cap', () => {
    const l = serveLoadOf(ServeLoadSchema.parse({ ratePerS: 3, seed: 7, requests: 4, durationS: 5, maxLateMs: 250 }), 4);
    expect(l).toMatchObject({ shape: { kind: 'rate', ratePerS: 3, seed: 7 }, stop: { minRequests: 4, minDurationS: 5, maxRequests: 10_000 }, limits: { maxLateS: 0.25 }, slo: null, slots: 4 });
    expect(serveLoadOf(ServeLoadSchema.parse({ ratePerS: 3, requests: 4, maxRequests: 6, slots: 3 }), 4)).toMatchObject({ stop: { maxRequests: 6 }, slots: 3 });
    expect(serveLoadOf(ServeLoadSchema.parse({ ratePerS: 3, requests: 20_000, durationS: 1 }), 4).stop.maxRequests).toBe(20_000);
  });

  it('takes a maxRequests equal to requests, and a durationS of 0', () => {
    expect(ServeLoadSchema.safeParse({ concurrency: 2, requests: 4, maxRequests: 4, durationS: 0 }).success).toBe(true);
  });

  it.each([
    [{ concurrency: 1.5, requests: 4 }, 'concurrency', 'concurrency is a whole number'],
    [{ requests: 4 }, 'concurrency', 'either "concurrency" or "ratePerS"'],
    [{ concurrency: 2, ratePerS: 1, requests: 4 }, 'concurrency', 'give exactly one'],
    [{ concurrency: 2, requests: 4, slo: 'ttft=fast' }, 'slo', 'ttft needs a positive duration'],
    [{ concurrency: 2, requests: 4, maxRequests: 3 }, 'maxRequests', '3 is below requests 4'],
  ])('refuses %j at its field', (block, path, message) => {
    const r = ServeLoadSchema.safeParse(block);
    expect(r.success).toBe(false);
    const issue = r.error!.issues.find((i) => i.path.join('.') === path);
    expect(issue?.message).toContain(message);
    expect(issue?.code).toBe(message.includes('whole') ? 'invalid_type' : 'custom');
  });

  it('describes each leg\'s load in the plan', () => {
    expect(describeServeLeg(serveLoadOf(ServeLoadSchema.parse({ concurrency: 2, requests: 4 }), 4))).toBe("one load (concurrency 2, at least 4 request(s) over at least 0 s, server slots 2) against a server started with the arm's environment; every response token-checked");
  });
});

describe('serve criterion metrics', () => {
  const gate = (extra: Record<string, unknown>) => GateSchema.safeParse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', ...extra });
  const crit = (metric: string) => ({ criteria: { statement: 's', combine: 'all', metrics: [{ metric, form: 'ratio', claim: 'non-inferiority', worse: 'higher', atMostPct: 5 }] } });
  const serve = { serve: { concurrency: 2, requests: 4 } };

  it('name serve figures by the keys nh-gate serve gives them, with their units', () => {
    const serveMetrics = Object.keys(CRITERION_METRICS).filter((m) => isServeMetric(m as never));
    expect(serveMetrics).toEqual(['ttftP50', 'tpotP50', 'itlP50', 'e2eP50', 'ttftP99', 'e2eP99', 'outputTokenThroughput', 'requestThroughput', 'goodput']);
    expect(SERVE_LEG_QUANTITIES).toEqual(serveMetrics);
    expect(CRITERION_METRICS.outputTokenThroughput.unit).toBe('tokens/s');
    expect(isServeMetric('perOutputToken')).toBe(false);
  });

  it('a serve metric needs a serve block; a serve block judges only serve metrics, never a hypothesis, only in an ab gate', () => {
    expect(gate({ ...crit('tpotP50'), ...serve }).success).toBe(true);
    const noServe = gate(crit('tpotP50'));
    expect(noServe.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['criteria.metrics.0.metric', "'tpotP50' is a serve load's figure — add a \"serve\" block (concurrency or ratePerS, requests) to run each leg as a load"]]);
    const driverMetric = gate({ ...crit('perOutputToken'), ...serve });
    expect(driverMetric.error!.issues[0]!.message).toMatch(/^'perOutputToken' is a figure of one driver run; a serve A\/B's legs are loads/);
    const hyp = gate({ hypothesis: { statement: 's', metric: 'perOutputToken', expect: 'on-faster', refutedIfLessThanPct: 5 }, ...serve });
    expect(hyp.error!.issues.map((i) => i.path.join('.'))).toEqual(['hypothesis']);
    const a3 = GateSchema.safeParse({ schemaVersion: 1, kind: 'a3', name: 'g', recipe: 'r', ...serve });
    expect(a3.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['serve', 'a serve block makes an A/B under load; a a3 gate has no arms to compare — use kind "ab", or nh-gate serve']]);
  });

  it('a serve metric against a recipe without a serve block is bad input before any leg', () => {
    const spec = claimSpecOf(GateSchema.parse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', ...crit('goodput'), ...serve }))!;
    expect(() => checkProducible(spec, { name: 'r', archs: { cpu: {} }, driver: { eventsArgv: [] } } as never, 'g.json')).toThrow("g.json: criteria.metrics.0.metric: 'goodput' is a serve load's figure, but recipe 'r' has no \"serve\" block");
    expect(() => checkProducible(spec, { name: 'r', archs: { cpu: {} }, driver: { eventsArgv: [] }, serve: {} } as never, 'g.json')).not.toThrow();
  });
});

describe('one load as one leg', () => {
  it('a VALID load with every token right: a pass, the serve figures its quantities, TPOT p50 its plot point', () => {
    const l = legOf(0, 'A', 1);
    expect(l).toMatchObject({ verdict: 'STRICT PASS', voidReasons: [], witness: 'harness', mode: 'serve', loadLine: { seen: true, loadS: 0.5, source: 'readiness probe (spawn → ready)' } });
    expect(l.tokens).toMatchObject({ source: 'served streams', witness: 'harness', mode: 'serve', compared: 12, matched: 12, fullRows: 4, shortRows: 0, word: 'STRICT PASS' });
    expect(l.contention).toEqual({ foreignPids: [], checked: false, note: 'not checked for a serve leg' });
    expect(Object.keys(l.quantities)).toEqual(['ttftP50', 'tpotP50', 'itlP50', 'e2eP50', 'ttftP99', 'e2eP99', 'outputTokenThroughput', 'requestThroughput', 'goodput']);
    expect(l.quantities.tpotP50).toMatchObject({ status: 'measured', unit: 's' });
    expect(l.serve!.tokens).toEqual({ compared: 12, matched: 12, wrong: [] });
    const r = serveLegRecord({ planned: planned(0, 'A'), flagEnv: {}, binarySha256: null, process: proc, logFile: 'x', silicon: null as never, point: l.serve!, tokens: null, verdict: null, loadS: null, why: null });
    expect(r.record.quantities).toEqual(l.quantities);
    expect(r.record).toMatchObject({ verdict: 'VOID', voidReasons: [reason('SERVER_FAILED', 'the server never served the load')] });
    // A verdict without its token judgement is no load either.
    const half = serveLegRecord({ planned: planned(0, 'A'), flagEnv: {}, binarySha256: null, process: proc, logFile: 'x', silicon: null as never, point: l.serve!, tokens: null, verdict: { word: 'VALID', exitClass: 'passed', reasons: [] }, loadS: null, why: 'x' });
    expect(half.record.verdict).toBe('VOID');
    const reqs = requests(1);
    const a = assessLoad({ golden, requests: reqs, shape, slo: null, loadS: 0.5, limits, server: { alive: true, why: null } });
    const pass = serveLegRecord({ planned: { ...planned(2, 'B'), arm: 'single' } as PlannedLeg, flagEnv: {}, binarySha256: null, process: proc, logFile: 'x', silicon: null as never, point: servePoint(shape, reqs, a), tokens: a.tokens, verdict: a.verdict, loadS: 0.5, why: null });
    const tpot = pass.record.quantities.tpotP50!;
    expect(pass.abPoint).toEqual({ leg: '3 single', arm: 'A', tokenS: [], perTokenS: tpot.status === 'measured' ? tpot.value : NaN });
  });

  it('a wrong response: DIVERGENCE naming the request, every figure refused WRONG_TOKENS, no plot point', () => {
    const reqs = requests(1, 2);
    const a = assessLoad({ golden, requests: reqs, shape, slo: null, loadS: 0.5, limits, server: { alive: true, why: null } });
    const { record, abPoint } = serveLegRecord({ planned: planned(1, 'B'), flagEnv: {}, binarySha256: 'sha', process: proc, logFile: 'x', silicon: null as never, point: servePoint(shape, reqs, a), tokens: a.tokens, verdict: a.verdict, loadS: 0.5, why: null });
    expect(record.verdict).toBe('DIVERGENCE');
    expect(formatReason(record.voidReasons[0]!)).toMatch(/^WRONG_TOKENS: 1 of 4 request\(s\) served wrong tokens: request 2 \(prompt 2\) position 1: got 9, expected 6/);
    for (const q of Object.values(record.quantities)) expect(q).toMatchObject({ status: 'refused', reason: 'WRONG_TOKENS' });
    expect(abPoint).toEqual({ leg: '2 B', arm: 'B', tokenS: [], perTokenS: null });
    expect(legOf(0, 'A', 1).quantities.tpotP50!.status).toBe('measured');
  });

  it('the load\'s verdict as the leg\'s word: VALID keeps the token word, INVALID is VOID with its reasons', () => {
    const why = reason('UNFINISHED', '1 of 4 request(s) did not finish');
    expect(serveLegWord({ word: 'VALID', reasons: [] }, { word: 'NEAR-TIE PASS' })).toEqual({ word: 'NEAR-TIE PASS', reasons: [] });
    const late = reason('CLIENT_BEHIND', '2 sends late');
    expect(serveLegWord({ word: 'INVALID', reasons: [why, late] }, { word: 'STRICT PASS' })).toEqual({ word: 'VOID', reasons: [reason('UNFINISHED', 'INVALID load — 1 of 4 request(s) did not finish'), late] });
    expect(serveLegWord({ word: 'SHORT', reasons: [why] }, { word: 'SHORT' })).toEqual({ word: 'SHORT', reasons: [why] });
    expect(serveLegWord({ word: 'VOID', reasons: [why] }, { word: 'VOID' })).toEqual({ word: 'VOID', reasons: [why] });
    expect(serveLegWord({ word: 'PARTIAL' as never, reasons: [why] }, { word: 'STRICT PASS' })).toEqual({ word: 'VOID', reasons: [reason('NO_TOKENS', 'the load ended PARTIAL'), why] });
  });

  it('an INVALID load (a request that timed out): VOID with its validity reasons, its measured TPOT p50 not plotted', () => {
    const reqs = requests(1);
    reqs[3] = { ...reqs[3]!, ids: [5], tokenS: [3.1], end: 'timeout', endS: 9 };
    const a = assessLoad({ golden, requests: reqs, shape, slo: null, loadS: 0.5, limits, server: { alive: true, why: null } });
    const { record, abPoint } = serveLegRecord({ planned: planned(0, 'A'), flagEnv: {}, binarySha256: null, process: proc, logFile: 'x', silicon: null as never, point: servePoint(shape, reqs, a), tokens: a.tokens, verdict: a.verdict, loadS: 0.5, why: null });
    expect(record.verdict).toBe('VOID');
    expect(record.voidReasons.map((r) => r.code)).toEqual(['UNFINISHED']);
    expect(record.voidReasons[0]!.message).toMatch(/^INVALID load — 1 of 4 request\(s\) did not finish/);
    expect(record.quantities.tpotP50!.status).toBe('measured');
    expect(abPoint.perTokenS).toBeNull();
    expect(record.tokens).toMatchObject({ fullRows: 3, shortRows: 1 });
  });

  it('a server that never got ready: VOID SERVER_FAILED with why, no figures, no load line', () => {
    const { record, abPoint } = serveLegRecord({ planned: planned(0, 'A'), flagEnv: {}, binarySha256: null, process: proc, logFile: 'x', silicon: null as never, point: null, tokens: null, verdict: null, loadS: null, why: 'the server ended before it was ready (exit 1)' });
    expect(record).toMatchObject({ verdict: 'VOID', voidReasons: [reason('SERVER_FAILED', 'the server ended before it was ready (exit 1)')], quantities: {}, tokens: null, witness: null, loadLine: { seen: false, loadS: null, source: null } });
    expect(record.serve).toBeUndefined();
    expect(abPoint.perTokenS).toBeNull();
    expect(serveLegQuantities({ tpotP50: measured('t', 'tpotP50', 1, 's', {}), sendLateMax: measured('s', 'x', 1, 's', {}) })).toStrictEqual({ tpotP50: measured('t', 'tpotP50', 1, 's', {}) });
  });
});

describe('a serve leg kept by --resume', () => {
  it('keeps its point on the A/B plot: the same point the live leg drew (TPOT p50 of a passing leg), none for an INVALID one', () => {
    const live = (index: number, arm: 'A' | 'B', slow: number) => {
      const reqs = requests(slow);
      const a = assessLoad({ golden, requests: reqs, shape, slo: null, loadS: 0.5, limits, server: { alive: true, why: null } });
      return serveLegRecord({ planned: planned(index, arm), flagEnv: {}, binarySha256: 'sha', process: proc, logFile: 'x', silicon: null as never, point: servePoint(shape, reqs, a), tokens: a.tokens, verdict: a.verdict, loadS: 0.5, why: null });
    };
    const ran = [live(0, 'A', 1), live(1, 'B', 1.1)];
    const invalid = serveLegRecord({ planned: planned(2, 'B'), flagEnv: {}, binarySha256: 'sha', process: proc, logFile: 'x', silicon: null as never, point: ran[0]!.record.serve!, tokens: ran[0]!.record.serve ? { word: 'STRICT PASS', requests: [], compared: 12, matched: 12, wrong: [], reasons: [] } : null, verdict: { word: 'INVALID', exitClass: 'void', reasons: [reason('MIN_REQUESTS', 'too few')] }, loadS: 0.5, why: null });
    const dir = mkdtempSync(join(tmpdir(), 'nh-serve-resume-'));
    writeFileSync(join(dir, 'result.json'), JSON.stringify({ command: 'ab', legs: [...ran.map((x) => x.record), invalid.record] }));
    const kept = loadResume(dir, 'ab').kept;
    expect(ran[0]!.abPoint.perTokenS).toEqual(expect.any(Number));
    expect(kept.get(0)!.abPoint).toEqual(ran[0]!.abPoint);
    expect(kept.get(1)!.abPoint).toEqual(ran[1]!.abPoint);
    expect(invalid.record.quantities.tpotP50!.status).toBe('measured');
    expect(kept.get(2)!.abPoint).toEqual({ leg: '3 B', arm: 'B', tokenS: [], perTokenS: null });
  });
});

describe('the one A/B judge over serve legs', () => {
  const claimOf = (metrics: unknown[]) => bindClaim(claimSpecOf(GateSchema.parse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', serve: { concurrency: 2, requests: 4 }, criteria: { statement: 's', combine: 'all', metrics } }))!, 'B', { A: 'THREADS=1', B: 'THREADS=2' });
  const judge = (legs: LegRecord[], metrics: unknown[]) => judgeAb({ form: 'fixed', claim: claimOf(metrics), method: { kind: 'bootstrap' }, legs, warmupLegs: 0, plannedJudgedLegs: legs.length, binaries: { kind: 'one' }, deviations: [], seed: 1 });
  const noWorseTpot = { metric: 'tpotP50', form: 'ratio', claim: 'non-inferiority', arm: 'B', worse: 'higher', atMostPct: 50 };

  it('B\'s TPOT p50 at most 50% higher than A\'s, with B 10% slower in every leg: SUPPORTED with its interval; no per-token figure invented', () => {
    const legs = [legOf(0, 'A', 1), legOf(1, 'B', 1.1), legOf(2, 'B', 1.1), legOf(3, 'A', 1)];
    const j = judge(legs, [noWorseTpot]);
    expect(j.verdict.word).toBe('SUPPORTED');
    expect(j.quantities.tpotP50Ratio).toMatchObject({ status: 'measured' });
    expect((j.quantities.tpotP50Ratio as { value: number }).value).toBeCloseTo(1.1, 6);
    expect(j.quantities.perTokenRatio).toBeUndefined();
    const tooSlow = judge([legOf(0, 'A', 1), legOf(1, 'B', 2), legOf(2, 'B', 2), legOf(3, 'A', 1)], [noWorseTpot]);
    expect(tooSlow.verdict.word).toBe('REFUTED');
  });

  it('throughput at least 10% higher (superiority of the on arm): decided from the legs\' output token throughput', () => {
    const faster = { metric: 'outputTokenThroughput', form: 'ratio', expect: 'on-higher', atLeastPct: 10 };
    expect(judge([legOf(0, 'A', 1.5), legOf(1, 'B', 1), legOf(2, 'B', 1), legOf(3, 'A', 1.5)], [faster]).verdict.word).toBe('SUPPORTED');
  });

  it('a leg with one wrong response is no pass: the verdict names the leg and the request, and takes no speed from it', () => {
    const legs = [legOf(0, 'A', 1), legOf(1, 'B', 1.1, 3), legOf(2, 'B', 1.1), legOf(3, 'A', 1)];
    const j = judge(legs, [noWorseTpot]);
    const named = j.verdict.reasons.find((r) => r.code === 'LEG_NOT_PASSED');
    expect(named?.message).toMatch(/^leg 2 \(B1 THREADS=2\): DIVERGENCE — WRONG_TOKENS: 1 of 4 request\(s\) served wrong tokens: request 3 \(prompt 3\) position 1: got 9, expected 6/);
    expect(named?.message).toMatch(/\(no speed taken from it\)$/);
    expect(j.verdict.word).not.toBe('SUPPORTED');
  });
});
