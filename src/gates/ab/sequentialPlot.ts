import type { Spec } from 'vega';
import type { SequentialRecord } from './sequentialJudge.js';

// The sequential A/B as a picture: after each block, the anytime-valid interval on the ratio (log scale)
// and the running estimate, against the pre-registered bound. The run stopped where an interval cleared it.
export function sequentialSpec(title: string, s: SequentialRecord): Spec {
  const rows = s.blocks.filter((b) => b.ratioLo !== null).map((b) => ({
    block: b.block,
    lo: Math.max(b.ratioLo!, 1e-6),
    hi: Math.min(b.ratioHi!, 1e6),
    mean: b.ratioMean!,
  }));
  const bound = s.criterion.ratioBound;
  return {
    $schema: 'https://vega.github.io/schema/vega/v6.json',
    description: title,
    width: Math.max(240, 48 * Math.max(rows.length, 1)), height: 240, padding: 8,
    title: { text: title },
    data: [{ name: 'cs', values: rows }, { name: 'bound', values: [{ v: bound }] }],
    scales: [
      { name: 'x', type: 'band', domain: rows.map((r) => r.block), range: 'width', padding: 0.4 },
      { name: 'y', type: 'log', domain: { fields: [{ data: 'cs', field: 'lo' }, { data: 'cs', field: 'hi' }, { data: 'bound', field: 'v' }] }, range: 'height', nice: true },
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: `block (${s.params.blockLegs} legs each)` },
      { orient: 'left', scale: 'y', title: `ratio ${s.criterion.numerator}/${s.criterion.numerator === 'B' ? 'A' : 'B'} (log scale)` },
    ],
    marks: [
      { type: 'rule', from: { data: 'bound' }, encode: { enter: { x: { value: 0 }, x2: { signal: 'width' }, y: { scale: 'y', field: 'v' }, stroke: { value: '#d62728' }, strokeDash: { value: [6, 4] } } } },
      { type: 'rect', from: { data: 'cs' }, encode: { enter: { x: { scale: 'x', field: 'block' }, width: { scale: 'x', band: 1 }, y: { scale: 'y', field: 'lo' }, y2: { scale: 'y', field: 'hi' }, fill: { value: '#9ecae1' } } } },
      { type: 'symbol', from: { data: 'cs' }, encode: { enter: { x: { scale: 'x', field: 'block', band: 0.5 }, y: { scale: 'y', field: 'mean' }, size: { value: 40 }, fill: { value: '#08519c' } } } },
    ],
  };
}
