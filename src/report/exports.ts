import type { RunResult } from '../results/types.js';
import { armRows, figuresOf, FIGURES, legRows, measuredFigures, runSet, type ArmRow, type FigureSet, type LegRow } from './rows.js';
import { armGrid, legGrid, markdownLines } from './tables.js';
import { verdictReasons } from './text.js';
import { sweepGrid, sweepMethodLines, sweepOf } from './sweepTable.js';
import type { SweepRecord } from '../results/comparison.js';

// --export-csv / --export-markdown / --export-json / --export-jsonl, hyperfine's way: each format is a pure
// serialize(result) → string over the same rows (one per leg, one per arm); writing them is exportWrite.ts.
// Machine formats carry every column, unrounded, with the unit in each column's name (s_per_token,
// busy_pct); a figure a leg refused is empty (null) there and named with its code in `refused`.

export const EXPORT_SCHEMA_VERSION = 1;

export interface Column {
  key: string;
  unit: string | null;
  means: string;
}

const STATS = [['', 'leg: the figure; arm: the mean over its legs that passed their token gate'], ['_stdev', 'arm: sample standard deviation (n − 1)'], ['_median', 'arm: median'], ['_min', 'arm: minimum'], ['_max', 'arm: maximum'], ['_n', 'arm: legs that passed their token gate with this figure measured']] as const;

const col = (key: string, unit: string | null, means: string): Column => ({ key, unit, means });

// A figure's columns: the leg's value, and per arm its mean, σ, median, min, max and n.
function figureColumns(set: FigureSet): Column[] {
  return figuresOf(set).flatMap((k) => STATS.map(([suffix, what]) => col(`${FIGURES[k].key}${suffix}`, suffix === '_n' ? 'legs' : FIGURES[k].unit, `${FIGURES[k].means}; ${what}`)));
}

const HEAD: Column[] = [
  col('row', null, "'leg' or 'arm'"),
  col('leg', null, '1-based leg number in run order (empty on an arm row)'),
  col('arm', null, "A, B, 'single' (a3), or a sweep arm as FLAG=VALUE"),
  col('label', null, 'the leg as the plan names it'),
];
const TAIL: Column[] = [
  col('verdict', null, "the leg's token verdict"),
  col('witness', null, "who saw the token ids: 'harness', or 'engine' (the engine's claim)"),
  col('warmup', null, 'a warm-up leg: ran, discarded, in no arm row'),
  col('legs', 'legs', 'arm: legs counted (warm-ups excluded)'),
  col('tokens_compared', 'tokens', 'tokens the harness compared with the golden'),
  col('tokens_matched', 'tokens', 'of those, tokens equal to the golden'),
];
const REFUSED = col('refused', null, 'figures this leg refused, as column=REASON; …');

// Every column of the machine formats, in order, each with its unit and meaning (the JSON export lists them).
// The set follows the run's legs: a driver run's decode figures (and a sweep's ratios), or a serve A/B's load
// figures with each leg's requests and load window; a driver run's columns are the same whichever set exists.
export const COLUMN_SETS: Record<FigureSet, Column[]> = {
  decode: [
    ...HEAD, col('mode', null, 'decode or fresh-prefill'), ...TAIL,
    col('duration_s', 's', 'wall time of the leg process'),
    col('decode_window_s', 's', "engine load-complete line to the last token's arrival"),
    ...figureColumns('decode'), REFUSED,
    col('ratio_vs_baseline', 'x', "sweep arm: median s/token of the arm ÷ the baseline arm's"),
    col('ratio_vs_baseline_lo', 'x', "sweep arm: the ratio's lower bound (Bonferroni-adjusted bootstrap interval)"),
    col('ratio_vs_baseline_hi', 'x', "sweep arm: the ratio's upper bound"),
    col('word', null, "sweep arm: its criteria's word against the baseline (Holm-corrected), 'baseline', or empty when no claim"),
  ],
  serve: [
    ...HEAD, col('mode', null, "serve: one load against a server started with the arm's environment"), ...TAIL,
    col('requests_ok', 'requests', 'requests that finished (leg; arm: summed over its legs)'),
    col('requests_total', 'requests', 'requests sent, finished or not (leg; arm: summed over its legs)'),
    col('duration_s', 's', "wall time of the leg's server (spawn → stop)"),
    col('load_window_s', 's', 'first send → last end of the leg\'s load (the server load before it excluded)'),
    ...figureColumns('serve'), REFUSED,
  ],
};

// The decode columns: what every export of a driver run has (kept as the name older callers know).
export const COLUMNS: Column[] = COLUMN_SETS.decode;

export type FlatRow = Record<string, string | number | boolean | null>;

function blank(set: FigureSet): FlatRow {
  return Object.fromEntries(COLUMN_SETS[set].map((c) => [c.key, null]));
}

