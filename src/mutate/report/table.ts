import Table from 'cli-table3';
import type { MutantResult } from '../types.js';

// The verdict cell: the verdict word, its VOID reason, and how it sits against the table's expectation.
export function verdictText(r: MutantResult): string {
  const word = r.reason ? `${r.verdict} ${r.reason}` : r.verdict;
  if (r.matchesExpectation) return r.expected === 'caught' ? word : `${word} (expected)`;
  return `${word} — expected ${r.expected}`;
}

function casesText(r: MutantResult): string {
  const c = r.suite?.counts?.cases;
  if (!c) return '-';
  const a = r.suite?.counts?.assertions;
  return `${c.total}: ${c.passed} ok, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}${a ? `; ${a.total} asserts, ${a.failed} failed` : ''}`;
}

function buildText(r: MutantResult): string {
  if (r.compileExit === null) return '-';
  return `exit ${r.compileExit}${r.errorCount ? `, ${r.errorCount} err` : ''}`;
}

// Column widths (padding included) that keep the table within 100 columns; long cells wrap.
export const TABLE_COL_WIDTHS = [16, 11, 14, 16, 18, 18] as const;

// The rows as the seeds' mutation table: every result beside its build exit, error count and binary sha,
// so a mutant that did not build or did not reach the binary can never read as a pass.
export function renderTable(rows: MutantResult[]): string {
  const t = new Table({
    head: ['id', 'build', 'binary sha12', 'cases', 'status', 'verdict'],
    colWidths: [...TABLE_COL_WIDTHS],
    wordWrap: true,
    wrapOnWordBoundary: false,
    style: { head: [], border: [] },
  });
  for (const r of rows) {
    t.push([r.id, buildText(r), r.binarySha ? r.binarySha.slice(0, 12) : '-', casesText(r), r.detail, verdictText(r)]);
  }
  return t.toString();
}
