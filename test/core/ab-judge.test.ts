import { describe, expect, it } from 'vitest';
import { bindClaim, claimSpecOf, type Claim } from '../../src/gates/ab/claim.js';
import { combineWords, decide, intervalText } from '../../src/gates/ab/judge/region.js';
import { judgeFixed } from '../../src/gates/ab/judge/fixed.js';
import { errorRates, judgeAb, type AbJudgeInput, type IntervalMethod } from '../../src/gates/ab/judge/judge.js';
import { diffCounters, pct } from '../../src/gates/ab/judge/context.js';
import { mixtureFor } from '../../src/gates/ab/judge/sequential.js';
import { GateSchema } from '../../src/config/gate.js';
import { measured } from '../../src/quantity/make.js';
import { formatReason } from '../../src/verdict/reasons.js';
import type { LegRecord } from '../../src/results/types.js';
import { leg } from '../gates/fixtures.js';

// The one A/B judge: the region rule every form and method shares, the bootstrap and anytime-valid
// intervals per criterion, the combine rule, and the verdict the legs and the claim give together.

const claimOf = (extra: Record<string, unknown>, onArm: 'A' | 'B' = 'B'): Claim => {
  const g = GateSchema.parse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', ...extra });
  return bindClaim(claimSpecOf(g), onArm, { A: 'F=off', B: 'F=on' });
};
const crit = (metrics: unknown[], combine = 'all', refutationFails = true) => ({ criteria: { statement: 's', combine, refutationFails, metrics } });
const faster = (pct: number) => ({ metric: 'perOutputToken', form: 'ratio', expect: 'on-lower', atLeastPct: pct });
const busier = (pts: number) => ({ metric: 'busyFraction', form: 'points', expect: 'on-higher', atLeastPoints: pts });
const noWorse = (pct: number, arm = 'on') => ({ metric: 'perOutputToken', form: 'ratio', claim: 'non-inferiority', worse: 'higher', atMostPct: pct, arm });
const within = (pct: number) => ({ metric: 'perOutputToken', form: 'ratio', claim: 'equivalence', withinPct: pct });

// Legs in ABBA order with per-token times (and busy %), A = flag off, B = flag on.
function abba(pairs: Array<[number, number]>, busy?: Array<[number, number]>): LegRecord[] {
  const order: Array<'A' | 'B'> = [];
  for (let i = 0; i < pairs.length; i++) order.push(...(i % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)));
  const next = { A: 0, B: 0 };
  return order.map((arm, index) => {
    const k = next[arm]++;
    const l = leg(index, arm, pairs[k]![arm === 'A' ? 0 : 1]);
    if (busy) l.quantities.busy = measured('GPU busy', 'busyTimeWeighted', busy[k]![arm === 'A' ? 0 : 1], '%', {});
    return l;
  });
}

const input = (claim: Claim, legs: LegRecord[], method: IntervalMethod = { kind: 'bootstrap' }, extra: Partial<AbJudgeInput> = {}): AbJudgeInput => ({
  form: method.kind === 'bootstrap' ? 'fixed' : method.kind === 'aa-calibrated' ? 'aa' : 'sequential',
  claim, method, legs, warmupLegs: 0, plannedJudgedLegs: legs.length, binaries: { kind: 'one' }, deviations: [], seed: 1, ...extra,
});

