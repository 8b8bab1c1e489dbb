import type { Mutation, MutationTable } from '../config/mutations.js';
import { NhGateError } from '../errors.js';
import type { PlannedMutant, SourceSpan } from './types.js';

// Which rows a run selects: --only and --in-diff narrow the table; self-test rows of a selected suite always stay.
export interface SelectOptions {
  // One row id, or several separated by commas (ids never contain one).
  only?: string | undefined;
  changedFiles?: ReadonlySet<string> | undefined;
}

// The ids --only names.
export function onlyIds(only: string): Set<string> {
  return new Set(only.split(',').map((x) => x.trim()).filter(Boolean));
}

// Counts occurrences of needle in text (non-overlapping scan from each hit + 1, so overlaps count too).
export function countOccurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) n++;
  return n;
}

// 1-based line/column of the anchor's first and last character.
export function spanOf(text: string, offset: number, length: number): SourceSpan {
  const at = (pos: number): { line: number; column: number } => {
    const before = text.slice(0, pos);
    const line = before.split('\n').length;
    return { line, column: pos - before.lastIndexOf('\n') };
  };
  return { start: at(offset), end: at(offset + length), offset };
}

// Narrows the table to what the user asked for; an unknown --only id is a usage error.
export function selectMutants(table: MutationTable, opts: SelectOptions): Mutation[] {
  let rows = table.mutants.filter((m) => !m.selfTest);
  const only = opts.only === undefined ? null : onlyIds(opts.only);
  if (only !== null) {
    rows = rows.filter((m) => only.has(m.id));
    const unknown = [...only].filter((id) => !table.mutants.some((m) => m.id === id));
    if (unknown.length > 0 || only.size === 0) {
      throw new NhGateError('USAGE', `--only ${opts.only}: no row with ${unknown.length > 1 ? 'the ids' : 'that id'} ${unknown.join(', ')} in the table`.trimEnd(), `use one of: ${table.mutants.map((m) => m.id).join(', ')}`);
    }
  }
  if (opts.changedFiles !== undefined) {
    const changed = opts.changedFiles;
    rows = rows.filter((m) => changed.has(m.file));
  }
  const suites = new Set(rows.map((m) => m.suite));
  if (only !== null) for (const m of table.mutants) if (m.selfTest && only.has(m.id)) suites.add(m.suite);
  const selfTests = table.mutants.filter((m) => m.selfTest && suites.has(m.suite));
  return [...selfTests, ...rows];
}

// The preflight: every anchor must match exactly once in the file as it is now; 0 is STALE,
// more is AMBIGUOUS, and both are VOID before any build. Pure over the files' text.
export function planMutants(rows: Mutation[], readText: (file: string) => string | null): PlannedMutant[] {
  return rows.map((mutation): PlannedMutant => {
    const text = readText(mutation.file);
    const count = text === null ? 0 : countOccurrences(text, mutation.anchor);
    if (text === null || count === 0) return { kind: 'void', mutation, reason: 'STALE', count: 0 };
    if (count > 1) return { kind: 'void', mutation, reason: 'AMBIGUOUS', count };
    return { kind: 'run', mutation, span: spanOf(text, text.indexOf(mutation.anchor), mutation.anchor.length) };
  });
}

// Applies a planned mutant to the file's text (the anchor occurs exactly once by construction).
export function applyMutation(text: string, mutation: Mutation): string {
  const at = text.indexOf(mutation.anchor);
  if (at === -1 || text.indexOf(mutation.anchor, at + 1) !== -1) {
    throw new NhGateError('INTERNAL', `${mutation.file}: anchor of ${mutation.id} no longer matches exactly once in the scratch copy`);
  }
  return text.slice(0, at) + mutation.replacement + text.slice(at + mutation.anchor.length);
}
