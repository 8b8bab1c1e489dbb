import { describe, expect, it } from 'vitest';
import { GoldenSchema } from '../../src/config/golden.js';
import { describeWrong, judgeRequests, serveVerdict, withholdFigures } from '../../src/serve/judge.js';
import { judgeValidity } from '../../src/serve/validity.js';
import { assessLoad } from '../../src/serve/assess.js';
import { loadWindow, metSlo, throughputFigures } from '../../src/serve/throughput.js';
import { requestFigures, runClocks } from '../../src/serve/metrics.js';
import { measured } from '../../src/quantity/make.js';
import type { Quantity } from '../../src/quantity/types.js';
import type { RequestObservation, ValidityLimits } from '../../src/serve/types.js';
import { tinyGolden } from './fixtures.js';

// tinyGolden: prompts 0..3, each [5, 6, 7], margins 1, 2, 3; near-ties licensed up to 0.01 nats.
const golden = GoldenSchema.parse(tinyGolden());
const obs = (p: Partial<RequestObservation> & { index: number }): RequestObservation => ({
  prompt: p.index % 4, scheduledS: null, sentS: p.index, tokenS: [p.index + 0.1, p.index + 0.2, p.index + 0.3], ids: [5, 6, 7], endS: p.index + 0.4, end: 'done', error: null, engine: null, ...p,
});
const good = [0, 1, 2, 3].map((index) => obs({ index }));
const limits: ValidityLimits = { minRequests: 4, minDurationS: 1, maxLateS: 0.1 };
const alive = { alive: true, why: null };
const value = (q: Quantity | undefined): number => {
  if (!q || q.status !== 'measured') throw new Error(`not measured: ${JSON.stringify(q)}`);
  return q.value;
};

describe('every served response against the golden', () => {
  it('all right: STRICT PASS, every token counted', () => {
    const t = judgeRequests(golden, good);
    expect(t).toMatchObject({ word: 'STRICT PASS', compared: 12, matched: 12, wrong: [], reasons: [] });
    expect(t.requests.map((j) => j.request)).toEqual([0, 1, 2, 3]);
  });

  it('one wrong token in one request: DIVERGENCE naming it, every figure withheld', () => {
    const reqs = [...good.slice(0, 2), obs({ index: 2, ids: [5, 9, 7] }), good[3]!];
    const t = judgeRequests(golden, reqs);
    expect(t.word).toBe('DIVERGENCE');
    expect(t.wrong).toEqual([2]);
    expect(t.matched).toBe(11);
    expect(describeWrong(t)).toBe('1 of 4 request(s) served wrong tokens: request 2 (prompt 2) position 1: got 9, expected 6 (golden top-2 margin 2.0000 nats)');
    const figs = withholdFigures({ a: measured('a', 'serveRate', 1, 'x', {}) }, t);
    expect(figs.a).toMatchObject({ status: 'refused', reason: 'WRONG_TOKENS' });
    expect(figs.a!.status === 'refused' && figs.a!.message).toMatch(/^request\(s\) 2 served wrong tokens/);
    const v = serveVerdict(t, judgeValidity({ limits, shape: { kind: 'concurrency', inFlight: 2 }, requests: reqs, window: loadWindow(reqs), server: alive }));
    expect(v.word).toBe('DIVERGENCE');
    expect(v.exitClass).toBe('failed');
    expect(v.reasons[0]!.code).toBe('WRONG_TOKENS');
  });

  it('a timed-out request with a right prefix is counted, not a divergence; a wrong prefix is wrong', () => {
    const cut = [...good.slice(0, 3), obs({ index: 3, ids: [5], tokenS: [3.1], end: 'timeout', endS: 9 })];
    const t = judgeRequests(golden, cut);
    expect(t.word).toBe('STRICT PASS');
    expect(t.requests[3]).toMatchObject({ finished: false, status: 'short' });
    const v = judgeValidity({ limits, shape: { kind: 'concurrency', inFlight: 2 }, requests: cut, window: loadWindow(cut), server: alive });
    expect(v.valid).toBe(false);
    expect(v.reasons.map((r) => r.code)).toEqual(['UNFINISHED']);
    expect(v.reasons[0]!.message).toBe('1 of 4 request(s) did not finish (1 timed out, 0 failed): request(s) 3');
    expect(serveVerdict(t, v)).toMatchObject({ word: 'INVALID', exitClass: 'void' });
    const wrongCut = [...good.slice(0, 3), obs({ index: 3, ids: [8], end: 'timeout' })];
    expect(judgeRequests(golden, wrongCut).word).toBe('DIVERGENCE');
  });

  it('a finished response shorter than the golden is SHORT; nothing compared is VOID', () => {
    const short = [...good.slice(0, 3), obs({ index: 3, ids: [5, 6] })];
    const v = serveVerdict(judgeRequests(golden, short), judgeValidity({ limits, shape: { kind: 'concurrency', inFlight: 1 }, requests: short, window: loadWindow(short), server: alive }));
    expect(v.word).toBe('SHORT');
    expect(v.reasons[0]!.message).toBe('1 finished request(s) returned fewer tokens than the golden holds: request(s) 3 (2/3)');
    const none = [obs({ index: 0, ids: [], tokenS: [], end: 'error' })];
    const t = judgeRequests(golden, none);
    expect(t.word).toBe('VOID');
    expect(t.reasons[0]!.code).toBe('NO_TOKENS');
    expect(serveVerdict(t, judgeValidity({ limits, shape: { kind: 'concurrency', inFlight: 1 }, requests: none, window: loadWindow(none), server: alive })).word).toBe('VOID');
  });
});

