import type { Quantity } from '../quantity/types.js';
import { tokensPerSecond } from '../quantity/perToken.js';
import { summarize, type Summary } from '../stats/summary.js';
import { formatReason } from '../verdict/reasons.js';
import { isPass, type TokenWord } from '../verdict/words.js';
import type { LegArm, LegRecord, RunResult } from '../results/types.js';

// The figures every table, export and report.html shows, one row per leg and one per arm, read from the
// result record alone. Each figure is named once here (what it is, its unit, where a leg keeps it), so the
// text table, summary.md, the four exports and report.html cannot show a figure two ways.

export const FIGURES = {
  perToken: { title: 's/token', key: 's_per_token', unit: 's', means: 'decode window / tokens compared (harness arrival clock)', of: (l: LegRecord) => l.quantities.perOutputToken ?? null },
  tokensPerS: { title: 'tokens/s', key: 'tokens_per_s', unit: 'tokens/s', means: 'tokens compared / decode window', of: (l: LegRecord) => (l.quantities.perOutputToken ? tokensPerSecond(l.quantities.perOutputToken) : null) },
  busy: { title: 'busy', key: 'busy_pct', unit: '%', means: 'time-weighted mean of the driver utilization samples over the decode window', of: (l: LegRecord) => l.quantities.busy ?? null },
  smActivity: { title: 'SM activity', key: 'sm_activity_pct', unit: '%', means: 'GPM SM_UTIL over the decode window', of: (l: LegRecord) => l.quantities.smUtil ?? null },
  smClock: { title: 'SM clock', key: 'sm_clock_mhz', unit: 'MHz', means: 'median SM clock over the decode window', of: (l: LegRecord) => l.quantities.smClockMedian ?? null },
} as const;
export type FigureKey = keyof typeof FIGURES;
export const FIGURE_KEYS = Object.keys(FIGURES) as FigureKey[];

export type { Witness } from '../verdict/witness.js';
import type { Witness } from '../verdict/witness.js';

export interface LegRow {
  // 1-based, as printed.
  leg: number;
  arm: LegRecord['arm'];
  label: string;
  mode: string;
  verdict: TokenWord;
  // Who saw the token ids: 'engine' when only the engine's own counts back the verdict (its claim).
  witness: Witness;
  warmup: boolean;
  tokens: { compared: number; matched: number } | null;
  durationS: number;
  decodeWindowS: number | null;
  figures: Record<FigureKey, Quantity | null>;
  reasons: string[];
}

export interface ArmRow {
  // A or B of an A/B, or a sweep arm ('THREADS=4').
  arm: Exclude<LegArm, 'single'>;
  mode: string;
  // Legs of this arm (warm-ups excluded), and per figure the summary over its token-gated measured values.
  legs: number;
  stats: Record<FigureKey, Summary | null>;
}

// Who witnessed a leg's tokens: the leg's own record (src/verdict/witness.ts); a record from before the field
// was written reads rows of counts without ids ('engine claim') as the engine's word alone.
export function legWitness(l: LegRecord): Witness {
  if (l.witness === 'engine' || l.witness === 'harness') return l.witness;
  return l.tokens?.source === 'engine claim' ? 'engine' : 'harness';
}

// One leg as a row: its figures (null where the leg has none), its duration and why it is not a pass.
export function legRow(l: LegRecord, warmupLegs = 0): LegRow {
  const figures = {} as Record<FigureKey, Quantity | null>;
  for (const k of FIGURE_KEYS) figures[k] = FIGURES[k].of(l);
  const w = l.decodeWindow;
  return {
    leg: l.index + 1, arm: l.arm, label: l.label, mode: l.mode, verdict: l.verdict, witness: legWitness(l),
    warmup: l.index < warmupLegs,
    tokens: l.tokens ? { compared: l.tokens.compared, matched: l.tokens.matched } : null,
    durationS: Math.max(0, l.process.endS - l.process.startS),
    decodeWindowS: w ? w.endS - w.startS : null,
    figures,
    reasons: l.voidReasons.map(formatReason),
  };
}

export function legRows(r: RunResult): LegRow[] {
  return r.legs.map((l) => legRow(l, r.plan?.warmupLegs ?? 0));
}

// Per arm of an A/B (never for a3's single leg per mode): n, mean, σ, median, min and max of each figure
// over the arm's legs that passed their token gate, as the comparison takes them (a leg with wrong tokens
// gives no figure at all). Warm-up legs ran and were discarded, so they are not counted here either.
export function armRows(rows: readonly LegRow[]): ArmRow[] {
  const out: ArmRow[] = [];
  const seen = [...new Set(rows.flatMap((x) => (x.arm === 'single' ? [] : [x.arm])))];
  for (const arm of orderArms(seen)) {
    const mine = rows.filter((x) => x.arm === arm && !x.warmup);
    if (mine.length === 0) continue;
    const stats = {} as Record<FigureKey, Summary | null>;
    const gated = mine.filter((x) => isPass(x.verdict));
    for (const k of FIGURE_KEYS) {
      const values = gated.map((x) => x.figures[k]).flatMap((q) => (q && q.status === 'measured' ? [q.value] : []));
      stats[k] = values.length > 0 ? summarize(values) : null;
    }
    out.push({ arm, mode: mine[0]!.mode, legs: mine.length, stats });
  }
  return out;
}

// A and B in that order; a sweep's arms by their value, numerically when every value is a number (THREADS
// 1, 2, 4, 8 — the run order of a balanced design is not it), else as first run.
export function orderArms<T extends string>(arms: readonly T[]): T[] {
  const value = (a: string): number => Number(a.slice(a.indexOf('=') + 1));
  if (arms.every((a) => a === 'A' || a === 'B')) return arms.slice().sort();
  return arms.every((a) => a.includes('=') && Number.isFinite(value(a))) ? arms.slice().sort((x, y) => value(x) - value(y)) : arms.slice();
}

// The figures with a value in at least one row: the columns a compact table shows.
export function measuredFigures(rows: readonly LegRow[]): FigureKey[] {
  return FIGURE_KEYS.filter((k) => rows.some((x) => x.figures[k]?.status === 'measured'));
}

// Figures that some leg has but no leg measured: named with the first refusal, so a dropped column is never silent.
export function unmeasuredFigures(rows: readonly LegRow[]): Array<{ key: FigureKey; why: string }> {
  const shown = new Set(measuredFigures(rows));
  const out: Array<{ key: FigureKey; why: string }> = [];
  for (const k of FIGURE_KEYS) {
    if (shown.has(k)) continue;
    const q = rows.map((x) => x.figures[k]).find((f) => f !== null);
    if (q && q.status !== 'measured') out.push({ key: k, why: `${q.reason}: ${q.message}` });
  }
  return out;
}
