import type { Quantity } from '../../../quantity/types.js';
import type { LegRecord } from '../../../results/types.js';
import type { AbComparison, MetricComparison, SweepArmRecord, SweepComparisonRecord, SweepRecord } from '../../../results/comparison.js';
import { holmStepDown, bonferroniAlpha } from '../../../stats/holm.js';
import { levelPct } from '../../../stats/bootstrap.js';
import { median, relativeSpread } from '../../../stats/summary.js';
import { reason } from '../../../verdict/reasons.js';
import type { HypothesisWord } from '../../../verdict/words.js';
import { isWarmup } from '../../../plan/warmup.js';
import { balanceText, type SweepDesign } from '../../../plan/sweep.js';
import { bindClaim, claimLine, onArmOf, type Claim, type ClaimSpec } from '../claim.js';
import type { Deviation } from '../deviations.js';
import { armPaths, outlierLegs, outlierNotes, pathNotes, pct } from './context.js';
import { BOOTSTRAP_LEVEL, judgeFixed } from './fixed.js';
import { errorRates, type AbJudgement } from './judge.js';
import { combineWords } from './region.js';
import { legValue } from './values.js';
import { abVerdict } from './verdict.js';

// A sweep judged through the one A/B judge: each non-baseline arm against the baseline is an A/B of the legs
// of the same blocks (baseline as A, the arm as B), judged by judgeFixed at a level the correction sets.
//
// The correction, and why this one: m = N − 1 comparisons share one family α (0.05 two-sided, the one A/B's
// 95%). Decisions use Holm's step-down (src/stats/holm.ts) by test inversion of the bootstrap interval: it
// holds the family-wise error at α like Bonferroni and decides at least as often. Holm has no intervals that
// match its decisions, so the intervals shown are Bonferroni's (level 1 − α/m, covering all m effects at
// once); a criterion decided at a later Holm step rests on the narrower interval of that step, and its
// sentence says which level decided it. With no claim nothing is decided and only the intervals are shown.

export const SWEEP_FAMILY_ALPHA = Number((1 - BOOTSTRAP_LEVEL).toFixed(6));

export interface SweepJudgeInput {
  spec: ClaimSpec | null;
  flag: { name: string; env: string; on: string };
  design: Pick<SweepDesign, 'arms' | 'baseline' | 'blocks' | 'cycle' | 'order'>;
  legs: readonly LegRecord[];
  warmupLegs: number;
  plannedJudgedLegs: number;
  deviations: readonly Deviation[];
  seed: number;
}

// The legs of the baseline and one arm, as an A/B sees them: baseline A, the arm B.
function pairLegs(legs: readonly LegRecord[], baseline: string, arm: string): LegRecord[] {
  return legs.filter((l) => l.arm === baseline || l.arm === arm).map((l) => ({ ...l, arm: l.arm === baseline ? 'A' : 'B' }));
}

// The claim for one pair, its "on" arm decided by the same rule as an A/B of those two values.
function pairClaim(i: SweepJudgeInput, arm: SweepDesign['arms'][number], spec: ClaimSpec | null): Claim {
  const base = i.design.arms.find((a) => a.arm === i.design.baseline)!;
  return bindClaim(spec, spec ? onArmOf({ A: base, B: arm }, i.flag) : 'B', { A: base.arm, B: arm.arm });
}

// Per arm: its judged legs and the median per-token time over those that passed their token gate.
function armRecords(i: SweepJudgeInput, judged: readonly LegRecord[]): SweepArmRecord[] {
  return i.design.arms.map((a) => {
    const mine = judged.filter((l) => l.arm === a.arm);
    const xs = mine.flatMap((l) => {
      const v = legValue(l, 'perOutputToken');
      return 'v' in v ? [v.v] : [];
    });
    // tokens/s as the leg table has it: the median of each leg's rate (not 1 / the median time, which differs for even n).
    const rates = xs.filter((x) => x > 0).map((x) => 1 / x);
    return { arm: a.arm, value: a.flagValue, baseline: a.arm === i.design.baseline, legs: mine.length, n: xs.length, medianPerTokenS: xs.length ? median(xs) : null, tokensPerS: rates.length ? median(rates) : null };
  });
}

interface PairOut {
  record: SweepComparisonRecord;
  claim: Claim;
}

