import type { Spec } from 'vega';
import type { LegRecord } from '../results/types.js';
import { isPass } from '../verdict/words.js';

// Plots are vega specs rendered headless to SVG: the spec is data (testable), the SVG comes from the library.

export interface TimelineInput {
  title: string;
  // Samples relative to the leg's start, seconds.
  samples: Array<{ tS: number; gpuPct: number }>;
  loadEndS: number | null;
  decode: { startS: number; endS: number } | null;
  legEndS: number;
}

// Busy timeline: utilization over the leg, with the engine load and the decode window marked.
export function busyTimelineSpec(p: TimelineInput): Spec {
  const windows: Array<{ name: string; startS: number; endS: number }> = [];
  if (p.loadEndS !== null) windows.push({ name: 'engine load', startS: 0, endS: p.loadEndS });
  if (p.decode) windows.push({ name: 'decode window', startS: p.decode.startS, endS: p.decode.endS });
  return {
    $schema: 'https://vega.github.io/schema/vega/v6.json',
    description: p.title,
    width: 640, height: 200, padding: 8,
    title: { text: p.title },
    data: [
      { name: 'samples', values: p.samples },
      { name: 'windows', values: windows },
    ],
    scales: [
      { name: 'x', type: 'linear', domain: [0, Math.max(p.legEndS, ...p.samples.map((s) => s.tS), 1e-3)], range: 'width', zero: true },
      { name: 'y', type: 'linear', domain: [0, 100], range: 'height' },
      { name: 'c', type: 'ordinal', domain: ['engine load', 'decode window'], range: ['#d9d9d9', '#9ecae1'] },
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: 'seconds since leg start' },
      { orient: 'left', scale: 'y', title: 'GPU utilization %' },
    ],
    legends: [{ fill: 'c', title: 'window', orient: 'top-right' }],
    marks: [
      {
        type: 'rect', from: { data: 'windows' },
        encode: { enter: { x: { scale: 'x', field: 'startS' }, x2: { scale: 'x', field: 'endS' }, y: { value: 0 }, y2: { signal: 'height' }, fill: { scale: 'c', field: 'name' }, opacity: { value: 0.6 } } },
      },
      {
        type: 'line', from: { data: 'samples' },
        encode: { enter: { x: { scale: 'x', field: 'tS' }, y: { scale: 'y', field: 'gpuPct' }, stroke: { value: '#08519c' }, interpolate: { value: 'step-before' } } },
      },
      {
        type: 'symbol', from: { data: 'samples' },
        encode: { enter: { x: { scale: 'x', field: 'tS' }, y: { scale: 'y', field: 'gpuPct' }, size: { value: 10 }, fill: { value: '#08519c' } } },
      },
    ],
  };
}

export interface AbLegPoint {
  leg: string;
  arm: string;
  // Per-token times of this leg (inter-token intervals from the engine's events), seconds.
  tokenS: number[];
  // The leg's per-output-token figure, when measured.
  perTokenS: number | null;
}

// A leg's point on the A/B plot, from its record alone, so a leg run now and a leg kept by --resume draw the
// same point: a serve leg's TPOT p50 only when it passed (an INVALID load keeps its figures and is no pass), a
// driver leg's per-output-token figure; the inter-token times are the live leg's (a kept leg has none).
export function abLegPoint(l: LegRecord, tokenS: number[] = []): AbLegPoint {
  const q = l.mode === 'serve' ? (isPass(l.verdict) ? l.quantities.tpotP50 : undefined) : l.quantities.perOutputToken;
  return { leg: `${l.index + 1} ${l.arm}`, arm: l.arm === 'single' ? 'A' : l.arm, tokenS, perTokenS: q?.status === 'measured' ? q.value : null };
}

// The arms' colours: A and B as always; a sweep's arms (THREADS=1, THREADS=2 …) one colour each.
function armColours(legs: readonly AbLegPoint[]): NonNullable<Spec['scales']>[number] {
  const arms = [...new Set(legs.map((l) => l.arm))];
  if (arms.every((a) => a === 'A' || a === 'B')) return { name: 'c', type: 'ordinal', domain: ['A', 'B'], range: ['#3182bd', '#e6550d'] };
  return { name: 'c', type: 'ordinal', domain: arms, range: { scheme: 'category10' } };
}

// A/B distributions: every inter-token interval of every leg as a point, the leg's per-token figure as a tick.
export function abLegsSpec(title: string, legs: AbLegPoint[]): Spec {
  const points = legs.flatMap((l) => l.tokenS.map((v, i) => ({ leg: l.leg, arm: l.arm, ms: v * 1000, i })));
  const ticks = legs.filter((l) => l.perTokenS !== null).map((l) => ({ leg: l.leg, arm: l.arm, ms: (l.perTokenS as number) * 1000 }));
  return {
    $schema: 'https://vega.github.io/schema/vega/v6.json',
    description: title,
    width: Math.max(240, 60 * legs.length), height: 240, padding: 8,
    title: { text: title },
    data: [{ name: 'points', values: points }, { name: 'ticks', values: ticks }],
    scales: [
      { name: 'x', type: 'band', domain: legs.map((l) => l.leg), range: 'width', padding: 0.3 },
      { name: 'y', type: 'linear', domain: { fields: [{ data: 'points', field: 'ms' }, { data: 'ticks', field: 'ms' }] }, range: 'height', zero: true, nice: true },
      armColours(legs),
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: 'leg (in run order)', labelAngle: -30, labelAlign: 'right' },
      { orient: 'left', scale: 'y', title: 'ms per token' },
    ],
    legends: [{ fill: 'c', title: 'arm', orient: 'top-right' }],
    marks: [
      {
        type: 'symbol', from: { data: 'points' },
        encode: { enter: {
          x: { scale: 'x', field: 'leg', offset: { signal: `(datum.i % 7 - 3) * bandwidth('x') / 10` } },
          y: { scale: 'y', field: 'ms' }, size: { value: 12 }, fill: { scale: 'c', field: 'arm' }, opacity: { value: 0.5 },
        } },
      },
      {
        type: 'rect', from: { data: 'ticks' },
        encode: { enter: {
          x: { scale: 'x', field: 'leg' }, width: { scale: 'x', band: 1 },
          y: { scale: 'y', field: 'ms' }, height: { value: 2 }, fill: { value: '#000' },
        } },
      },
    ],
  };
}

// Renders a spec to an SVG string, headless (no canvas, no browser).
export async function renderSvg(spec: Spec): Promise<string> {
  // Loaded on first use: vega is large, and a run without plots should not pay for it.
  const vega = await import('vega');
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
