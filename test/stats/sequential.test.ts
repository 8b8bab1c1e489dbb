import { describe, expect, it } from 'vitest';
import { confidenceSequence, mixtureEValue, mixtureHalfWidth, type MixtureParams } from '../../src/stats/sequential.js';
import { sequenceDecisions } from '../../src/gates/ab/judge/sequential.js';
import { seededRandom } from '../../src/stats/bootstrap.js';
import { normalQuantile, normalSampler } from '../../src/stats/normal.js';
import { flagOutliers, mad } from '../../src/stats/outliers.js';

const P: MixtureParams = { alpha: 0.05, sigma: 1, tau: 1 };

describe('normal-mixture confidence sequence', () => {
  it('half-width matches the closed form worked by hand', () => {
    // n=1, σ=τ=1, α=0.05: sqrt(2·2·(ln 20 + ½ ln 2)) = 3.65636…
    expect(mixtureHalfWidth(1, P)).toBeCloseTo(Math.sqrt(4 * (Math.log(20) + 0.5 * Math.log(2))), 12);
    expect(mixtureHalfWidth(1, P)).toBeCloseTo(3.65636, 4);
    // it scales with σ (τ/σ held) and shrinks with n
    expect(mixtureHalfWidth(5, { alpha: 0.05, sigma: 2, tau: 2 })).toBeCloseTo(2 * mixtureHalfWidth(5, P), 12);
    expect(mixtureHalfWidth(100, P)).toBeLessThan(mixtureHalfWidth(10, P));
    expect(mixtureHalfWidth(0, P)).toBe(Number.POSITIVE_INFINITY);
  });

  it('the interval ends are exactly where the mixture e-value reaches 1/α', () => {
    const xs = [0.3, -0.1, 0.8, 0.2, 0.5];
    const hw = mixtureHalfWidth(xs.length, P);
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mixtureEValue(xs, m + hw, P)).toBeCloseTo(20, 8);
    expect(mixtureEValue(xs, m - hw, P)).toBeCloseTo(20, 8);
    expect(mixtureEValue(xs, m, P)).toBeLessThan(1);
  });

  it('is a running intersection: never widens', () => {
    const cs = confidenceSequence([0, 0, 5, -5, 0, 0, 0], P);
    for (let i = 1; i < cs.length; i++) {
      expect(cs[i]!.lo).toBeGreaterThanOrEqual(cs[i - 1]!.lo);
      expect(cs[i]!.hi).toBeLessThanOrEqual(cs[i - 1]!.hi);
    }
  });

  it('decides SUPPORTED, REFUTED or UNRESOLVED against the claim\'s region, at the first block that decides (the judge\'s one rule)', () => {
    // "at least 50% less time per token": the region ratio ≤ 0.5 (observations are log ratios)
    type Crit = Parameters<typeof sequenceDecisions>[0];
    const crit: Crit = { scale: 'ratio', test: 'superiority', direction: 'lower', noEffect: 1, region: { lo: null, hi: 0.5 } };
    const p = { alpha: 0.05, sigma: 0.5, tau: 2 };
    const first = (xs: number[], c: Crit = crit, q = p) => {
      const d = sequenceDecisions(c, xs, q);
      const at = d.findIndex((x) => x.decision.word !== 'UNRESOLVED');
      return { word: d.at(-1)?.decision.word ?? 'UNRESOLVED', decidedAt: at < 0 ? null : at + 1 };
    };
    // the decode-step arm: log ratio about -2.6, 2 log-units beyond the bound → one block decides, and stays decided
    expect(first([-2.6, -2.5])).toEqual({ word: 'SUPPORTED', decidedAt: 1 });
    // no effect, tight noise: the interval leaves the bound on the "too small" side
    expect(first([0, 0.01, -0.01, 0], crit, { alpha: 0.05, sigma: 0.05, tau: 0.7 }).word).toBe('REFUTED');
    // straddling
    expect(first([-0.7, -0.6])).toEqual({ word: 'UNRESOLVED', decidedAt: null });
    expect(first([])).toEqual({ word: 'UNRESOLVED', decidedAt: null });
    // a skipped block (null) neither decides nor undoes a decision
    expect(sequenceDecisions(crit, [null, -2.6, null], p).map((x) => x.decision.word)).toEqual(['UNRESOLVED', 'SUPPORTED', 'SUPPORTED']);
    // "above" criteria (busier) mirror it
    expect(first([Math.log(1.5) + 2.6], { ...crit, direction: 'higher', region: { lo: 1.5, hi: null } }).word).toBe('SUPPORTED');
  });
});

