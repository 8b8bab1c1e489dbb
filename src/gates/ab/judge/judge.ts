import { isServeMetric } from '../../../config/criteria.js';
import type { MetricScale } from '../../../config/gate.js';
import { measured, refused } from '../../../quantity/make.js';
import type { Quantity } from '../../../quantity/types.js';
import type { LegRecord } from '../../../results/types.js';
import { sequentialKey, type AbComparison, type AbForm, type BinariesRecord, type ErrorRates, type MetricComparison } from '../../../results/comparison.js';
import { reason } from '../../../verdict/reasons.js';
import type { VerdictRecord } from '../../../verdict/record.js';
import { isWarmup } from '../../../plan/warmup.js';
import { BLOCK_LEGS } from '../blocks.js';
import type { Claim, ClaimCriterion } from '../claim.js';
import type { Deviation } from '../deviations.js';
import { FALSE_ALARM_FIGURE, judgeAaMetric } from './aa.js';
import { abContext, contextNotes } from './context.js';
import { BOOTSTRAP_ALPHA_PER_SIDE, BOOTSTRAP_LEVEL, judgeFixed } from './fixed.js';
import { combineWords } from './region.js';
import { decidedBlock, mixtureFor, SEQUENTIAL_METHOD, sequentialMetric, track } from './sequential.js';
import { abVerdict, type VerdictInput } from './verdict.js';

// The one A/B judge: (claim, legs, interval method) → the run's typed verdict, comparison, figures and notes.
// Pure: the series calls it after every leg and at the end; nothing edits what it returns.

// How the intervals are made: a bootstrap over legs (fixed N); an anytime-valid confidence sequence over
// ABBA blocks (sequential, stopping when decided); or the A/A calibration of that sequence's noise scale.
export type IntervalMethod =
  | { kind: 'bootstrap' }
  | { kind: 'anytime-valid'; alpha: number; scales: Record<string, MetricScale> }
  | { kind: 'aa-calibrated'; alpha: number; scales: Record<string, MetricScale>; budgetBlocks: number };

export interface AbJudgeInput {
  form: AbForm;
  claim: Claim;
  method: IntervalMethod;
  // Every leg so far, warm-up included.
  legs: readonly LegRecord[];
  warmupLegs: number;
  // Judged legs the plan holds (a sequential run's budget), warm-up excluded.
  plannedJudgedLegs: number;
  binaries: BinariesRecord;
  deviations: readonly Deviation[];
  seed: number;
}

export interface AbJudgement {
  verdict: VerdictRecord;
  comparison: AbComparison;
  quantities: Record<string, Quantity>;
  notes: string[];
  // A sequential run is decided: the series runs no more legs.
  stop: boolean;
}

// The error rates each method states. Per criterion α (the bootstrap's 95% interval: 2.5% a side); combined
// by 'all', a wrong SUPPORTED needs every criterion wrong (≤ α) and a wrong REFUTED any one (≤ kα); 'any' the reverse.
export function errorRates(m: IntervalMethod, k: number, combine: Claim['combine']): ErrorRates {
  const a = m.kind === 'bootstrap' ? BOOTSTRAP_ALPHA_PER_SIDE : m.alpha;
  const any = Math.min(1, k * a);
  const assumes = m.kind === 'bootstrap'
    ? 'legs independent within each arm; the percentile bootstrap interval is approximate at small n'
    : "each criterion's block observations independent and σ-sub-Gaussian around the true effect (σ as registered per metric); holds at every block, under any peeking or stopping rule";
  return { wrongSupportedMax: combine === 'all' ? a : any, wrongRefutedMax: combine === 'all' ? any : a, assumes };
}

function scaleOf(m: Exclude<IntervalMethod, { kind: 'bootstrap' }>, c: ClaimCriterion): MetricScale {
  const s = m.scales[c.key];
  if (!s) throw new Error(`no registered scale for ${c.key}: the plan must refuse this before any leg runs`);
  return s;
}