// Every criterion of every pair, Holm-corrected per criterion across the pairs.
function judgePairs(i: SweepJudgeInput, judged: readonly LegRecord[], m: number): PairOut[] {
  const others = i.design.arms.filter((a) => a.arm !== i.design.baseline);
  const pairs = others.map((a) => ({ arm: a, legs: pairLegs(judged, i.design.baseline, a.arm), claim: pairClaim(i, a, i.spec) }));
  const bonf = bonferroniAlpha(m, SWEEP_FAMILY_ALPHA);
  const memo = new Map<string, MetricComparison>();
  const at = (k: number, j: number, alpha: number): MetricComparison => {
    const id = `${k} ${j} ${alpha}`;
    const p = pairs[k]!;
    return memo.get(id) ?? memo.set(id, judgeFixed(p.claim.criteria[j]!, p.legs, i.seed, p.claim, 1 - alpha)).get(id)!;
  };
  const criteria = pairs[0]?.claim.criteria.length ?? 0;
  const steps = Array.from({ length: criteria }, (_, j) => holmStepDown(m, SWEEP_FAMILY_ALPHA, (k, a) => i.spec !== null && (at(k, j, a).word === 'SUPPORTED' || at(k, j, a).word === 'REFUTED')));
  return pairs.map((p, k) => {
    const metrics = p.claim.criteria.map((c, j) => {
      const s = steps[j]![k]!;
      const mc = at(k, j, s.step === null ? bonf : s.alpha);
      const how = s.step === null ? `not decided at any Holm step (shown at the Bonferroni level ${levelPct(1 - bonf)})` : `decided in round ${s.step} of Holm's step-down over ${m} (α ${Number(s.alpha.toPrecision(4))})`;
      const arms = `B = ${p.arm.arm}, A = ${i.design.baseline}`;
      return { ...mc, key: `${c.key}@${p.arm.arm}`, estimate: { ...mc.estimate, name: `${mc.estimate.name} (${arms})` }, text: i.spec ? `${arms}: ${mc.text}; ${how}` : mc.text };
    });
    const perToken = bindClaim(null, 'B', p.claim.armLabels).criteria[0]!;
    const ratio = judgeFixed(perToken, p.legs, i.seed, { armLabels: p.claim.armLabels, source: 'none' }, 1 - bonf);
    const words = metrics.map((x) => x.word).filter((w): w is HypothesisWord => w !== null);
    const word = i.spec && words.length ? combineWords(words, i.spec.combine) : null;
    const holm = p.claim.criteria.map((c, j) => ({ key: c.key, step: steps[j]![k]!.step, alpha: steps[j]![k]!.alpha }));
    // Named by the arms it divides, not A and B (every pair is A and B to the judge).
    const named: Quantity = { ...ratio.estimate, name: `per output token ratio ${p.arm.arm}/${i.design.baseline}` };
    return { claim: p.claim, record: { arm: p.arm.arm, value: p.arm.flagValue, ratio: named, interval: ratio.interval, metrics, holm, word, ...armPaths(p.legs) } };
  });
}

// The correction as a sentence: what was corrected, by which method, and what the intervals are.
export function correctionText(m: number, baseline: string, judged: boolean): string {
  const level = levelPct(1 - bonferroniAlpha(m, SWEEP_FAMILY_ALPHA));
  const decide = judged ? `decisions by Holm's step-down over the ${m} comparison(s) against ${baseline} (family-wise α ${SWEEP_FAMILY_ALPHA}, per criterion)` : `nothing decided (no claim registered) over the ${m} comparison(s) against ${baseline}`;
  return `${decide}; intervals Bonferroni-adjusted to ${level} so all ${m} cover at once`;
}

// Per arm against the baseline, whether they took different paths (as an A/B of the two says it); an engine
// that printed no counters in any leg is said once.
function sweepPathNotes(comparisons: readonly SweepComparisonRecord[], baseline: string): string[] {
  if (comparisons.every((c) => c.armsDiffered === null)) return pathNotes({ counterDiff: [], armsDiffered: null }, '');
  return comparisons.flatMap((c) => pathNotes(c, `${c.arm} against ${baseline} (A = ${baseline}, B = ${c.arm}): `));
}

