import type { LedgerRead } from '../results/ledgerRead.js';

// The ledger as series: one per (gate, metric, unit, silicon key). Points of different silicon are never
// in one series, so nothing is ever averaged across two pieces of hardware.

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
  gate: string | null;
  metric: string;
  unit: string;
  siliconKey: string;
  points: HistoryPoint[]; // oldest first
}

export interface SeriesFilter {
  gate?: string | undefined;
  metric?: string | undefined;
}

// Run-level figures by default; per-leg figures (leg3.perOutputToken) only when asked for by name.
function wanted(metric: string, f: SeriesFilter): boolean {
  return f.metric !== undefined ? metric === f.metric : !/^leg\d+\./.test(metric);
}

// Groups the ledger's entries into series, in time order (ties keep file order).
export function buildSeries(ledger: LedgerRead, f: SeriesFilter): HistorySeries[] {
  const by = new Map<string, HistorySeries>();
  for (const e of ledger.entries) {
    if (f.gate !== undefined && e.gate !== f.gate) continue;
    for (const [metric, fig] of Object.entries(e.figures)) {
      if (!wanted(metric, f) || typeof fig?.value !== 'number' || !Number.isFinite(fig.value)) continue;
      const silicon = e.siliconKey ?? UNKNOWN_SILICON;
      const key = `${e.gate}\u0000${metric}\u0000${fig.unit}\u0000${silicon}`;
      let s = by.get(key);
      if (!s) {
        s = { gate: e.gate, metric, unit: fig.unit, siliconKey: silicon, points: [] };
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
  return out.sort((a, b) => `${a.gate}|${a.metric}|${a.siliconKey}`.localeCompare(`${b.gate}|${b.metric}|${b.siliconKey}`));
}
