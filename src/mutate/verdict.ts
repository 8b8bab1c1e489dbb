import type { Expectation, Mutation } from '../config/mutations.js';
import { worstClass, type ExitClass } from '../verdict/words.js';
import type { SuiteRun, Verdict, VoidReason } from './types.js';
import { formatReason } from '../verdict/reasons.js';

// What one mutant's run measured, before any judgement.
export interface MutantMeasure {
  compileExit: number | null;
  errorCount: number | null;
  firstError?: string | null | undefined;
  binarySha: string | null;
  baselineSha: string;
  suite: SuiteRun | null;
  restoreSha: string | null;
  // Only when the restore missed the baseline: the sha of one more build of the unmutated tree.
  rebuiltSha?: string | null | undefined;
  interrupted: boolean;
}

// A verdict with its reason and the words for the status column.
export interface Judgement {
  verdict: Verdict;
  reason: VoidReason | null;
  detail: string;
  mustFailCaseFailed: boolean | null;
}

const voided = (reason: VoidReason, detail: string): Judgement => ({ verdict: 'VOID', reason, detail, mustFailCaseFailed: null });

// Whether a suite run is GREEN with real cases: the only baseline a mutant may be judged against.
export function judgeBaseline(run: SuiteRun): { ok: true } | { ok: false; reason: VoidReason; detail: string } {
  if (run.interrupted) return { ok: false, reason: 'INTERRUPTED', detail: 'baseline suite interrupted' };
  if (run.fault) return { ok: false, reason: run.fault.code, detail: `baseline suite not run: ${formatReason(run.fault)}` };
  if (run.counts === null) return { ok: false, reason: 'NO_SUITE', detail: `baseline suite printed no doctest summary (${endWords(run)})` };
  if (run.counts.cases.total <= 0) return { ok: false, reason: 'NO_CASES', detail: 'baseline suite selected 0 test cases: a filter that selects nothing prints SUCCESS' };
  if (run.exitCode !== 0 || run.counts.cases.failed > 0 || run.timedOut) return { ok: false, reason: 'BASELINE_RED', detail: `baseline suite is not GREEN (${endWords(run)}, ${run.counts.cases.failed} failed)` };
  return { ok: true };
}

function endWords(run: SuiteRun): string {
  if (run.timedOut) return 'timed out';
  if (run.signal) return `killed by ${run.signal}`;
  return `exit ${run.exitCode}`;
}

// The rules of the gate, in order: a mutant that did not compile, or whose binary did not change,
// or whose tree did not come back, proves nothing; only a built, changed, RED binary is CAUGHT.
export function judgeMutant(m: MutantMeasure, mutation: Mutation): Judgement {
  if (m.interrupted) return voided('INTERRUPTED', 'interrupted before the mutant finished');
  if (m.compileExit !== 0) return voided('UNVIABLE', `compile failed (exit ${m.compileExit}, ${m.errorCount ?? '?'} error lines)${m.firstError ? `: ${m.firstError}` : ''}`);
  if (m.binarySha === m.baselineSha) return voided('NOT_REBUILT', 'suite binary identical to the baseline: the mutant never reached it');
  const s = m.suite;
  if (s === null || s.interrupted) return voided('INTERRUPTED', 'suite interrupted');
  // The executor lost the suite's run (a Slurm job cancelled, timed out, its node lost): it proved nothing.
  if (s.fault) return voided(s.fault.code, `suite not run: ${formatReason(s.fault)}`);
  let j: Judgement;
  if (s.timedOut) j = { verdict: 'TIMEOUT', reason: null, detail: `suite timed out after ${s.durationS.toFixed(1)} s`, mustFailCaseFailed: null };
  else if (s.counts === null && s.exitCode === 0) j = voided('NO_SUITE', 'suite exited 0 without a doctest summary');
  else if (s.counts !== null && s.counts.cases.total <= 0) j = voided('NO_CASES', 'suite selected 0 test cases');
  else if (s.counts === null) {
    j = { verdict: 'CAUGHT', reason: null, detail: `RED: suite crashed (${endWords(s)}) before its summary`, mustFailCaseFailed: null };
  } else if (s.exitCode !== 0 || s.counts.cases.failed > 0 || s.counts.success === false) {
    const named = mutation.mustFailCase;
    const hit = named === undefined ? null : s.counts.failingCases.includes(named);
    const c = s.counts;
    j = {
      verdict: 'CAUGHT', reason: null, mustFailCaseFailed: hit,
      detail: `RED ${c.cases.failed}/${c.cases.total} cases failed${named === undefined ? '' : hit ? `, incl. '${named}'` : `, NOT '${named}'`}`,
    };
  } else {
    j = { verdict: 'SURVIVED', reason: null, detail: `GREEN ${s.counts.cases.passed}/${s.counts.cases.total} cases`, mustFailCaseFailed: mutation.mustFailCase ? false : null };
  }
  if (m.restoreSha !== m.baselineSha) {
    if (m.restoreSha !== null && m.rebuiltSha != null && m.rebuiltSha !== m.restoreSha) {
      return voided('NOT_REPRODUCIBLE', `${j.verdict}, but the unmutated ${mutation.file} built twice gave ${m.restoreSha.slice(0, 16)} and ${m.rebuiltSha.slice(0, 16)} (baseline ${m.baselineSha.slice(0, 16)}): the build is not reproducible, so no binary sha can prove a restore or an equivalence — nvcc: compile with --objdir-as-tempdir (and --frandom-seed=<per file> with -rdc)`);
    }
    return voided('NOT_RESTORED', `${j.verdict} then restore rebuilt ${m.restoreSha === null ? 'nothing' : m.restoreSha.slice(0, 16)}, not the baseline ${m.baselineSha.slice(0, 16)}`);
  }
  return j;
}

// Whether the row did what its table promised.
export function matchesExpectation(expect: Expectation, j: Judgement): boolean {
  if (expect === 'caught') return j.verdict === 'CAUGHT' && j.mustFailCaseFailed !== false;
  if (expect === 'survived') return j.verdict === 'SURVIVED';
  return j.verdict === 'VOID' && j.reason === 'UNVIABLE';
}

// A row's exit class: as promised → passed; a survivor or a catch the table did not promise → failed;
// anything that proved nothing (VOID, TIMEOUT) → void.
export function rowClass(expect: Expectation, j: Judgement): ExitClass {
  if (matchesExpectation(expect, j)) return 'passed';
  if (j.verdict === 'SURVIVED' || j.verdict === 'CAUGHT') return 'failed';
  return 'void';
}

// The run's class: the worst row; an interrupted run never passes.
export function runClass(rows: ExitClass[], interrupted: boolean): ExitClass {
  return worstClass(interrupted ? [...rows, 'void'] : rows);
}

// A generated row's class: a survivor fails the run, a catch passes it; a mutant that did not compile or
// never reached the binary is excluded (still printed VOID, never counted as a catch); any other VOID
// and a TIMEOUT proved nothing (void).
export function generatedClass(j: Judgement): { exitClass: ExitClass; excluded: boolean } {
  if (j.verdict === 'CAUGHT') return { exitClass: 'passed', excluded: false };
  if (j.verdict === 'SURVIVED') return { exitClass: 'failed', excluded: false };
  if (j.verdict === 'VOID' && (j.reason === 'UNVIABLE' || j.reason === 'NOT_REBUILT')) return { exitClass: 'passed', excluded: true };
  return { exitClass: 'void', excluded: false };
}