// What a method makes of the judged legs: per-criterion comparisons, the combined word, the figures.
interface MetricsOut {
  metrics: MetricComparison[];
  word: VerdictInput['word'];
  decidedAtBlock: number | null;
  legsUsed: number;
  extra: Record<string, Quantity>;
  notes: string[];
}

// The anytime-valid tests of every criterion, combined block by block.
function sequentialMetrics(i: AbJudgeInput, m: Extract<IntervalMethod, { kind: 'anytime-valid' }>, judged: readonly LegRecord[]): MetricsOut {
  const ps = i.claim.criteria.map((c) => mixtureFor(c, scaleOf(m, c), m.alpha));
  const tracks = i.claim.criteria.map((c, k) => track(c, judged, ps[k]!));
  const blocks = Math.min(...tracks.map((t) => t.blocks.length));
  const decided = decidedBlock(tracks, i.claim.combine);
  const at = decided ?? blocks;
  const legsUsed = at * BLOCK_LEGS;
  const metrics = i.claim.criteria.map((c, k) => sequentialMetric(c, tracks[k]!, ps[k]!, at, legsUsed));
  const extra: Record<string, Quantity> = {};
  const notes: string[] = [];
  for (const [k, mc] of metrics.entries()) {
    // The fixed-N reading of the same legs, beside it and never the verdict.
    const fixed = judgeFixed(i.claim.criteria[k]!, judged, i.seed, i.claim);
    extra[mc.key] = fixed.estimate;
    extra[sequentialKey(mc.key)] = mc.estimate;
    if (fixed.interval) notes.push(`fixed-N reading beside it (not the verdict): ${mc.key} ${Math.round(fixed.interval.level * 100)}% bootstrap interval [${fixed.interval.lo.toFixed(4)}, ${fixed.interval.hi.toFixed(4)}] over the same legs`);
    const s = mc.sequential!;
    if (s.exceedsRegistered) notes.push(`sequential: caution — the observed block sd of ${mc.key} ${s.observedSd!.toFixed(4)} exceeds the registered σ ${s.sigma}; the stated error rates assume σ (calibrate with ab --aa)`);
  }
  return { metrics, word: decided === null ? 'UNRESOLVED' : combineWords(metrics.map((x) => x.word!), i.claim.combine), decidedAtBlock: decided, legsUsed, extra, notes };
}

// The A/A calibration of every criterion's scale: MEASURED when each holds, REFUTED when one does not.
function aaMetrics(i: AbJudgeInput, m: Extract<IntervalMethod, { kind: 'aa-calibrated' }>, judged: readonly LegRecord[]): MetricsOut {
  const metrics = i.claim.criteria.map((c) => {
    const aa = judgeAaMetric(c, judged, mixtureFor(c, scaleOf(m, c), m.alpha), i.seed, m.budgetBlocks);
    return { ...judgeFixed(c, judged, i.seed, { ...i.claim, source: 'none' }), aa, text: aa.text };
  });
  const rates = metrics.map((x) => x.aa.falseAlarmRate);
  const worst = rates.some((r) => r === null) ? null : Math.max(...(rates as number[]));
  const first = metrics[0]!.aa;
  const extra: Record<string, Quantity> = {
    [FALSE_ALARM_FIGURE]: worst === null
      ? refused('A/A false-alarm rate', 'NO_SAMPLES', metrics.map((x) => x.aa.text).join('; '))
      : measured('A/A false-alarm rate', 'aaFalseAlarmRate', worst, 'fraction', {
        blocks: { value: first.blocks, label: 'A/A blocks' }, resamples: { value: first.resamples, label: 'centred resampled sequences' }, seed: { value: first.seed, label: 'seed' },
        sd: { value: first.observedSd === null ? null : Number(first.observedSd.toPrecision(4)), label: `observed block sd (${first.key})` }, sigma: { value: first.registeredSigma, label: 'registered σ' }, alpha: { value: first.alpha, label: 'α' },
        ...(metrics.length > 1 ? { of: { value: `the highest of ${metrics.length} metrics`, label: 'rate' } } : {}),
      }),
  };
  for (const x of metrics) extra[x.key] = x.estimate;
  const word = worst === null ? 'NOT MEASURED' : metrics.every((x) => x.aa.holds) ? 'MEASURED' : 'REFUTED';
  return { metrics, word, decidedAtBlock: null, legsUsed: judged.length, extra, notes: [] };
}

