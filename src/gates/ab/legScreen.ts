import type { LegRecord } from '../../results/types.js';
import { isWarmup } from '../../plan/warmup.js';
import { outlierLegs, type SequentialRecord } from './sequentialJudge.js';

// What both A/B forms do to the legs before comparing them: drop the declared warm-up legs (they ran and
// are in the result, but are never judged) and flag outlier legs by median/MAD (flagged, still counted).
export function screenLegs(legs: readonly LegRecord[], warmupLegs: number, key: string): { judged: LegRecord[]; outliers: SequentialRecord['outliers']; notes: string[] } {
  const judged = legs.filter((l) => !isWarmup(l.index, warmupLegs));
  const outliers = outlierLegs(judged, key);
  const notes = [
    ...(warmupLegs ? [`warm-up: the first ${warmupLegs} leg(s) ran and were discarded (gate warmupLegs)`] : []),
    ...outliers.map((x) => `outlier leg ${x.leg} (arm ${x.arm}): ${x.value.toPrecision(6)}, modified z ${x.modifiedZ.toFixed(1)} by median/MAD — flagged, still counted`),
  ];
  return { judged, outliers, notes };
}

// Note prefixes these screens write, so a re-finalize replaces them instead of piling them up.
export const SCREEN_NOTE_PREFIXES = ['warm-up:', 'outlier leg'];
