import type { Quantity } from './types.js';
import type { Silicon } from '../silicon/types.js';
import { isFiniteNumber, measured, refused } from './make.js';

// The part of a driver utilization sample busy accounting needs (the samples file's util line fits it).
export interface UtilPoint {
  tS: number;
  gpuPct: number;
  periodS?: number | undefined;
}

// A window on the samples' clock (monotonic seconds); null when it is not known.
export interface WindowS {
  startS: number;
  endS: number;
}

export interface BusyOptions {
  // Used for the first sample's period when it states none (the sampler's nominal period).
  nominalPeriodS?: number;
  silicon?: Silicon | null;
  // Why the window is null, when it is: the load line never appeared (default) or no times were given.
  windowMissing?: 'load-line-absent' | 'no-arrival-times';
}

// Both busy figures: the primary time-weighted mean and the seeds' nonzero-sample share (an upper bound).
export interface BusyFigures {
  timeWeighted: Quantity;
  nonzeroShare: Quantity;
}

export const BUSY_NAME = 'GPU busy';
export const BUSY_SHARE_NAME = 'GPU busy (nonzero-sample share)';

type WindowCheck = { ok: true; window: WindowS } | { ok: false; reason: 'WINDOW_UNKNOWN' | 'MISSING_TERM' | 'NON_FINITE' | 'NON_POSITIVE_WINDOW'; message: string };

function checkWindow(window: WindowS | null, opts: BusyOptions): WindowCheck {
  if (window === null) {
    return opts.windowMissing === 'no-arrival-times'
      ? { ok: false, reason: 'MISSING_TERM', message: 'no decode window is known on the samples clock — pass --window T0:T1' }
      : { ok: false, reason: 'WINDOW_UNKNOWN', message: 'the engine load-complete line never appeared, so the decode window is unknown and no busy fraction is sampled' };
  }
  if (!isFiniteNumber(window.startS) || !isFiniteNumber(window.endS)) {
    return { ok: false, reason: 'NON_FINITE', message: `window ${String(window.startS)}:${String(window.endS)} is not finite` };
  }
  if (window.endS <= window.startS) return { ok: false, reason: 'NON_POSITIVE_WINDOW', message: `window ${window.startS}:${window.endS} is not positive` };
  return { ok: true, window };
}

// Time-weighted mean of utilization clipped to the window: each sample covers the period ending at its tS
// (its own periodS, else back to the previous sample, else the nominal period); coverage = covered / window.
export function busyFromSamples(samples: readonly UtilPoint[], windowOrNull: WindowS | null, opts: BusyOptions = {}): BusyFigures {
  const w = checkWindow(windowOrNull, opts);
  if (!w.ok) return { timeWeighted: refused(BUSY_NAME, w.reason, w.message), nonzeroShare: refused(BUSY_SHARE_NAME, w.reason, w.message) };
  const window = w.window;
  const usable = samples.filter((s) => isFiniteNumber(s.tS) && isFiniteNumber(s.gpuPct)).sort((a, b) => a.tS - b.tS);
  const windowS = window.endS - window.startS;
  let weighted = 0;
  let coveredS = 0;
  let inWindow = 0;
  const periods: number[] = [];
  let prevT: number | null = null;
  for (const s of usable) {
    const ownStartS = isFiniteNumber(s.periodS) && s.periodS > 0 ? s.tS - s.periodS : null;
    const fallbackS = prevT ?? (opts.nominalPeriodS ? s.tS - opts.nominalPeriodS : null);
    const startS = ownStartS === null ? fallbackS : Math.max(ownStartS, prevT ?? ownStartS); // periods never double-count
    prevT = s.tS;
    if (startS === null) continue;
    const overlapS = Math.min(s.tS, window.endS) - Math.max(startS, window.startS);
    if (overlapS <= 0) continue;
    weighted += s.gpuPct * overlapS;
    coveredS += overlapS;
    inWindow += 1;
    periods.push(s.tS - startS);
  }
  const nonzeroShare = shareInWindow(usable, window);
  // A covered span that rounds to nothing of the window (a denormal sample period) measured nothing either.
  if (inWindow === 0 || !(coveredS / windowS > 0)) {
    return {
      timeWeighted: refused(BUSY_NAME, 'NO_SAMPLES', `no utilization sample covers the window ${window.startS.toFixed(3)}:${window.endS.toFixed(3)} s — unmeasured, not 0%`),
      nonzeroShare,
    };
  }
  periods.sort((a, b) => a - b);
  const periodS = periods[Math.floor(periods.length / 2)] ?? 0;
  const timeWeighted = measured(
    BUSY_NAME,
    'busyTimeWeighted',
    weighted / coveredS,
    '%',
    {
      samples: { value: inWindow, unit: 'samples', label: 'driver samples overlapping the window' },
      windowS: { value: windowS, unit: 's', label: 'window' },
      coveredS: { value: coveredS, unit: 's', label: 'seconds covered by samples' },
      coverage: { value: coveredS / windowS, unit: 'fraction', label: 'coverage' },
      samplePeriodS: { value: periodS, unit: 's', label: 'median sample period' },
      // A window shorter than two driver periods is resolved only as finely as the samples: say so beside the figure.
      resolution: { value: windowS < 2 * periodS ? 'coarse' : 'fine', label: 'coarse: the window is shorter than two sample periods, so the figure includes activity outside it' },
    },
    { silicon: opts.silicon ?? null, provenance: { window: { startS: window.startS, endS: window.endS } } },
  );
  return { timeWeighted, nonzeroShare };
}

// The seeds' figure: samples taken inside the window that read > 0, over samples taken inside it. An upper bound.
function shareInWindow(sorted: readonly UtilPoint[], window: WindowS): Quantity {
  let total = 0;
  let nonzero = 0;
  for (const s of sorted) {
    if (s.tS < window.startS || s.tS > window.endS) continue;
    total += 1;
    if (s.gpuPct > 0) nonzero += 1;
  }
  if (total === 0) {
    return refused(BUSY_SHARE_NAME, 'NO_SAMPLES', `no sample was taken inside the window ${window.startS.toFixed(3)}:${window.endS.toFixed(3)} s — unmeasured, not 0%`);
  }
  return measured(BUSY_SHARE_NAME, 'busyNonzeroShare', (100 * nonzero) / total, '%', {
    nonzero: { value: nonzero, unit: 'samples', label: 'samples > 0' },
    samples: { value: total, unit: 'samples', label: 'samples in window' },
    bound: { value: 'upper', label: 'an upper bound: a sample > 0 says the GPU was busy at some point of its period, not for all of it' },
  });
}
