import type { Gate, Hypothesis } from '../../config/gate.js';
import { CRITERION_METRICS, type Criterion, type CriterionMetric } from '../../config/criteria.js';
import type { Arm, ClaimTest, EffectScale } from '../../results/comparison.js';
import type { Recipe } from '../../config/recipe.js';
import { NhGateError } from '../../errors.js';

// The claim of an A/B, normalised once: a gate's hypothesis becomes a one-metric criterion, every criterion
// becomes a region of the effect (the claimed arm ÷ the other for a ratio, − for points) that the claim says
// the effect lies in, and the "on" arm is decided here and nowhere else. Every form (fixed, sequential, A/A,
// cross-commit) and every output reads this one value.

export type { Arm, ClaimTest, EffectScale };

// One pre-registered criterion as the gate wrote it, in one shape; its arm still named as the gate names it.
export interface CriterionSpec {
  // The run-level figure's key (perOutputTokenRatio, busyFractionPoints …; 'ratio' for a hypothesis, as before).
  key: string;
  metric: CriterionMetric;
  scale: EffectScale;
  test: ClaimTest;
  arm: 'on' | 'off' | 'A' | 'B';
  // superiority: the better direction; non-inferiority: the worse one; equivalence: none.
  direction: 'lower' | 'higher' | null;
  // X: percent for a ratio, percentage points for points.
  margin: number;
}

export interface ClaimSpec {
  source: 'hypothesis' | 'criteria';
  statement: string;
  combine: 'all' | 'any';
  refutationFails: boolean;
  criteria: CriterionSpec[];
}

// A criterion bound to the run's arms: which arm is claimed about, against which, and the region.
export interface ClaimCriterion extends Omit<CriterionSpec, 'arm'> {
  subject: Arm;
  reference: Arm;
  // The leg quantity it reads and that quantity's unit.
  quantity: string;
  unit: string;
  // Where the claim says the effect lies (null: unbounded on that side), in the effect's own units.
  region: { lo: number | null; hi: number | null };
  // The effect of no difference: 1 for a ratio, 0 for points.
  noEffect: number;
  // The region as a formula ("B/A ≤ 0.5000") and the claim in words, with the arms named.
  bound: string;
  says: string;
}

export interface Claim {
  // 'none': a report-only A/B; its one criterion (per-token, on ÷ off) is reported and never judged.
  source: 'hypothesis' | 'criteria' | 'none';
  statement: string | null;
  combine: 'all' | 'any';
  refutationFails: boolean;
  // The arm that runs the flag on (the head commit in a cross-commit A/B): decided once, read everywhere.
  onArm: Arm;
  // How each arm is named in sentences: the flag value it runs, or base/head with the revision.
  armLabels: Record<Arm, string>;
  criteria: ClaimCriterion[];
}

// A hypothesis (one metric, superiority, written for the on or the off arm) as a criterion.
function fromHypothesis(h: Hypothesis): CriterionSpec {
  return {
    key: 'ratio', metric: h.metric, scale: 'ratio', test: 'superiority',
    arm: h.expect.startsWith('on') ? 'on' : 'off',
    direction: h.metric === 'perOutputToken' ? 'lower' : 'higher',
    margin: h.refutedIfLessThanPct,
  };
}

function fromCriterion(c: Criterion): Omit<CriterionSpec, 'key'> {
  const scale: EffectScale = c.form;
  const base = { metric: c.metric, scale };
  if (c.claim === 'non-inferiority') return { ...base, test: c.claim, arm: c.arm, direction: c.worse, margin: c.form === 'ratio' ? c.atMostPct : c.atMostPoints };
  if (c.claim === 'equivalence') return { ...base, test: c.claim, arm: c.arm, direction: null, margin: c.form === 'ratio' ? c.withinPct : c.withinPoints };
  return { ...base, test: 'superiority', arm: 'on', direction: c.expect === 'on-lower' ? 'lower' : 'higher', margin: c.form === 'ratio' ? c.atLeastPct : c.atLeastPoints };
}

