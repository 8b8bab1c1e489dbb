import { describe, expect, it } from 'vitest';
import { nearestRank, nearestRankPosition } from '../../src/stats/percentile.js';
import { censoredPercentile, latencyFigures, requestFigures, runClocks } from '../../src/serve/metrics.js';
import { poissonSchedule, promptFor, sendLateness, stopMet } from '../../src/serve/schedule.js';
import { describeSlo, parseDurationS, parseSlo } from '../../src/serve/slo.js';
import { findKnee, type KneePoint } from '../../src/serve/knee.js';
import { ENGINE_CLOCK, HARNESS_CLOCK, collapsedGaps, firstTokenClock, gapClock, requestGaps } from '../../src/serve/clock.js';
import { measured, refused } from '../../src/quantity/make.js';
import type { Quantity } from '../../src/quantity/types.js';
import type { RequestObservation } from '../../src/serve/types.js';

// A request as the client saw it (defaults: finished, sent at 0).
export function obs(p: Partial<RequestObservation> & { index: number }): RequestObservation {
  return { prompt: 0, scheduledS: null, sentS: 0, tokenS: [], ids: [], endS: 1, end: 'done', error: null, engine: null, ...p };
}

const value = (q: Quantity | undefined): number => {
  if (!q || q.status !== 'measured') throw new Error(`not measured: ${JSON.stringify(q)}`);
  return q.value;
};
const code = (q: Quantity | undefined): string => (q && q.status !== 'measured' ? q.reason : `measured ${JSON.stringify(q)}`);

// Ten values whose nearest-rank percentiles were worked out by hand: sorted they read
// 0.05 0.08 0.09 0.10 0.11 0.12 0.15 0.21 0.30 0.40; p50 → rank ⌈5⌉ = 5 → 0.11; p90 → rank 9 → 0.30;
// p99 → rank ⌈9.9⌉ = 10 → 0.40; p25 → rank ⌈2.5⌉ = 3 → 0.09; p0 → rank 1 → 0.05.
const TEN = [0.12, 0.05, 0.3, 0.08, 0.21, 0.15, 0.1, 0.4, 0.09, 0.11];
const SORTED = [...TEN].sort((a, b) => a - b);

describe('nearest-rank percentiles against a hand-computed set', () => {
  it('ranks and values', () => {
    expect([0, 25, 50, 90, 99, 100].map((p) => nearestRankPosition(p, 10))).toEqual([1, 3, 5, 9, 10, 10]);
    expect([0, 25, 50, 90, 99, 100].map((p) => nearestRank(SORTED, p))).toEqual([0.05, 0.09, 0.11, 0.3, 0.4, 0.4]);
    expect(nearestRankPosition(50, 1)).toBe(1);
    expect(nearestRankPosition(51, 2)).toBe(2);
    expect(nearestRankPosition(50, 2)).toBe(1);
    expect(nearestRankPosition(150, 4)).toBe(4);
  });

  it('censored values rank above every measured one: a rank on them is refused TIMEOUT, never printed lower', () => {
    const terms = {};
    // 10 measured + 2 unfinished = 12: p50 → rank 6 → 0.12; p90 → rank ⌈10.8⌉ = 11 > 10 → refused.
    const p50 = censoredPercentile('x p50', TEN, 2, 50, terms);
    expect(value(p50)).toBe(0.12);
    expect(p50.status === 'measured' && p50.terms).toMatchObject({ rank: { value: 6 }, of: { value: 12, unit: 'values' }, unfinished: { value: 2 } });
    const p90 = censoredPercentile('x p90', TEN, 2, 90, terms);
    expect(code(p90)).toBe('TIMEOUT');
    expect(p90.status === 'refused' && p90.message).toMatch(/rank 11 of 12 falls among the 2 request\(s\) that did not finish/);
    expect(value(censoredPercentile('x', TEN, 0, 90, terms))).toBe(0.3);
    expect(code(censoredPercentile('x', [], 0, 50, terms))).toBe('NO_SAMPLES');
    expect(code(censoredPercentile('x', [], 1, 50, terms))).toBe('TIMEOUT');
    const one = censoredPercentile('x', [0.2], 0, 50, terms);
    expect(one.status === 'measured' && one.terms.of).toMatchObject({ value: 1, unit: 'value' });
  });
});

