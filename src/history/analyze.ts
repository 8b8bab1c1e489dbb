import { fitSteps, type StepFit } from '../stats/changepoint.js';
import { median } from '../stats/summary.js';
import type { HistorySeries } from './series.js';

// Change points and the newest-point regression check of one series (pure).

export const HISTORY_METHOD = 'weighted Potts step fit (penalty 2·ln n per segment, chi-square units) by binary segmentation; each point weighted by 1/se², se from its interval ((hi − lo) / 3.92), or, without one, from the series\' successive differences (MAD / 0.6745 / √2); variances inflated by the over-dispersion of successive differences when it exceeds 1';

export type Better = 'lower' | 'higher';

export interface ChangePoint {
  index: number;
  at: string;
  before: number;
  after: number;
  relPct: number | null;
  worse: boolean;
}

export interface SeriesAnalysis {
  fit: StepFit;
  ses: number[];
  changePoints: ChangePoint[];
  newest: { at: string; value: number; segmentMean: number; regression: boolean; text: string } | null;
}

// Standard errors of the points: from each interval where there is one, else the series' own scatter.
export function pointSes(s: HistorySeries): number[] {
  const vals = s.points.map((p) => p.value);
  const diffs: number[] = [];
  for (let i = 1; i < vals.length; i++) diffs.push(Math.abs(vals[i]! - vals[i - 1]!));
  let scatter = diffs.length ? median(diffs) / 0.6745 / Math.SQRT2 : Number.NaN;
  if (!(scatter > 0)) scatter = Math.max(Math.abs(median(vals)) * 1e-6, 1e-12);
  return s.points.map((p) => (p.lo !== null && p.hi !== null && p.hi > p.lo ? (p.hi - p.lo) / 3.92 : scatter));
}

function isWorse(before: number, after: number, better: Better): boolean {
  return better === 'lower' ? after > before : after < before;
}

// One series: its step fit, the change points between segments and whether the newest point regressed.
export function analyzeSeries(s: HistorySeries, better: Better): SeriesAnalysis {
  const ses = pointSes(s);
  const fit = fitSteps(s.points.map((p, i) => ({ value: p.value, se: ses[i]! })));
  const changePoints = fit.segments.slice(1).map((seg, k) => {
    const prev = fit.segments[k]!;
    return {
      index: seg.start, at: s.points[seg.start]!.at, before: prev.mean, after: seg.mean,
      relPct: prev.mean !== 0 ? (100 * (seg.mean - prev.mean)) / Math.abs(prev.mean) : null,
      worse: isWorse(prev.mean, seg.mean, better),
    };
  });
  const last = s.points.at(-1);
  let newest: SeriesAnalysis['newest'] = null;
  if (last) {
    const seg = fit.segments.at(-1)!;
    const cp = changePoints.at(-1);
    const regression = cp !== undefined && cp.index === seg.start && cp.worse;
    const fmt = (x: number): string => Number(x.toPrecision(6)).toString();
    const text = regression
      ? `REGRESSION: the newest point (${last.at}, ${fmt(last.value)} ${s.unit}) is in a segment that began at ${cp.at} with mean ${fmt(cp.after)} against ${fmt(cp.before)} before (${cp.relPct === null ? 'n/a' : `${cp.relPct > 0 ? '+' : ''}${cp.relPct.toFixed(2)}%`}; ${better} is better)`
      : `newest point (${last.at}, ${fmt(last.value)} ${s.unit}) is ${cp && cp.index === seg.start ? `after an improvement at ${cp.at}` : 'not after a change point'}`;
    newest = { at: last.at, value: last.value, segmentMean: seg.mean, regression, text };
  }
  return { fit, ses, changePoints, newest };
}