// The sweep's judgement of the legs so far.
export function judgeSweep(i: SweepJudgeInput): AbJudgement {
  const judged = i.legs.filter((l) => !isWarmup(l.index, i.warmupLegs));
  const m = i.design.arms.length - 1;
  const pairs = judgePairs(i, judged, m);
  const comparisons = pairs.map((p) => p.record);
  const metrics = comparisons.flatMap((c) => c.metrics);
  const armWords = comparisons.map((c) => c.word).filter((w): w is HypothesisWord => w !== null);
  const word = i.spec && armWords.length === comparisons.length ? combineWords(armWords, i.spec.combine) : i.spec ? 'UNRESOLVED' : null;
  const first = pairs[0]!.claim;
  const correction = correctionText(m, i.design.baseline, i.spec !== null);
  const v = abVerdict({
    claim: first, word, refutationFails: i.spec?.refutationFails ?? true, metrics, legs: i.legs, judgedLegs: judged.length,
    expectedJudgedLegs: i.plannedJudgedLegs, binaries: { kind: 'one' }, deviations: i.deviations, findings: [reason('MULTIPLE_COMPARISONS', correction)],
  });
  const line = claimLine(first);
  const verdict = { ...v, reasons: i.spec ? v.reasons : [...v.reasons, reason('MULTIPLE_COMPARISONS', correction)], ...(line ? { claim: `each arm against ${i.design.baseline}, combined by '${i.spec!.combine}' across the ${m} arms: ${line} (shown for ${comparisons[0]!.arm})` } : {}) };
  const quantities: Record<string, Quantity> = {};
  // Each criterion's figure per arm (a report-only sweep's one criterion is the per-token ratio), under the
  // keys the ledger finds their intervals by; per-token is always shown, once.
  const perTokenShown = first.criteria.some((c) => c.metric === 'perOutputToken' && c.scale === 'ratio');
  for (const c of comparisons) {
    for (const x of c.metrics) quantities[x.key] = x.estimate;
    if (!perTokenShown) quantities[`perTokenRatio@${c.arm}`] = c.ratio;
  }
  const arms = armRecords(i, judged);
  const spreads: Record<string, number | null> = {};
  for (const a of i.design.arms) {
    const xs = judged.filter((l) => l.arm === a.arm).flatMap((l) => { const x = legValue(l, 'perOutputToken'); return 'v' in x ? [x.v] : []; });
    spreads[`arm ${a.arm} perOutputToken`] = xs.length >= 2 ? relativeSpread(xs) : null;
  }
  const names = (row: number[]): string[] => row.map((k) => i.design.arms[k]!.arm);
  const outliers = outlierLegs(judged, 'perOutputToken', i.design.arms.map((a) => a.arm));
  const sweep: SweepRecord = {
    flag: i.flag.name, baseline: i.design.baseline, values: i.design.arms.map((a) => a.flagValue),
    design: { kind: 'williams', blocks: i.design.blocks, cycle: i.design.cycle, order: i.design.order.map(names), text: balanceText(i.design) },
    correction: { method: 'holm', familyAlpha: SWEEP_FAMILY_ALPHA, comparisons: m, intervals: 'bonferroni', intervalLevel: 1 - bonferroniAlpha(m, SWEEP_FAMILY_ALPHA), text: correction },
    arms, comparisons,
  };
  const rates = errorRates({ kind: 'bootstrap' }, first.criteria.length, first.combine);
  const comparison: AbComparison = {
    kind: 'ab', form: 'sweep',
    claim: { source: first.source, statement: first.statement, combine: first.combine, refutationFails: first.refutationFails },
    arms: { A: i.design.baseline, B: `each of ${m} arm(s): ${comparisons.map((c) => c.arm).join(', ')}` }, onArm: 'B', binaries: { kind: 'one' },
    method: { kind: 'bootstrap', text: `percentile bootstrap over legs per pair of arms; ${correction}` },
    metrics, decidedAtBlock: null, legsUsed: judged.length,
    errorRates: { ...rates, assumes: `${rates.assumes}; family-wise over the ${m} arms by Holm's step-down` },
    spreads, counterDiff: [], armsDiffered: null, outliers, sweep,
  };
  const notes = [
    ...(i.warmupLegs ? [`warm-up: the first ${i.warmupLegs} leg(s) ran and were discarded (gate warmupLegs)`] : []),
    // The design and the correction are stated under the sweep table and in the verdict's reasons.
    `spreads beside the ratios (max−min)/min: ${Object.entries(spreads).map(([k, x]) => `${k} ${pct(x)}`).join(', ')}`,
    ...sweepPathNotes(comparisons, i.design.baseline),
    ...outlierNotes(outliers),
  ];
  return { verdict, comparison, quantities, notes, stop: false };
}
