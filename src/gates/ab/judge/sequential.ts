import type { MetricScale } from '../../../config/gate.js';
import { measured, refused } from '../../../quantity/make.js';
import type { LegRecord } from '../../../results/types.js';
import type { BlockRecord, MetricComparison } from '../../../results/comparison.js';
import { confidenceSequence, type MixtureParams } from '../../../stats/sequential.js';
import { stdev } from '../../../stats/summary.js';
import type { HypothesisWord } from '../../../verdict/words.js';
import { BLOCK_LEGS, blockObservations } from '../blocks.js';
import type { Claim, ClaimCriterion } from '../claim.js';
import { effectName } from './fixed.js';
import { combineWords, decide, decisionText, intervalText, type Decision } from './region.js';

// The sequential A/B: per criterion an anytime-valid confidence sequence over its block observations (log
// ratio or points, on the criterion's registered scale), the region rule after every block, and the gate's
// combine rule over the criteria block by block: the run stops after the first block that decides it.

export const SEQUENTIAL_METHOD = 'normal-mixture confidence sequence on per-block observations (Robbins 1970; Howard, Ramdas, McAuliffe & Sekhon 2021), running intersection, Ville\'s inequality';

// The mixture a criterion is tested with: its registered σ, and τ (default: the nearest bound's distance
// from no effect, in the observation's units: |log bound| for a ratio, |bound| for points).
export function mixtureFor(c: Pick<ClaimCriterion, 'scale' | 'region'>, scale: MetricScale, alpha: number): MixtureParams {
  const toX = (b: number): number => (c.scale === 'ratio' ? Math.log(b) : b);
  const bounds = [c.region.lo, c.region.hi].filter((b): b is number => b !== null).map((b) => Math.abs(toX(b)));
  return { alpha, sigma: scale.sigma, tau: scale.tau ?? Math.max(bounds.length ? Math.min(...bounds) : 1, 1e-6) };
}

// One criterion's confidence sequence block by block, and its (sticky: the running intersection only
// shrinks) decision after each block, skipped blocks included.
export interface Track {
  blocks: BlockRecord[];
  decisions: Decision[];
  xs: number[];
}

// The sticky decision after each observation of a sequence (null: a skipped block), with the interval in
// the effect's units: the region rule applied to the running confidence sequence, look after look.
export function sequenceDecisions(c: Pick<ClaimCriterion, 'scale' | 'region' | 'test' | 'direction' | 'noEffect'>, obs: ReadonlyArray<number | null>, p: MixtureParams): Array<{ decision: Decision; interval: { lo: number; hi: number; mean: number } | null }> {
  const toEffect = (x: number): number => (c.scale === 'ratio' ? Math.exp(x) : x);
  const cs = confidenceSequence(obs.filter((x): x is number => x !== null), p);
  let k = 0;
  let d: Decision = { word: 'UNRESOLVED', refutedAs: null };
  return obs.map((x) => {
    if (x === null) return { decision: d, interval: null };
    const iv = cs[k++]!;
    const eff = { lo: toEffect(iv.lo), hi: toEffect(iv.hi), mean: toEffect(iv.mean) };
    // An empty intersection (lo > hi) decides nothing.
    if (d.word === 'UNRESOLVED' && iv.lo <= iv.hi) d = decide(eff, c);
    return { decision: d, interval: eff };
  });
}

export function track(c: ClaimCriterion, legs: readonly LegRecord[], p: MixtureParams): Track {
  const obs = blockObservations(legs, c.quantity, c.subject, c.scale);
  const seq = sequenceDecisions(c, obs.map((o) => o.x), p);
  const blocks = obs.map((o, i): BlockRecord => ({ ...o, lo: seq[i]!.interval?.lo ?? null, hi: seq[i]!.interval?.hi ?? null, mean: seq[i]!.interval?.mean ?? null }));
  return { blocks, decisions: seq.map((x) => x.decision), xs: obs.flatMap((o) => (o.x === null ? [] : [o.x])) };
}

// The first block (1-based) after which the gate's combined word is decided, or null.
export function decidedBlock(tracks: readonly Track[], combine: Claim['combine']): number | null {
  const n = Math.min(...tracks.map((t) => t.decisions.length));
  for (let b = 0; b < n; b++) {
    if (combineWords(tracks.map((t) => t.decisions[b]!.word), combine) !== 'UNRESOLVED') return b + 1;
  }
  return null;
}

// One criterion's comparison as of block `at` (the deciding block, or the last one).
export function sequentialMetric(c: ClaimCriterion, t: Track, p: MixtureParams, at: number, legsUsed: number): MetricComparison {
  const upTo = t.blocks.slice(0, at).filter((b) => b.lo !== null);
  const last = upTo.at(-1);
  const d: Decision = at > 0 ? t.decisions[at - 1]! : { word: 'UNRESOLVED', refutedAs: null };
  const level = 1 - p.alpha;
  const method = `${SEQUENTIAL_METHOD}; σ ${p.sigma}, τ ${Number(p.tau.toPrecision(4))}, α ${p.alpha}`;
  const interval = last ? { lo: last.lo!, hi: last.hi!, level, method } : null;
  const name = `sequential ${effectName(c)}`;
  const estimate = last
    ? measured(name, c.scale === 'ratio' ? 'sequentialRatio' : 'sequentialPoints', last.mean!, c.scale === 'ratio' ? 'x' : 'points', {
      interval: { value: intervalText(interval!, c.scale).replace(/^.*?\[/, '['), label: `${Math.round(level * 100)}% anytime-valid interval (σ ${p.sigma}, τ ${Number(p.tau.toPrecision(4))})` },
      blocks: { value: upTo.length, label: 'blocks judged' },
      legs: { value: legsUsed, label: 'legs used' },
    })
    : refused(name, 'NO_SAMPLES', 'no whole block with an observation yet');
  const skipped = t.blocks.slice(0, at).filter((b) => b.skipped !== null);
  const ivText = interval ? `${intervalText(interval, c.scale, `anytime-valid interval on the ${c.scale === 'ratio' ? 'ratio' : 'points delta'}`)} after ${upTo.length} block(s) (${legsUsed} legs)` : null;
  const text = (ivText ? decisionText(c, d, interval!, ivText) : `${c.key}: no block with an observation yet`)
    + (skipped.length ? `; ${skipped.length} block(s) skipped (${skipped.map((b) => `block ${b.block}: ${b.skipped}`).join('; ')})` : '');
  const sd = t.xs.length >= 2 ? stdev(t.xs) : null;
  return {
    key: c.key, metric: c.metric, scale: c.scale, test: c.test, subject: c.subject, reference: c.reference, bound: c.bound, says: c.says, region: c.region,
    estimate, interval, n: { subject: upTo.length * (BLOCK_LEGS / 2), reference: upTo.length * (BLOCK_LEGS / 2) },
    word: d.word as HypothesisWord, refutedAs: d.refutedAs, text, aa: null,
    sequential: { sigma: p.sigma, tau: p.tau, blocks: t.blocks, decidedAtBlock: d.word === 'UNRESOLVED' ? null : firstDecided(t), observedSd: sd, exceedsRegistered: sd !== null && sd > p.sigma },
  };
}

function firstDecided(t: Track): number | null {
  const i = t.decisions.findIndex((d) => d.word !== 'UNRESOLVED');
  return i < 0 ? null : i + 1;
}
