import { describe, expect, it } from 'vitest';
import { blockLogRatios, logCriterion } from '../../src/gates/ab/blocks.js';
import { blockBudget, judgeSequential } from '../../src/gates/ab/sequentialJudge.js';
import { findCalibration, judgeAa, FALSE_ALARM_FIGURE } from '../../src/gates/ab/calibration.js';
import { parseLedger } from '../../src/results/ledgerRead.js';
import { withWarmup, isWarmup } from '../../src/plan/warmup.js';
import { planAb } from '../../src/plan/plan.js';
import { GateSchema } from '../../src/config/gate.js';
import { leg, recipe } from './fixtures.js';

const hyp = (pct: number) => ({ statement: 's', metric: 'perOutputToken' as const, expect: 'on-faster' as const, refutedIfLessThanPct: pct, refutationFails: true });
const arms = { A: 'off' as const, B: 'on' as const };
const seq = { always: false, alpha: 0.05, sigmaLogRatio: 0.5, tauLogRatio: 2, maxLegs: 16 };

// ABBA legs with per-token values: A slow, B fast (the decode-step arm)
function abba(blocks: Array<[number, number, number, number]>) {
  const order = ['A', 'B', 'B', 'A'] as const;
  return blocks.flatMap((vals, b) => vals.map((v, k) => leg(4 * b + k, order[k]!, v)));
}

describe('ABBA blocks', () => {
  it('one log ratio per whole block: mean log numerator − mean log denominator; a partial block waits', () => {
    const legs = abba([[2, 1, 1, 2], [4, 1, 2, 4]]).concat([leg(8, 'A', 9)]);
    const b = blockLogRatios(legs, 'perOutputToken', 'B');
    expect(b).toHaveLength(2);
    expect(b[0]!.logRatio).toBeCloseTo(Math.log(0.5), 12);
    expect(b[1]!.logRatio).toBeCloseTo((Math.log(1) + Math.log(2)) / 2 - Math.log(4), 12);
    expect(b[0]!.legs).toEqual([1, 2, 3, 4]);
  });

  it('a linear drift inside a block cancels', () => {
    // log values drift by +0.1 per leg; true log ratio −1
    const order = ['A', 'B', 'B', 'A'] as const;
    const legs = order.map((a, k) => leg(k, a, Math.exp((a === 'B' ? -1 : 0) + 0.1 * k)));
    expect(blockLogRatios(legs, 'perOutputToken', 'B')[0]!.logRatio).toBeCloseTo(-1, 12);
  });

  it('a block with a leg of wrong tokens gives no log ratio, and says which leg', () => {
    const legs = abba([[2, 1, 1, 2]]);
    legs[2] = leg(2, 'B', 1, { verdict: 'DIVERGENCE' });
    const b = blockLogRatios(legs, 'perOutputToken', 'B');
    expect(b[0]!.logRatio).toBeNull();
    expect(b[0]!.skipped).toMatch(/leg 3 is DIVERGENCE/);
  });

  it('reads the criterion as compareArms does: the expected-better arm is the numerator', () => {
    expect(logCriterion(hyp(50), arms)).toMatchObject({ numerator: 'B', criterion: { better: 'below' } });
    expect(logCriterion(hyp(50), arms).criterion.bound).toBeCloseTo(Math.log(0.5), 12);
    expect(logCriterion({ ...hyp(50), expect: 'off-faster' }, arms).numerator).toBe('A');
    expect(logCriterion({ ...hyp(50), metric: 'busyFraction', expect: 'on-busier' }, arms).criterion).toMatchObject({ better: 'above' });
  });
});

