import type { MutateReport } from '../run.js';
import type { LedgerEntry } from '../../results/ledger.js';
import type { VerdictWord } from '../../verdict/words.js';
import { verdictText } from './table.js';

// The run's verdict word: every row as the table expects → CAUGHT; an unexpected survivor → SURVIVED;
// anything else (a VOID the table did not expect, an interrupted run) → VOID.
export function mutateVerdict(rep: MutateReport): VerdictWord {
  if (rep.exitClass === 'passed') return 'CAUGHT';
  if (rep.exitClass === 'failed') return 'SURVIVED';
  return 'VOID';
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

// summary.md of a mutate run, like the other gates' summaries.
export function renderMutateSummary(rep: MutateReport): string {
  const out = [`## nh-gate mutate: ${mutateVerdict(rep)}${rep.interrupted ? ' (interrupted)' : ''}`, ''];
  out.push(`recipe ${rep.recipe}, ${rep.rows.length} mutant(s), ${rep.jobs} tree(s), ${rep.rebuild} rebuilds, ${rep.wallS.toFixed(1)} s; user tree ${rep.userTree.unchanged ? 'byte-identical' : 'CHANGED'}`, '');
  if (rep.baselineFailure) out.push(`baseline: ${cell(rep.baselineFailure)}`, '');
  out.push('| id | file | verdict | detail |', '|---|---|---|---|');
  for (const r of rep.rows) out.push(`| ${cell(r.id)} | ${cell(r.mutation.file)}${r.span ? `:${r.span.start.line}` : ''} | ${cell(verdictText(r))} | ${cell(r.detail)} |`);
  return out.join('\n') + '\n';
}

// The ledger line of a mutate run: counts by verdict, keyed like every other run.
export function mutateLedgerEntry(rep: MutateReport, arch: string, runDir: string, tablePath: string): LedgerEntry {
  const count = (v: string): number => rep.rows.filter((r) => r.verdict === v).length;
  return {
    schemaVersion: 1, at: new Date().toISOString(), command: 'mutate', gate: tablePath, gateSha256: null, recipe: rep.recipe, arch,
    siliconKey: null, binarySha256: [...new Set(rep.baselines.flatMap((b) => Object.values(b.binarySha)))],
    verdict: mutateVerdict(rep),
    figures: { caught: { value: count('CAUGHT'), unit: 'mutants' }, caughtBySanitizer: { value: count('CAUGHT BY SANITIZER'), unit: 'mutants' }, survived: { value: count('SURVIVED'), unit: 'mutants' }, void: { value: count('VOID'), unit: 'mutants' }, timeout: { value: count('TIMEOUT'), unit: 'mutants' } },
    runDir, series: { gate: tablePath, command: 'mutate', recipe: rep.recipe, golden: null, arms: [], modes: [] },
  };
}
