import type { Criteria, Criterion } from '../../config/criteria.js';
import { CRITERION_METRICS } from '../../config/criteria.js';
import type { Recipe } from '../../config/recipe.js';
import type { LegRecord } from '../../results/types.js';
import type { Quantity } from '../../quantity/types.js';
import { measured, refused } from '../../quantity/make.js';
import { bootstrapRatioCi, type RatioCi } from '../../stats/bootstrap.js';
import { bootstrapDeltaCi } from '../../stats/delta.js';
import { median } from '../../stats/summary.js';
import { NhGateError } from '../../errors.js';
import { armValues } from './compare.js';

// Judging an A/B against several pre-registered criteria (issue #11): each criterion its own quantity (a ratio
// on ÷ off, or a points delta on − off) with a bootstrap interval over legs, its own verdict, and one verdict
// for the gate by the stated combine rule. REFUTED says which way: smaller than registered, or the opposite.

export type CriterionWord = 'SUPPORTED' | 'REFUTED' | 'UNRESOLVED';

export interface CriterionResult {
  criterion: Criterion;
  key: string;
  quantity: Quantity;
  ci: RatioCi | null;
  word: CriterionWord;
  // For REFUTED: whether the effect was smaller than registered or in the opposite direction.
  refutedAs: 'smaller' | 'opposite' | null;
  text: string;
}

export interface CriteriaResult {
  combine: 'all' | 'any';
  results: CriterionResult[];
  word: CriterionWord;
  text: string;
}

// A criterion the recipe cannot produce is bad input (exit 2), named by file and field, before any leg runs.
export function checkCriteriaProducible(criteria: Criteria, recipe: Recipe, gatePath: string): void {
  criteria.metrics.forEach((m, i) => {
    const need = CRITERION_METRICS[m.metric].needs;
    const where = `${gatePath}: criteria.metrics.${i}.metric`;
    if (need === 'gpu' && !Object.keys(recipe.archs).some((a) => a !== 'cpu')) {
      throw new NhGateError('BAD_INPUT', `${where}: '${m.metric}' is sampled on a GPU, but recipe '${recipe.name}' builds only for cpu`, 'add a GPU arch to the recipe, or judge perOutputToken');
    }
    if (need === 'events' && recipe.driver.eventsArgv.length === 0) {
      throw new NhGateError('BAD_INPUT', `${where}: '${m.metric}' comes from the engine's event clock, but recipe '${recipe.name}' passes no driver.eventsArgv`, 'judge perOutputToken (harness clock), or give the recipe an events file');
    }
  });
}

const iv = (ci: RatioCi, digits: number): string => `${Math.round(ci.level * 100)}% interval [${ci.lo.toFixed(digits)}, ${ci.hi.toFixed(digits)}]`;