describe('the region rule (every form, every interval method)', () => {
  const sup = { test: 'superiority', direction: 'lower', noEffect: 1, region: { lo: null, hi: 0.5 } } as const;
  it.each([
    [sup, 0.2, 0.5, 'SUPPORTED', null],
    [sup, 0.5001, 0.9, 'REFUTED', 'smaller'],
    [sup, 1.0001, 1.4, 'REFUTED', 'opposite'],
    [sup, 1.0, 1.4, 'REFUTED', 'smaller'],
    [sup, 0.4, 0.6, 'UNRESOLVED', null],
    [{ ...sup, direction: 'higher', region: { lo: 10, hi: null }, noEffect: 0 }, 10, 20, 'SUPPORTED', null],
    [{ ...sup, direction: 'higher', region: { lo: 10, hi: null }, noEffect: 0 }, -5, -0.1, 'REFUTED', 'opposite'],
    [{ ...sup, direction: 'higher', region: { lo: 10, hi: null }, noEffect: 0 }, -5, 0, 'REFUTED', 'smaller'],
    [{ ...sup, direction: 'higher', region: { lo: 10, hi: null }, noEffect: 0 }, 9, 11, 'UNRESOLVED', null],
    [{ test: 'non-inferiority', direction: 'higher', noEffect: 1, region: { lo: null, hi: 1.1 } }, 0.9, 1.1, 'SUPPORTED', null],
    [{ test: 'non-inferiority', direction: 'higher', noEffect: 1, region: { lo: null, hi: 1.1 } }, 1.11, 2, 'REFUTED', 'worse'],
    [{ test: 'non-inferiority', direction: 'higher', noEffect: 1, region: { lo: null, hi: 1.1 } }, 1.0, 1.2, 'UNRESOLVED', null],
    [{ test: 'non-inferiority', direction: 'lower', noEffect: 0, region: { lo: -3, hi: null } }, -3, 4, 'SUPPORTED', null],
    [{ test: 'non-inferiority', direction: 'lower', noEffect: 0, region: { lo: -3, hi: null } }, -9, -3.01, 'REFUTED', 'worse'],
    [{ test: 'equivalence', direction: null, noEffect: 1, region: { lo: 0.95, hi: 1.05 } }, 0.95, 1.05, 'SUPPORTED', null],
    [{ test: 'equivalence', direction: null, noEffect: 1, region: { lo: 0.95, hi: 1.05 } }, 1.06, 1.2, 'REFUTED', 'outside'],
    [{ test: 'equivalence', direction: null, noEffect: 1, region: { lo: 0.95, hi: 1.05 } }, 0.5, 0.94, 'REFUTED', 'outside'],
    [{ test: 'equivalence', direction: null, noEffect: 1, region: { lo: 0.95, hi: 1.05 } }, 0.94, 1.0, 'UNRESOLVED', null],
    [{ test: 'equivalence', direction: null, noEffect: 1, region: { lo: 0.95, hi: 1.05 } }, 0.9, 1.1, 'UNRESOLVED', null],
  ] as const)('%j: [%d, %d] → %s %s', (c, lo, hi, word, as) => {
    expect(decide({ lo, hi }, c)).toEqual({ word, refutedAs: as });
  });

  it('combines by all (every one; one refutation refutes) and by any (one suffices; all must refute)', () => {
    const S = 'SUPPORTED' as const, R = 'REFUTED' as const, U = 'UNRESOLVED' as const;
    expect([[S, S], [S, R], [S, U], [U, R], [U, U]].map((w) => combineWords(w, 'all'))).toEqual([S, R, U, R, U]);
    expect([[S, R], [R, R], [U, R], [U, U], [S, S]].map((w) => combineWords(w, 'any'))).toEqual([S, R, U, U, S]);
  });

  it('prints an interval with its level and the digits of its scale', () => {
    expect(intervalText({ lo: 0.123456, hi: 1.5, level: 0.95 }, 'ratio')).toBe('95% interval [0.1235, 1.5000]');
    expect(intervalText({ lo: -1.234, hi: 2, level: 0.9 }, 'points', 'band')).toBe('90% band [-1.23, 2.00]');
  });
});