describe('the sequential judgement', () => {
  it('SUPPORTED after the first block when the effect is far beyond the bound, with the error rates stated', () => {
    const s = judgeSequential({ legs: abba([[1.3, 0.09, 0.09, 1.2]]), hypothesis: hyp(50), seq, armFlagValues: arms, warmupLegs: 0 });
    expect(s.decision).toMatchObject({ word: 'SUPPORTED', decidedAtBlock: 1, legsUsed: 4 });
    expect(s.decision.ratioHi!).toBeLessThan(0.5);
    expect(s.errorRates.eitherMax).toBe(0.05);
    expect(s.text).toMatch(/anytime-valid interval on the ratio .* after 1 block\(s\) \(4 legs\) lies entirely within/);
  });

  it('UNRESOLVED with no effect at a wide registered noise; the noise caution when observed sd exceeds σ', () => {
    const s = judgeSequential({ legs: abba([[1, 1, 1, 1], [1, 1.35, 1.35, 1], [1.35, 1, 1, 1.35]]), hypothesis: hyp(20), seq: { ...seq, sigmaLogRatio: 0.2, tauLogRatio: 0.2 }, armFlagValues: { A: 'on', B: 'on' }, warmupLegs: 0 });
    expect(s.decision.word).toBe('UNRESOLVED');
    expect(s.noise.exceedsRegistered).toBe(true);
  });

  it('a block budget below one block is refused by name', () => {
    expect(blockBudget(3)).toEqual({ error: 'sequential.maxLegs 3 is smaller than one ABBA block (4 legs)' });
    expect(blockBudget(10)).toEqual({ blocks: 2 });
    const r = GateSchema.safeParse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', sequential: { sigmaLogRatio: 0.1, maxLegs: 3 } });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toMatch(/smaller than one ABBA block/);
    expect(GateSchema.safeParse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', sequential: { sigmaLogRatio: 0.1, maxLegs: 4, extra: 1 } }).success).toBe(false);
  });

  it('flags an outlier leg by median/MAD, and still counts it', () => {
    const legs = abba([[1, 0.1, 0.1, 1], [1.01, 0.1, 0.1, 1.02], [0.99, 0.1, 0.1, 9]]);
    const s = judgeSequential({ legs, hypothesis: hyp(50), seq: { ...seq, maxLegs: 12 }, armFlagValues: arms, warmupLegs: 0 });
    expect(s.outliers).toEqual([expect.objectContaining({ leg: 12, arm: 'A', value: 9 })]);
  });
});

describe('A/A calibration', () => {
  it('a quiet A/A holds; a noisy one against a small registered σ does not', () => {
    const quiet = abba([[1, 1.01, 0.99, 1], [1, 0.99, 1.01, 1], [1.02, 1, 1, 0.98], [1, 1, 1.01, 0.99]]);
    const a = judgeAa(quiet, hyp(20), { ...seq, sigmaLogRatio: 0.05, tauLogRatio: 0.2 }, 1, 6);
    expect(a.holds).toBe(true);
    expect(a.falseAlarmRate).toBeLessThanOrEqual(0.05);
    const noisy = abba([[1, 2, 0.5, 1], [1, 0.5, 2, 1], [2, 1, 1, 0.5], [1, 3, 1, 1]]);
    const b = judgeAa(noisy, hyp(20), { ...seq, sigmaLogRatio: 0.05, tauLogRatio: 0.2 }, 1, 6);
    expect(b.holds).toBe(false);
    expect(b.text).toMatch(/does NOT hold/);
    expect(judgeAa(quiet.slice(0, 12), hyp(20), seq, 1, 6).falseAlarmRate).toBeNull();
    expect(judgeAa(quiet.slice(0, 12), hyp(20), seq, 1, 6).text).toMatch(/needs at least 4 \(16 legs/);
  });

  it('finds a passing calibration of this gate on this silicon younger than N days, or says why not', () => {
    const line = (at: string, key: string, verdict: string, gate = 'g') => JSON.stringify({ schemaVersion: 1, at, command: 'ab', gate, gateSha256: null, recipe: 'r', arch: 'cpu', siliconKey: key, binarySha256: [], verdict, figures: { [FALSE_ALARM_FIGURE]: { value: 0.01, unit: 'fraction' } }, runDir: 'x' });
    const now = new Date('2026-12-01T00:00:00Z');
    const ledger = parseLedger([line('2026-11-20T00:00:00Z', 'cpu:X', 'MEASURED'), line('2026-11-29T00:00:00Z', 'cpu:X', 'REFUTED'), line('2026-11-30T00:00:00Z', 'cpu:Y', 'MEASURED')].join('\n'));
    expect(findCalibration(ledger, 'g', 'cpu:X', now, 30)).toMatchObject({ ok: true, line: 1 });
    const old = findCalibration(ledger, 'g', 'cpu:X', now, 7);
    expect(old).toMatchObject({ ok: false });
    if (!old.ok) expect(old.message).toMatch(/younger than 7 days .* line 1\) is 11\.0 days old/);
    const none = findCalibration(ledger, 'other', 'cpu:X', now, 7);
    if (!none.ok) expect(none.message).toMatch(/none was found/);
    // another silicon's calibration never counts for this one
    expect(findCalibration(ledger, 'g', 'cpu:Z', now, 30).ok).toBe(false);
  });
});

describe('warm-up legs', () => {
  it('run first, alternate arms, and are the only legs isWarmup marks', () => {
    const p = withWarmup(planAb({ recipe: recipe(), gate: null, flag: 'STEP', repeats: 2, order: 'abba', seed: 1, mode: 'decode' }), 2);
    expect(p.legs.map((l) => l.arm).join('')).toBe('AB' + 'ABBA');
    expect(p.legs.map((l) => l.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(p.legs[0]!.label).toMatch(/warm-up 1 \(A, discarded\)/);
    expect(p.legs[1]!.env.R_STEP).toBe('1');
    expect([0, 1, 2].map((i) => isWarmup(i, 2))).toEqual([true, true, false]);
    expect(withWarmup(p, 0)).toBe(p);
  });
});
