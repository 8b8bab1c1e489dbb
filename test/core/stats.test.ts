import { describe, expect, it } from 'vitest';
import { bootstrapRatioCi, seededRandom } from '../../src/stats/bootstrap.js';
import { max, mean, median, min, relativeSpread, stdev, summarize } from '../../src/stats/summary.js';

describe('summaries', () => {
  it('reference values', () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    // sample stdev of 2,4,4,4,5,5,7,9 is sqrt(32/7)
    expect(stdev([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect([min([3, -1, 2]), max([3, -1, 2])]).toEqual([-1, 3]);
    // the seeds' engine loads 654.7 s and 778.2 s: 18.9% apart
    expect(100 * relativeSpread([654.7, 778.2])).toBeCloseTo(18.86, 2);
  });

  it('empty and single inputs give NaN, never 0', () => {
    for (const f of [mean, median, min, max, relativeSpread, stdev]) expect(f([])).toBeNaN();
    expect(stdev([1])).toBeNaN();
    expect(relativeSpread([0, 1])).toBeNaN();
    expect(summarize([2, 4])).toEqual({ n: 2, mean: 3, median: 3, stdev: Math.SQRT2, min: 2, max: 4, relativeSpread: 1 });
  });
});

describe('bootstrap ratio CI', () => {
  it('is reproducible from its seed and states its method', () => {
    const a = [0.776, 0.778, 0.775, 0.777];
    const b = [0.773, 0.774, 0.772, 0.775];
    const x = bootstrapRatioCi(a, b, { seed: 7, resamples: 2000 });
    const y = bootstrapRatioCi(a, b, { seed: 7, resamples: 2000 });
    expect(x).toEqual(y);
    expect(x?.method).toBe('percentile bootstrap over legs: ratio of medians, 2000 resamples, seed 7, 95% interval');
    expect(x!.lo).toBeLessThanOrEqual(x!.estimate);
    expect(x!.hi).toBeGreaterThanOrEqual(x!.estimate);
    expect(x!.estimate).toBeCloseTo(median(a) / median(b), 12);
  });

  it('separated groups give an interval that excludes 1; identical groups straddle it', () => {
    const fast = [1.0, 1.01, 0.99, 1.0, 1.02];
    const slow = [2.0, 2.02, 1.98, 2.01, 1.99];
    const ci = bootstrapRatioCi(fast, slow, { statistic: 'mean', resamples: 3000 })!;
    expect(ci.hi).toBeLessThan(0.6);
    expect(ci.lo).toBeGreaterThan(0.45);
    const same = bootstrapRatioCi([1, 2, 3, 4], [1, 2, 3, 4], { resamples: 3000 })!;
    expect(same.lo).toBeLessThan(1);
    expect(same.hi).toBeGreaterThan(1);
  });

  it('refuses to invent an interval: below two legs a side, or non-finite legs', () => {
    expect(bootstrapRatioCi([1], [1, 2])).toBeNull();
    expect(bootstrapRatioCi([1, 2], [3])).toBeNull();
    expect(bootstrapRatioCi([1, Number.NaN], [1, 2])).toBeNull();
    expect(bootstrapRatioCi([1, 2], [0, 0])).toBeNull();
  });

  it('the PRNG is uniform enough and seed-dependent', () => {
    const r = seededRandom(42);
    const xs = Array.from({ length: 10000 }, () => r());
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(mean(xs)).toBeCloseTo(0.5, 1);
    expect(seededRandom(1)()).not.toBe(seededRandom(2)());
  });
});