describe('fixed N: a bootstrap interval per criterion', () => {
  const host: Array<[number, number]> = [[0.039, 0.00103], [0.043, 0.00094], [0.039, 0.00096]];
  const busy: Array<[number, number]> = [[0.01, 24], [0.06, 40], [0.04, 37]];

  it('a ratio and a points criterion, each its own estimate, interval and sentence; all → SUPPORTED', () => {
    const c = claimOf(crit([busier(10), faster(50)]));
    const j = judgeAb(input(c, abba(host, busy)));
    expect(j.verdict).toMatchObject({ word: 'SUPPORTED', exitClass: 'passed' });
    expect(j.verdict.claim).toMatch(/^2 criteria combined by 'all'/);
    const [b, t] = j.comparison.metrics;
    expect(b).toMatchObject({ key: 'busyFractionPoints', word: 'SUPPORTED', estimate: { status: 'measured', unit: 'points', kind: 'abPoints' } });
    expect(b!.estimate.status === 'measured' && b!.estimate.value).toBeCloseTo(37 - 0.04, 6);
    expect(b!.interval!.lo).toBeGreaterThanOrEqual(10);
    expect(b!.text).toMatch(/^busyFractionPoints: 95% interval \[.*\] lies entirely within the criterion B − A ≥ 10\.00 points$/);
    expect(t).toMatchObject({ key: 'perOutputTokenRatio', word: 'SUPPORTED', subject: 'B', reference: 'A', n: { subject: 3, reference: 3 } });
    expect(j.quantities.perOutputTokenRatio).toBe(t!.estimate);
    expect(j.verdict.reasons.map((r) => r.code)).toEqual(['CRITERION', 'CRITERION']);
    expect(j.stop).toBe(false);
  });

  it('REFUTED says which way; a refutation the gate does not fail on exits 0 — and JUnit agrees (its class, not its word)', () => {
    const smaller = judgeAb(input(claimOf(crit([faster(50)])), abba([[10, 8], [10.1, 8.1], [10.05, 8.05]])));
    expect(smaller.comparison.metrics[0]).toMatchObject({ word: 'REFUTED', refutedAs: 'smaller' });
    expect(smaller.verdict).toMatchObject({ word: 'REFUTED', exitClass: 'failed' });
    const slower = judgeAb(input(claimOf(crit([faster(50)], 'all', false)), abba([[10, 12.5], [10.1, 12.6], [10.05, 12.55]])));
    expect(slower.comparison.metrics[0]).toMatchObject({ word: 'REFUTED', refutedAs: 'opposite' });
    expect(slower.comparison.metrics[0]!.text).toMatch(/opposite in direction: arm B is higher, not lower/);
    expect(slower.verdict).toMatchObject({ word: 'REFUTED', exitClass: 'passed' });
  });

  it('non-inferiority and equivalence on the same legs: which claim was decided is in the verdict', () => {
    const same = abba([[10, 10.2], [10.1, 10.0], [9.9, 10.1], [10.05, 10.0]]);
    const ni = judgeAb(input(claimOf(crit([noWorse(10)])), same));
    expect(ni.verdict).toMatchObject({ word: 'SUPPORTED', claim: 'non-inferiority of perOutputToken: arm B (F=on) at most 10% higher than arm A (F=off): B/A ≤ 1.1000' });
    expect(judgeAb(input(claimOf(crit([within(10)])), same)).verdict.word).toBe('SUPPORTED');
    expect(judgeAb(input(claimOf(crit([within(0.5)])), same)).verdict.word).toBe('UNRESOLVED');
    const slow = abba([[1, 5], [1.1, 5.5], [0.9, 5.2]]);
    expect(judgeAb(input(claimOf(crit([noWorse(5)])), slow)).comparison.metrics[0]).toMatchObject({ word: 'REFUTED', refutedAs: 'worse' });
    expect(judgeAb(input(claimOf(crit([noWorse(5)])), slow)).comparison.metrics[0]!.text).toMatch(/arm B is higher than arm A by more than the margin/);
    expect(judgeAb(input(claimOf(crit([noWorse(5, 'off')])), slow)).verdict.word).toBe('SUPPORTED');
    const eq = judgeAb(input(claimOf(crit([within(5)])), slow)).comparison.metrics[0]!;
    expect(eq).toMatchObject({ word: 'REFUTED', refutedAs: 'outside' });
    expect(eq.text).toMatch(/differ by more than the margin \(arm B is higher\)/);
    expect(judgeAb(input(claimOf(crit([within(5)])), abba([[5, 1], [5.5, 1.1], [5.2, 0.9]]))).comparison.metrics[0]!.text).toMatch(/arm B is lower/);
  });

  it('UNRESOLVED by name: n too small, a ratio over a zero median (pointing to points), no legs in an arm', () => {
    const small = judgeFixed(claimOf(crit([faster(20)])).criteria[0]!, abba([[10, 1]]), 1, claimOf(crit([faster(20)])));
    expect(small).toMatchObject({ word: 'UNRESOLVED', interval: null });
    expect(small.text).toMatch(/n too small: 1 and 1 token-gated legs per arm/);
    const zeroClaim = claimOf(crit([{ metric: 'busyFraction', form: 'ratio', expect: 'on-higher', atLeastPct: 50 }]));
    const zero = judgeFixed(zeroClaim.criteria[0]!, abba([[1, 1], [1, 1]], [[0, 30], [0, 40]]), 1, zeroClaim);
    expect(zero).toMatchObject({ word: 'UNRESOLVED', estimate: { status: 'refused', reason: 'ZERO_DENOMINATOR' } });
    expect(zero.text).toMatch(/judge it as a points delta/);
    const none = judgeFixed(zeroClaim.criteria[0]!, abba([[1, 1], [1, 1]]), 1, zeroClaim);
    expect(none.estimate).toMatchObject({ status: 'refused', reason: 'NO_SAMPLES', message: expect.stringMatching(/^arm B has no leg with a measured busy/) });
  });

  it('takes no speed from a leg with wrong tokens, and the run is DIVERGENCE whatever the ratio', () => {
    const ls = abba([[10, 1], [11, 1], [10.5, 1]]);
    ls.push(leg(6, 'B', 50, { verdict: 'DIVERGENCE' }));
    const j = judgeAb(input(claimOf(crit([faster(50)])), ls, { kind: 'bootstrap' }, { plannedJudgedLegs: 7 }));
    expect(j.comparison.metrics[0]!.n).toEqual({ subject: 3, reference: 3 });
    expect(j.verdict).toMatchObject({ word: 'DIVERGENCE', exitClass: 'failed' });
    expect(j.verdict.reasons.map(formatReason)).toContain('LEG_NOT_PASSED: leg 7 (B6): DIVERGENCE — 0/0 tokens matched (no speed taken from it)');
  });

  it('one binary means one: legs of two binaries are VOID (MIXED_BINARIES); two commits check each arm alone', () => {
    const ls = abba([[10, 1], [11, 1]]);
    ls[1] = { ...ls[1]!, binarySha256: 'other' };
    const one = judgeAb(input(claimOf(crit([faster(50)])), ls));
    expect(one.verdict).toMatchObject({ word: 'VOID', exitClass: 'void' });
    expect(formatReason(one.verdict.reasons[0]!)).toBe('MIXED_BINARIES: the legs ran 2 different binaries — an A/B compares one binary under a flag');
    const two = (shaB: string) => ({ kind: 'two' as const, label: 'two binaries: base a = 1, head b = 2', base: { rev: 'a', commit: '1', tree: 't1', binarySha256: 'sha-1' }, head: { rev: 'b', commit: '2', tree: 't2', binarySha256: shaB }, identical: shaB === 'sha-1' });
    const split = abba([[10, 1], [11, 1]]).map((l) => (l.arm === 'B' ? { ...l, binarySha256: 'sha-2' } : l));
    const cross = judgeAb(input(claimOf(crit([faster(50)])), split, { kind: 'bootstrap' }, { binaries: two('sha-2') }));
    expect(cross.verdict.word).toBe('SUPPORTED');
    expect(formatReason(cross.verdict.reasons[0]!)).toBe('TWO_BINARIES: two binaries: base a = 1, head b = 2');
    const mixedArm = split.map((l, i) => (i === 0 ? { ...l, binarySha256: 'sha-3' } : l));
    expect(judgeAb(input(claimOf(crit([faster(50)])), mixedArm, { kind: 'bootstrap' }, { binaries: two('sha-2') })).verdict.reasons.map((r) => r.code)).toEqual(['TWO_BINARIES', 'MIXED_BINARIES']);
    const same = judgeAb(input(claimOf(crit([faster(50)])), abba([[10, 1], [11, 1]]), { kind: 'bootstrap' }, { binaries: two('sha-1') }));
    expect(same.notes.join('\n')).toMatch(/the two commits built byte-identical binaries \(sha256 sha-1\)/);
    expect(same.notes.join('\n')).not.toMatch(/the arms did NOT differ/);
  });

  it('an engine that refused its input makes the run a usage error; missing legs and deviations are named', () => {
    const ls = abba([[10, 1], [11, 1]]);
    ls[3] = { ...leg(3, 'A', null, { verdict: 'VOID' }), process: { ...ls[3]!.process, exitCode: 2 }, voidReasons: [{ code: 'ENGINE_REFUSED', message: 'bad golden' }] };
    expect(judgeAb(input(claimOf(crit([faster(50)])), ls)).verdict).toMatchObject({ word: 'VOID', exitClass: 'usage' });
    const d = { option: '--repeats', field: 'repeats', registered: '4', given: '2', text: '--repeats 2 departs' };
    const j = judgeAb(input(claimOf(crit([faster(50)])), abba([[10, 1], [11, 1]]), { kind: 'bootstrap' }, { plannedJudgedLegs: 8, deviations: [d] }));
    expect(j.verdict.reasons.map(formatReason).slice(1)).toEqual(['DEVIATION: --repeats 2 departs', 'MISSING_LEGS: only 4 of 8 legs ran']);
  });

  it('report-only: MEASURED with the figure, NOT MEASURED without one, VOID beside a void leg', () => {
    const none = bindClaim(null, 'B', { A: 'F=off', B: 'F=on' });
    const ok = judgeAb(input(none, abba([[10, 5], [11, 5]])));
    expect(ok.verdict).toMatchObject({ word: 'MEASURED', exitClass: 'passed' });
    expect(ok.verdict.claim).toBeUndefined();
    expect(ok.comparison.metrics[0]).toMatchObject({ word: null, key: 'ratio' });
    expect(ok.quantities.ratio).toMatchObject({ status: 'measured', name: 'per output token ratio B/A' });
    expect(judgeAb(input(none, abba([[10, 5]]).map((l) => ({ ...l, quantities: {} })))).verdict).toMatchObject({ word: 'NOT MEASURED', exitClass: 'void' });
    const ls = abba([[10, 5], [11, 5]]);
    ls.push(leg(4, 'A', null, { verdict: 'VOID' }));
    expect(judgeAb(input(none, ls)).verdict).toMatchObject({ word: 'VOID', exitClass: 'void' });
  });

  it('puts per-token beside a gate that judges something else, and states the context', () => {
    const c = claimOf(crit([busier(10)]));
    const j = judgeAb(input(c, abba([[2, 1], [2.1, 1.1], [2, 1]], [[1, 30], [2, 31], [1, 33]])));
    expect(j.quantities.perTokenRatio).toMatchObject({ status: 'measured', name: 'per output token ratio B/A' });
    expect(j.comparison).toMatchObject({ kind: 'ab', onArm: 'B', arms: { A: 'F=off', B: 'F=on' }, claim: { source: 'criteria', combine: 'all' } });
    expect(j.notes[0]).toMatch(/^spreads beside the delta \(max−min\)\/min: arm A busy /);
    expect(diffCounters([leg(0, 'A', 1, { counters: { scan: 10, step: 0 } }), leg(1, 'B', 1, { counters: { step: 5, scan: 1 } })])).toEqual([{ field: 'scan', A: 10, B: 1 }, { field: 'step', A: 0, B: 5 }]);
    expect(pct(Number.NaN)).toBe('undefined (the smallest leg is 0)');
    expect(pct(null)).toBe('n<2');
    expect(pct(0.326)).toBe('32.6%');
  });

  it('equal arms with identical counters: it says the arms did not differ, and does not call it SUPPORTED', () => {
    const c = claimOf(crit([faster(20)]));
    const j = judgeAb(input(c, abba([[1, 1], [1.01, 1], [1, 0.99]])));
    expect(j.comparison.armsDiffered).toBe(false);
    expect(j.notes.join('\n')).toMatch(/the arms did NOT differ/);
    expect(j.verdict.word).not.toBe('SUPPORTED');
  });
});