export function legFlat(x: LegRow, set: FigureSet): FlatRow {
  const row: FlatRow = { ...blank(set), row: 'leg', leg: x.leg, arm: x.arm, label: x.label, mode: x.mode, verdict: x.verdict, witness: x.witness, warmup: x.warmup };
  row.tokens_compared = x.tokens?.compared ?? null;
  row.tokens_matched = x.tokens?.matched ?? null;
  row.duration_s = x.durationS;
  if (set === 'serve') {
    row.requests_ok = x.requests?.ok ?? null;
    row.requests_total = x.requests?.total ?? null;
    row.load_window_s = x.loadWindowS;
  } else row.decode_window_s = x.decodeWindowS;
  const refused: string[] = [];
  for (const k of figuresOf(set)) {
    const q = x.figures[k];
    if (q?.status === 'measured') row[FIGURES[k].key] = q.value;
    else if (q) refused.push(`${FIGURES[k].key}=${q.reason}`);
  }
  row.refused = refused.length ? refused.join('; ') : null;
  return row;
}

export function armFlat(a: ArmRow, set: FigureSet): FlatRow {
  const row: FlatRow = { ...blank(set), row: 'arm', arm: a.arm, mode: a.mode, legs: a.legs };
  if (set === 'serve') {
    row.requests_ok = a.requests?.ok ?? null;
    row.requests_total = a.requests?.total ?? null;
  }
  for (const k of figuresOf(set)) {
    const s = a.stats[k];
    const key = FIGURES[k].key;
    row[`${key}_n`] = s?.n ?? 0;
    if (!s) continue;
    row[key] = s.mean;
    row[`${key}_median`] = s.median;
    row[`${key}_min`] = s.min;
    row[`${key}_max`] = s.max;
    row[`${key}_stdev`] = Number.isFinite(s.stdev) ? s.stdev : null;
  }
  return row;
}

// A sweep arm's row also carries its ratio against the baseline, the interval and the word.
function withSweep(row: FlatRow, s: SweepRecord | null): FlatRow {
  if (!s) return row;
  if (row.arm === s.baseline) return { ...row, word: 'baseline' };
  const c = s.comparisons.find((x) => x.arm === row.arm);
  if (!c) return row;
  return { ...row, ratio_vs_baseline: c.ratio.status === 'measured' ? c.ratio.value : null, ratio_vs_baseline_lo: c.interval?.lo ?? null, ratio_vs_baseline_hi: c.interval?.hi ?? null, word: c.word, refused: c.ratio.status === 'measured' ? (row.refused ?? null) : `ratio_vs_baseline=${c.ratio.reason}` };
}

// Leg rows then arm rows, flat, in the run's column set.
export function exportRows(r: RunResult): { set: FigureSet; rows: FlatRow[] } {
  const legs = legRows(r);
  const set = runSet(legs);
  const s = sweepOf(r);
  return { set, rows: [...legs.map((x) => legFlat(x, set)), ...armRows(legs).map((a) => withSweep(armFlat(a, set), s))] };
}

export function flatRows(r: RunResult): FlatRow[] {
  return exportRows(r).rows;
}

function csvField(v: FlatRow[string]): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

// RFC 4180 CSV: a header of column keys (units in their names), then one line per leg and per arm.
export function serializeCsv(r: RunResult): string {
  const { set, rows } = exportRows(r);
  const cols = COLUMN_SETS[set];
  const lines = [cols.map((c) => c.key).join(','), ...rows.map((row) => cols.map((c) => csvField(row[c.key] ?? null)).join(','))];
  return lines.join('\r\n') + '\r\n';
}

function identity(r: RunResult): { command: string; gate: string | null; recipe: string | null; run_dir: string } {
  return { command: r.command, gate: r.gate?.name ?? null, recipe: r.recipe?.name ?? null, run_dir: r.runDir };
}

// One JSON document: the run's identity and verdict, the column set and its columns with units, then the leg
// and arm rows.
export function serializeJson(r: RunResult): string {
  const { set, rows } = exportRows(r);
  return JSON.stringify({
    schemaVersion: EXPORT_SCHEMA_VERSION, ...identity(r), status: r.status,
    verdict: { word: r.verdict.word, exitClass: r.verdict.exitClass, reasons: verdictReasons(r) },
    columnSet: set, columns: COLUMN_SETS[set], legs: rows.filter((x) => x.row === 'leg'), arms: rows.filter((x) => x.row === 'arm'),
  }, null, 2) + '\n';
}

// JSON Lines: one object per leg and per arm, each carrying the run it came from, for appending to a ledger.
export function serializeJsonl(r: RunResult): string {
  return flatRows(r).map((row) => JSON.stringify({ schemaVersion: EXPORT_SCHEMA_VERSION, ...identity(r), ...row }) + '\n').join('');
}

// Markdown for a PR comment: the verdict, the leg table and the arm table, units in the headers.
export function serializeMarkdown(r: RunResult): string {
  const legs = legRows(r);
  const arms = armRows(legs);
  const out = [`## nh-gate ${r.command}${r.gate ? ` ${r.gate.name}` : ''}: ${r.verdict.word}`, ''];
  if (legs.length) out.push(...markdownLines(legGrid(legs)), '');
  if (arms.length) out.push(...markdownLines(armGrid(arms, measuredFigures(legs))), '');
  const s = sweepOf(r);
  if (s) out.push(...markdownLines(sweepGrid(s)), '', ...sweepMethodLines(s), '');
  return out.join('\n');
}

export const SERIALIZERS = { csv: serializeCsv, markdown: serializeMarkdown, json: serializeJson, jsonl: serializeJsonl } as const;
export type ExportFormat = keyof typeof SERIALIZERS;