describe('per-request figures and the run percentiles', () => {
  // Three finished requests with distinct arrival stamps, one timed out after two tokens.
  const reqs = [
    obs({ index: 0, sentS: 0, tokenS: [0.1, 0.2, 0.4], ids: [5, 6, 7], endS: 0.5 }),
    obs({ index: 1, sentS: 1, tokenS: [1.3, 1.4, 1.5], ids: [5, 6, 7], endS: 1.6 }),
    obs({ index: 2, sentS: 2, tokenS: [2.2, 2.5, 2.6], ids: [5, 6, 7], endS: 2.9 }),
    obs({ index: 3, sentS: 3, tokenS: [3.5, 3.9], ids: [5, 6], endS: 9, end: 'timeout' }),
  ];
  const clocks = runClocks(reqs);
  const figs = reqs.map((r) => requestFigures(r, clocks));

  it('TTFT = first token − sent, TPOT = decode ÷ (tokens − 1), E2E = end − sent; unfinished: no TPOT/E2E', () => {
    expect(clocks.gaps).toEqual({ ok: true, clock: HARNESS_CLOCK, why: null });
    expect(figs[0]!.ttftS).toBeCloseTo(0.1, 12);
    expect(figs[0]!.tpotS).toBeCloseTo(0.15, 12);
    expect(figs[0]!.e2eS).toBeCloseTo(0.5, 12);
    expect(figs[2]!.gapsS.map((g) => +g.toFixed(9))).toEqual([0.3, 0.1]);
    expect(figs[3]).toMatchObject({ finished: false, tpotS: null, e2eS: null });
    expect(figs[3]!.ttftS).toBeCloseTo(0.5, 12);
  });

  it('percentiles with the unfinished request counted, not dropped', () => {
    const f = latencyFigures(figs, clocks);
    // TTFT over 4 values (0.1, 0.3, 0.2, 0.5): p50 → rank 2 → 0.2; max 0.5.
    expect(value(f.ttftP50)).toBeCloseTo(0.2, 12);
    expect(value(f.ttftMax)).toBeCloseTo(0.5, 12);
    // E2E: 0.5, 0.6, 0.9 and one censored: p50 → rank 2 → 0.6; p90 → rank 4 → refused; max refused.
    expect(value(f.e2eP50)).toBeCloseTo(0.6, 12);
    expect(code(f.e2eP90)).toBe('TIMEOUT');
    expect(code(f.e2eMax)).toBe('TIMEOUT');
    expect(code(f.tpotP99)).toBe('TIMEOUT');
    // ITL over every gap of every request (7 gaps): max 0.4 (request 3's gap).
    expect(value(f.itlMax)).toBeCloseTo(0.4, 12);
    // TPOT: 0.15, 0.1, 0.2 and one censored: p50 → rank 2 → 0.15; p90 → rank 4 → refused.
    expect(value(f.tpotP50)).toBeCloseTo(0.15, 12);
    expect(f.tpotP50!.status === 'measured' && f.tpotP50!.terms).toEqual({
      rank: { value: 2, label: 'nearest rank' }, of: { value: 4, unit: 'values', label: 'of' },
      unfinished: { value: 1, unit: 'requests', label: 'unfinished (ranked above all)' },
      over: { value: 'requests', label: 'over' }, clock: { value: HARNESS_CLOCK, label: 'clock' },
    });
    expect(f.tpotP50).toMatchObject({ kind: 'servePercentile', unit: 's' });
    expect(Object.keys(f)).toHaveLength(16);
    expect(f.ttftP50!.name).toBe('TTFT p50');
    const t = f.itlP50!.status === 'measured' ? f.itlP50!.terms : {};
    expect(t.over).toMatchObject({ value: 'gaps' });
    expect(t.clock).toMatchObject({ value: HARNESS_CLOCK });
  });
});

describe('requests that resolve no figure', () => {
  it('a request that never saw a token is censored in TTFT; a refused gap clock gives no gaps', () => {
    const reqs = [
      obs({ index: 0, sentS: 0, tokenS: [0.1, 0.3], ids: [5, 6], endS: 0.4 }),
      obs({ index: 1, sentS: 0, tokenS: [], ids: [], endS: 5, end: 'timeout' }),
      obs({ index: 2, sentS: 0, tokenS: [0.2, 0.5], ids: [5, 6], endS: 5, end: 'timeout' }),
    ];
    const clocks = runClocks(reqs);
    const f = latencyFigures(reqs.map((r) => requestFigures(r, clocks)), clocks);
    // TTFT known 0.1, 0.2 and one censored (request 1): max → refused; p50 → rank 2 → 0.2.
    expect(value(f.ttftP50)).toBeCloseTo(0.2, 12);
    expect(f.ttftP50!.status === 'measured' && f.ttftP50!.terms.unfinished).toMatchObject({ value: 1 });
    expect(code(f.ttftMax)).toBe('TIMEOUT');
    const refusedClock = { gaps: { ok: false as const, code: 'ARRIVALS_COLLAPSED' as const, why: 'w' }, first: clocks.first };
    expect(requestFigures(reqs[0]!, refusedClock)).toMatchObject({ gapsS: [], tpotS: null });
    expect(censoredPercentile('x', [], 0, 50, {})).toMatchObject({ message: 'no request resolves this figure' });
    const shared = [obs({ index: 0, tokenS: [0.1, 0.1, 0.3], ids: [5, 6, 7], engine: { promptMs: 1, tokenMs: [0, 10, 30], predictedMs: 30, predictedN: 3 } })];
    const g = latencyFigures(shared.map((r) => requestFigures(r, runClocks(shared))), runClocks(shared));
    expect(g.itlP50!.status === 'measured' && g.itlP50!.terms.clockWhy).toEqual({ value: expect.stringMatching(/^1 of 2 gaps are under 100 µs/), label: 'why this clock' });
  });
});

