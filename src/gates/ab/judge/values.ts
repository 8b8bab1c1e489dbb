import { ratio as quantityRatio } from '../../../quantity/compare.js';
import type { Quantity } from '../../../quantity/types.js';
import type { LegRecord } from '../../../results/types.js';
import type { Arm } from '../../../results/comparison.js';
import { isPass } from '../../../verdict/words.js';

// What an A/B reads from its legs: one quantity per leg, only from legs that passed their token gate (a leg
// with wrong tokens has no speed), grouped by arm; and whether two legs' figures may be compared at all.

export type ArmValues = Record<Arm, number[]>;

// A leg's measured value of one quantity, or why it has none.
export function legValue(l: LegRecord, key: string): { v: number } | { why: string } {
  if (!isPass(l.verdict)) return { why: `leg ${l.index + 1} is ${l.verdict}` };
  const q = l.quantities[key];
  if (!q || q.status !== 'measured') return { why: `leg ${l.index + 1} has no measured ${key}${q ? ` (${q.reason})` : ''}` };
  if (!Number.isFinite(q.value)) return { why: `leg ${l.index + 1} ${key} is ${q.value}` };
  return { v: q.value };
}

// Per-arm values of one leg quantity.
export function armValues(legs: readonly LegRecord[], key: string): ArmValues {
  const out: ArmValues = { A: [], B: [] };
  for (const l of legs) {
    // A sweep's legs reach here projected onto A and B, one pair of arms at a time.
    if (l.arm !== 'A' && l.arm !== 'B') continue;
    const v = legValue(l, key);
    if ('v' in v) out[l.arm].push(v.v);
  }
  return out;
}

// Legs of both arms on one silicon, by the shared comparability gate of src/quantity/compare.ts: the first
// measured leg against every other; a pair on other silicon withholds the comparison (CROSS_SILICON).
// Legs whose silicon is not recorded make no claim here (the single-host series records the host's).
export function crossSilicon(legs: readonly LegRecord[], key: string, name: string): Quantity | null {
  const qs: Quantity[] = [];
  for (const l of legs) {
    const q = l.arm !== 'single' && isPass(l.verdict) ? l.quantities[key] : undefined;
    if (q && q.status === 'measured' && q.silicon) qs.push({ ...q, name: `leg ${l.index + 1} (arm ${l.arm}${l.slurm?.node ? ` on ${l.slurm.node}` : ''})` });
  }
  for (const q of qs.slice(1)) {
    const g = quantityRatio(qs[0]!, q, name);
    if (g.status === 'withheld' && g.reason === 'CROSS_SILICON') return g;
  }
  return null;
}
