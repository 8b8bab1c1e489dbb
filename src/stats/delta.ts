import { median } from './summary.js';
import { levelPct, seededRandom, type RatioCi } from './bootstrap.js';

// Percentile bootstrap CI for median(treatment) − median(control), resampling whole legs within each arm: the
// interval of a points delta (busy B − A in percentage points). Null below two legs a side, as for the ratio.
export function bootstrapDeltaCi(treatment: readonly number[], control: readonly number[], opts: { level?: number; resamples?: number; seed?: number } = {}): RatioCi | null {
  const level = opts.level ?? 0.95;
  const resamples = opts.resamples ?? 10_000;
  const seed = opts.seed ?? 1;
  if (treatment.length < 2 || control.length < 2) return null;
  if (![...treatment, ...control].every(Number.isFinite)) return null;
  const rand = seededRandom(seed);
  const draw = (xs: readonly number[]): number[] => xs.map(() => xs[Math.floor(rand() * xs.length)]!);
  const deltas: number[] = [];
  for (let b = 0; b < resamples; b++) deltas.push(median(draw(treatment)) - median(draw(control)));
  deltas.sort((a, b) => a - b);
  const q = (p: number): number => deltas[Math.min(deltas.length - 1, Math.max(0, Math.floor(p * deltas.length)))]!;
  const alpha = (1 - level) / 2;
  return {
    estimate: median(treatment) - median(control), lo: q(alpha), hi: q(1 - alpha), level, resamples, seed, statistic: 'median',
    nTreatment: treatment.length, nControl: control.length,
    method: `percentile bootstrap over legs: difference of medians, ${resamples} resamples, seed ${seed}, ${levelPct(level)} interval`,
  };
}