describe('validity (LoadGen-style)', () => {
  const shape = { kind: 'concurrency', inFlight: 2 } as const;
  it('VALID when the minima are met and the server is alive', () => {
    const v = judgeValidity({ limits, shape, requests: good, window: loadWindow(good), server: alive });
    expect(v).toEqual({ valid: true, reasons: [], lateness: null });
    expect(serveVerdict(judgeRequests(golden, good), v)).toMatchObject({ word: 'VALID', exitClass: 'passed', reasons: [] });
  });
  it('names each failed limit', () => {
    const v = judgeValidity({ limits: { minRequests: 5, minDurationS: 10, maxLateS: 0.1 }, shape, requests: good, window: loadWindow(good), server: { alive: false, why: 'gone' } });
    expect(v.reasons.map((r) => r.code)).toEqual(['MIN_DURATION', 'MIN_REQUESTS', 'SERVER_DIED']);
    expect(v.reasons[0]!.message).toBe('the run lasted 3.400 s (first send → last end), below its minimum of 10 s');
    expect(v.reasons[1]!.message).toBe('4 request(s) were sent, below the minimum of 5');
    expect(v.reasons[2]!.message).toMatch(/not alive at the end of the run: gone$/);
    // Exactly at the minima is enough.
    expect(judgeValidity({ limits: { minRequests: 4, minDurationS: 3.4, maxLateS: 0.1 }, shape, requests: good, window: loadWindow(good), server: alive }).valid).toBe(true);
    expect(judgeValidity({ limits, shape, requests: [], window: null, server: alive }).reasons.map((r) => r.code)).toEqual(['MIN_DURATION', 'MIN_REQUESTS']);
  });
  it('open loop: a send far behind its schedule is CLIENT_BEHIND, and the lateness is reported', () => {
    const rate = { kind: 'rate', ratePerS: 1, seed: 1 } as const;
    const onTime = good.map((r) => ({ ...r, scheduledS: r.sentS! - 0.01 }));
    const v = judgeValidity({ limits, shape: rate, requests: onTime, window: loadWindow(onTime), server: alive });
    expect(v.valid).toBe(true);
    expect(value(v.lateness!.max)).toBeCloseTo(0.01, 9);
    const late = onTime.map((r, i) => (i === 2 ? { ...r, scheduledS: r.sentS! - 0.5 } : r));
    const w = judgeValidity({ limits, shape: rate, requests: late, window: loadWindow(late), server: alive });
    expect(w.reasons.map((r) => r.code)).toEqual(['CLIENT_BEHIND']);
    expect(w.reasons[0]!.message).toMatch(/^1 of 4 sends went out more than 100\.0 ms behind their schedule \(worst 500\.0 ms\)/);
    expect(w.lateness).toMatchObject({ late: 1, sends: 4 });
  });
});

