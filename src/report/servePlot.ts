import type { Spec } from 'vega';

// The throughput–latency curve of a serve sweep (GuideLLM's picture): one point per offered rate, achieved
// output-token throughput across, a latency percentile up, the knee ringed. Points whose figures were refused
// are not drawn (their refusals are in result.json and the text).

export interface SweepPlotPoint {
  ratePerS: number;
  tokensPerS: number;
  latencyMs: number;
  knee: boolean;
}

export function sweepSpec(title: string, latencyLabel: string, points: SweepPlotPoint[]): Spec {
  return {
    $schema: 'https://vega.github.io/schema/vega/v6.json',
    description: title,
    width: 480, height: 280, padding: 8,
    title: { text: title },
    data: [
      { name: 'points', values: points },
      { name: 'knee', source: 'points', transform: [{ type: 'filter', expr: 'datum.knee' }] },
    ],
    scales: [
      { name: 'x', type: 'linear', domain: { data: 'points', field: 'tokensPerS' }, range: 'width', zero: true, nice: true },
      { name: 'y', type: 'linear', domain: { data: 'points', field: 'latencyMs' }, range: 'height', zero: true, nice: true },
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: 'output token throughput (tokens/s)' },
      { orient: 'left', scale: 'y', title: `${latencyLabel} (ms)` },
    ],
    marks: [
      { type: 'line', from: { data: 'points' }, encode: { enter: { x: { scale: 'x', field: 'tokensPerS' }, y: { scale: 'y', field: 'latencyMs' }, stroke: { value: '#3182bd' } } } },
      { type: 'symbol', from: { data: 'points' }, encode: { enter: { x: { scale: 'x', field: 'tokensPerS' }, y: { scale: 'y', field: 'latencyMs' }, size: { value: 40 }, fill: { value: '#3182bd' } } } },
      { type: 'text', from: { data: 'points' }, encode: { enter: { x: { scale: 'x', field: 'tokensPerS' }, y: { scale: 'y', field: 'latencyMs', offset: -8 }, text: { signal: "datum.ratePerS + ' req/s'" }, align: { value: 'center' }, fontSize: { value: 10 } } } },
      { type: 'symbol', from: { data: 'knee' }, encode: { enter: { x: { scale: 'x', field: 'tokensPerS' }, y: { scale: 'y', field: 'latencyMs' }, size: { value: 300 }, stroke: { value: '#e6550d' }, strokeWidth: { value: 2 }, fill: { value: 'transparent' } } } },
    ],
  };
}
