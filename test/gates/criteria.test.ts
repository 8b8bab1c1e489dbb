import { describe, expect, it } from 'vitest';
import { judgeCriteria, judgeCriterion, checkCriteriaProducible } from '../../src/gates/ab/criteria.js';
import { CriteriaSchema, type Criteria } from '../../src/config/criteria.js';
import { GateSchema } from '../../src/config/gate.js';
import { measured } from '../../src/quantity/make.js';
import { leg } from './fixtures.js';

// Legs with a per-token time and a busy %, arm A = flag off, arm B = flag on.
function legs(a: Array<[number, number]>, b: Array<[number, number]>) {
  const one = (i: number, arm: 'A' | 'B', [s, busy]: [number, number]) => {
    const l = leg(i, arm, s);
    l.quantities.busy = measured('GPU busy', 'busyTimeWeighted', busy, '%', {});
    return l;
  };
  return [...a.map((v, i) => one(2 * i, 'A', v)), ...b.map((v, i) => one(2 * i + 1, 'B', v))];
}
const points = (n: number) => ({ metric: 'busyFraction' as const, form: 'points' as const, expect: 'on-higher' as const, atLeastPoints: n });
const faster = (pct: number) => ({ metric: 'perOutputToken' as const, form: 'ratio' as const, expect: 'on-lower' as const, atLeastPct: pct });
const host: Array<[number, number]> = [[0.039, 0.01], [0.043, 0.06], [0.039, 0.04]];
const device: Array<[number, number]> = [[0.00103, 24], [0.00094, 40], [0.00096, 37]];

describe('criteria: a points delta for percentages, a ratio for times, combined by a stated rule', () => {
  it('judges busy as B − A in points with a bootstrap interval where a ratio would divide by ~0', () => {
    const r = judgeCriterion(points(10), legs(host, device), 'B', 1);
    expect(r.word).toBe('SUPPORTED');
    expect(r.quantity).toMatchObject({ status: 'measured', unit: 'points', kind: 'abPoints' });
    expect(r.quantity.status === 'measured' && r.quantity.value).toBeCloseTo(37 - 0.04, 6);
    expect(r.ci!.lo).toBeGreaterThanOrEqual(10);
    expect(r.text).toMatch(/busyFractionPoints: 95% interval \[.*\] lies entirely within the criterion B − A ≥ 10\.00 points/);
  });

  it('says a refutation was smaller than registered, or opposite in direction — two different sentences', () => {
    const smaller = judgeCriterion(faster(50), legs([[10, 0], [10.1, 0], [10.05, 0]], [[8, 0], [8.1, 0], [8.05, 0]]), 'B', 1);
    expect(smaller).toMatchObject({ word: 'REFUTED', refutedAs: 'smaller' });
    expect(smaller.text).toMatch(/smaller than pre-registered/);
    const slower = judgeCriterion(faster(50), legs([[10, 0], [10.1, 0], [10.05, 0]], [[12.5, 0], [12.6, 0], [12.55, 0]]), 'B', 1);
    expect(slower).toMatchObject({ word: 'REFUTED', refutedAs: 'opposite' });
    expect(slower.text).toMatch(/opposite in direction: the flag-on arm is higher, not lower/);
    const lessBusy = judgeCriterion(points(5), legs([[1, 40], [1, 41], [1, 42]], [[1, 20], [1, 21], [1, 22]]), 'B', 1);
    expect(lessBusy).toMatchObject({ word: 'REFUTED', refutedAs: 'opposite' });
  });

  it('a ratio over a zero control is UNRESOLVED by name and points to the points form', () => {
    const r = judgeCriterion({ metric: 'busyFraction', form: 'ratio', expect: 'on-higher', atLeastPct: 50 }, legs([[1, 0], [1, 0]], [[1, 30], [1, 40]]), 'B', 1);
    expect(r.word).toBe('UNRESOLVED');
    expect(r.quantity).toMatchObject({ status: 'refused', reason: 'ZERO_DENOMINATOR' });
    expect(r.text).toMatch(/points delta/);
  });

  it("combines by 'all' (every one must hold; one refutation refutes) and by 'any'", () => {
    const base = { statement: 's', refutationFails: true };
    const l = legs(host, device);
    const all = (metrics: Criteria['metrics']) => judgeCriteria({ ...base, combine: 'all', metrics }, l, 'B', 1).word;
    expect(all([points(10), faster(50)])).toBe('SUPPORTED');
    expect(all([points(10), faster(99.9)])).toBe('REFUTED');
    expect(all([points(10), { ...faster(50), metric: 'perOutputTokenEngine' }])).toBe('UNRESOLVED');
    expect(judgeCriteria({ ...base, combine: 'any', metrics: [points(90), faster(50)] }, l, 'B', 1).word).toBe('SUPPORTED');
    expect(judgeCriteria({ ...base, combine: 'any', metrics: [points(90), faster(99.9)] }, l, 'B', 1).word).toBe('REFUTED');
  });

  it('bad input: a points criterion on a non-percentage metric, unknown keys, hypothesis and criteria together', () => {
    const bad = CriteriaSchema.safeParse({ statement: 's', combine: 'all', metrics: [{ metric: 'perOutputToken', form: 'points', expect: 'on-lower', atLeastPoints: 5 }] });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]).toMatchObject({ path: ['metrics', 0, 'form'], message: expect.stringMatching(/points criterion needs a percentage metric; 'perOutputToken' is in s/) });
    expect(CriteriaSchema.safeParse({ statement: 's', combine: 'all', metrics: [{ ...points(5), typo: 1 }] }).success).toBe(false);
    expect(CriteriaSchema.safeParse({ statement: 's', combine: 'most', metrics: [points(5)] }).success).toBe(false);
    const both = GateSchema.safeParse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', hypothesis: { statement: 's', metric: 'busyFraction', expect: 'on-busier', refutedIfLessThanPct: 5 }, criteria: { statement: 's', combine: 'all', metrics: [points(5)] } });
    expect(both.success).toBe(false);
  });

  it('a metric the recipe cannot produce is refused before any leg runs, naming file and field', () => {
    const crit = { statement: 's', combine: 'all' as const, refutationFails: true, metrics: [faster(10), points(5)] };
    const cpuOnly = { name: 'r', archs: { cpu: {} }, driver: { eventsArgv: [] } } as never;
    expect(() => checkCriteriaProducible(crit, cpuOnly, 'g.json')).toThrow(/g\.json: criteria\.metrics\.1\.metric: 'busyFraction' is sampled on a GPU, but recipe 'r' builds only for cpu/);
    const noEvents = { name: 'r', archs: { cpu: {}, '90': {} }, driver: { eventsArgv: [] } } as never;
    expect(() => checkCriteriaProducible({ ...crit, metrics: [{ ...faster(10), metric: 'perOutputTokenEngine' }] }, noEvents, 'g.json')).toThrow(/criteria\.metrics\.0\.metric: 'perOutputTokenEngine'/);
    expect(() => checkCriteriaProducible(crit, noEvents, 'g.json')).not.toThrow();
  });
});
