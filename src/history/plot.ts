import type { Spec } from 'vega';
import type { HistorySeries } from './series.js';
import type { SeriesAnalysis } from './analyze.js';

// The history plot of one (gate, metric): points with their intervals, the fitted steps, one colour per
// silicon key (each key its own fit: never one line through two pieces of hardware).

export const PLOT_MAX_POINTS = 500;

export interface PlotSeries {
  series: HistorySeries;
  analysis: SeriesAnalysis;
}

// The vega spec (data; the SVG comes from report/plots.ts renderSvg). A key with more than PLOT_MAX_POINTS
// points is drawn at an even stride (always with its newest point); the fitted steps span the whole history.
export function historySpec(title: string, unit: string, all: PlotSeries[]): Spec {
  const points: Array<Record<string, unknown>> = [];
  const steps: Array<Record<string, unknown>> = [];
  for (const { series: s, analysis: a } of all) {
    const stride = Math.max(1, Math.ceil(s.points.length / PLOT_MAX_POINTS));
    for (let i = 0; i < s.points.length; i++) {
      if (i % stride !== 0 && i !== s.points.length - 1) continue;
      const p = s.points[i]!;
      const se = a.ses[i]!;
      points.push({ t: Date.parse(p.at), v: p.value, lo: p.lo ?? p.value - 1.96 * se, hi: p.hi ?? p.value + 1.96 * se, silicon: s.siliconKey });
    }
    for (const seg of a.fit.segments) {
      steps.push({ t0: Date.parse(s.points[seg.start]!.at), t1: Date.parse(s.points[seg.end - 1]!.at), m: seg.mean, silicon: s.siliconKey });
    }
  }
  const keys = [...new Set(all.map((x) => x.series.siliconKey))];
  return {
    $schema: 'https://vega.github.io/schema/vega/v6.json',
    description: title,
    width: 720, height: 260, padding: 8,
    title: { text: title },
    data: [{ name: 'points', values: points }, { name: 'steps', values: steps }],
    scales: [
      { name: 'x', type: 'time', domain: { fields: [{ data: 'points', field: 't' }] }, range: 'width' },
      { name: 'y', type: 'linear', domain: { fields: [{ data: 'points', field: 'lo' }, { data: 'points', field: 'hi' }] }, range: 'height', zero: false, nice: true },
      { name: 'c', type: 'ordinal', domain: keys, range: 'category' },
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: 'run finished (UTC)' },
      { orient: 'left', scale: 'y', title: unit },
    ],
    legends: [{ stroke: 'c', title: 'silicon', orient: 'bottom' }],
    marks: [
      { type: 'rule', from: { data: 'points' }, encode: { enter: { x: { scale: 'x', field: 't' }, y: { scale: 'y', field: 'lo' }, y2: { scale: 'y', field: 'hi' }, stroke: { scale: 'c', field: 'silicon' }, opacity: { value: 0.35 } } } },
      { type: 'symbol', from: { data: 'points' }, encode: { enter: { x: { scale: 'x', field: 't' }, y: { scale: 'y', field: 'v' }, size: { value: 14 }, fill: { scale: 'c', field: 'silicon' } } } },
      { type: 'rule', from: { data: 'steps' }, encode: { enter: { x: { scale: 'x', field: 't0' }, x2: { scale: 'x', field: 't1' }, y: { scale: 'y', field: 'm' }, stroke: { scale: 'c', field: 'silicon' }, strokeWidth: { value: 2.5 } } } },
    ],
  };
}
