import { mean, median } from './summary.js';

// mulberry32: a tiny seeded PRNG, so an interval is reproducible from its stated seed.
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RatioCiOptions {
  statistic?: 'median' | 'mean';
  level?: number; // 0.95
  resamples?: number; // 10000
  seed?: number;
}

export interface RatioCi {
  estimate: number; // stat(treatment) / stat(control) on the observed legs
  lo: number;
  hi: number;
  level: number;
  resamples: number;
  seed: number;
  statistic: 'median' | 'mean';
  nTreatment: number;
  nControl: number;
  method: string; // stated in the output, so the interval can be reproduced
}

// Percentile bootstrap CI for stat(treatment)/stat(control), resampling whole legs (the replication unit)
// within each group. Returns null below two legs a side: an interval from one leg would be invented.
export function bootstrapRatioCi(treatment: readonly number[], control: readonly number[], opts: RatioCiOptions = {}): RatioCi | null {
  const statistic = opts.statistic ?? 'median';
  const level = opts.level ?? 0.95;
  const resamples = opts.resamples ?? 10_000;
  const seed = opts.seed ?? 1;
  if (treatment.length < 2 || control.length < 2) return null;
  if (![...treatment, ...control].every(Number.isFinite)) return null;
  const stat = statistic === 'median' ? median : mean;
  const estimate = stat(treatment) / stat(control);
  const rand = seededRandom(seed);
  const draw = (xs: readonly number[]): number[] => {
    const out = new Array<number>(xs.length);
    for (let i = 0; i < xs.length; i++) out[i] = xs[Math.floor(rand() * xs.length)]!;
    return out;
  };
  const ratios: number[] = [];
  for (let b = 0; b < resamples; b++) {
    const c = stat(draw(control));
    if (c === 0) continue;
    ratios.push(stat(draw(treatment)) / c);
  }
  if (ratios.length === 0) return null;
  ratios.sort((a, b) => a - b);
  const q = (p: number): number => ratios[Math.min(ratios.length - 1, Math.max(0, Math.floor(p * ratios.length)))]!;
  const alpha = (1 - level) / 2;
  return {
    estimate,
    lo: q(alpha),
    hi: q(1 - alpha),
    level,
    resamples: ratios.length,
    seed,
    statistic,
    nTreatment: treatment.length,
    nControl: control.length,
    method: `percentile bootstrap over legs: ratio of ${statistic}s, ${ratios.length} resamples, seed ${seed}, ${Math.round(level * 100)}% interval`,
  };
}
