import type { Quantity } from '../quantity/types.js';
import { tokensPerSecond } from '../quantity/perToken.js';
import { summarize, type Summary } from '../stats/summary.js';
import { formatReason } from '../verdict/reasons.js';
import { isPass, type TokenWord } from '../verdict/words.js';
import type { LegArm, LegRecord, RunResult } from '../results/types.js';

// The figures every table, export and report.html shows, one row per leg and one per arm, read from the
// result record alone. Each figure is named once here (what it is, its unit, where a leg keeps it, the legs it
// belongs to), so the text table, summary.md, the four exports and report.html cannot show a figure two ways.
// A driver leg has the decode figures; a serve leg (one load of a serve A/B, src/serve/abLeg.ts) the load's.

export type FigureSet = 'decode' | 'serve';

const q = (key: string) => (l: LegRecord): Quantity | null => l.quantities[key] ?? null;
const p50 = 'median over the leg\'s requests (nearest rank; a request that did not finish ranks above all)';

export const FIGURES = {
  perToken: { set: 'decode', title: 's/token', key: 's_per_token', unit: 's', means: 'decode window / tokens compared (harness arrival clock)', of: q('perOutputToken') },
  tokensPerS: { set: 'decode', title: 'tokens/s', key: 'tokens_per_s', unit: 'tokens/s', means: 'tokens compared / decode window', of: (l: LegRecord) => (l.quantities.perOutputToken ? tokensPerSecond(l.quantities.perOutputToken) : null) },
  busy: { set: 'decode', title: 'busy', key: 'busy_pct', unit: '%', means: 'time-weighted mean of the driver utilization samples over the decode window', of: q('busy') },
  smActivity: { set: 'decode', title: 'SM activity', key: 'sm_activity_pct', unit: '%', means: 'GPM SM_UTIL over the decode window', of: q('smUtil') },
  smClock: { set: 'decode', title: 'SM clock', key: 'sm_clock_mhz', unit: 'MHz', means: 'median SM clock over the decode window', of: q('smClockMedian') },
  ttftP50: { set: 'serve', title: 'TTFT p50', key: 'ttft_p50_s', unit: 's', means: `time to first token (send → first token's arrival), ${p50}`, of: q('ttftP50') },
  ttftP99: { set: 'serve', title: 'TTFT p99', key: 'ttft_p99_s', unit: 's', means: 'time to first token, 99th percentile over the leg\'s requests (nearest rank)', of: q('ttftP99') },
  tpotP50: { set: 'serve', title: 'TPOT p50', key: 'tpot_p50_s', unit: 's', means: `time per output token (decode time / (tokens − 1)), ${p50}`, of: q('tpotP50') },
  itlP50: { set: 'serve', title: 'ITL p50', key: 'itl_p50_s', unit: 's', means: 'inter-token latency, median over every gap of the leg\'s requests', of: q('itlP50') },
  e2eP50: { set: 'serve', title: 'E2E p50', key: 'e2e_p50_s', unit: 's', means: `end-to-end latency (send → last event), ${p50}`, of: q('e2eP50') },
  outputTokensPerS: { set: 'serve', title: 'output tokens/s', key: 'output_tokens_per_s', unit: 'tokens/s', means: 'output tokens of finished requests / load window (first send → last end)', of: q('outputTokenThroughput') },
  requestsPerS: { set: 'serve', title: 'requests/s', key: 'requests_per_s', unit: 'requests/s', means: 'finished requests / load window', of: q('requestThroughput') },
  goodput: { set: 'serve', title: 'goodput', key: 'goodput_requests_per_s', unit: 'requests/s', means: 'requests that met every SLO / load window (refused without an SLO)', of: q('goodput') },
} as const satisfies Record<string, { set: FigureSet; title: string; key: string; unit: string; means: string; of: (l: LegRecord) => Quantity | null }>;
export type FigureKey = keyof typeof FIGURES;
export const FIGURE_KEYS = Object.keys(FIGURES) as FigureKey[];

// The figures of one set, in table order.
export function figuresOf(set: FigureSet): FigureKey[] {
  return FIGURE_KEYS.filter((k) => FIGURES[k].set === set);
}

// A leg's set: a serve leg's load figures, else a driver leg's decode figures.
export function legSet(l: Pick<LegRecord, 'mode'>): FigureSet {
  return l.mode === 'serve' ? 'serve' : 'decode';
}

// The set of a run's tables and exports: its legs are all of one kind (a serve A/B runs no driver leg).
export function runSet(rows: ReadonlyArray<Pick<LegRow, 'set'>>): FigureSet {
  return rows.some((x) => x.set === 'serve') ? 'serve' : 'decode';
}

// A count out of a total: a serve leg's requests, finished of sent.
export interface Count {
  ok: number;
  total: number;
}

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
  // A serve leg's requests: finished of sent (a request that did not finish is counted, not dropped).
  requests: Count | null;
  durationS: number;
  decodeWindowS: number | null;
  // A serve leg's load window (first send → last end).
  loadWindowS: number | null;
  set: FigureSet;
  // Every figure of the leg's set (null where the leg has none); the other set's figures are null.
  figures: Record<FigureKey, Quantity | null>;
  reasons: string[];
}

export interface ArmRow {
  // A or B of an A/B, or a sweep arm ('THREADS=4').
  arm: Exclude<LegArm, 'single'>;
  mode: string;
  // Legs of this arm (warm-ups excluded), and per figure the summary over its token-gated measured values.
  legs: number;
  // A serve arm's requests over its legs (warm-ups excluded, every leg counted whatever its verdict).
  requests: Count | null;
  stats: Record<FigureKey, Summary | null>;
}

// Who witnessed a leg's tokens: the leg's own record (src/verdict/witness.ts); a record from before the field
// was written reads rows of counts without ids ('engine claim') as the engine's word alone.
export function legWitness(l: LegRecord): Witness {
  if (l.witness === 'engine' || l.witness === 'harness') return l.witness;
  return l.tokens?.source === 'engine claim' ? 'engine' : 'harness';
}

// A serve leg's requests, finished of sent, from its recorded load.
function requestCount(l: LegRecord): Count | null {
  if (!l.serve) return null;
  const sent = l.serve.requests.filter((x) => x.sentS !== null);
  return { ok: sent.filter((x) => x.end === 'done').length, total: sent.length };
}

// One leg as a row: its figures (null where the leg has none), its duration and why it is not a pass.
export function legRow(l: LegRecord, warmupLegs = 0): LegRow {
  const set = legSet(l);
  const figures = {} as Record<FigureKey, Quantity | null>;
  for (const k of FIGURE_KEYS) figures[k] = FIGURES[k].set === set ? FIGURES[k].of(l) : null;
  const w = l.decodeWindow;
  const lw = l.serve?.window ?? null;
  return {
    leg: l.index + 1, arm: l.arm, label: l.label, mode: l.mode, verdict: l.verdict, witness: legWitness(l),
    warmup: l.index < warmupLegs,
    tokens: l.tokens ? { compared: l.tokens.compared, matched: l.tokens.matched } : null,
    requests: requestCount(l),
    durationS: Math.max(0, l.process.endS - l.process.startS),
    decodeWindowS: w ? w.endS - w.startS : null,
    loadWindowS: lw ? lw.endS - lw.startS : null,
    set, figures,
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
    const counted = mine.flatMap((x) => (x.requests ? [x.requests] : []));
    const requests = counted.length ? { ok: counted.reduce((n, c) => n + c.ok, 0), total: counted.reduce((n, c) => n + c.total, 0) } : null;
    out.push({ arm, mode: mine[0]!.mode, legs: mine.length, requests, stats });
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
