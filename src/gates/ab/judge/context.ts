import type { LegRecord } from '../../../results/types.js';
import type { BinariesRecord, CounterDiff, OutlierLeg } from '../../../results/comparison.js';
import { flagOutliers } from '../../../stats/outliers.js';
import { mean, relativeSpread } from '../../../stats/summary.js';
import { armValues, legValue } from './values.js';

// What an A/B prints beside its verdict: the spreads a delta cannot be separated from, the counters that
// differ between the arms (by field name, never position), and legs flagged as outliers (still counted).

export interface AbContext {
  spreads: Record<string, number | null>;
  counterDiff: CounterDiff[];
  armsDiffered: boolean | null;
  outliers: OutlierLeg[];
}

// Counters averaged per leg in each arm, matched by field name; the fields that differ.
export function diffCounters(legs: readonly LegRecord[]): CounterDiff[] {
  const per: Record<'A' | 'B', Array<Record<string, number>>> = { A: [], B: [] };
  for (const l of legs) if (l.arm === 'A' || l.arm === 'B') per[l.arm].push(l.counters);
  const fields = new Set([...per.A, ...per.B].flatMap((c) => Object.keys(c)));
  const out: CounterDiff[] = [];
  for (const f of [...fields].sort()) {
    const a = per.A.length ? mean(per.A.map((c) => c[f] ?? 0)) : NaN;
    const b = per.B.length ? mean(per.B.map((c) => c[f] ?? 0)) : NaN;
    if (a !== b) out.push({ field: f, A: a, B: b });
  }
  return out;
}

// Legs flagged by median/MAD within each arm, on the log of the quantity (a ratio scale); a sweep names its arms.
export function outlierLegs(legs: readonly LegRecord[], key: string, arms: readonly string[] = ['A', 'B']): OutlierLeg[] {
  const out: OutlierLeg[] = [];
  for (const arm of arms) {
    const pts = legs.flatMap((l) => {
      const v = l.arm === arm ? legValue(l, key) : { why: '' };
      return 'v' in v && v.v > 0 ? [{ leg: l.index + 1, v: v.v }] : [];
    });
    for (const f of flagOutliers(pts.map((p) => Math.log(p.v)))) out.push({ leg: pts[f.i]!.leg, arm, value: pts[f.i]!.v, modifiedZ: f.z });
  }
  return out;
}

const spread = (xs: number[]): number | null => (xs.length >= 2 ? relativeSpread(xs) : null);

// The context of the judged legs, read on the claim's first quantity.
export function abContext(legs: readonly LegRecord[], key: string): AbContext {
  const vals = armValues(legs, key);
  const loads = legs.map((l) => l.loadLine.loadS).filter((x): x is number => x !== null && Number.isFinite(x));
  return {
    spreads: { [`arm A ${key}`]: spread(vals.A), [`arm B ${key}`]: spread(vals.B), 'engine load (all legs)': spread(loads) },
    ...armPaths(legs),
    outliers: outlierLegs(legs, key),
  };
}

// Whether arms A and B took different paths: the counters that differ, and a verdict on it (null without counters).
export function armPaths(legs: readonly LegRecord[]): Pick<AbContext, 'counterDiff' | 'armsDiffered'> {
  const counterDiff = diffCounters(legs);
  const shas = new Set(legs.map((l) => l.binarySha256));
  const hasCounters = legs.some((l) => l.counterRecords > 0);
  return { counterDiff, armsDiffered: hasCounters ? counterDiff.length > 0 || shas.size > 1 : null };
}

// A spread is printed only when it is a number: fewer than 2 legs, or a minimum of 0, say so instead of NaN.
export function pct(x: number | null): string {
  if (x === null) return 'n<2';
  return Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : 'undefined (the smallest leg is 0)';
}

// The lines a reader needs beside the verdict: spreads, whether the arms differed, outliers.
export function contextNotes(c: AbContext, binaries: BinariesRecord): string[] {
  const notes = [`spreads beside the delta (max−min)/min: ${Object.entries(c.spreads).map(([k, v]) => `${k} ${pct(v)}`).join(', ')}`];
  if (binaries.kind === 'two' && binaries.identical) notes.push(`the two commits built byte-identical binaries (sha256 ${binaries.base.binarySha256}): any difference below is noise`);
  notes.push(...pathNotes(c, binaries.kind === 'two' ? null : ''));
  return [...notes, ...outlierNotes(c.outliers)];
}

// Whether the arms took different paths, in words. `pair` prefixes each line (a sweep's "THREADS=4 against
// THREADS=1: "); null keeps only the counters (two commits: their binaries are compared instead).
export function pathNotes(c: Pick<AbContext, 'counterDiff' | 'armsDiffered'>, pair: string | null): string[] {
  const p = pair ?? '';
  if (pair !== null && c.armsDiffered === false) return [`${p}the arms did NOT differ: identical counters and identical binary in both arms — whatever the ratio says, the flag changed nothing this run can see`];
  if (c.armsDiffered !== false && c.counterDiff.length) return [`${p}counters that differ (mean per leg, by field name): ${c.counterDiff.map((d) => `${d.field} A=${Number(d.A.toPrecision(6))} B=${Number(d.B.toPrecision(6))}`).join(', ')}`];
  if (c.armsDiffered === null) return [`${p}the engine printed no counters: whether the arms took different paths is not shown`];
  return [];
}

export function outlierNotes(outliers: readonly OutlierLeg[]): string[] {
  return outliers.map((x) => `outlier leg ${x.leg} (arm ${x.arm}): ${x.value.toPrecision(6)}, modified z ${x.modifiedZ.toFixed(1)} by median/MAD — flagged, still counted`);
}
