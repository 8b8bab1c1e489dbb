import { describe, expect, it } from 'vitest';
import { blockObservations, legBlock } from '../../src/gates/ab/blocks.js';
import { findCalibration } from '../../src/gates/ab/calibration.js';
import { FALSE_ALARM_FIGURE } from '../../src/gates/ab/judge/aa.js';
import { measured } from '../../src/quantity/make.js';
import { parseLedger } from '../../src/results/ledgerRead.js';
import { withWarmup, isWarmup } from '../../src/plan/warmup.js';
import { planAb } from '../../src/plan/plan.js';
import { GateSchema } from '../../src/config/gate.js';
import { leg, recipe } from '../gates/fixtures.js';

// ABBA legs with per-token values: A slow, B fast (the decode-step arm)
function abba(blocks: Array<[number, number, number, number]>) {
  const order = ['A', 'B', 'B', 'A'] as const;
  return blocks.flatMap((vals, b) => vals.map((v, k) => leg(4 * b + k, order[k]!, v)));
}

describe('ABBA blocks', () => {
  it('one log ratio per whole block: mean log subject − mean log reference; a partial block waits', () => {
    const legs = abba([[2, 1, 1, 2], [4, 1, 2, 4]]).concat([leg(8, 'A', 9)]);
    const b = blockObservations(legs, 'perOutputToken', 'B', 'ratio');
    expect(b).toHaveLength(2);
    expect(b[0]!.x).toBeCloseTo(Math.log(0.5), 12);
    expect(b[1]!.x).toBeCloseTo((Math.log(1) + Math.log(2)) / 2 - Math.log(4), 12);
    expect(b[0]!.legs).toEqual([1, 2, 3, 4]);
    expect(blockObservations(legs, 'perOutputToken', 'A', 'ratio')[0]!.x).toBeCloseTo(Math.log(2), 12);
  });

  it('on a points scale, the difference of means (busy 0% is a value, not a missing one)', () => {
    const legs = abba([[1, 1, 1, 1]]).map((l, i) => ({ ...l, quantities: { ...l.quantities, busy: measured('busy', 'busyTimeWeighted', [0, 40, 42, 2][i]!, '%', {}) } }));
    expect(blockObservations(legs, 'busy', 'B', 'points')[0]).toMatchObject({ x: 40, skipped: null });
    expect(blockObservations(legs, 'busy', 'B', 'ratio')[0]).toMatchObject({ x: null, skipped: 'leg 1 busy is 0: no log ratio over it' });
  });

  it('a linear drift inside a block cancels', () => {
    // log values drift by +0.1 per leg; true log ratio −1
    const order = ['A', 'B', 'B', 'A'] as const;
    const legs = order.map((a, k) => leg(k, a, Math.exp((a === 'B' ? -1 : 0) + 0.1 * k)));
    expect(blockObservations(legs, 'perOutputToken', 'B', 'ratio')[0]!.x).toBeCloseTo(-1, 12);
  });

  it('a block with a leg of wrong tokens or no figure gives no observation, and says which leg', () => {
    const legs = abba([[2, 1, 1, 2]]);
    legs[2] = leg(2, 'B', 1, { verdict: 'DIVERGENCE' });
    legs[3] = leg(3, 'A', null);
    const b = blockObservations(legs, 'perOutputToken', 'B', 'ratio');
    expect(b[0]!.x).toBeNull();
    expect(b[0]!.skipped).toBe('leg 3 is DIVERGENCE; leg 4 has no measured perOutputToken');
    const oneSided = [leg(0, 'A', 1), leg(1, 'A', 1), leg(2, 'A', 1), leg(3, 'A', 1)];
    expect(blockObservations(oneSided, 'perOutputToken', 'B', 'ratio')[0]!.skipped).toBe('block has 0 subject and 4 reference legs');
  });

  it('places each leg in its block (warm-up legs join the first): the scope of a jobPer block allocation', () => {
    expect(legBlock(0, 2, 10)).toEqual({ block: 0, blockLegs: 6 });
    expect(legBlock(5, 2, 10)).toEqual({ block: 0, blockLegs: 6 });
    expect(legBlock(6, 2, 10)).toEqual({ block: 1, blockLegs: 4 });
    expect(legBlock(9, 2, 11)).toEqual({ block: 1, blockLegs: 4 });
    expect(legBlock(10, 2, 11)).toEqual({ block: 2, blockLegs: 1 });
    expect(legBlock(3, 0, 4)).toEqual({ block: 0, blockLegs: 4 });
    // A sweep's block is its arms (one Williams row): 3 arms, 1 warm-up, 7 legs.
    expect([0, 1, 3, 4, 6].map((i) => legBlock(i, 1, 7, 3))).toEqual([{ block: 0, blockLegs: 4 }, { block: 0, blockLegs: 4 }, { block: 0, blockLegs: 4 }, { block: 1, blockLegs: 3 }, { block: 1, blockLegs: 3 }]);
  });

  it('a block budget below one block is refused by name at load', () => {
    const r = GateSchema.safeParse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', sequential: { sigmaLogRatio: 0.1, maxLegs: 3 } });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toMatch(/smaller than one ABBA block/);
    expect(GateSchema.safeParse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', sequential: { sigmaLogRatio: 0.1, maxLegs: 4, extra: 1 } }).success).toBe(false);
  });
});

describe('A/A calibration in the ledger', () => {
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
