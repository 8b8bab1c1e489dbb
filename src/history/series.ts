import type { LedgerRead } from '../results/ledgerRead.js';
import type { LedgerEntry } from '../results/ledger.js';
import { seriesLabel, type SeriesKey } from '../results/seriesKey.js';

// The ledger as series: one per (what ran, metric, unit, silicon key). "What ran" is the line's series key
// (results/seriesKey.ts): the gate, or the command, recipe, golden, arms and mode. Points of different
// silicon, or of runs that measured different things, are never in one series, so nothing is ever fitted
// or averaged across two pieces of hardware or two kinds of run.
//
// Lines written before the key existed: a gated one is keyed by its gate, command and recipe (the gate
// pinned the rest) and labelled so, in a series of its own; a gate-less one cannot be told apart from a
// run of another flag or golden, so it is listed as unkeyed and never fitted.

export const UNKNOWN_SILICON = 'unknown silicon';

export interface HistoryPoint {
  at: string;
  value: number;
  lo: number | null;
  hi: number | null;
  line: number;
  runDir: string;
  verdict: string;
}

export interface HistorySeries {
  // Stable identity of what ran (the plot's file name is derived from it).
  id: string;
  label: string;
  gate: string | null;
  // null: a line written before series keys, keyed by gate, command and recipe only.
  key: SeriesKey | null;
  metric: string;
  unit: string;
  siliconKey: string;
  points: HistoryPoint[]; // oldest first
}

// Gate-less lines written before series keys, counted per command, recipe and silicon: shown, not fitted.
export interface UnkeyedGroup {
  command: string;
  recipe: string | null;
  siliconKey: string;
  lines: number;
  first: string;
  last: string;
  metrics: string[];
}

export interface SeriesFilter {
  gate?: string | undefined;
  metric?: string | undefined;
}

type Entry = LedgerEntry & { line: number };

// Figures of a single-arm run (a3, busy) are its legs' own: a default view shows them. An A/B's per-leg
// figures are one arm's, so only the run-level ratio is shown unless a metric is asked for by name.
function singleArm(e: Entry): boolean {
  return e.series ? e.series.arms.every((a) => a === 'single') : e.command !== 'ab';
}

function wanted(metric: string, f: SeriesFilter, single: boolean): boolean {
  return f.metric !== undefined ? metric === f.metric : single || !/^leg\d+\./.test(metric);
}

// The identity and label of a line's series; null for a gate-less line written before series keys.
function identity(e: Entry): { id: string; label: string; key: SeriesKey | null } | null {
  const k = e.series;
  if (k) return { id: JSON.stringify([k.gate, k.command, k.recipe, k.golden, k.arms, k.modes, k.target ?? null]), label: seriesLabel(k), key: k };
  if (e.gate === null) return null;
  return {
    id: JSON.stringify(['before series keys', e.gate, e.command, e.recipe]),
    label: `gate ${e.gate}: ${e.command} ${e.recipe ?? '(no recipe)'} (written before series keys: golden, arms and mode not recorded)`,
    key: null,
  };
}

function countUnkeyed(by: Map<string, UnkeyedGroup>, e: Entry, metrics: string[]): void {
  const silicon = e.siliconKey ?? UNKNOWN_SILICON;
  const k = JSON.stringify([e.command, e.recipe, silicon]);
  const g = by.get(k) ?? { command: e.command, recipe: e.recipe, siliconKey: silicon, lines: 0, first: e.at, last: e.at, metrics: [] };
  g.lines += 1;
  if (e.at < g.first) g.first = e.at;
  if (e.at > g.last) g.last = e.at;
  for (const m of metrics) if (!g.metrics.includes(m)) g.metrics.push(m);
  by.set(k, g);
}

// Groups the ledger's entries into series, in time order (ties keep file order).
export function buildSeries(ledger: LedgerRead, f: SeriesFilter): { series: HistorySeries[]; unkeyed: UnkeyedGroup[] } {
  const by = new Map<string, HistorySeries>();
  const unkeyed = new Map<string, UnkeyedGroup>();
  for (const e of ledger.entries) {
    if (f.gate !== undefined && e.gate !== f.gate) continue;
    const single = singleArm(e);
    const metrics = Object.entries(e.figures).filter(([m, fig]) => wanted(m, f, single) && typeof fig?.value === 'number' && Number.isFinite(fig.value));
    if (metrics.length === 0) continue;
    const who = identity(e);
    if (!who) {
      countUnkeyed(unkeyed, e, metrics.map(([m]) => m));
      continue;
    }
    const silicon = e.siliconKey ?? UNKNOWN_SILICON;
    for (const [metric, fig] of metrics) {
      const key = `${who.id}\u0000${metric}\u0000${fig.unit}\u0000${silicon}`;
      let s = by.get(key);
      if (!s) {
        s = { id: who.id, label: who.label, gate: e.gate, key: who.key, metric, unit: fig.unit, siliconKey: silicon, points: [] };
        by.set(key, s);
      }
      const iv = typeof fig.lo === 'number' && typeof fig.hi === 'number' && fig.hi >= fig.lo ? { lo: fig.lo, hi: fig.hi } : { lo: null, hi: null };
      s.points.push({ at: e.at, value: fig.value, ...iv, line: e.line, runDir: e.runDir, verdict: e.verdict });
    }
  }
  const out = [...by.values()];
  // The ledger is appended in time order, so a sort is needed only when a line is out of order.
  const byTime = (a: HistoryPoint, b: HistoryPoint): number => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.line - b.line);
  for (const s of out) if (s.points.some((p, i) => i > 0 && byTime(s.points[i - 1]!, p) > 0)) s.points.sort(byTime);
  const order = (s: HistorySeries): string => `${s.label}|${s.metric}|${s.siliconKey}`;
  return { series: out.sort((a, b) => order(a).localeCompare(order(b))), unkeyed: [...unkeyed.values()] };
}
