import type { Quantity } from '../quantity/types.js';

// The knee of a sweep of rates (GuideLLM's sweep, read as a throughput–latency curve): the highest offered
// rate the server still turned into throughput. Between two neighbouring rates the step is saturated when
// output-token throughput grew by less than half the rate's growth, on a log scale (throughput ∝ rate^k with
// k < 1/2 over that step); the knee is the rate where the first saturated step starts. Only valid points
// with a measured throughput take part: a point with wrong tokens or unmet limits says nothing about speed.

export interface KneePoint {
  ratePerS: number;
  valid: boolean;
  throughput: Quantity | undefined;
}

export interface Knee {
  ratePerS: number | null;
  why: string;
}

// Growth exponent below which a step counts as saturated.
export const SATURATED_EXPONENT = 0.5;

export function findKnee(points: readonly KneePoint[]): Knee {
  const usable = points
    .filter((p) => p.valid && p.throughput?.status === 'measured' && p.throughput.value > 0)
    .map((p) => ({ rate: p.ratePerS, tps: (p.throughput as Extract<Quantity, { status: 'measured' }>).value }))
    .sort((a, b) => a.rate - b.rate);
  const left = points.length - usable.length;
  const note = left > 0 ? `; ${left} point(s) without a valid measured throughput left out` : '';
  if (usable.length < 2) return { ratePerS: null, why: `fewer than two valid rates with a measured throughput (${usable.length})${note}: no curve to find a knee on` };
  for (let i = 0; i + 1 < usable.length; i++) {
    const a = usable[i]!;
    const b = usable[i + 1]!;
    const k = Math.log(b.tps / a.tps) / Math.log(b.rate / a.rate);
    if (k < SATURATED_EXPONENT) {
      return { ratePerS: a.rate, why: `from ${a.rate} to ${b.rate} requests/s output throughput went ${a.tps.toFixed(2)} → ${b.tps.toFixed(2)} tokens/s (growth exponent ${k.toFixed(2)} < ${SATURATED_EXPONENT}): the server saturates past ${a.rate} requests/s${note}` };
    }
  }
  const last = usable[usable.length - 1]!;
  return { ratePerS: null, why: `throughput still grew with the rate up to ${last.rate} requests/s (${last.tps.toFixed(2)} tokens/s): the knee lies above the sweep — add higher rates${note}` };
}
