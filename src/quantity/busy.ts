import type { Quantity } from './types.js';
import type { Silicon } from '../silicon/types.js';
import { isFiniteNumber, measured, refused } from './make.js';
import { busyInWindow, readingLevel, spansOf, type EdgeSplit, type Readings, type WindowBusy } from './busySpans.js';

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
  // What the readings are: 'driver' for the NVIDIA driver's truncated whole percents (the samples nh-gate
  // writes), 'exact' (default) for readings taken as given. See readingLevel in busySpans.ts.
  readings?: Readings;
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

// Time-weighted mean of utilization over the window: each sample covers the period ending at its tS (its own
// periodS, else back to the previous sample, else the nominal period); a period the window cuts is split at the
// neighbouring samples' level (src/quantity/busySpans.ts); coverage = covered / window.
export function busyFromSamples(samples: readonly UtilPoint[], windowOrNull: WindowS | null, opts: BusyOptions = {}): BusyFigures {
  const w = checkWindow(windowOrNull, opts);
  if (!w.ok) return { timeWeighted: refused(BUSY_NAME, w.reason, w.message), nonzeroShare: refused(BUSY_SHARE_NAME, w.reason, w.message) };
  const window = w.window;
  const usable = samples.filter((s) => isFiniteNumber(s.tS) && isFiniteNumber(s.gpuPct)).sort((a, b) => a.tS - b.tS);
  const readings = opts.readings ?? 'exact';
  const levels = usable.map((s) => ({ tS: s.tS, pct: readingLevel(s.gpuPct, readings), periodS: s.periodS }));
  const inside = busyInWindow(spansOf(levels, opts.nominalPeriodS), window.startS, window.endS);
  const windowS = window.endS - window.startS;
  const nonzeroShare = shareInWindow(usable, window);
  // A covered span that rounds to nothing of the window (a denormal sample period) measured nothing either.
  if (inside.spans === 0 || !(inside.coveredS / windowS > 0)) {
    return {
      timeWeighted: refused(BUSY_NAME, 'NO_SAMPLES', `no utilization sample covers the window ${window.startS.toFixed(3)}:${window.endS.toFixed(3)} s — unmeasured, not 0%`),
      nonzeroShare,
    };
  }
  const periods = [...inside.periodsS].sort((a, b) => a - b);
  const periodS = periods[Math.floor(periods.length / 2)] ?? 0;
  const timeWeighted = measured(
    BUSY_NAME,
    'busyTimeWeighted',
    inside.busyPctS / inside.coveredS,
    '%',
    {
      samples: { value: inside.spans, unit: 'samples', label: 'driver samples overlapping the window' },
      windowS: { value: windowS, unit: 's', label: 'window' },
      coveredS: { value: inside.coveredS, unit: 's', label: 'seconds covered by samples' },
      coverage: { value: inside.coveredS / windowS, unit: 'fraction', label: 'coverage' },
      samplePeriodS: { value: periodS, unit: 's', label: 'median sample period' },
      // A window shorter than two driver periods is resolved only as finely as the samples: say so beside the figure.
      resolution: { value: windowS < 2 * periodS ? 'coarse' : 'fine', label: 'coarse: the window is shorter than two sample periods, so the figure includes activity outside it' },
      edges: { value: edgeText(inside), label: 'how the sample periods cut by the window were split' },
      readings: { value: READINGS_TEXT[readings], label: 'driver readings' },
    },
    { silicon: opts.silicon ?? null, provenance: { window: { startS: window.startS, endS: window.endS } } },
  );
  return { timeWeighted, nonzeroShare };
}

const READINGS_TEXT: Record<Readings, string> = {
  driver: 'whole percents truncated by the driver: each reading of 1-99 counted at its midpoint (+0.5)',
  exact: 'taken as given',
};

// "start …; end …" for the periods the window cut; 'none cut' when the window starts and ends on sample boundaries.
function edgeText(b: WindowBusy): string {
  const side = (edge: EdgeSplit | null, name: string, beyond: string): string | null =>
    edge === null ? null : edge === 'neighbour' ? `${name}: the part outside charged at the level of the sample ${beyond} it` : `${name}: spread uniformly (no sample ${beyond} it)`;
  const parts = [side(b.startEdge, 'start', 'before'), side(b.endEdge, 'end', 'after')].filter((p): p is string => p !== null);
  return parts.length ? parts.join('; ') : 'none cut';
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
