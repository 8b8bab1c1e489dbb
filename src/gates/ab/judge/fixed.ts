import { measured, refused } from '../../../quantity/make.js';
import type { Quantity } from '../../../quantity/types.js';
import type { LegRecord } from '../../../results/types.js';
import type { EffectInterval, MetricComparison } from '../../../results/comparison.js';
import { bootstrapRatioCi, levelPct, type RatioCi } from '../../../stats/bootstrap.js';
import { bootstrapDeltaCi } from '../../../stats/delta.js';
import { median } from '../../../stats/summary.js';
import type { Claim, ClaimCriterion } from '../claim.js';
import { decide, decisionText, intervalText } from './region.js';
import { armValues, crossSilicon } from './values.js';

// A fixed-N A/B judged by a percentile bootstrap over legs (the replication unit): per criterion the point
// estimate (ratio of medians, or difference of medians in points), its 95% interval, and the region rule.
// A one-sided claim at 95% two-sided is a test at α = 2.5%; equivalence is TOST at 2.5% a side.

export const BOOTSTRAP_LEVEL = 0.95;
// The error of each side of that interval: the α of the one-sided test it makes.
export const BOOTSTRAP_ALPHA_PER_SIDE = 0.025;

// The effect's name as printed: "per output token ratio B/A", "busyFraction points B − A".
export function effectName(c: ClaimCriterion): string {
  const what = c.metric === 'perOutputToken' ? 'per output token' : c.metric;
  return c.scale === 'ratio' ? `${what} ratio ${c.subject}/${c.reference}` : `${what} points ${c.subject} − ${c.reference}`;
}

// The point estimate as a quantity with its terms, or refused/withheld by name.
function estimateOf(c: ClaimCriterion, legs: readonly LegRecord[], sub: number[], ref: number[], ci: RatioCi | null, labels: Claim['armLabels']): Quantity {
  const name = effectName(c);
  const cross = crossSilicon(legs, c.quantity, name);
  if (cross) return cross;
  if (sub.length === 0 || ref.length === 0) return refused(name, 'NO_SAMPLES', `arm ${sub.length === 0 ? c.subject : c.reference} has no leg with a measured ${c.quantity} that passed its token gate`);
  const label = (arm: 'A' | 'B', xs: number[]): string => `median of arm ${arm} (${xs.length} legs, ${labels[arm]})`;
  const interval = { value: ci ? `[${ci.lo.toFixed(c.scale === 'ratio' ? 4 : 2)}, ${ci.hi.toFixed(c.scale === 'ratio' ? 4 : 2)}]` : 'none: fewer than 2 legs in an arm', label: ci ? `${levelPct(ci.level)} interval (${ci.method})` : 'interval' };
  if (c.scale === 'points') {
    return measured(name, 'abPoints', median(sub) - median(ref), 'points', { subject: { value: median(sub), unit: c.unit, label: label(c.subject, sub) }, reference: { value: median(ref), unit: c.unit, label: label(c.reference, ref) }, interval });
  }
  if (!(median(ref) > 0) || !Number.isFinite(median(sub))) {
    return refused(name, 'ZERO_DENOMINATOR', `the median ${c.quantity} of arm ${c.reference} (${labels[c.reference]}) is ${median(ref)}${c.unit === 's' ? ' s' : c.unit} — a ratio over it would divide by nothing${c.unit === '%' ? '; judge it as a points delta' : ''}`);
  }
  return measured(name, 'abRatio', median(sub) / median(ref), 'x', {
    numerator: { value: median(sub), unit: c.unit, label: label(c.subject, sub) },
    denominator: { value: median(ref), unit: c.unit, label: label(c.reference, ref) },
    interval,
  });
}

// One criterion (or a report-only figure, judged: false) over the token-gated legs; a sweep asks for a wider
// interval (a Holm or Bonferroni level) than the one comparison's 95%.
export function judgeFixed(c: ClaimCriterion, legs: readonly LegRecord[], seed: number, claim: Pick<Claim, 'armLabels' | 'source'>, level = BOOTSTRAP_LEVEL): MetricComparison {
  const vals = armValues(legs, c.quantity);
  const sub = vals[c.subject];
  const ref = vals[c.reference];
  const ci = c.scale === 'ratio' ? bootstrapRatioCi(sub, ref, { seed, level }) : bootstrapDeltaCi(sub, ref, { seed, level });
  const estimate = estimateOf(c, legs, sub, ref, ci, claim.armLabels);
  const interval: EffectInterval | null = ci && estimate.status === 'measured' ? { lo: ci.lo, hi: ci.hi, level: ci.level, method: ci.method } : null;
  const base = {
    key: c.key, metric: c.metric, scale: c.scale, test: c.test, subject: c.subject, reference: c.reference, bound: c.bound, says: c.says, region: c.region,
    estimate, interval, n: { subject: sub.length, reference: ref.length }, sequential: null, aa: null,
  };
  if (claim.source === 'none') return { ...base, word: null, refutedAs: null, text: 'no claim was registered: the figure and its interval are reported, nothing is judged' };
  if (estimate.status !== 'measured') return { ...base, word: 'UNRESOLVED', refutedAs: null, text: `${c.key}: nothing to judge: ${estimate.reason} — ${estimate.message}` };
  if (!interval) return { ...base, word: 'UNRESOLVED', refutedAs: null, text: `${c.key}: n too small: ${sub.length} and ${ref.length} token-gated legs per arm (an interval needs at least 2 per arm)` };
  const d = decide(interval, c);
  return { ...base, ...d, text: decisionText(c, d, interval, intervalText(interval, c.scale)) };
}