// Simulation: a true effect exactly at the criterion's bound (the hardest case for type I), a look after
// every block for 40 blocks. The mixture CS keeps the wrong-SUPPORTED rate at or under α; a fixed-N
// 95% z-interval looked at after every block does not (this is what the sequential test is for).
describe('peeking does not inflate type-I error (seeded simulation)', () => {
  const runs = 2000;
  const blocks = 40;
  const sigma = 0.1;
  const bound = Math.log(0.97);
  const crit = { scale: 'ratio' as const, test: 'superiority' as const, direction: 'lower' as const, noEffect: 1, region: { lo: null, hi: 0.97 } };
  const p = { alpha: 0.05, sigma, tau: 0.05 };

  function simulate(decide: (xs: number[]) => boolean): number {
    const z = normalSampler(seededRandom(20261201));
    let wrong = 0;
    for (let r = 0; r < runs; r++) {
      const xs: number[] = [];
      for (let b = 0; b < blocks; b++) {
        xs.push(bound + sigma * z());
        if (decide(xs)) { wrong += 1; break; }
      }
    }
    return wrong / runs;
  }

  it('the mixture CS: wrong SUPPORTED at or under α over 40 looks', () => {
    const rate = simulate((xs) => sequenceDecisions(crit, xs, p).at(-1)!.decision.word === 'SUPPORTED');
    // α/2 is the one-sided share of a two-sided 5%; allow 3 standard errors of a 2000-run estimate above α
    expect(rate).toBeLessThanOrEqual(0.05 + 3 * Math.sqrt(0.05 * 0.95 / runs));
  });

  it('the naive fixed-N interval, peeked at every block, is inflated (the test above can fail)', () => {
    const z975 = normalQuantile(0.975);
    const rate = simulate((xs) => {
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      return m + (z975 * sigma) / Math.sqrt(xs.length) < bound;
    });
    expect(rate).toBeGreaterThan(0.08);
  });
});

describe('normal helpers', () => {
  it('quantiles match tables', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.05)).toBeCloseTo(-1.644854, 5);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 12);
    expect(normalQuantile(0)).toBeNaN();
  });
  it('the sampler has mean 0 and sd 1', () => {
    const z = normalSampler(seededRandom(3));
    const xs = Array.from({ length: 20000 }, () => z());
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    const v = xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1);
    expect(Math.abs(m)).toBeLessThan(0.03);
    expect(Math.abs(Math.sqrt(v) - 1)).toBeLessThan(0.03);
  });
});

describe('outlier legs by median/MAD', () => {
  it('flags the leg far from the median, not the ones near it', () => {
    const xs = [1.0, 1.02, 0.98, 1.01, 0.99, 3.0];
    expect(mad(xs)).toBeCloseTo(0.015, 6);
    const f = flagOutliers(xs);
    expect(f.map((x) => x.i)).toEqual([5]);
    expect(f[0]!.z).toBeGreaterThan(3.5);
    expect(flagOutliers([1, 2])).toEqual([]);
    expect(flagOutliers([1, 1, 1, 1, 2]).map((x) => x.i)).toEqual([4]);
    expect(flagOutliers([1, 1.1, 0.9, 1.05])).toEqual([]);
  });
});
