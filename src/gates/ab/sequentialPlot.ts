import type { Spec } from 'vega';
import type { MetricComparison } from '../../results/comparison.js';

// The sequential A/B as a picture, per criterion: after each block, the anytime-valid interval (a ratio on a
// log scale, or points) and the running estimate, against the claim's bounds. The run stopped where the
// combined verdict was decided.
export function sequentialSpec(title: string, m: MetricComparison): Spec {
  const blocks = m.sequential?.blocks ?? [];
  const ratio = m.scale === 'ratio';
  const rows = blocks.filter((b) => b.lo !== null).map((b) => ({
    block: b.block,
    lo: ratio ? Math.max(b.lo!, 1e-6) : Math.max(b.lo!, -1e6),
    hi: Math.min(b.hi!, 1e6),
    mean: b.mean!,
  }));
  const bounds = [m.region.lo, m.region.hi].filter((v): v is number => v !== null).map((v) => ({ v }));
  return {
    $schema: 'https://vega.github.io/schema/vega/v6.json',
    description: title,
    width: Math.max(240, 48 * Math.max(rows.length, 1)), height: 240, padding: 8,
    title: { text: title },
    data: [{ name: 'cs', values: rows }, { name: 'bound', values: bounds }],
    scales: [
      { name: 'x', type: 'band', domain: rows.map((r) => r.block), range: 'width', padding: 0.4 },
      { name: 'y', type: ratio ? 'log' : 'linear', domain: { fields: [{ data: 'cs', field: 'lo' }, { data: 'cs', field: 'hi' }, { data: 'bound', field: 'v' }] }, range: 'height', nice: true },
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: 'block (4 legs each)' },
      { orient: 'left', scale: 'y', title: ratio ? `ratio ${m.subject}/${m.reference} (log scale)` : `points ${m.subject} − ${m.reference}` },
    ],
    marks: [
      { type: 'rule', from: { data: 'bound' }, encode: { enter: { x: { value: 0 }, x2: { signal: 'width' }, y: { scale: 'y', field: 'v' }, stroke: { value: '#d62728' }, strokeDash: { value: [6, 4] } } } },
      { type: 'rect', from: { data: 'cs' }, encode: { enter: { x: { scale: 'x', field: 'block' }, width: { scale: 'x', band: 1 }, y: { scale: 'y', field: 'lo' }, y2: { scale: 'y', field: 'hi' }, fill: { value: '#9ecae1' } } } },
      { type: 'symbol', from: { data: 'cs' }, encode: { enter: { x: { scale: 'x', field: 'block', band: 0.5 }, y: { scale: 'y', field: 'mean' }, size: { value: 40 }, fill: { value: '#08519c' } } } },
    ],
  };
}
