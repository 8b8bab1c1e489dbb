import type { Quantity } from './types.js';
import type { Silicon } from '../silicon/types.js';
import type { WindowS } from './busy.js';
import { isFiniteNumber, measured, refused } from './make.js';
import { busyInWindow, type Span } from './busySpans.js';

// SM activity over a window from NVML GPM metric pairs (issue #11). The driver's busy figure is the share of
// time ANY kernel ran; GPM SM_UTIL is the share of SM-time with work, so a one-block kernel reads ~97% busy and
// <1% SM_UTIL on an H200. Both are printed, each labelled with what it measures.

// One GPM pair as the samples file holds it: the metrics over (tS − intervalS, tS].
export interface GpmPoint {
  tS: number;
  intervalS: number;
  smUtilPct: number | null;
  smOccupancyPct: number | null;
  dramBwUtilPct: number | null;
}

export interface ActivityFigures {
  smUtil: Quantity;
  smOccupancy: Quantity;
  dramBwUtil: Quantity;
}

export const ACTIVITY_METRICS = {
  smUtil: { field: 'smUtilPct', name: 'SM activity (GPM SM_UTIL)', means: 'share of SM-time with at least one warp resident, over all SMs — not the driver busy figure' },
  smOccupancy: { field: 'smOccupancyPct', name: 'SM occupancy (GPM SM_OCCUPANCY)', means: 'resident warps over the maximum, averaged over SMs and time' },
  dramBwUtil: { field: 'dramBwUtilPct', name: 'DRAM bandwidth (GPM DRAM_BW_UTIL)', means: 'DRAM bandwidth used over peak' },
} as const;
export type ActivityKey = keyof typeof ACTIVITY_METRICS;

// The three GPM figures time-weighted over the window: refused GPM_UNSUPPORTED when the sampler could not
// read GPM (its status says why), FEW_GPM_INTERVALS when fewer than two pairs overlap the window.
export function activityFromGpm(points: readonly GpmPoint[], window: WindowS | null, opts: { gpmStatus: string | null; silicon?: Silicon | null }): ActivityFigures {
  const each = (key: ActivityKey): Quantity => one(key, points, window, opts);
  return { smUtil: each('smUtil'), smOccupancy: each('smOccupancy'), dramBwUtil: each('dramBwUtil') };
}

function one(key: ActivityKey, points: readonly GpmPoint[], window: WindowS | null, opts: { gpmStatus: string | null; silicon?: Silicon | null }): Quantity {
  const m = ACTIVITY_METRICS[key];
  if (opts.gpmStatus !== null && opts.gpmStatus !== 'sampling') return refused(m.name, 'GPM_UNSUPPORTED', `GPM was not sampled: ${opts.gpmStatus}`);
  if (opts.gpmStatus === null && points.length === 0) return refused(m.name, 'GPM_UNSUPPORTED', 'the samples hold no GPM pairs (the nvidia-smi backend has none; GPM needs the NVML addon on Hopper or newer)');
  if (window === null || !isFiniteNumber(window.startS) || !isFiniteNumber(window.endS) || window.endS <= window.startS) {
    return refused(m.name, 'WINDOW_UNKNOWN', 'no decode window is known, so no SM activity is taken');
  }
  // The pairs with a reading, as spans; a period the window cuts is split at its neighbours' level, as busy is.
  const spans: Span[] = [];
  let unread = 0;
  for (const p of points) {
    const v = p[m.field];
    const overlaps = Math.min(p.tS, window.endS) - Math.max(p.tS - p.intervalS, window.startS) > 0;
    if (v === null || !isFiniteNumber(v)) {
      if (overlaps) unread += 1;
      continue;
    }
    spans.push({ startS: p.tS - p.intervalS, endS: p.tS, pct: v });
  }
  spans.sort((a, b) => a.endS - b.endS);
  const inside = busyInWindow(spans, window.startS, window.endS);
  const intervals = inside.spans;
  const coveredS = inside.coveredS;
  const windowS = window.endS - window.startS;
  if (intervals < 2) {
    return refused(m.name, 'FEW_GPM_INTERVALS', `${intervals} GPM interval(s) with a ${m.field} reading overlap the ${windowS.toFixed(3)} s window${unread ? ` (${unread} unread)` : ''}; two are needed — lengthen the window or shorten the GPM interval (≥ 100 ms)`);
  }
  return measured(m.name, 'gpmActivity', inside.busyPctS / coveredS, '%', {
    intervals: { value: intervals, unit: 'intervals', label: 'GPM intervals overlapping the window' },
    windowS: { value: windowS, unit: 's', label: 'window' },
    coveredS: { value: coveredS, unit: 's', label: 'seconds covered' },
    means: { value: m.means, label: 'measures' },
  }, { silicon: opts.silicon ?? null, provenance: { window: { startS: window.startS, endS: window.endS } } });
}