// One criterion over the token-gated legs; onArm names which arm (A or B) had the flag on.
export function judgeCriterion(c: Criterion, legs: LegRecord[], onArm: 'A' | 'B', seed: number): CriterionResult {
  const spec = CRITERION_METRICS[c.metric];
  const vals = armValues(legs, spec.quantity);
  const offArm = onArm === 'B' ? 'A' : 'B';
  const on = vals[onArm];
  const off = vals[offArm];
  const higher = c.expect === 'on-higher';
  const key = `${c.metric}${c.form === 'ratio' ? 'Ratio' : 'Points'}`;
  const name = c.form === 'ratio' ? `${c.metric} ratio ${onArm}/${offArm} (flag on / off)` : `${c.metric} points ${onArm} − ${offArm} (flag on − off)`;
  const unresolved = (quantity: Quantity, text: string): CriterionResult => ({ criterion: c, key, quantity, ci: null, word: 'UNRESOLVED', refutedAs: null, text });
  if (on.length === 0 || off.length === 0) {
    const q = refused(name, 'NO_SAMPLES', `arm ${on.length === 0 ? onArm : offArm} has no token-gated leg with a measured ${spec.quantity}`);
    return unresolved(q, `${key}: nothing to judge — ${q.message}`);
  }
  const label = (arm: 'A' | 'B', xs: number[]) => `median of arm ${arm} (${xs.length} legs, flag ${arm === onArm ? 'on' : 'off'})`;
  let ci: RatioCi | null;
  let quantity: Quantity;
  let bound: number;
  let nullEffect: number;
  let crit: string;
  if (c.form === 'ratio') {
    if (!(median(off) > 0)) {
      const q = refused(name, 'ZERO_DENOMINATOR', `the median ${spec.quantity} of arm ${offArm} (flag off) is ${median(off)} — a ratio over it would divide by nothing; judge it as a points delta`);
      return unresolved(q, `${key}: ${q.reason} — ${q.message}`);
    }
    ci = bootstrapRatioCi(on, off, { seed });
    bound = higher ? 1 + c.atLeastPct / 100 : 1 - c.atLeastPct / 100;
    nullEffect = 1;
    crit = `${onArm}/${offArm} ${higher ? '≥' : '≤'} ${bound.toFixed(4)} (at least ${c.atLeastPct}% ${higher ? 'higher' : 'lower'} with the flag on)`;
    quantity = measured(name, 'abRatio', median(on) / median(off), 'x', {
      numerator: { value: median(on), unit: spec.unit, label: label(onArm, on) },
      denominator: { value: median(off), unit: spec.unit, label: label(offArm, off) },
      interval: { value: ci ? `[${ci.lo.toFixed(4)}, ${ci.hi.toFixed(4)}]` : 'none: fewer than 2 legs in an arm', label: ci ? `${Math.round(ci.level * 100)}% interval (${ci.method})` : 'interval' },
    });
  } else {
    ci = bootstrapDeltaCi(on, off, { seed });
    bound = higher ? c.atLeastPoints : -c.atLeastPoints;
    nullEffect = 0;
    crit = `${onArm} − ${offArm} ${higher ? '≥' : '≤'} ${bound.toFixed(2)} points (at least ${c.atLeastPoints} points ${higher ? 'higher' : 'lower'} with the flag on)`;
    quantity = measured(name, 'abPoints', median(on) - median(off), 'points', {
      on: { value: median(on), unit: '%', label: label(onArm, on) },
      off: { value: median(off), unit: '%', label: label(offArm, off) },
      interval: { value: ci ? `[${ci.lo.toFixed(2)}, ${ci.hi.toFixed(2)}]` : 'none: fewer than 2 legs in an arm', label: ci ? `${Math.round(ci.level * 100)}% interval (${ci.method})` : 'interval' },
    });
  }
  if (!ci) return { ...unresolved(quantity, `${key}: n too small: ${on.length} and ${off.length} token-gated legs per arm (an interval needs at least 2 per arm)`), quantity };
  const digits = c.form === 'ratio' ? 4 : 2;
  const supported = higher ? ci.lo >= bound : ci.hi <= bound;
  const refuted = higher ? ci.hi < bound : ci.lo > bound;
  if (supported) return { criterion: c, key, quantity, ci, word: 'SUPPORTED', refutedAs: null, text: `${key}: ${iv(ci, digits)} lies entirely within the criterion ${crit}` };
  if (refuted) {
    const opposite = higher ? ci.hi < nullEffect : ci.lo > nullEffect;
    const why = opposite
      ? `the effect is opposite in direction: the flag-on arm is ${higher ? 'lower' : 'higher'}, not ${higher ? 'higher' : 'lower'}`
      : 'the effect is smaller than pre-registered';
    return { criterion: c, key, quantity, ci, word: 'REFUTED', refutedAs: opposite ? 'opposite' : 'smaller', text: `${key}: ${iv(ci, digits)} lies entirely outside the criterion ${crit}: ${why}` };
  }
  return { criterion: c, key, quantity, ci, word: 'UNRESOLVED', refutedAs: null, text: `${key}: ${iv(ci, digits)} straddles the criterion ${crit}` };
}

// Every criterion, then the gate's word by its combine rule.
export function judgeCriteria(criteria: Criteria, legs: LegRecord[], onArm: 'A' | 'B', seed: number): CriteriaResult {
  const results = criteria.metrics.map((c) => judgeCriterion(c, legs, onArm, seed));
  const words = results.map((r) => r.word);
  let word: CriterionWord;
  if (criteria.combine === 'all') word = words.every((w) => w === 'SUPPORTED') ? 'SUPPORTED' : words.includes('REFUTED') ? 'REFUTED' : 'UNRESOLVED';
  else word = words.includes('SUPPORTED') ? 'SUPPORTED' : words.every((w) => w === 'REFUTED') ? 'REFUTED' : 'UNRESOLVED';
  const rule = criteria.combine === 'all' ? 'all must hold' : 'any one suffices';
  const counts = (['SUPPORTED', 'REFUTED', 'UNRESOLVED'] as const).map((w) => `${words.filter((x) => x === w).length} ${w}`).join(', ');
  return { combine: criteria.combine, results, word, text: `${results.length} criteria, combined by '${criteria.combine}' (${rule}): ${counts}` };
}
