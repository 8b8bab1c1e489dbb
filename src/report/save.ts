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

// Saves the run directory from the current result, atomically, then tells the listener (the text on stdout,
// the exports), so nothing is printed that is not already on disk. While the run is running (before the first
// leg and after each) only result.json is written: it holds every finished leg, which is all that `--resume`,
// the dead-run scan and a crash need, and rendering summary.md, junit.xml and report.html after every leg cost
// the short legs more than their own judging. Every other status (complete, interrupted, failed) writes all of
// them once, the plots with them, so an interrupted or failed run still has its report.
export async function saveRun(r: RunResult, plots: PlotInputs, live?: RunListener): Promise<string[]> {
  if (r.status === 'running') {
    await writeAtomicAll([[join(r.runDir, 'result.json'), resultJson(r)]]);
    live?.saved(r);
    return ['result.json'];
  }
  const svgs: InlinePlot[] = [];
  for (const t of plots.timelines) svgs.push({ file: t.file, svg: await renderSvg(busyTimelineSpec(t.input)) });
  if (plots.ab && plots.ab.legs.length > 0) svgs.push({ file: 'ab-per-token.svg', svg: await renderSvg(abLegsSpec(plots.ab.title, plots.ab.legs)) });
  // A flag sweep's scaling plot (ab --flag NAME=V1,V2,V3): the ratio to the baseline against the value.
  const flagSweep = r.comparison?.kind === 'ab' ? r.comparison.sweep : undefined;
  if (flagSweep) svgs.push({ file: 'sweep.svg', svg: await renderSvg(scalingSpec(flagSweep)) });
  if (plots.sweep && plots.sweep.points.length > 0) svgs.push({ file: 'serve-sweep.svg', svg: await renderSvg(sweepSpec(plots.sweep.title, plots.sweep.latencyLabel, plots.sweep.points)) });
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
