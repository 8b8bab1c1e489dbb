import { describe, expect, it } from 'vitest';
import { abbaOrder, randomOrder } from '../../src/plan/order.js';
import { planA3, planAb, describePlan } from '../../src/plan/plan.js';
import { NhGateError } from '../../src/errors.js';
import { recipe } from './fixtures.js';

describe('leg order', () => {
  it('abba reverses every pair so a linear drift cancels', () => {
    expect(abbaOrder(4).join('')).toBe('ABBAABBA');
    expect(abbaOrder(1).join('')).toBe('AB');
  });

  it('random is reproducible from its seed, balanced, and never runs three legs of one arm', () => {
    const a = randomOrder(20, 7);
    expect(randomOrder(20, 7)).toEqual(a);
    expect(randomOrder(20, 8)).not.toEqual(a);
    expect(a.filter((x) => x === 'A')).toHaveLength(20);
    expect(a.join('')).not.toMatch(/AAA|BBB/);
  });
});

describe('planAb', () => {
  it('puts the flag value of each arm into that arm\'s environment, over the recipe env', () => {
    const plan = planAb({ recipe: recipe(), gate: null, flag: 'STEP', repeats: 2, order: 'abba', seed: 1, mode: 'decode' });
    expect(plan.legs.map((l) => `${l.arm}:${l.env.R_STEP}`)).toEqual(['A:0', 'B:1', 'B:1', 'A:0']);
    expect(plan.legs.every((l) => l.env.KEEP === '1')).toBe(true);
    expect(describePlan(plan)).toContain('A=off B=on, order abba, 4 legs');
  });

  it('runs the same value on both arms for a null A/B', () => {
    const plan = planAb({ recipe: recipe(), gate: null, flag: 'STEP', repeats: 2, order: 'abba', seed: 1, mode: 'decode', armValues: { A: 'on', B: 'on' } });
    expect(new Set(plan.legs.map((l) => l.env.R_STEP))).toEqual(new Set(['1']));
  });

  it('refuses an unknown flag by listing the known ones', () => {
    let err: unknown;
    try { planAb({ recipe: recipe(), gate: null, flag: 'NOPE', repeats: 2, order: 'abba', seed: 1, mode: 'decode' }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(NhGateError);
    expect((err as NhGateError).code).toBe('UNKNOWN_FLAG');
    expect((err as NhGateError).hint).toBe('use one of: STEP, DEV');
  });

  it('refuses a non-positive repeat count', () => {
    expect(() => planAb({ recipe: recipe(), gate: null, flag: 'STEP', repeats: 0, order: 'abba', seed: 1, mode: 'decode' })).toThrow(/--repeats 0/);
  });
});

describe('planA3', () => {
  it('runs both modes as two legs and keeps extra env (device arm) on every leg', () => {
    const plan = planA3(recipe(), null, 'both', { R_DEV: 'yes' });
    expect(plan.legs.map((l) => l.mode)).toEqual(['decode', 'fresh-prefill']);
    expect(plan.legs.every((l) => l.env.R_DEV === 'yes' && l.env.KEEP === '1')).toBe(true);
  });
});