describe('sequential: an anytime-valid test per criterion, combined block by block', () => {
  const seq = (extra: Record<string, unknown>) => ({ sequential: { sigmaLogRatio: 0.5, tauLogRatio: 2, maxLegs: 16, scales: { busyFraction: { sigma: 5, tau: 20 } }, ...extra } });
  const method = (scales: Record<string, { sigma: number; tau?: number }>): IntervalMethod => ({ kind: 'anytime-valid', alpha: 0.05, scales });

  it('a ratio and a points criterion: SUPPORTED after the first block, the run told to stop, the figures beside', () => {
    const c = claimOf({ ...crit([busier(10), faster(50)]), ...seq({}) });
    const legs = abba([[1.3, 0.09], [1.2, 0.09]], [[0.1, 60], [0.1, 62]]);
    const j = judgeAb(input(c, legs, method({ busyFractionPoints: { sigma: 5, tau: 20 }, perOutputTokenRatio: { sigma: 0.5, tau: 2 } }), { plannedJudgedLegs: 16 }));
    expect(j.verdict).toMatchObject({ word: 'SUPPORTED', exitClass: 'passed' });
    expect(j.stop).toBe(true);
    expect(j.comparison).toMatchObject({ decidedAtBlock: 1, legsUsed: 4, method: { kind: 'anytime-valid' } });
    expect(j.verdict.reasons.map((r) => r.code)).toEqual(['CRITERION', 'CRITERION']);
    const [b, t] = j.comparison.metrics;
    expect(b!.text).toMatch(/^busyFractionPoints: 95% anytime-valid interval on the points delta \[.*\] after 1 block\(s\) \(4 legs\) lies entirely within the criterion B − A ≥ 10\.00 points$/);
    expect(t!.interval!.hi).toBeLessThan(0.5);
    expect(t!.sequential).toMatchObject({ sigma: 0.5, tau: 2, decidedAtBlock: 1 });
    expect(j.quantities.sequentialPerOutputTokenRatio).toMatchObject({ status: 'measured', kind: 'sequentialRatio' });
    expect(j.quantities.sequentialBusyFractionPoints).toMatchObject({ status: 'measured', kind: 'sequentialPoints', unit: 'points' });
    expect(j.quantities.perOutputTokenRatio).toMatchObject({ status: 'measured', kind: 'abRatio' });
    expect(j.notes.join('\n')).toMatch(/stated error rates — wrong SUPPORTED ≤ 0\.05, wrong REFUTED ≤ 0\.1/);
  });

  it("τ defaults to the nearest bound's distance from no effect, in the observation's units; a registered τ wins", () => {
    expect(mixtureFor({ scale: 'ratio', region: { lo: null, hi: 0.5 } }, { sigma: 0.1 }, 0.05)).toEqual({ alpha: 0.05, sigma: 0.1, tau: Math.abs(Math.log(0.5)) });
    expect(mixtureFor({ scale: 'points', region: { lo: -3, hi: 5 } }, { sigma: 2 }, 0.1)).toEqual({ alpha: 0.1, sigma: 2, tau: 3 });
    expect(mixtureFor({ scale: 'ratio', region: { lo: 0.8, hi: 1.1 } }, { sigma: 0.1 }, 0.05).tau).toBeCloseTo(Math.log(1.1), 12);
    expect(mixtureFor({ scale: 'ratio', region: { lo: 0.9, hi: 1.1 } }, { sigma: 0.1, tau: 0.7 }, 0.05).tau).toBe(0.7);
    expect(mixtureFor({ scale: 'points', region: { lo: null, hi: null } }, { sigma: 1 }, 0.05).tau).toBe(1);
    expect(mixtureFor({ scale: 'ratio', region: { lo: null, hi: 1 } }, { sigma: 1 }, 0.05).tau).toBe(1e-6);
  });

  it("each criterion's record: the interval with its level and method, n per arm, the estimate's terms, the noise check", () => {
    const c = claimOf({ ...crit([busier(10), faster(50)]), ...seq({}) });
    const legs = abba([[1.3, 0.09], [1.2, 0.09], [1.25, 0.1], [1.3, 0.1]], [[0.1, 60], [0.1, 62], [0.2, 61], [0.1, 60]]);
    const j = judgeAb(input(c, legs, method({ busyFractionPoints: { sigma: 5, tau: 20 }, perOutputTokenRatio: { sigma: 0.5, tau: 2 } }), { plannedJudgedLegs: 16 }));
    const t = j.comparison.metrics[1]!;
    expect(t.interval).toMatchObject({ level: 0.95 });
    expect(t.interval!.method).toMatch(/; σ 0\.5, τ 2, α 0\.05$/);
    expect(t.n).toEqual({ subject: 2, reference: 2 });
    expect(t.sequential).toMatchObject({ decidedAtBlock: 1, observedSd: expect.any(Number), exceedsRegistered: false });
    expect(t.sequential!.observedSd!).toBeLessThan(0.5);
    expect(t.sequential!.blocks).toHaveLength(2);
    expect(t.estimate).toMatchObject({ status: 'measured', unit: 'x', name: expect.stringMatching(/^sequential /), terms: {
      interval: { value: expect.stringMatching(/^\[0\.\d+, 0\.\d+\]$/), label: '95% anytime-valid interval (σ 0.5, τ 2)' },
      blocks: { value: 1, label: 'blocks judged' }, legs: { value: 4, label: 'legs used' },
    } });
    expect(t.text).not.toMatch(/skipped/);
    const b = j.comparison.metrics[0]!;
    expect(b.estimate).toMatchObject({ unit: 'points', kind: 'sequentialPoints' });
    expect(b.sequential).toMatchObject({ exceedsRegistered: false, sigma: 5, tau: 20 });
  });

  it("'all' waits for every criterion; 'any' stops on the first; one refutation under 'all' refutes at once", () => {
    const legs = abba([[1.3, 0.09], [1.2, 0.09]], [[30, 32], [31, 30]]);
    const scales = { busyFractionPoints: { sigma: 5, tau: 20 }, perOutputTokenRatio: { sigma: 0.5, tau: 2 } };
    const all = judgeAb(input(claimOf({ ...crit([busier(10), faster(50)]), ...seq({}) }), legs, method(scales), { plannedJudgedLegs: 16 }));
    expect(all.verdict.word).toBe('UNRESOLVED');
    expect(all.stop).toBe(false);
    expect(all.verdict.reasons.map(formatReason)).toContain('MISSING_LEGS: only 4 of 16 legs ran');
    const any = judgeAb(input(claimOf({ ...crit([busier(10), faster(50)], 'any'), ...seq({}) }), legs, method(scales)));
    expect(any.verdict.word).toBe('SUPPORTED');
    expect(any.stop).toBe(true);
    const tight = { busyFractionPoints: { sigma: 0.5, tau: 10 }, perOutputTokenRatio: { sigma: 0.5, tau: 2 } };
    const ref = judgeAb(input(claimOf({ ...crit([busier(10), faster(50)]), ...seq({}) }), abba([[1.3, 0.09], [1.2, 0.09]], [[30, 30], [30, 30]]), method(tight)));
    expect(ref.verdict.word).toBe('REFUTED');
    expect(ref.comparison.metrics.map((m) => m.word)).toEqual(['REFUTED', 'SUPPORTED']);
  });

  it('names a skipped block (a leg with wrong tokens) and cautions when the noise exceeds the registered σ', () => {
    const legs = abba([[1, 1], [1, 1.35], [1.35, 1], [1, 1], [1, 1.4], [1.3, 1]]);
    legs[2] = { ...legs[2]!, verdict: 'DIVERGENCE' };
    const c = claimOf({ ...crit([faster(20)]), ...seq({}) });
    const j = judgeAb(input(c, legs, method({ perOutputTokenRatio: { sigma: 0.05, tau: 0.2 } })));
    const m = j.comparison.metrics[0]!;
    expect(m.sequential!.blocks[0]).toMatchObject({ x: null, skipped: 'leg 3 is DIVERGENCE', lo: null });
    expect(m.text).toMatch(/1 block\(s\) skipped \(block 1: leg 3 is DIVERGENCE\)/);
    expect(m.sequential!.exceedsRegistered).toBe(true);
    expect(j.notes.join('\n')).toMatch(/caution — the observed block sd of perOutputTokenRatio .* exceeds the registered σ 0\.05/);
  });

  it('non-inferiority decided sequentially against its bound; nothing yet before a whole block', () => {
    const c = claimOf({ ...crit([noWorse(10)]), ...seq({}) });
    const same = abba(Array.from({ length: 8 }, (_, i): [number, number] => [1 + 0.001 * (i % 3), 1 + 0.001 * ((i + 1) % 3)]));
    const j = judgeAb(input(c, same, method({ perOutputTokenRatio: { sigma: 0.01, tau: 0.05 } })));
    expect(j.verdict.word).toBe('SUPPORTED');
    expect(j.comparison.metrics[0]!.interval!.hi).toBeLessThanOrEqual(1.1);
    const early = judgeAb(input(c, same.slice(0, 3), method({ perOutputTokenRatio: { sigma: 0.01 } })));
    expect(early.comparison.metrics[0]!.text).toBe('perOutputTokenRatio: no block with an observation yet');
    expect(early.quantities.sequentialPerOutputTokenRatio).toMatchObject({ status: 'refused', reason: 'NO_SAMPLES' });
  });

  it('states the error rates of each method and combine rule', () => {
    expect(errorRates({ kind: 'bootstrap' }, 1, 'all')).toMatchObject({ wrongSupportedMax: 0.025, wrongRefutedMax: 0.025 });
    expect(errorRates({ kind: 'anytime-valid', alpha: 0.05, scales: {} }, 2, 'all')).toMatchObject({ wrongSupportedMax: 0.05, wrongRefutedMax: 0.1 });
    expect(errorRates({ kind: 'anytime-valid', alpha: 0.05, scales: {} }, 3, 'any')).toMatchObject({ wrongSupportedMax: 0.15000000000000002, wrongRefutedMax: 0.05 });
    expect(errorRates({ kind: 'anytime-valid', alpha: 0.4, scales: {} }, 3, 'any').wrongSupportedMax).toBe(1);
    expect(errorRates({ kind: 'bootstrap' }, 1, 'all').assumes).toMatch(/percentile bootstrap/);
  });
});

