import type { RunResult } from '../results/types.js';
import { armRows, FIGURE_KEYS, FIGURES, legRows, measuredFigures, type ArmRow, type LegRow } from './rows.js';
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

// Every column of the machine formats, in order, each with its unit and meaning (the JSON export lists them).
export const COLUMNS: Column[] = [
  { key: 'row', unit: null, means: "'leg' or 'arm'" },
  { key: 'leg', unit: null, means: '1-based leg number in run order (empty on an arm row)' },
  { key: 'arm', unit: null, means: "A, B, 'single' (a3), or a sweep arm as FLAG=VALUE" },
  { key: 'label', unit: null, means: 'the leg as the plan names it' },
  { key: 'mode', unit: null, means: 'decode or fresh-prefill' },
  { key: 'verdict', unit: null, means: "the leg's token verdict" },
  { key: 'witness', unit: null, means: "who saw the token ids: 'harness', or 'engine' (the engine's claim)" },
  { key: 'warmup', unit: null, means: 'a warm-up leg: ran, discarded, in no arm row' },
  { key: 'legs', unit: 'legs', means: 'arm: legs counted (warm-ups excluded)' },
  { key: 'tokens_compared', unit: 'tokens', means: 'tokens the harness compared with the golden' },
  { key: 'tokens_matched', unit: 'tokens', means: 'of those, tokens equal to the golden' },
  { key: 'duration_s', unit: 's', means: 'wall time of the leg process' },
  { key: 'decode_window_s', unit: 's', means: "engine load-complete line to the last token's arrival" },
  ...FIGURE_KEYS.flatMap((k) => STATS.map(([suffix, what]) => ({ key: `${FIGURES[k].key}${suffix}`, unit: suffix === '_n' ? 'legs' : FIGURES[k].unit, means: `${FIGURES[k].means}; ${what}` }))),
  { key: 'refused', unit: null, means: 'figures this leg refused, as column=REASON; …' },
  { key: 'ratio_vs_baseline', unit: 'x', means: "sweep arm: median s/token of the arm ÷ the baseline arm's" },
  { key: 'ratio_vs_baseline_lo', unit: 'x', means: "sweep arm: the ratio's lower bound (Bonferroni-adjusted bootstrap interval)" },
  { key: 'ratio_vs_baseline_hi', unit: 'x', means: "sweep arm: the ratio's upper bound" },
  { key: 'word', unit: null, means: "sweep arm: its criteria's word against the baseline (Holm-corrected), 'baseline', or empty when no claim" },
];

export type FlatRow = Record<string, string | number | boolean | null>;

function blank(): FlatRow {
  return Object.fromEntries(COLUMNS.map((c) => [c.key, null]));
}

export function legFlat(x: LegRow): FlatRow {
  const row: FlatRow = { ...blank(), row: 'leg', leg: x.leg, arm: x.arm, label: x.label, mode: x.mode, verdict: x.verdict, witness: x.witness, warmup: x.warmup };
  row.tokens_compared = x.tokens?.compared ?? null;
  row.tokens_matched = x.tokens?.matched ?? null;
  row.duration_s = x.durationS;
  row.decode_window_s = x.decodeWindowS;
  const refused: string[] = [];
  for (const k of FIGURE_KEYS) {
    const q = x.figures[k];
    if (q?.status === 'measured') row[FIGURES[k].key] = q.value;
    else if (q) refused.push(`${FIGURES[k].key}=${q.reason}`);
  }
  row.refused = refused.length ? refused.join('; ') : null;
  return row;
}

export function armFlat(a: ArmRow): FlatRow {
  const row: FlatRow = { ...blank(), row: 'arm', arm: a.arm, mode: a.mode, legs: a.legs };
  for (const k of FIGURE_KEYS) {
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

// Leg rows then arm rows, flat.
export function flatRows(r: RunResult): FlatRow[] {
  const legs = legRows(r);
  const s = sweepOf(r);
  return [...legs.map(legFlat), ...armRows(legs).map((a) => withSweep(armFlat(a), s))];
}

function csvField(v: FlatRow[string]): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

// RFC 4180 CSV: a header of column keys (units in their names), then one line per leg and per arm.
export function serializeCsv(r: RunResult): string {
  const lines = [COLUMNS.map((c) => c.key).join(','), ...flatRows(r).map((row) => COLUMNS.map((c) => csvField(row[c.key] ?? null)).join(','))];
  return lines.join('\r\n') + '\r\n';
}

function identity(r: RunResult): { command: string; gate: string | null; recipe: string | null; run_dir: string } {
  return { command: r.command, gate: r.gate?.name ?? null, recipe: r.recipe?.name ?? null, run_dir: r.runDir };
}

// One JSON document: the run's identity and verdict, the columns with units, then the leg and arm rows.
export function serializeJson(r: RunResult): string {
  const rows = flatRows(r);
  return JSON.stringify({
    schemaVersion: EXPORT_SCHEMA_VERSION, ...identity(r), status: r.status,
    verdict: { word: r.verdict.word, exitClass: r.verdict.exitClass, reasons: verdictReasons(r) },
    columns: COLUMNS, legs: rows.filter((x) => x.row === 'leg'), arms: rows.filter((x) => x.row === 'arm'),
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