describe('clocks: collapsed arrival stamps', () => {
  const engine = (tokenMs: Array<number | null>) => ({ promptMs: 1, tokenMs, predictedMs: 1, predictedN: 1 });
  it('shared stamps move the gaps to the engine clock, or refuse them without one', () => {
    const shared = [obs({ index: 0, tokenS: [0.1, 0.1, 0.3], ids: [5, 6, 7], engine: engine([0, 10, 30]) })];
    expect(collapsedGaps(shared)).toEqual({ zero: 1, gaps: 2 });
    const g = gapClock(shared);
    expect(g.ok && g.clock).toBe(ENGINE_CLOCK);
    expect(requestGaps(shared[0]!, ENGINE_CLOCK)).toEqual([0.01, 0.02]);
    expect(firstTokenClock(shared)).toMatchObject({ ok: true, clock: HARNESS_CLOCK, why: 'in 1 of 1 request(s) the first token arrived together with the next: the time is when the client saw it, the server\'s buffering included' });
    // 99 µs apart is together, 100 µs is not (TOGETHER_S).
    expect(collapsedGaps([obs({ index: 0, tokenS: [1, 1.000099, 1.000199 + 1e-9], ids: [5, 6, 7] })])).toEqual({ zero: 1, gaps: 2 });
    const bare = [obs({ index: 0, tokenS: [0.1, 0.2, 0.2], ids: [5, 6, 7] })];
    expect(gapClock(bare)).toMatchObject({ ok: false, code: 'ARRIVALS_COLLAPSED' });
    expect(firstTokenClock(bare)).toEqual({ ok: true, clock: HARNESS_CLOCK, why: null });
    const back = [obs({ index: 4, tokenS: [0.1, 0.1, 0.3], ids: [5, 6, 7], engine: engine([0, 10, 9]) })];
    expect(gapClock(back)).toMatchObject({ ok: false, code: 'CLOCK_BACKWARDS', why: expect.stringMatching(/runs backwards in request 4/) });
    const partial = [obs({ index: 0, tokenS: [0.1, 0.1], ids: [5, 6], engine: engine([0, null]) })];
    expect(gapClock(partial).ok).toBe(false);
    const f = latencyFigures([requestFigures(bare[0]!, runClocks(bare))], runClocks(bare));
    expect(code(f.itlP50)).toBe('ARRIVALS_COLLAPSED');
    expect(code(f.tpotMax)).toBe('ARRIVALS_COLLAPSED');
    expect(value(f.ttftP50)).toBeCloseTo(0.1, 12);
  });
});