// Keys name the run-level figures: metric and scale, with a suffix where a gate judges one twice.
function withKeys(specs: Array<Omit<CriterionSpec, 'key'>>): CriterionSpec[] {
  const seen = new Map<string, number>();
  return specs.map((s) => {
    const base = `${s.metric}${s.scale === 'ratio' ? 'Ratio' : 'Points'}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return { ...s, key: n === 1 ? base : `${base}${n}` };
  });
}

// The gate's registered claim in one shape (hypothesis or criteria), or null for a report-only gate.
export function claimSpecOf(gate: Gate): ClaimSpec | null {
  const h = gate.hypothesis;
  if (h) return { source: 'hypothesis', statement: h.statement, combine: 'all', refutationFails: h.refutationFails, criteria: [fromHypothesis(h)] };
  const c = gate.criteria;
  if (c) return { source: 'criteria', statement: c.statement, combine: c.combine, refutationFails: c.refutationFails, criteria: withKeys(c.metrics.map(fromCriterion)) };
  return null;
}

// An arm as the A/B runs it: its environment, and the variables it leaves unset.
export interface ArmEnv {
  env: Record<string, string>;
  unset: string[];
}

// Which arm runs the flag on: the one arm whose environment sets the flag's on value; when both or neither
// do (equal arms, valued arms such as THREADS=1,2, two commits), arm B, the later-listed treatment.
export function onArmOf(arms: Record<Arm, ArmEnv>, flag: { env: string; on: string } | null): Arm {
  if (!flag) return 'B';
  const on = (['A', 'B'] as const).filter((a) => !arms[a].unset.includes(flag.env) && arms[a].env[flag.env] === flag.on);
  return on.length === 1 ? on[0]! : 'B';
}

const other = (a: Arm): Arm => (a === 'A' ? 'B' : 'A');

function subjectOf(arm: CriterionSpec['arm'], onArm: Arm): Arm {
  if (arm === 'A' || arm === 'B') return arm;
  return arm === 'on' ? onArm : other(onArm);
}

// The region of the effect a criterion claims, in the effect's units.
export function regionOf(c: Pick<CriterionSpec, 'scale' | 'test' | 'direction' | 'margin'>): ClaimCriterion['region'] {
  const rel = c.scale === 'ratio' ? c.margin / 100 : c.margin;
  const up = c.scale === 'ratio' ? 1 + rel : rel;
  const down = c.scale === 'ratio' ? 1 - rel : -rel;
  if (c.test === 'equivalence') return { lo: down, hi: up };
  // superiority: beyond the margin in the better direction; non-inferiority: short of it in the worse one.
  const below = c.test === 'superiority' ? c.direction === 'lower' : c.direction === 'higher';
  if (c.test === 'superiority') return below ? { lo: null, hi: down } : { lo: up, hi: null };
  return below ? { lo: null, hi: up } : { lo: down, hi: null };
}

// The region as a formula over the arms.
function boundText(c: ClaimCriterion): string {
  const effect = c.scale === 'ratio' ? `${c.subject}/${c.reference}` : `${c.subject} − ${c.reference}`;
  const n = (x: number): string => (c.scale === 'ratio' ? x.toFixed(4) : `${x.toFixed(2)}`);
  const unit = c.scale === 'points' ? ' points' : '';
  const { lo, hi } = c.region;
  if (lo !== null && hi !== null) return `${n(lo)} ≤ ${effect} ≤ ${n(hi)}${unit}`;
  if (lo !== null) return `${effect} ≥ ${n(lo)}${unit}`;
  return hi !== null ? `${effect} ≤ ${n(hi)}${unit}` : `${effect} (unbounded: reported, not judged)`;
}

// The claim in words, with both arms named.
function saysText(c: Omit<ClaimCriterion, 'bound' | 'says'>, labels: Record<Arm, string>): string {
  const amount = c.scale === 'ratio' ? `${c.margin}%` : `${c.margin} points`;
  const subject = `arm ${c.subject} (${labels[c.subject]})`;
  const reference = `arm ${c.reference} (${labels[c.reference]})`;
  const what = c.test === 'equivalence'
    ? `within ±${amount} of`
    : `${c.test === 'superiority' ? 'at least' : 'at most'} ${amount} ${c.direction} than`;
  return `${c.test} of ${c.metric}: ${subject} ${what} ${reference}`;
}

// A report-only A/B's one figure: per-token time, on ÷ off, reported and never judged.
const REPORT_ONLY: CriterionSpec = { key: 'ratio', metric: 'perOutputToken', scale: 'ratio', test: 'superiority', arm: 'on', direction: 'lower', margin: 0 };

// The claim bound to this run's arms (spec null: report-only).
export function bindClaim(spec: ClaimSpec | null, onArm: Arm, armLabels: Record<Arm, string>): Claim {
  const specs = spec ? spec.criteria : [REPORT_ONLY];
  const criteria = specs.map(({ arm, ...s }): ClaimCriterion => {
    const subject = subjectOf(arm, onArm);
    const m = CRITERION_METRICS[s.metric];
    const region = spec ? regionOf(s) : { lo: null, hi: null };
    const partial = { ...s, subject, reference: other(subject), quantity: m.quantity, unit: m.unit, region, noEffect: s.scale === 'ratio' ? 1 : 0 };
    const bound = boundText({ ...partial, bound: '', says: '' });
    return { ...partial, bound, says: spec ? saysText(partial, armLabels) : `reported, not judged: ${s.metric} ${subject}/${other(subject)}` };
  });
  return {
    source: spec?.source ?? 'none', statement: spec?.statement ?? null, combine: spec?.combine ?? 'all',
    refutationFails: spec?.refutationFails ?? true, onArm, armLabels, criteria,
  };
}

// What a verdict decided, in one line: the criterion and its bound, or how many were combined and how.
export function claimLine(c: Claim): string | undefined {
  if (c.source === 'none') return undefined;
  if (c.criteria.length === 1) return `${c.criteria[0]!.says}: ${c.criteria[0]!.bound}`;
  return `${c.criteria.length} criteria combined by '${c.combine}': ${c.criteria.map((x) => `${x.test} of ${x.metric} ${x.bound}`).join('; ')}`;
}

// A criterion the recipe cannot produce is bad input (exit 2), named by file and field, before any leg runs.
export function checkProducible(spec: ClaimSpec, recipe: Recipe, gatePath: string): void {
  spec.criteria.forEach((c, i) => {
    const need = CRITERION_METRICS[c.metric].needs;
    const where = `${gatePath}: ${spec.source === 'hypothesis' ? 'hypothesis.metric' : `criteria.metrics.${i}.metric`}`;
    if (need === 'gpu' && !Object.keys(recipe.archs).some((a) => a !== 'cpu')) {
      throw new NhGateError('BAD_INPUT', `${where}: '${c.metric}' is sampled on a GPU, but recipe '${recipe.name}' builds only for cpu`, 'add a GPU arch to the recipe, or judge perOutputToken');
    }
    if (need === 'serve' && !recipe.serve) {
      throw new NhGateError('BAD_INPUT', `${where}: '${c.metric}' is a serve load's figure, but recipe '${recipe.name}' has no "serve" block`, 'use a recipe with a serve block (llama-cpp), or judge perOutputToken without the gate\'s "serve" block');
    }
    if (need === 'events' && recipe.driver.eventsArgv.length === 0) {
      throw new NhGateError('BAD_INPUT', `${where}: '${c.metric}' comes from the engine's event clock, but recipe '${recipe.name}' passes no driver.eventsArgv`, 'judge perOutputToken (harness clock), or give the recipe an events file');
    }
  });
}