describe('throughput and goodput', () => {
  const clocks = runClocks(good);
  const figs = good.map((r) => requestFigures(r, clocks));
  it('rates over first send → last end, with their terms', () => {
    const t = throughputFigures(good, figs, null, 2.5);
    // 4 requests, 12 tokens over 0 → 3.4 s.
    expect(value(t.requestThroughput)).toBeCloseTo(4 / 3.4, 12);
    expect(value(t.outputTokenThroughput)).toBeCloseTo(12 / 3.4, 12);
    expect(t.requestThroughput!.status === 'measured' && t.requestThroughput!.terms).toMatchObject({ windowS: { value: 3.4 }, finished: { value: 4 }, unfinished: { value: 0 }, loadS: { value: 2.5 } });
    expect(t.goodput).toMatchObject({ status: 'refused', reason: 'MISSING_TERM' });
    expect(throughputFigures([], [], null, null).requestThroughput).toMatchObject({ status: 'refused', reason: 'NO_SAMPLES' });
    const zero = [obs({ index: 0, sentS: 1, endS: 1 })];
    expect(throughputFigures(zero, [], null, null).requestThroughput).toMatchObject({ status: 'refused', reason: 'NON_POSITIVE_WINDOW' });
  });
  it('goodput counts the requests that met every SLO', () => {
    // TTFT 0.1 s for all; TPOT 0.1 s. ttft ≤ 0.1 and tpot ≤ 0.1 → all four good.
    expect(value(throughputFigures(good, figs, { ttftS: 0.1 + 1e-9, tpotS: 0.1 + 1e-9 }, null).goodput)).toBeCloseTo(4 / 3.4, 12);
    expect(value(throughputFigures(good, figs, { ttftS: 0.05 }, null).goodput)).toBe(0);
    expect(metSlo({ ...figs[0]!, finished: false }, {})).toBe(false);
    expect(metSlo({ ...figs[0]!, ttftS: null }, { ttftS: 1 })).toBeNull();
    expect(metSlo({ ...figs[0]!, ttftS: null }, { tpotS: 1 })).toBe(true);
    expect(throughputFigures(good, figs.map((f) => ({ ...f, tpotS: null })), { tpotS: 1 }, null).goodput).toMatchObject({ status: 'refused', reason: 'MISSING_TERM' });
  });
});

describe('one load assessed', () => {
  it('a wrong response withholds every figure but the send lateness; the verdict names it', () => {
    const reqs = good.map((r, i) => ({ ...r, scheduledS: r.sentS, ids: i === 1 ? [5, 6, 8] : r.ids }));
    const a = assessLoad({ golden, requests: reqs, shape: { kind: 'rate', ratePerS: 1, seed: 1 }, slo: { ttftS: 1 }, loadS: 1, limits, server: alive });
    expect(a.verdict.word).toBe('DIVERGENCE');
    const refusedCodes = Object.entries(a.figures).filter(([k]) => !k.startsWith('sendLate')).map(([, q]) => (q.status === 'refused' ? q.reason : q.status));
    expect(new Set(refusedCodes)).toEqual(new Set(['WRONG_TOKENS']));
    expect(a.figures.sendLateMax!.status).toBe('measured');
    const ok = assessLoad({ golden, requests: good, shape: { kind: 'concurrency', inFlight: 2 }, slo: null, loadS: 1, limits, server: alive });
    expect(ok.verdict.word).toBe('VALID');
    expect(value(ok.figures.ttftP50)).toBeCloseTo(0.1, 9);
    expect(ok.figures.sendLateMax).toBeUndefined();
  });
});