describe('the arrival schedule', () => {
  const stop = { minRequests: 5, minDurationS: 0, maxRequests: 100 };
  it('is seeded, starts at 0, increases, and stops at the minima', () => {
    const a = poissonSchedule(2, 7, stop);
    expect(a).toEqual(poissonSchedule(2, 7, stop));
    expect(a).not.toEqual(poissonSchedule(2, 8, stop));
    expect(a).toHaveLength(5);
    expect(a[0]).toBe(0);
    for (let i = 1; i < a.length; i++) expect(a[i]!).toBeGreaterThan(a[i - 1]!);
    const long = poissonSchedule(10, 1, { minRequests: 1, minDurationS: 20, maxRequests: 100000 });
    expect(long[long.length - 1]!).toBeGreaterThanOrEqual(20);
    expect(long[long.length - 2]!).toBeLessThan(20);
    // The mean gap of a long schedule is near 1/rate (10 Hz → 0.1 s): a rate that is not honoured fails here.
    const mean = long[long.length - 1]! / (long.length - 1);
    expect(mean).toBeGreaterThan(0.08);
    expect(mean).toBeLessThan(0.12);
    expect(poissonSchedule(1, 1, { minRequests: 50, minDurationS: 1000, maxRequests: 3 })).toHaveLength(3);
    expect(() => poissonSchedule(0, 1, stop)).toThrow(RangeError);
    expect(() => poissonSchedule(Infinity, 1, stop)).toThrow(RangeError);
  });
  it('stop rule, prompts in turn, lateness', () => {
    expect(stopMet(5, 0, stop)).toBe(true);
    expect(stopMet(4, 99, stop)).toBe(false);
    expect(stopMet(100, 0, { minRequests: 200, minDurationS: 0, maxRequests: 100 })).toBe(true);
    expect(stopMet(5, 1, { minRequests: 5, minDurationS: 2, maxRequests: 100 })).toBe(false);
    expect(stopMet(5, 2, { minRequests: 5, minDurationS: 2, maxRequests: 100 })).toBe(true);
    expect([0, 1, 2, 3, 4].map((i) => promptFor(i, [7, 8, 9]))).toEqual([7, 8, 9, 7, 8]);
    expect(sendLateness([0, 1, null, 3], [0.01, 1.5, 2, null])).toEqual([0.01, 0.5]);
  });
});

describe('SLO text', () => {
  it('parses units and refuses what it does not know', () => {
    expect(parseDurationS('200ms')).toBe(0.2);
    expect(parseDurationS(' 0.5 s ')).toBe(0.5);
    expect(parseDurationS('.5s')).toBe(0.5);
    expect(parseDurationS('5')).toBeNull();
    expect(parseDurationS('5min')).toBeNull();
    expect(parseSlo('ttft=200ms, tpot=0.05s,e2e=2s')).toEqual({ ok: true, slo: { ttftS: 0.2, tpotS: 0.05, e2eS: 2 } });
    expect(parseSlo('')).toEqual({ ok: false, why: 'no objective given' });
    expect(parseSlo('ttfb=1s')).toMatchObject({ ok: false, why: expect.stringMatching(/'ttfb' is not an SLO figure/) });
    expect(parseSlo('ttft=1s,ttft=2s')).toMatchObject({ ok: false, why: 'ttft is given twice' });
    expect(parseSlo('ttft')).toMatchObject({ ok: false, why: expect.stringMatching(/ttft needs a positive duration/) });
    expect(parseSlo('ttft=0ms')).toMatchObject({ ok: false });
    expect(describeSlo({ ttftS: 0.2, tpotS: 0.05 })).toBe('ttft ≤ 200 ms, tpot ≤ 50 ms');
    expect(describeSlo({ e2eS: 1.5 })).toBe('e2e ≤ 1500 ms');
  });
});

describe('the knee of a sweep', () => {
  const tps = (v: number): Quantity => measured('t', 'serveRate', v, 'tokens/s', {});
  const pt = (ratePerS: number, v: number, valid = true): KneePoint => ({ ratePerS, valid, throughput: tps(v) });
  it('is the rate where throughput stops following the rate', () => {
    // 1→2: ×2 for ×2 (k = 1); 2→4: 64→70 (k ≈ 0.13): saturated past 2.
    const k = findKnee([pt(4, 70), pt(1, 32), pt(2, 64)]);
    expect(k.ratePerS).toBe(2);
    expect(k.why).toMatch(/from 2 to 4 requests\/s output throughput went 64\.00 → 70\.00 tokens\/s \(growth exponent 0\.13 < 0\.5\)/);
    // k exactly 0.5 is not saturated (2 → 8 with throughput ×2).
    expect(findKnee([pt(2, 10), pt(8, 20)]).ratePerS).toBeNull();
    expect(findKnee([pt(2, 10), pt(8, 19.9)]).ratePerS).toBe(2);
    expect(findKnee([pt(1, 10), pt(2, 20)]).why).toMatch(/still grew with the rate up to 2 requests\/s \(20\.00 tokens\/s\): the knee lies above the sweep/);
  });
  it('leaves out invalid and unmeasured points, by count', () => {
    const k = findKnee([pt(1, 10), pt(2, 1, false), { ratePerS: 3, valid: true, throughput: refused('t', 'WRONG_TOKENS', 'x') }, pt(4, 40)]);
    expect(k.ratePerS).toBeNull();
    expect(k.why).toMatch(/; 2 point\(s\) without a valid measured throughput left out$/);
    expect(findKnee([pt(1, 10)]).why).toMatch(/^fewer than two valid rates with a measured throughput \(1\)/);
    expect(findKnee([pt(1, 10), pt(2, 0)]).ratePerS).toBeNull();
  });
});
