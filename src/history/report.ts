import type { ExitClass } from '../errors.js';
import type { LedgerRead, SkippedLine } from '../results/ledgerRead.js';
import { describeSkipped } from '../results/ledgerRead.js';
import { analyzeSeries, HISTORY_METHOD, type Better, type ChangePoint } from './analyze.js';
import { buildSeries, type HistorySeries, type SeriesFilter } from './series.js';
import type { SeriesAnalysis } from './analyze.js';

// nh-gate history as data: ledger → series per silicon key → change points → the newest point's verdict.

export const HISTORY_SCHEMA_VERSION = 1;

export interface SeriesReport {
  gate: string | null;
  metric: string;
  unit: string;
  siliconKey: string;
  points: number;
  first: string;
  last: string;
  withInterval: number;
  dispersion: number;
  changePoints: ChangePoint[];
  newest: SeriesAnalysis['newest'];
  plot: string | null;
}

export interface HistoryReport {
  schemaVersion: typeof HISTORY_SCHEMA_VERSION;
  ledger: string;
  entries: number;
  skipped: { count: number; truncated: number; newerSchema: number; notEntries: number; lines: SkippedLine[]; text: string | null };
  filter: SeriesFilter;
  better: Better;
  method: string;
  // Metrics whose points came from more than one silicon key: shown apart, never averaged.
  mixedSilicon: Array<{ gate: string | null; metric: string; siliconKeys: string[] }>;
  series: SeriesReport[];
  regressions: number;
  verdict: { word: 'REGRESSION' | 'NO REGRESSION' | 'NOT MEASURED'; exitClass: ExitClass; reasons: string[] };
}

export interface AnalyzedSeries { series: HistorySeries; analysis: SeriesAnalysis }

// Pure: the whole report from a read ledger (plots are named by the caller after rendering).
export function historyReport(ledger: LedgerRead, filter: SeriesFilter, better: Better): { report: HistoryReport; analyzed: AnalyzedSeries[] } {
  const series = buildSeries(ledger, filter);
  const analyzed = series.map((s) => ({ series: s, analysis: analyzeSeries(s, better) }));
  const byMetric = new Map<string, Set<string>>();
  for (const s of series) {
    const k = JSON.stringify([s.gate, s.metric]);
    byMetric.set(k, (byMetric.get(k) ?? new Set()).add(s.siliconKey));
  }
  const mixedSilicon = [...byMetric.entries()].filter(([, v]) => v.size > 1).map(([k, v]) => {
    const [gate, metric] = JSON.parse(k) as [string | null, string];
    return { gate, metric, siliconKeys: [...v].sort() };
  });
  const reports: SeriesReport[] = analyzed.map(({ series: s, analysis: a }) => ({
    gate: s.gate, metric: s.metric, unit: s.unit, siliconKey: s.siliconKey, points: s.points.length,
    first: s.points[0]!.at, last: s.points.at(-1)!.at, withInterval: s.points.filter((p) => p.lo !== null).length,
    dispersion: a.fit.dispersion, changePoints: a.changePoints, newest: a.newest, plot: null,
  }));
  const regressions = reports.filter((r) => r.newest?.regression);
  const count = (k: SkippedLine['reason']): number => ledger.skipped.filter((s) => s.reason === k).length;
  const verdict: HistoryReport['verdict'] = reports.length === 0
    ? { word: 'NOT MEASURED', exitClass: 'void', reasons: [`no figures in ${ledger.path}${ledger.exists ? '' : ' (the ledger does not exist)'} match${filter.gate ? ` gate '${filter.gate}'` : ''}${filter.metric ? ` metric '${filter.metric}'` : ''}`] }
    : regressions.length
      ? { word: 'REGRESSION', exitClass: 'failed', reasons: regressions.map((r) => `${r.gate ?? '(no gate)'} ${r.metric} on ${r.siliconKey}: ${r.newest!.text}`) }
      : { word: 'NO REGRESSION', exitClass: 'passed', reasons: [`${reports.length} series; the newest point of each is not in a worse segment`] };
  return {
    report: {
      schemaVersion: HISTORY_SCHEMA_VERSION, ledger: ledger.path, entries: ledger.entries.length,
      skipped: { count: ledger.skipped.length, truncated: count('truncated'), newerSchema: count('newer-schema'), notEntries: count('not-an-entry'), lines: ledger.skipped.slice(0, 50), text: describeSkipped(ledger) },
      filter, better, method: HISTORY_METHOD, mixedSilicon, series: reports, regressions: regressions.length, verdict,
    },
    analyzed,
  };
}

// The report as lines for a terminal.
export function historyLines(r: HistoryReport): string[] {
  const out: string[] = [];
  if (r.skipped.text) out.push(r.skipped.text);
  for (const m of r.mixedSilicon) out.push(`${m.gate ?? '(no gate)'} ${m.metric}: taken on ${m.siliconKeys.length} silicon keys (${m.siliconKeys.join(', ')}) — kept apart, never averaged`);
  for (const s of r.series) {
    out.push(`${s.gate ?? '(no gate)'} ${s.metric} (${s.unit}) on ${s.siliconKey}: ${s.points} point(s), ${s.first} → ${s.last}, ${s.withInterval} with an interval`);
    for (const c of s.changePoints) out.push(`  change at ${c.at}: ${Number(c.before.toPrecision(6))} → ${Number(c.after.toPrecision(6))}${c.relPct === null ? '' : ` (${c.relPct > 0 ? '+' : ''}${c.relPct.toFixed(2)}%)`}${c.worse ? ' worse' : ' better'}`);
    if (s.newest) out.push(`  ${s.newest.text}`);
    if (s.plot) out.push(`  plot: ${s.plot}`);
  }
  out.push(`${r.verdict.word}${r.verdict.reasons.length ? ` — ${r.verdict.reasons.join('; ')}` : ''}`);
  return out;
}
