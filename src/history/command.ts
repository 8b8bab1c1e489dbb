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

// options → read ledger → report (pure) → one SVG per (gate, metric) → print. Returns the exit class.
export async function runHistory(o: HistoryOptions, out: (s: string) => void = (s) => process.stdout.write(s)): Promise<{ exitClass: ExitClass; report: HistoryReport }> {
  if (o.better !== 'lower' && o.better !== 'higher') throw new NhGateError('USAGE', `--better ${o.better} is not lower or higher`, 'pass --better lower (times) or --better higher (throughput, busy)');
  const ledger = readLedger(o.ledger ?? ledgerPath(o.resultsDir));
  const { report, analyzed } = historyReport(ledger, { gate: o.gate, metric: o.metric }, o.better as Better);
  if (!o.noPlot && analyzed.length) {
    const dir = o.plots ?? join(o.resultsDir, 'history');
    const groups = new Map<string, typeof analyzed>();
    for (const a of analyzed) {
      const k = `${a.series.gate ?? 'no-gate'}-${a.series.metric}-${a.series.unit}`;
      groups.set(k, [...(groups.get(k) ?? []), a]);
    }
    for (const [k, group] of groups) {
      const file = join(dir, `${k.replace(/[^A-Za-z0-9._-]+/g, '_')}.svg`);
      const first = group[0]!.series;
      writeAtomic(file, await renderSvg(historySpec(`${first.gate ?? '(no gate)'} ${first.metric} by silicon, with fitted steps (at most ${PLOT_MAX_POINTS} points drawn per silicon key)`, first.unit, group)));
      for (const a of group) {
        const r = report.series.find((s) => s.gate === a.series.gate && s.metric === a.series.metric && s.unit === a.series.unit && s.siliconKey === a.series.siliconKey);
        if (r) r.plot = file;
      }
    }
  }
  if (o.json) out(JSON.stringify(report, null, 2) + '\n');
  else out(historyLines(report).join('\n') + '\n');
  if (report.skipped.text && o.json) process.stderr.write(`nh-gate: ${report.skipped.text}\n`);
  return { exitClass: report.verdict.exitClass, report };
}
