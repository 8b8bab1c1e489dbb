import { join } from 'node:path';
import { quantityJson } from '../quantity/render.js';
import type { Quantity } from '../quantity/types.js';
import { renderSummaryMd } from './summary.js';
import { renderJunit } from './junit.js';
import { abLegsSpec, busyTimelineSpec, renderSvg, type AbLegPoint, type TimelineInput } from './plots.js';
import { writeAtomicAll } from '../io/atomic.js';
import { renderHtml, type InlinePlot } from './html.js';
import type { RunListener } from './live.js';
import type { RunResult } from '../results/types.js';
import { sweepSpec, type SweepPlotPoint } from './servePlot.js';
import { scalingSpec } from './sweepPlot.js';

// Plot inputs gathered while legs run (they are not part of result.json: the raw data is in the leg files).
export interface PlotInputs {
  timelines: Array<{ file: string; input: TimelineInput }>;
  ab: { title: string; legs: AbLegPoint[] } | null;
  // nh-gate serve --sweep: the throughput–latency curve.
  sweep?: { title: string; latencyLabel: string; points: SweepPlotPoint[] } | null;
}

// result.json as plain data: quantities through the one JSON shape, everything else as recorded.
export function resultJson(r: RunResult): string {
  return JSON.stringify(r, (_k, v: unknown) => {
    if (v && typeof v === 'object' && 'status' in v && 'name' in v && ((v as Quantity).status === 'measured' || (v as Quantity).status === 'refused' || (v as Quantity).status === 'withheld')) {
      return quantityJson(v as Quantity);
    }
    if (typeof v === 'number' && !Number.isFinite(v)) return null;
    if (typeof v === 'bigint') return v.toString();
    return v;
  }, 2) + '\n';
}

// Writes every file of the run directory from the current result, atomically; called after each leg,
// so a Ctrl-C or a crash of nh-gate itself leaves the finished legs on disk. Then tells the listener (the
// text on stdout, the exports), so nothing is printed that is not already on disk.
export async function saveRun(r: RunResult, plots: PlotInputs, live?: RunListener): Promise<string[]> {
  const svgs: InlinePlot[] = [];
  // Plots are drawn once, for the finished run: redrawn after every leg they cost more than a short leg
  // (a vega render each). While running, the files carry every finished leg's data and no plot yet.
  if (r.status !== 'running') {
    for (const t of plots.timelines) svgs.push({ file: t.file, svg: await renderSvg(busyTimelineSpec(t.input)) });
    if (plots.ab && plots.ab.legs.length > 0) svgs.push({ file: 'ab-per-token.svg', svg: await renderSvg(abLegsSpec(plots.ab.title, plots.ab.legs)) });
    const flagSweep = r.comparison?.kind === 'ab' ? r.comparison.sweep : undefined;
    if (flagSweep) svgs.push({ file: 'sweep.svg', svg: await renderSvg(scalingSpec(flagSweep)) });
    if (plots.sweep && plots.sweep.points.length > 0) svgs.push({ file: 'serve-sweep.svg', svg: await renderSvg(sweepSpec(plots.sweep.title, plots.sweep.latencyLabel, plots.sweep.points)) });
  }
  const plotFiles = svgs.map((p) => p.file);
  await writeAtomicAll([
    ...svgs.map((p) => [join(r.runDir, p.file), p.svg] as const),
    [join(r.runDir, 'result.json'), resultJson(r)],
    [join(r.runDir, 'summary.md'), renderSummaryMd(r, plotFiles)],
    [join(r.runDir, 'junit.xml'), renderJunit(r)],
    [join(r.runDir, 'report.html'), renderHtml(r, svgs)],
  ]);
  live?.saved(r);
  return ['result.json', 'summary.md', 'junit.xml', 'report.html', ...plotFiles];
}
