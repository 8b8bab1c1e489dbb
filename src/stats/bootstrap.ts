import { mean, median } from './summary.js';

// mulberry32: a tiny seeded PRNG, so an interval is reproducible from its stated seed.
// A confidence level as printed: 95%, 97.5%, 98.33% (a Holm or Bonferroni level is not a whole percent).
export function levelPct(level: number): string {
  return `${Number((level * 100).toPrecision(4))}%`;
}

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

// median() of a scratch array, sorting it in place: by insertion for an A/B's few legs per arm (the
// builtin sort's call cost more than the sorting), else by the typed array's own sort (by value).
function medianInPlace(buf: Float64Array): number {
  if (buf.length > 16) buf.sort();
  else {
    for (let i = 1; i < buf.length; i++) {
      const x = buf[i]!;
      let j = i - 1;
      for (; j >= 0 && buf[j]! > x; j--) buf[j + 1] = buf[j]!;
      buf[j + 1] = x;
    }
  }
  const mid = buf.length >> 1;
  return buf.length % 2 === 1 ? buf[mid]! : (buf[mid - 1]! + buf[mid]!) / 2;
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
  // Resamples drawn into two reused typed arrays and their statistic taken in place: the same draws and
  // the same values as a fresh array per resample, without 2 × 10 000 arrays (and their copies to sort)
  // on every leg of an A/B.
  const tBuf = new Float64Array(treatment.length);
  const cBuf = new Float64Array(control.length);
  const statOf = (xs: readonly number[], buf: Float64Array): number => {
    for (let i = 0; i < xs.length; i++) buf[i] = xs[Math.floor(rand() * xs.length)]!;
    return statistic === 'median' ? medianInPlace(buf) : mean(buf);
  };
  const all = new Float64Array(resamples);
  let n = 0;
  for (let b = 0; b < resamples; b++) {
    const c = statOf(control, cBuf);
    if (c === 0) continue;
    all[n++] = statOf(treatment, tBuf) / c;
  }
  if (n === 0) return null;
  const ratios = all.subarray(0, n).sort();
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
    method: `percentile bootstrap over legs: ratio of ${statistic}s, ${ratios.length} resamples, seed ${seed}, ${levelPct(level)} interval`,
  };
}