describe('A/A calibration of every criterion\'s scale', () => {
  const aa = (blocks: number): IntervalMethod => ({ kind: 'aa-calibrated', alpha: 0.05, scales: { perOutputTokenRatio: { sigma: 0.05, tau: 0.2 }, busyFractionPoints: { sigma: 2, tau: 5 } }, budgetBlocks: blocks });
  const quiet = abba([[1, 1.01], [0.99, 1], [1, 1], [1.02, 0.98], [1, 1], [1.01, 0.99], [1, 1.01], [0.99, 1]], [[30, 31], [30, 30], [31, 30], [30, 30.5], [30, 30], [29.5, 30], [30, 30], [30.5, 30]]);

  it('MEASURED when each metric holds; REFUTED (always a failure) when one does not; NOT MEASURED under 4 blocks', () => {
    const c = claimOf(crit([faster(20), busier(10)], 'all', false));
    const ok = judgeAb(input(c, quiet, aa(6)));
    expect(ok.verdict).toMatchObject({ word: 'MEASURED', exitClass: 'passed' });
    expect(ok.verdict.reasons.map((r) => r.code)).toEqual(['AA_CALIBRATION', 'AA_CALIBRATION']);
    expect(ok.quantities.aaFalseAlarmRate).toMatchObject({ status: 'measured', unit: 'fraction' });
    expect(ok.comparison.metrics.map((m) => m.aa!.holds)).toEqual([true, true]);
    expect(ok.stop).toBe(false);
    const noisy = quiet.map((l, i) => (i % 4 === 1 ? { ...l, quantities: { ...l.quantities, busy: measured('GPU busy', 'busyTimeWeighted', 80, '%', {}) } } : l));
    const bad = judgeAb(input(c, noisy, aa(6)));
    expect(bad.verdict).toMatchObject({ word: 'REFUTED', exitClass: 'failed' });
    expect(bad.comparison.metrics[1]!.aa!.text).toMatch(/does NOT hold/);
    const few = judgeAb(input(c, quiet.slice(0, 12), aa(6)));
    expect(few.verdict).toMatchObject({ word: 'NOT MEASURED', exitClass: 'void' });
    expect(few.quantities.aaFalseAlarmRate).toMatchObject({ status: 'refused', reason: 'NO_SAMPLES' });
    expect(few.comparison.metrics[0]!.aa!.text).toMatch(/needs at least 4 \(16 legs: pass --budget 16 or more\)/);
  });
});
