import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ExitClass } from '../errors.js';
import { NhGateError } from '../errors.js';
import { ledgerPath } from '../results/ledger.js';
import { readLedger } from '../results/ledgerRead.js';
import { writeAtomic } from '../io/atomic.js';
import { renderSvg } from '../report/plots.js';
import { historyLines, historyReport, type HistoryReport } from './report.js';
import { historySpec, PLOT_MAX_POINTS } from './plot.js';
import type { Better } from './analyze.js';

export interface HistoryOptions {
  gate?: string | undefined;
  metric?: string | undefined;
  json?: boolean | undefined;
  resultsDir: string;
  ledger?: string | undefined;
  better: string;
  plots?: string | undefined;
  noPlot?: boolean | undefined;
}

// The plot file of one (what ran, metric, unit): readable words, then a hash of the series identity so two
// series whose words coincide never share a file.
function plotName(a: { id: string; gate: string | null; key: { command: string; recipe: string | null } | null; metric: string; unit: string }): string {
  const words = `${a.gate ?? `${a.key?.command ?? 'run'}-${a.key?.recipe ?? 'no-recipe'}`}-${a.metric}`.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${words}-${createHash('sha256').update(`${a.id}\u0000${a.unit}`).digest('hex').slice(0, 8)}.svg`;
}

// options → read ledger → report (pure) → one SVG per (what ran, metric) → print. Returns the exit class.
export async function runHistory(o: HistoryOptions, out: (s: string) => void = (s) => process.stdout.write(s)): Promise<{ exitClass: ExitClass; report: HistoryReport }> {
  if (o.better !== 'lower' && o.better !== 'higher') throw new NhGateError('USAGE', `--better ${o.better} is not lower or higher`, 'pass --better lower (times) or --better higher (throughput, busy)');
  const ledger = readLedger(o.ledger ?? ledgerPath(o.resultsDir));
  const { report, analyzed } = historyReport(ledger, { gate: o.gate, metric: o.metric }, o.better as Better);
  if (!o.noPlot && analyzed.length) {
    const dir = o.plots ?? join(o.resultsDir, 'history');
    const groups = new Map<string, typeof analyzed>();
    for (const a of analyzed) {
      const k = plotName(a.series);
      groups.set(k, [...(groups.get(k) ?? []), a]);
    }
    for (const [name, group] of groups) {
      const file = join(dir, name);
      const first = group[0]!.series;
      writeAtomic(file, await renderSvg(historySpec(`${first.label}: ${first.metric} by silicon, with fitted steps (at most ${PLOT_MAX_POINTS} points drawn per silicon key)`, first.unit, group)));
      // analyzed and report.series are built in the same order, one report per series.
      for (const a of group) report.series[analyzed.indexOf(a)]!.plot = file;
    }
  }
  if (o.json) out(JSON.stringify(report, null, 2) + '\n');
  else out(historyLines(report).join('\n') + '\n');
  if (report.skipped.text && o.json) process.stderr.write(`nh-gate: ${report.skipped.text}\n`);
  return { exitClass: report.verdict.exitClass, report };
}
