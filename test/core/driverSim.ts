// A stand-in for the NVIDIA driver's utilization sampler, for tests of the busy accounting: given the exact
// intervals a kernel ran, it produces the samples NVML would — one per period, stamped at the period's end,
// reading the share of (t − p, t] a kernel ran, truncated to a whole percent as the driver does (or exact).
import type { UtilPoint } from '../../src/quantity/busy.js';
import { seededRandom } from '../../src/stats/bootstrap.js';

export type Interval = readonly [number, number];

// Seconds of [a, b) that the intervals cover (intervals do not overlap each other).
export function busyS(intervals: readonly Interval[], a: number, b: number): number {
  let s = 0;
  for (const [x, y] of intervals) s += Math.max(0, Math.min(b, y) - Math.max(a, x));
  return s;
}

// The truth a window's busy figure is judged against: exact busy seconds over the window, in percent.
export function truePct(intervals: readonly Interval[], startS: number, endS: number): number {
  return (100 * busyS(intervals, startS, endS)) / (endS - startS);
}

// Driver samples from fromS to toS: period boundaries at phaseS + k × periodS, each sample stamped at the
// end of the period it describes, with its period stated (as the NVML sampler writes them).
export function driverSamples(intervals: readonly Interval[], o: { fromS: number; toS: number; periodS: number; phaseS: number; truncate: boolean }): UtilPoint[] {
  const out: UtilPoint[] = [];
  const k0 = Math.ceil((o.fromS - o.phaseS) / o.periodS);
  for (let k = k0; o.phaseS + k * o.periodS <= o.toS; k++) {
    const tS = o.phaseS + k * o.periodS;
    const pct = (100 * busyS(intervals, tS - o.periodS, tS)) / o.periodS;
    // 1e-9: a period exactly 20% busy must read 20, not 19 from float noise.
    out.push({ tS, gpuPct: o.truncate ? Math.min(100, Math.floor(pct + 1e-9)) : pct, periodS: o.periodS });
  }
  return out;
}

// A duty-cycle load like native/calibrate/duty.cu: every cycleS a kernel of duty × cycleS, from startS to endS.
export function dutyLoad(duty: number, startS: number, endS: number, cycleS = 0.02): Interval[] {
  const out: Interval[] = [];
  for (let t = startS; t < endS - 1e-12; t += cycleS) out.push([t, Math.min(endS, t + duty * cycleS)]);
  return out;
}

// Irregular bursts at a target duty, like the torch load of issue #23: bursts of 2–120 ms, gaps drawn so the
// long-run busy share is `duty`, from startS to endS.
export function burstLoad(duty: number, startS: number, endS: number, seed: number): Interval[] {
  const r = seededRandom(seed);
  const out: Interval[] = [];
  let t = startS;
  while (t < endS) {
    const burst = 0.002 + 0.118 * r() * r();
    const end = Math.min(endS, t + burst);
    out.push([t, end]);
    // Mean gap = burst × (1 − duty) / duty, varied ×0–2.
    t = end + 2 * r() * (burst * (1 - duty)) / duty;
  }
  return out;
}
