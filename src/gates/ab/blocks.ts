import type { LegRecord } from '../../results/types.js';
import type { Arm, EffectScale } from '../../results/comparison.js';
import { mean } from '../../stats/summary.js';
import { legValue } from './judge/values.js';

// ABBA blocks of 4 legs → one observation per block: the replication unit of the sequential A/B and of the
// A/A calibration. On a ratio scale the observation is mean(log subject legs) − mean(log reference legs);
// on a points scale mean(subject) − mean(reference). Either way a linear drift across the block cancels
// (A B B A is symmetric about its middle).

export const BLOCK_LEGS = 4;

export interface BlockObservation {
  block: number; // 1-based
  legs: number[]; // 1-based leg numbers, in run order
  x: number | null;
  // Why a block gives no observation (a leg with wrong tokens has no speed): named, and the block skipped.
  skipped: string | null;
}

// The leg's value on the scale: a ratio needs a positive value to take its log.
function scaled(l: LegRecord, key: string, scale: EffectScale): { v: number } | { why: string } {
  const v = legValue(l, key);
  if ('why' in v || scale === 'points') return v;
  return v.v > 0 ? { v: Math.log(v.v) } : { why: `leg ${l.index + 1} ${key} is ${v.v}: no log ratio over it` };
}

// Groups the judged legs (warm-up already removed) into whole blocks in run order; a partial last block waits.
export function blockObservations(legs: readonly LegRecord[], key: string, subject: Arm, scale: EffectScale): BlockObservation[] {
  const ordered = legs.filter((l) => l.arm !== 'single').slice().sort((a, b) => a.index - b.index);
  const out: BlockObservation[] = [];
  for (let b = 0; (b + 1) * BLOCK_LEGS <= ordered.length; b++) {
    const group = ordered.slice(b * BLOCK_LEGS, (b + 1) * BLOCK_LEGS);
    const sub: number[] = [];
    const ref: number[] = [];
    const why: string[] = [];
    for (const l of group) {
      const v = scaled(l, key, scale);
      if ('why' in v) why.push(v.why);
      else (l.arm === subject ? sub : ref).push(v.v);
    }
    if (why.length === 0 && (sub.length === 0 || ref.length === 0)) why.push(`block has ${sub.length} subject and ${ref.length} reference legs`);
    const skipped = why.length ? why.join('; ') : null;
    out.push({ block: b + 1, legs: group.map((l) => l.index + 1), x: skipped ? null : mean(sub) - mean(ref), skipped });
  }
  return out;
}

// The block a leg runs in (warm-up legs join the first block, right before it) and how many legs that block
// has: the scope one Slurm allocation is taken for when the site's config says jobPer block. Blocks are the
// plan's (`size`: a sweep's N arms), else ABBA's 4.
export function legBlock(index: number, warmupLegs: number, totalLegs: number, size: number = BLOCK_LEGS): { block: number; blockLegs: number } {
  const block = index < warmupLegs ? 0 : Math.floor((index - warmupLegs) / size);
  const start = block === 0 ? 0 : warmupLegs + block * size;
  const end = Math.min(totalLegs, warmupLegs + (block + 1) * size);
  return { block, blockLegs: Math.max(1, end - start) };
}
