import Table from 'cli-table3';
import { formatBare } from '../quantity/render.js';
import type { Quantity, Refused, Withheld } from '../quantity/types.js';
import type { Summary } from '../stats/summary.js';
import { witnessedWord } from '../verdict/witness.js';
import { FIGURES, measuredFigures, unmeasuredFigures, type ArmRow, type Count, type FigureKey, type LegRow } from './rows.js';

// The compact tables of the text output and of summary.md / --export-markdown: the cells are written once
// here, the layout (aligned columns or a markdown table) is the caller's.

export interface Grid {
  head: string[];
  // Right-aligned columns (numbers).
  right: boolean[];
  rows: string[][];
  // The figure each column (leg grid) or each row (arm grid) shows, null elsewhere: report.html hangs the
  // figure's full rendering on it.
  figureCols?: Array<FigureKey | null>;
  figureRows?: Array<{ key: FigureKey | null; arm: string }>;
}

// A column header with its unit, unless the title already says it.
function head(k: FigureKey): string {
  const f = FIGURES[k];
  return f.title.includes(f.unit) ? f.title : `${f.title} [${f.unit}]`;
}

// A figure that was not measured, by its word and code: "REFUSED (WRONG_TOKENS)", "WITHHELD (CROSS_SILICON)".
export function refusalTag(q: Refused | Withheld): string {
  return `${q.status === 'withheld' ? 'WITHHELD' : 'REFUSED'} (${q.reason})`;
}

// A figure cell: the bare number (the unit is in the header), or its refusal by code; never blank for a refusal.
export function figureCell(q: Quantity | null): string {
  if (q === null) return '—';
  return q.status === 'measured' ? formatBare(q.value, q.unit) : refusalTag(q);
}

// The verdict cell: the word, and whose word it is when the harness saw no ids.
export function verdictCell(x: LegRow): string {
  if (x.warmup) return `${x.verdict} (warm-up, discarded)`;
  return witnessedWord(x.verdict, x.witness);
}

export const REQUESTS_TITLE = 'requests ok/total';

function countCell(c: Count | null): string {
  return c ? `${c.ok}/${c.total}` : '—';
}

// One row per leg: arm, tokens (and a serve leg's requests), the figures measured in at least one leg, time and verdict.
export function legGrid(rows: readonly LegRow[]): Grid {
  const figs = measuredFigures(rows);
  const served = rows.some((x) => x.requests !== null);
  const counts = served ? [REQUESTS_TITLE] : [];
  return {
    head: ['leg', 'arm', 'tokens', ...counts, ...figs.map(head), 'time [s]', 'verdict'],
    right: [true, false, true, ...counts.map(() => true), ...figs.map(() => true), true, false],
    rows: rows.map((x) => [
      String(x.leg), x.arm === 'single' ? x.mode : x.arm, x.tokens ? `${x.tokens.matched}/${x.tokens.compared}` : '—',
      ...(served ? [countCell(x.requests)] : []), ...figs.map((k) => figureCell(x.figures[k])), x.durationS.toFixed(2), verdictCell(x),
    ]),
    figureCols: [null, null, null, ...counts.map(() => null), ...figs, null, null],
  };
}

function meanSd(s: Summary, unit: string): string {
  return Number.isFinite(s.stdev) ? `${formatBare(s.mean, unit)} ± ${formatBare(s.stdev, unit)}` : `${formatBare(s.mean, unit)} (n=1, no σ)`;
}

// One row per figure and arm (arms of a figure side by side): n, mean ± σ, median, min–max. A serve arm's
// requests come first, summed over its legs (finished of sent: a count, so no spread).
export function armGrid(arms: readonly ArmRow[], figs: readonly FigureKey[]): Grid {
  const rows: string[][] = [];
  const figureRows: NonNullable<Grid['figureRows']> = [];
  for (const a of arms) {
    if (!a.requests) continue;
    rows.push([REQUESTS_TITLE, a.arm, String(a.legs), `${countCell(a.requests)} (sum over legs)`, '—', '—']);
    figureRows.push({ key: null, arm: a.arm });
  }
  for (const k of figs) {
    const unit = FIGURES[k].unit;
    for (const a of arms) {
      const s = a.stats[k];
      rows.push(s === null
        ? [head(k), a.arm, `0 of ${a.legs}`, '—', '—', '—']
        : [head(k), a.arm, s.n === a.legs ? String(s.n) : `${s.n} of ${a.legs}`, meanSd(s, unit), formatBare(s.median, unit), `${formatBare(s.min, unit)} – ${formatBare(s.max, unit)}`]);
      figureRows.push({ key: k, arm: a.arm });
    }
  }
  return { head: ['figure', 'arm', 'n', 'mean ± σ', 'median', 'min – max'], right: [false, false, true, true, true, true], rows, figureRows };
}

const NO_BORDER = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ',
};

// Aligned plain columns for a terminal or a CI log: no box drawing, one line per row, nothing trailing.
export function alignedLines(g: Grid): string[] {
  const t = new Table({ head: g.head, chars: NO_BORDER, colAligns: g.right.map((r) => (r ? 'right' : 'left')), style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 } });
  t.push(...g.rows);
  return t.toString().split('\n').map((l) => l.trimEnd());
}

function mdCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

// The same grid as a GitHub markdown table.
export function markdownLines(g: Grid): string[] {
  return [
    `| ${g.head.map(mdCell).join(' | ')} |`,
    `|${g.right.map((r) => (r ? '---:' : '---')).join('|')}|`,
    ...g.rows.map((row) => `| ${row.map(mdCell).join(' | ')} |`),
  ];
}

// What a reader of the compact tables must know: figures no leg measured, with the first refusal's reason.
export function unmeasuredLines(rows: readonly LegRow[]): string[] {
  return unmeasuredFigures(rows).map((u) => `${FIGURES[u.key].title}: not measured in any leg — ${u.why}`);
}
