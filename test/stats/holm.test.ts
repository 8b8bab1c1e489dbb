import { describe, expect, it } from 'vitest';
import { bonferroniAlpha, holmAdjusted, holmStepDown } from '../../src/stats/holm.js';
import { seededRandom } from '../../src/stats/bootstrap.js';

// Holm's step-down: the textbook examples, and the test-inversion form the sweep judge uses agreeing with
// the p-value form on every case.

describe('Holm–Bonferroni', () => {
  // Holm (1979) as taught (e.g. Wikipedia's example): four p-values at α 0.05 — H4 (0.005 ≤ 0.0125) and H1
  // (0.01 ≤ 0.0167) are rejected, then H3 (0.03 > 0.025) stops the procedure, so H2 is kept too.
  it('rejects H1 and H4 of p = 0.01, 0.04, 0.03, 0.005 and stops at H3', () => {
    const ps = [0.01, 0.04, 0.03, 0.005];
    expect(holmAdjusted(ps).map((p) => Number(p.toFixed(6)))).toEqual([0.03, 0.06, 0.06, 0.02]);
    const steps = holmStepDown(4, 0.05, (i, a) => ps[i]! <= a);
    // By test inversion both pass the first round's α/4 = 0.0125, so both are decided in round 1.
    expect(steps.map((s) => s.step)).toEqual([1, null, null, 1]);
    expect(steps[3]!.alpha).toBeCloseTo(0.0125, 12);
    expect(steps[0]!.alpha).toBeCloseTo(0.0125, 12);
    // The ones never decided were last tried at α/(m − 2).
    expect(steps[1]!.alpha).toBeCloseTo(0.025, 12);
  });

  // R: p.adjust(c(0.02, 0.03, 0.04), "holm") = 0.06 0.06 0.06 — nothing at α 0.05, although every p < 0.05.
  it('keeps every hypothesis when the smallest p misses α/m', () => {
    expect(holmAdjusted([0.02, 0.03, 0.04]).map((p) => Number(p.toFixed(6)))).toEqual([0.06, 0.06, 0.06]);
    expect(holmStepDown(3, 0.05, (i, a) => [0.02, 0.03, 0.04][i]! <= a).every((s) => s.step === null)).toBe(true);
  });

  it('decides more than Bonferroni where the step-down earns it', () => {
    const ps = [0.012, 0.04];
    expect(ps.filter((p) => p <= bonferroniAlpha(2, 0.05))).toEqual([0.012]);
    expect(holmStepDown(2, 0.05, (i, a) => ps[i]! <= a).map((s) => s.step)).toEqual([1, 2]);
  });

  it('one comparison is no correction at all', () => {
    expect(holmAdjusted([0.03])).toEqual([0.03]);
    expect(holmStepDown(1, 0.05, (_i, a) => a >= 0.05)[0]).toEqual({ step: 1, alpha: 0.05 });
  });

  it('test inversion decides exactly what the adjusted p-values reject (500 random families)', () => {
    const rand = seededRandom(7);
    for (let t = 0; t < 500; t++) {
      const m = 1 + Math.floor(rand() * 6);
      const ps = Array.from({ length: m }, () => rand() ** 3 * 0.2);
      const byP = holmAdjusted(ps).map((p) => p <= 0.05);
      const byTest = holmStepDown(m, 0.05, (i, a) => ps[i]! <= a).map((s) => s.step !== null);
      expect(byTest, `p = ${ps.join(', ')}`).toEqual(byP);
    }
  });
});