function fixedMetrics(i: AbJudgeInput, judged: readonly LegRecord[]): MetricsOut {
  const metrics = i.claim.criteria.map((c) => judgeFixed(c, judged, i.seed, i.claim));
  const extra: Record<string, Quantity> = Object.fromEntries(metrics.map((x) => [x.key, x.estimate]));
  // Per-token is always worth seeing beside a gate that judges something else (busy); a serve leg has none.
  if (!i.claim.criteria.some((c) => c.metric === 'perOutputToken' || isServeMetric(c.metric))) {
    const c = i.claim.criteria[0]!;
    extra.perTokenRatio = judgeFixed({ ...c, key: 'perTokenRatio', metric: 'perOutputToken', quantity: 'perOutputToken', unit: 's', scale: 'ratio', noEffect: 1 }, judged, i.seed, { ...i.claim, source: 'none' }).estimate;
  }
  const word = i.claim.source === 'none' ? null : combineWords(metrics.map((x) => x.word!), i.claim.combine);
  return { metrics, word, decidedAtBlock: null, legsUsed: judged.length, extra, notes: [] };
}

function methodText(m: IntervalMethod): string {
  if (m.kind === 'bootstrap') return `percentile bootstrap over legs, ${Math.round(BOOTSTRAP_LEVEL * 100)}% interval (a one-sided claim at α 2.5%; equivalence by TOST at 2.5% a side)`;
  return `${SEQUENTIAL_METHOD}, α ${m.alpha}${m.kind === 'aa-calibrated' ? `; A/A calibration over ${m.budgetBlocks} blocks` : ''}`;
}

// The judgement of the legs so far.
export function judgeAb(i: AbJudgeInput): AbJudgement {
  const judged = i.legs.filter((l) => !isWarmup(l.index, i.warmupLegs));
  const m = i.method;
  const out = m.kind === 'anytime-valid' ? sequentialMetrics(i, m, judged) : m.kind === 'aa-calibrated' ? aaMetrics(i, m, judged) : fixedMetrics(i, judged);
  const ctx = abContext(judged, i.claim.criteria[0]!.quantity);
  const rates = errorRates(m, i.claim.criteria.length, i.claim.combine);
  const decided = out.decidedAtBlock !== null;
  const verdict = abVerdict({
    claim: i.claim, word: out.word, refutationFails: m.kind === 'aa-calibrated' ? true : i.claim.refutationFails, metrics: out.metrics,
    legs: i.legs, judgedLegs: judged.length, expectedJudgedLegs: decided ? out.legsUsed : i.plannedJudgedLegs, binaries: i.binaries, deviations: i.deviations,
    findings: m.kind === 'aa-calibrated' ? out.metrics.map((x) => reason('AA_CALIBRATION', x.text)) : [],
  });
  const notes = [
    ...(i.warmupLegs ? [`warm-up: the first ${i.warmupLegs} leg(s) ran and were discarded (gate warmupLegs)`] : []),
    ...contextNotes(ctx, i.binaries),
    ...out.notes,
    ...(m.kind === 'anytime-valid' ? [`sequential: stated error rates — wrong SUPPORTED ≤ ${rates.wrongSupportedMax}, wrong REFUTED ≤ ${rates.wrongRefutedMax}; assumes ${rates.assumes}`] : []),
  ];
  const comparison: AbComparison = {
    kind: 'ab', form: i.form,
    claim: { source: i.claim.source, statement: i.claim.statement, combine: i.claim.combine, refutationFails: i.claim.refutationFails },
    arms: i.claim.armLabels, onArm: i.claim.onArm, binaries: i.binaries, method: { kind: m.kind, text: methodText(m) },
    metrics: out.metrics, decidedAtBlock: out.decidedAtBlock, legsUsed: out.legsUsed, errorRates: rates, ...ctx,
  };
  return { verdict, comparison, quantities: out.extra, notes, stop: m.kind === 'anytime-valid' && decided };
}
