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
  return `${c.total}: ${c.passed} ok, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}`;
}

function assertionsText(r: MutantResult): string {
  const a = r.suite?.counts?.assertions;
  return a ? `${a.total}: ${a.failed} failed` : '-';
}

const dash = (v: number | string | null | undefined): string => (v === null || v === undefined ? '-' : String(v));

// The rows as the seeds' mutation table: every result beside its compile exit, error count and binary sha,
// so a mutant that did not build or did not reach the binary can never read as a pass.
export function renderTable(rows: MutantResult[]): string {
  const t = new Table({
    head: ['id', 'compile exit', 'errors', 'binary sha16', 'cases', 'assertions', 'status', 'verdict'],
    style: { head: [], border: [] },
  });
  for (const r of rows) {
    t.push([r.id, dash(r.compileExit), dash(r.errorCount), r.binarySha ? r.binarySha.slice(0, 16) : '-', casesText(r), assertionsText(r), r.detail, verdictText(r)]);
  }
  return t.toString();
}
