import { numeratorArm } from './compare.js';
import type { Hypothesis } from '../../config/gate.js';
import type { LegRecord } from '../../results/types.js';
import type { Criterion } from '../../stats/sequential.js';

// ABBA blocks of 4 legs → one log ratio per block: the replication unit of the sequential A/B.
// The block log ratio is mean(log numerator legs) − mean(log denominator legs) within the block, so a
// linear drift across the block cancels (A B B A is symmetric about its middle).

export const BLOCK_LEGS = 4;

const PASS = new Set(['STRICT PASS', 'NEAR-TIE PASS']);

export interface BlockRecord {
  block: number; // 1-based
  legs: number[]; // 1-based leg numbers, in run order
  logRatio: number | null;
  // Why a block gives no log ratio (a leg with wrong tokens has no speed): named, and the block skipped.
  skipped: string | null;
}

// The leg's value of the metric, when it passed its token gate and was measured positive.
function legValue(l: LegRecord, key: string): { v: number } | { why: string } {
  if (!PASS.has(l.verdict)) return { why: `leg ${l.index + 1} is ${l.verdict}` };
  const q = l.quantities[key];
  if (!q || q.status !== 'measured') return { why: `leg ${l.index + 1} has no measured ${key}${q ? ` (${q.reason})` : ''}` };
  if (!(q.value > 0) || !Number.isFinite(q.value)) return { why: `leg ${l.index + 1} ${key} is ${q.value}: no log ratio over it` };
  return { v: q.value };
}

// Groups the judged legs (warm-up already removed) into whole blocks in run order; a partial last block waits.
export function blockLogRatios(legs: readonly LegRecord[], key: string, numerator: 'A' | 'B'): BlockRecord[] {
  const ordered = legs.filter((l) => l.arm !== 'single').slice().sort((a, b) => a.index - b.index);
  const out: BlockRecord[] = [];
  for (let b = 0; (b + 1) * BLOCK_LEGS <= ordered.length; b++) {
    const group = ordered.slice(b * BLOCK_LEGS, (b + 1) * BLOCK_LEGS);
    const num: number[] = [];
    const den: number[] = [];
    let skipped: string | null = null;
    for (const l of group) {
      const v = legValue(l, key);
      if ('why' in v) { skipped = skipped ? `${skipped}; ${v.why}` : v.why; continue; }
      (l.arm === numerator ? num : den).push(Math.log(v.v));
    }
    if (!skipped && (num.length === 0 || den.length === 0)) skipped = `block has ${num.length} numerator and ${den.length} denominator legs`;
    const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
    out.push({ block: b + 1, legs: group.map((l) => l.index + 1), logRatio: skipped ? null : mean(num) - mean(den), skipped });
  }
  return out;
}

// Which arm is the numerator, and the criterion in log units, from the registered hypothesis — the same
// reading compareArms makes of it (the arm the hypothesis expects to be better is the numerator).
export function logCriterion(h: Hypothesis, armFlagValues: { A: string; B: string }): { numerator: 'A' | 'B'; criterion: Criterion; text: string } {
  const numerator = numeratorArm(armFlagValues, h.expect.startsWith('on'));
  const den = numerator === 'B' ? 'A' : 'B';
  const faster = h.metric === 'perOutputToken';
  const ratioBound = faster ? 1 - h.refutedIfLessThanPct / 100 : 1 + h.refutedIfLessThanPct / 100;
  const text = faster
    ? `arm ${numerator}/${den} ≤ ${ratioBound.toFixed(4)} (at least ${h.refutedIfLessThanPct}% less time per token)`
    : `arm ${numerator}/${den} ≥ ${ratioBound.toFixed(4)} (at least ${h.refutedIfLessThanPct}% busier)`;
  return { numerator, criterion: { bound: Math.log(ratioBound), better: faster ? 'below' : 'above' }, text };
}

// The ABBA block a leg runs in (warm-up legs join the first block, right before it) and how many legs that
// block has: the scope one Slurm allocation is taken for when the site's config says jobPer block.
export function legBlock(index: number, warmupLegs: number, totalLegs: number): { block: number; blockLegs: number } {
  const block = index < warmupLegs ? 0 : Math.floor((index - warmupLegs) / BLOCK_LEGS);
  const start = block === 0 ? 0 : warmupLegs + block * BLOCK_LEGS;
  const end = Math.min(totalLegs, warmupLegs + (block + 1) * BLOCK_LEGS);
  return { block, blockLegs: Math.max(1, end - start) };
}
