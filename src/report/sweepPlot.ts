import type { Spec } from 'vega';
import type { SweepRecord } from '../results/comparison.js';
import { levelPct } from '../stats/bootstrap.js';
import { orderArms } from './rows.js';

// A flag sweep's scaling plot: per-token time of each arm ÷ the baseline's against the flag value, each
// non-baseline arm with its Bonferroni interval as a bar, the baseline drawn at 1 and ringed. An arm whose
// ratio was refused (no token-gated legs, other silicon) has no point: its refusal is in the table and text.

export interface ScalingPoint {
  value: string;
  ratio: number;
  lo: number | null;
  hi: number | null;
  baseline: boolean;
}

// The points, in the arms' order (numeric values ascending).
export function scalingPoints(s: SweepRecord): ScalingPoint[] {
  const byArm = new Map(s.comparisons.map((c) => [c.arm, c]));
  const out: ScalingPoint[] = [];
  for (const arm of orderArms(s.arms.map((a) => a.arm))) {
    const a = s.arms.find((x) => x.arm === arm)!;
    if (a.baseline) {
      out.push({ value: a.value, ratio: 1, lo: null, hi: null, baseline: true });
      continue;
    }
    const c = byArm.get(arm);
    if (c?.ratio.status === 'measured') out.push({ value: a.value, ratio: c.ratio.value, lo: c.interval?.lo ?? null, hi: c.interval?.hi ?? null, baseline: false });
  }
  return out;
}

export function scalingSpec(s: SweepRecord): Spec {
  const points = scalingPoints(s);
  const bars = points.filter((p) => p.lo !== null && p.hi !== null);
  // Stryker disable all: below is vega layout (sizes, colours, marks), checked by rendering it (the llama
  // sweep test and report.html), not by a unit test of each literal; the data it draws is scalingPoints'.
  const title = `${s.flag} sweep: per-token time ÷ ${s.baseline}`;
  const subtitle = `baseline ringed; bars: ${levelPct(s.correction.intervalLevel)} Bonferroni intervals; below 1 is faster`;
  return {
    $schema: 'https://vega.github.io/schema/vega/v6.json',
    description: title,
    width: Math.max(360, 90 * points.length), height: 260, padding: 8,
    title: { text: title, subtitle },
    data: [
      { name: 'points', values: points },
      { name: 'bars', values: bars },
      { name: 'base', source: 'points', transform: [{ type: 'filter', expr: 'datum.baseline' }] },
    ],
    scales: [
      { name: 'x', type: 'point', domain: points.map((p) => p.value), range: 'width', padding: 0.5 },
      { name: 'y', type: 'linear', domain: { fields: [{ data: 'points', field: 'ratio' }, { data: 'bars', field: 'lo' }, { data: 'bars', field: 'hi' }] }, range: 'height', zero: true, nice: true },
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: `${s.flag} value` },
      { orient: 'left', scale: 'y', title: `per-token time ÷ ${s.baseline}` },
    ],
    marks: [
      { type: 'rule', encode: { enter: { x: { value: 0 }, x2: { signal: 'width' }, y: { scale: 'y', value: 1 }, stroke: { value: '#999' }, strokeDash: { value: [4, 3] } } } },
      { type: 'rule', from: { data: 'bars' }, encode: { enter: { x: { scale: 'x', field: 'value' }, y: { scale: 'y', field: 'lo' }, y2: { scale: 'y', field: 'hi' }, stroke: { value: '#3182bd' }, strokeWidth: { value: 2 } } } },
      { type: 'line', from: { data: 'points' }, encode: { enter: { x: { scale: 'x', field: 'value' }, y: { scale: 'y', field: 'ratio' }, stroke: { value: '#3182bd' }, strokeOpacity: { value: 0.4 } } } },
      { type: 'symbol', from: { data: 'points' }, encode: { enter: { x: { scale: 'x', field: 'value' }, y: { scale: 'y', field: 'ratio' }, size: { value: 50 }, fill: { value: '#3182bd' } } } },
      { type: 'symbol', from: { data: 'base' }, encode: { enter: { x: { scale: 'x', field: 'value' }, y: { scale: 'y', field: 'ratio' }, size: { value: 300 }, stroke: { value: '#e6550d' }, strokeWidth: { value: 2 }, fill: { value: 'transparent' } } } },
      { type: 'text', from: { data: 'base' }, encode: { enter: { x: { scale: 'x', field: 'value' }, y: { scale: 'y', field: 'ratio', offset: -14 }, text: { value: 'baseline' }, align: { value: 'center' }, fontSize: { value: 10 }, fill: { value: '#e6550d' } } } },
    ],
  };
}
// Stryker restore all
