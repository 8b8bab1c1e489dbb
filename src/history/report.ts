import type { ExitClass } from '../errors.js';
import { VERDICT_CLASS, type VerdictWord } from '../verdict/words.js';
import { formatReason, reason, type Reason } from '../verdict/reasons.js';
import type { LedgerRead, SkippedLine } from '../results/ledgerRead.js';
import { describeSkipped } from '../results/ledgerRead.js';
import { analyzeSeries, HISTORY_METHOD, type Better, type ChangePoint } from './analyze.js';
import { buildSeries, type HistorySeries, type SeriesFilter, type UnkeyedGroup } from './series.js';
import type { SeriesAnalysis } from './analyze.js';

// nh-gate history as data: ledger → series per silicon key → change points → the newest point's verdict.

export const HISTORY_SCHEMA_VERSION = 1;

// A fitted series as reported: its identity (series.ts) with counts in place of its points.
export interface SeriesReport extends Pick<HistorySeries, 'label' | 'gate' | 'key' | 'metric' | 'unit' | 'siliconKey'> {
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
  mixedSilicon: Array<{ label: string; gate: string | null; metric: string; siliconKeys: string[] }>;
  series: SeriesReport[];
  // Gate-less lines written before series keys: listed, never fitted (nothing says which runs they compare with).
  unkeyed: { lines: number; groups: UnkeyedGroup[]; text: string | null };
  regressions: number;
  verdict: { word: Extract<VerdictWord, 'REGRESSION' | 'NO REGRESSION' | 'NOT MEASURED'>; exitClass: ExitClass; reasons: Reason[] };
}

export interface AnalyzedSeries { series: HistorySeries; analysis: SeriesAnalysis }

// Pure: the whole report from a read ledger (plots are named by the caller after rendering).
export function historyReport(ledger: LedgerRead, filter: SeriesFilter, better: Better): { report: HistoryReport; analyzed: AnalyzedSeries[] } {
  const { series, unkeyed } = buildSeries(ledger, filter);
  const analyzed = series.map((s) => ({ series: s, analysis: analyzeSeries(s, better) }));
  const byMetric = new Map<string, { s: HistorySeries; keys: Set<string> }>();
  for (const s of series) {
    const k = JSON.stringify([s.id, s.metric]);
    const m = byMetric.get(k) ?? { s, keys: new Set<string>() };
    byMetric.set(k, m);
    m.keys.add(s.siliconKey);
  }
  const mixedSilicon = [...byMetric.values()].filter((m) => m.keys.size > 1).map(({ s, keys }) => ({ label: s.label, gate: s.gate, metric: s.metric, siliconKeys: [...keys].sort() }));
  const reports: SeriesReport[] = analyzed.map(({ series: s, analysis: a }) => ({
    label: s.label, gate: s.gate, key: s.key, metric: s.metric, unit: s.unit, siliconKey: s.siliconKey, points: s.points.length,
    first: s.points[0]!.at, last: s.points.at(-1)!.at, withInterval: s.points.filter((p) => p.lo !== null).length,
    dispersion: a.fit.dispersion, changePoints: a.changePoints, newest: a.newest, plot: null,
  }));
  const regressions = reports.filter((r) => r.newest?.regression);
  const count = (k: SkippedLine['reason']): number => ledger.skipped.filter((s) => s.reason === k).length;
  const unkeyedLines = unkeyed.reduce((n, g) => n + g.lines, 0);
  const unkeyedText = unkeyedLines
    ? `${unkeyedLines} gate-less line(s) written before series keys (${unkeyed.map((g) => `${g.lines} ${g.command} ${g.recipe ?? '(no recipe)'} on ${g.siliconKey}`).join(', ')}): not fitted — they do not say which golden, arms and mode they ran, so nothing says which runs they compare with; runs from now on are keyed`
    : null;
  const verdict = historyVerdict(reports.length, regressions, reports.length === 0
    ? reason(unkeyedText ? 'UNKEYED' : 'NO_FIGURES', unkeyedText ?? `no figures in ${ledger.path}${ledger.exists ? '' : ' (the ledger does not exist)'} match${filter.gate ? ` gate '${filter.gate}'` : ''}${filter.metric ? ` metric '${filter.metric}'` : ''}`)
    : null);
  return {
    report: {
      schemaVersion: HISTORY_SCHEMA_VERSION, ledger: ledger.path, entries: ledger.entries.length,
      skipped: { count: ledger.skipped.length, truncated: count('truncated'), newerSchema: count('newer-schema'), notEntries: count('not-an-entry'), lines: ledger.skipped.slice(0, 50), text: describeSkipped(ledger) },
      filter, better, method: HISTORY_METHOD, mixedSilicon, series: reports, unkeyed: { lines: unkeyedLines, groups: unkeyed, text: unkeyedText },
      regressions: regressions.length, verdict,
    },
    analyzed,
  };
}

// The run's verdict: NOT MEASURED when nothing was fitted, else REGRESSION when any series' newest point is in a worse
// segment (one CHANGE_POINT reason per such series), else NO REGRESSION. Each word's exit class from the one table.
function historyVerdict(series: number, regressions: SeriesReport[], nothing: Reason | null): HistoryReport['verdict'] {
  const word = nothing ? 'NOT MEASURED' : regressions.length ? 'REGRESSION' : 'NO REGRESSION';
  const reasons = nothing ? [nothing]
    : regressions.length ? regressions.map((r) => reason('CHANGE_POINT', `${r.label}: ${r.metric} on ${r.siliconKey}: ${r.newest!.text}`))
      : [reason('NO_WORSE_SEGMENT', `${series} series; the newest point of each is not in a worse segment`)];
  return { word, exitClass: VERDICT_CLASS[word], reasons };
}

// The report as lines for a terminal.
export function historyLines(r: HistoryReport): string[] {
  const out: string[] = [];
  if (r.skipped.text) out.push(r.skipped.text);
  for (const m of r.mixedSilicon) out.push(`${m.label}: ${m.metric} taken on ${m.siliconKeys.length} silicon keys (${m.siliconKeys.join(', ')}) — kept apart, never averaged`);
  let label: string | null = null;
  for (const s of r.series) {
    if (s.label !== label) out.push((label = s.label));
    out.push(`  ${s.metric} (${s.unit}) on ${s.siliconKey}: ${s.points} point(s), ${s.first} → ${s.last}, ${s.withInterval} with an interval`);
    for (const c of s.changePoints) out.push(`    change at ${c.at}: ${Number(c.before.toPrecision(6))} → ${Number(c.after.toPrecision(6))}${c.relPct === null ? '' : ` (${c.relPct > 0 ? '+' : ''}${c.relPct.toFixed(2)}%)`}${c.worse ? ' worse' : ' better'}`);
    if (s.newest) out.push(`    ${s.newest.text}`);
    if (s.plot) out.push(`    plot: ${s.plot}`);
  }
  if (r.unkeyed.text && r.series.length) out.push(r.unkeyed.text);
  out.push(`${r.verdict.word}${r.verdict.reasons.length ? ` — ${r.verdict.reasons.map(formatReason).join('; ')}` : ''}`);
  return out;
}
