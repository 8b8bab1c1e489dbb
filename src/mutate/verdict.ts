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

// On a GPU arch, what makes a suite run a GPU result: its GPU cases must not take their skip path.
// cpuOnlyAssertions is the whole suite's count with the GPU cases skipped (set only for an unfiltered run).
export interface GpuExpectation {
  gpuCases: readonly string[];
  cpuOnlyAssertions?: number | undefined;
}

// Why a run on a GPU arch is not a GPU result, or null: a GPU case read as skipped (by the framework or
// by the suite's skip message), or the assertion count equal to the CPU-only count.
export function gpuSkipped(run: SuiteRun, gpu: GpuExpectation | null | undefined): string | null {
  if (!gpu || !run.counts) return null;
  const skipped = gpu.gpuCases.filter((c) => run.counts!.skippedCases.includes(c));
  if (skipped.length) return `GPU case(s) took their skip path: ${skipped.map((c) => `'${c}'`).join(', ')} — not a GPU result`;
  const a = run.counts.assertions;
  if (gpu.cpuOnlyAssertions !== undefined && a && a.total === gpu.cpuOnlyAssertions) return `${a.total} assertions, exactly the CPU-only count: the GPU cases took their skip path — not a GPU result`;
  return null;
}

// The cases that ran (passed or failed); skipped ones ran nothing.
const ran = (run: SuiteRun): number => (run.counts ? run.counts.cases.passed + run.counts.cases.failed : 0);

// Whether a suite run is GREEN with real cases: the only baseline a mutant may be judged against.
export function judgeBaseline(run: SuiteRun, gpu?: GpuExpectation | null): { ok: true } | { ok: false; reason: VoidReason; detail: string } {
  if (run.interrupted) return { ok: false, reason: 'INTERRUPTED', detail: 'baseline suite interrupted' };
  if (run.fault) return { ok: false, reason: run.fault.code, detail: `baseline suite not run: ${formatReason(run.fault)}` };
  if (run.counts === null) return { ok: false, reason: 'NO_SUITE', detail: `baseline suite gave no per-case result (${endWords(run)}${run.readWhy ? `: ${run.readWhy}` : ''})` };
  if (ran(run) <= 0) return { ok: false, reason: 'NO_CASES', detail: `baseline suite ran 0 test cases (${run.counts.cases.skipped} skipped): a filter that selects nothing exits 0` };
  if (run.exitCode !== 0 || run.counts.cases.failed > 0 || run.timedOut) return { ok: false, reason: 'BASELINE_RED', detail: `baseline suite is not GREEN (${endWords(run)}, ${run.counts.cases.failed} failed${run.counts.failingCases.length ? `: ${run.counts.failingCases.slice(0, 3).join(', ')}` : ''})` };
  const skip = gpuSkipped(run, gpu);
  if (skip) return { ok: false, reason: 'GPU_SKIPPED', detail: `baseline: ${skip}` };
  return { ok: true };
}

function endWords(run: SuiteRun): string {
  if (run.timedOut) return 'timed out';
  if (run.signal) return `killed by ${run.signal}`;
  return `exit ${run.exitCode}`;
}

