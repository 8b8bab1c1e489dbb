import type { Hypothesis, SequentialConfig } from '../../config/gate.js';
import type { LegRecord } from '../../results/types.js';
import { confidenceSequence, decideSequential, statedErrorRates, type MixtureParams, type SequentialWord } from '../../stats/sequential.js';
import { flagOutliers } from '../../stats/outliers.js';
import { stdev } from '../../stats/summary.js';
import { blockLogRatios, logCriterion, BLOCK_LEGS, type BlockRecord } from './blocks.js';

// The sequential A/B judged over the legs run so far (pure): blocks, the confidence sequence, the decision.

export const SEQUENTIAL_METHOD = 'normal-mixture confidence sequence on per-block log ratios (Robbins 1970; Howard, Ramdas, McAuliffe & Sekhon 2021), running intersection, Ville\'s inequality';

export interface SequentialRecord {
  method: string;
  params: { alpha: number; sigmaLogRatio: number; tauLogRatio: number; maxLegs: number; blockLegs: number; warmupLegs: number };
  criterion: { text: string; ratioBound: number; logBound: number; numerator: 'A' | 'B' };
  blocks: Array<BlockRecord & { ratioLo: number | null; ratioHi: number | null; ratioMean: number | null }>;
  decision: { word: SequentialWord; decidedAtBlock: number | null; legsUsed: number; ratioLo: number | null; ratioHi: number | null; estimate: number | null };
  errorRates: ReturnType<typeof statedErrorRates>;
  noise: { observedSdLogRatio: number | null; usableBlocks: number; exceedsRegistered: boolean };
  outliers: Array<{ leg: number; arm: 'A' | 'B'; value: number; modifiedZ: number }>;
  text: string;
}

// The mixture parameters a gate's sequential block implies (tau defaults to the criterion's distance from no effect).
export function mixtureParams(seq: SequentialConfig, logBound: number): MixtureParams {
  return { alpha: seq.alpha, sigma: seq.sigmaLogRatio, tau: seq.tauLogRatio ?? Math.max(Math.abs(logBound), 1e-6) };
}

// Legs flagged by median/MAD within each arm, on the log of the metric (a ratio scale).
export function outlierLegs(legs: readonly LegRecord[], key: string): SequentialRecord['outliers'] {
  const out: SequentialRecord['outliers'] = [];
  for (const arm of ['A', 'B'] as const) {
    const pts = legs.flatMap((l) => {
      const q = l.quantities[key];
      return l.arm === arm && q?.status === 'measured' && q.value > 0 ? [{ leg: l.index + 1, v: q.value }] : [];
    });
    for (const f of flagOutliers(pts.map((p) => Math.log(p.v)))) out.push({ leg: pts[f.i]!.leg, arm, value: pts[f.i]!.v, modifiedZ: f.z });
  }
  return out;
}

export interface SequentialInput {
  legs: readonly LegRecord[]; // judged legs only (warm-up removed)
  hypothesis: Hypothesis;
  seq: SequentialConfig;
  armFlagValues: { A: string; B: string };
  warmupLegs: number;
}

// Everything the sequential verdict rests on, recomputed from the legs (so a re-read result agrees with the run).
export function judgeSequential(i: SequentialInput): SequentialRecord {
  const key = i.hypothesis.metric === 'perOutputToken' ? 'perOutputToken' : 'busy';
  const { numerator, criterion, text: critText } = logCriterion(i.hypothesis, i.armFlagValues);
  const p = mixtureParams(i.seq, criterion.bound);
  const blocks = blockLogRatios(i.legs, key, numerator);
  const xs = blocks.flatMap((b) => (b.logRatio === null ? [] : [b.logRatio]));
  const cs = confidenceSequence(xs, p);
  const d = decideSequential(xs, criterion, p);
  let k = 0;
  const withCs = blocks.map((b) => {
    if (b.logRatio === null) return { ...b, ratioLo: null, ratioHi: null, ratioMean: null };
    const iv = cs[k++]!;
    return { ...b, ratioLo: Math.exp(iv.lo), ratioHi: Math.exp(iv.hi), ratioMean: Math.exp(iv.mean) };
  });
  // The block after which the decision came, counted over all blocks (a skipped block still cost its legs).
  const usable = blocks.filter((b) => b.logRatio !== null);
  const decidedBlock = d.decidedAt === null ? null : usable[d.decidedAt - 1]!.block;
  const legsUsed = decidedBlock === null ? blocks.length * BLOCK_LEGS : decidedBlock * BLOCK_LEGS;
  const sd = xs.length >= 2 ? stdev(xs) : null;
  const iv = d.interval;
  const pct = Math.round((1 - p.alpha) * 100);
  const ivText = iv ? `${pct}% anytime-valid interval on the ratio [${Math.exp(iv.lo).toFixed(4)}, ${Math.exp(iv.hi).toFixed(4)}] after ${iv.n} block(s)` : 'no block with a log ratio yet';
  const skipped = blocks.filter((b) => b.skipped);
  const text = (d.word === 'SUPPORTED'
    ? `sequential: ${ivText} (${legsUsed} legs) lies entirely within the criterion ${critText}`
    : d.word === 'REFUTED'
      ? `sequential: ${ivText} (${legsUsed} legs) lies entirely outside the criterion ${critText}: the effect is smaller than pre-registered`
      : `sequential: ${ivText} straddles the criterion ${critText}`)
    + (skipped.length ? `; ${skipped.length} block(s) skipped (${skipped.map((b) => `block ${b.block}: ${b.skipped}`).join('; ')})` : '');
  return {
    method: SEQUENTIAL_METHOD,
    params: { alpha: p.alpha, sigmaLogRatio: p.sigma, tauLogRatio: p.tau, maxLegs: i.seq.maxLegs, blockLegs: BLOCK_LEGS, warmupLegs: i.warmupLegs },
    criterion: { text: critText, ratioBound: Math.exp(criterion.bound), logBound: criterion.bound, numerator },
    blocks: withCs,
    decision: { word: d.word, decidedAtBlock: decidedBlock, legsUsed, ratioLo: iv ? Math.exp(iv.lo) : null, ratioHi: iv ? Math.exp(iv.hi) : null, estimate: iv ? Math.exp(iv.mean) : null },
    errorRates: statedErrorRates(p),
    noise: { observedSdLogRatio: sd, usableBlocks: xs.length, exceedsRegistered: sd !== null && sd > p.sigma },
    outliers: outlierLegs(i.legs, key),
    text,
  };
}

// The whole-block budget a gate's maxLegs allows, or the usage error that names the field.
export function blockBudget(maxLegs: number): { blocks: number } | { error: string } {
  if (maxLegs < BLOCK_LEGS) return { error: `sequential.maxLegs ${maxLegs} is smaller than one ABBA block (${BLOCK_LEGS} legs)` };
  return { blocks: Math.floor(maxLegs / BLOCK_LEGS) };
}