// The rules of the gate, in order: a mutant that did not compile, or whose binary did not change,
// or whose tree did not come back, proves nothing; only a built, changed, RED binary is CAUGHT. A RED
// names its failing cases (a case fails only when its suite reports a failure for it), and a named
// mustFailCase is credited only when it is among them.
export function judgeMutant(m: MutantMeasure, mutation: Mutation, gpu?: GpuExpectation | null): Judgement {
  if (m.interrupted) return voided('INTERRUPTED', 'interrupted before the mutant finished');
  if (m.compileExit !== 0) return voided('UNVIABLE', `compile failed (exit ${m.compileExit}, ${m.errorCount ?? '?'} error lines)${m.firstError ? `: ${m.firstError}` : ''}`);
  if (m.binarySha === m.baselineSha) return voided('NOT_REBUILT', 'suite binary identical to the baseline: the mutant never reached it');
  const s = m.suite;
  if (s === null || s.interrupted) return voided('INTERRUPTED', 'suite interrupted');
  // The executor lost the suite's run (a Slurm job cancelled, timed out, its node lost): it proved nothing.
  if (s.fault) return voided(s.fault.code, `suite not run: ${formatReason(s.fault)}`);
  const j = judgeRun(s, mutation, gpu);
  if (m.restoreSha !== m.baselineSha) {
    if (m.restoreSha !== null && m.rebuiltSha != null && m.rebuiltSha !== m.restoreSha) {
      return voided('NOT_REPRODUCIBLE', `${j.verdict}, but the unmutated ${mutation.file} built twice gave ${m.restoreSha.slice(0, 16)} and ${m.rebuiltSha.slice(0, 16)} (baseline ${m.baselineSha.slice(0, 16)}): the build is not reproducible, so no binary sha can prove a restore or an equivalence — nvcc: compile with --objdir-as-tempdir (and --frandom-seed=<per file> with -rdc)`);
    }
    return voided('NOT_RESTORED', `${j.verdict} then restore rebuilt ${m.restoreSha === null ? 'nothing' : m.restoreSha.slice(0, 16)}, not the baseline ${m.baselineSha.slice(0, 16)}`);
  }
  return j;
}

// What a finished suite run says about the mutant: TIMEOUT, RED (CAUGHT), GREEN (SURVIVED) or nothing.
function judgeRun(s: SuiteRun, mutation: Mutation, gpu: GpuExpectation | null | undefined): Judgement {
  if (s.timedOut) return { verdict: 'TIMEOUT', reason: null, detail: `suite timed out after ${s.durationS.toFixed(1)} s`, mustFailCaseFailed: null };
  const c = s.counts;
  if (c === null && s.exitCode === 0) return voided('NO_SUITE', `suite exited 0 without a per-case result${s.readWhy ? ` (${s.readWhy})` : ''}`);
  if (c !== null && ran(s) <= 0) return voided('NO_CASES', `suite ran 0 test cases (${c.cases.skipped} skipped)`);
  if (c === null) return { verdict: 'CAUGHT', reason: null, detail: `RED: suite crashed (${endWords(s)}) before its summary`, mustFailCaseFailed: null };
  if (s.exitCode !== 0 || c.cases.failed > 0 || c.success === false) {
    const named = mutation.mustFailCase;
    const hit = named === undefined ? null : c.failingCases.includes(named);
    const what = c.cases.failed > 0 ? `${c.cases.failed}/${c.cases.total} cases failed` : `${endWords(s)} with no failing case reported`;
    return { verdict: 'CAUGHT', reason: null, mustFailCaseFailed: hit, detail: `RED ${what}${named === undefined ? '' : hit ? `, incl. '${named}'` : `, NOT '${named}'`}` };
  }
  const skip = gpuSkipped(s, gpu);
  if (skip) return voided('GPU_SKIPPED', `GREEN, but ${skip}`);
  return { verdict: 'SURVIVED', reason: null, detail: `GREEN ${c.cases.passed}/${c.cases.total} cases${c.cases.skipped ? ` (${c.cases.skipped} skipped)` : ''}`, mustFailCaseFailed: mutation.mustFailCase ? false : null };
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

// A generated row's class: a survivor fails the run, a catch (by the suites or their sanitizer build) passes it; a mutant that did not compile or
// never reached the binary is excluded (still printed VOID, never counted as a catch); any other VOID
// and a TIMEOUT proved nothing (void).
export function generatedClass(j: Judgement): { exitClass: ExitClass; excluded: boolean } {
  if (j.verdict === 'CAUGHT' || j.verdict === 'CAUGHT BY SANITIZER') return { exitClass: 'passed', excluded: false };
  if (j.verdict === 'SURVIVED') return { exitClass: 'failed', excluded: false };
  if (j.verdict === 'VOID' && (j.reason === 'UNVIABLE' || j.reason === 'NOT_REBUILT')) return { exitClass: 'passed', excluded: true };
  return { exitClass: 'void', excluded: false };
}
