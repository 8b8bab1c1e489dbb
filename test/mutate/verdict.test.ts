import { describe, expect, it } from 'vitest';
import { MutationSchema } from '../../src/config/mutations.js';
import type { SuiteRun } from '../../src/mutate/types.js';
import { judgeBaseline, judgeMutant, matchesExpectation, rowClass, runClass, type MutantMeasure } from '../../src/mutate/verdict.js';

const mutation = MutationSchema.parse({ id: 'm', file: 'f.cpp', anchor: 'a', replacement: 'b', why: 'w', suite: 's', expect: 'caught', mustFailCase: 'named' });
const suite = (o: Partial<SuiteRun> & { failed?: number; total?: number; failing?: string[] } = {}): SuiteRun => ({
  exitCode: (o.failed ?? 0) > 0 ? 1 : 0, signal: null, timedOut: false, interrupted: false, durationS: 1.5, tail: [],
  counts: {
    format: 'doctest', source: 'console', complete: false, skippedCases: [], caseResults: [],
    cases: { total: o.total ?? 3, passed: (o.total ?? 3) - (o.failed ?? 0), failed: o.failed ?? 0, skipped: 0 }, assertions: { total: 9, passed: 9, failed: 0 }, success: (o.failed ?? 0) === 0, failingCases: o.failing ?? [],
  },
  ...o,
});
const base = 'b'.repeat(64);
const measure = (o: Partial<MutantMeasure> = {}): MutantMeasure => ({
  compileExit: 0, errorCount: 0, binarySha: 'c'.repeat(64), baselineSha: base, suite: suite({ failed: 1, failing: ['named'] }), restoreSha: base, interrupted: false, ...o,
});

describe('mutant verdicts (pure)', () => {
  it('a built, changed, RED binary is CAUGHT, and says whether the named case failed', () => {
    expect(judgeMutant(measure(), mutation)).toMatchObject({ verdict: 'CAUGHT', mustFailCaseFailed: true });
    const other = judgeMutant(measure({ suite: suite({ failed: 1, failing: ['another'] }) }), mutation);
    expect(other).toMatchObject({ verdict: 'CAUGHT', mustFailCaseFailed: false });
    expect(other.detail).toMatch(/NOT 'named'/);
    expect(matchesExpectation('caught', other)).toBe(false);
    expect(rowClass('caught', other)).toBe('failed');
  });

  it('a compile failure is VOID UNVIABLE even when the old binary would run RED', () => {
    expect(judgeMutant(measure({ compileExit: 1, errorCount: 2 }), mutation)).toMatchObject({ verdict: 'VOID', reason: 'UNVIABLE' });
  });

  it('a suite run the executor lost (a Slurm job cancelled) is VOID by the Slurm code, never CAUGHT or SURVIVED; a lost baseline gates nothing', () => {
    const fault = { code: 'SLURM_CANCELLED' as const, message: 'job 9 on n1 ended CANCELLED' };
    // A cancelled job leaves a run that looks RED (no summary, killed): the fault must win over it.
    const lost = judgeMutant(measure({ suite: suite({ exitCode: null, signal: 'SIGTERM', counts: null, fault }) }), mutation);
    expect(lost).toMatchObject({ verdict: 'VOID', reason: 'SLURM_CANCELLED', detail: 'suite not run: SLURM_CANCELLED: job 9 on n1 ended CANCELLED' });
    expect(rowClass('caught', lost)).toBe('void');
    expect(judgeMutant(measure({ suite: suite({ fault }) }), { ...mutation, expect: 'survived' })).toMatchObject({ verdict: 'VOID', reason: 'SLURM_CANCELLED' });
    expect(judgeBaseline(suite({ fault }))).toMatchObject({ ok: false, reason: 'SLURM_CANCELLED' });
  });

  it('an unchanged binary is VOID NOT_REBUILT, never judged by its suite', () => {
    expect(judgeMutant(measure({ binarySha: base }), mutation)).toMatchObject({ verdict: 'VOID', reason: 'NOT_REBUILT' });
  });

  it('a restore that does not rebuild the baseline sha voids the row (NOT_RESTORED), whatever the suite said', () => {
    expect(judgeMutant(measure({ restoreSha: 'd'.repeat(64) }), mutation)).toMatchObject({ verdict: 'VOID', reason: 'NOT_RESTORED' });
    expect(judgeMutant(measure({ restoreSha: null }), mutation)).toMatchObject({ verdict: 'VOID', reason: 'NOT_RESTORED' });
  });

  it('GREEN is SURVIVED, a time-out is TIMEOUT (not CAUGHT), zero selected cases is VOID NO_CASES', () => {
    expect(judgeMutant(measure({ suite: suite() }), mutation).verdict).toBe('SURVIVED');
    expect(judgeMutant(measure({ suite: suite({ timedOut: true, exitCode: null, signal: 'SIGTERM', counts: null }) }), mutation).verdict).toBe('TIMEOUT');
    expect(judgeMutant(measure({ suite: suite({ total: 0 }) }), mutation)).toMatchObject({ verdict: 'VOID', reason: 'NO_CASES' });
    expect(judgeMutant(measure({ suite: suite({ counts: null, exitCode: 0 }) }), mutation)).toMatchObject({ verdict: 'VOID', reason: 'NO_SUITE' });
    expect(judgeMutant(measure({ suite: suite({ counts: null, exitCode: null, signal: 'SIGSEGV' }) }), mutation).verdict).toBe('CAUGHT');
    expect(judgeMutant(measure({ interrupted: true }), mutation)).toMatchObject({ verdict: 'VOID', reason: 'INTERRUPTED' });
  });

  it('the baseline must be GREEN with a non-zero case count', () => {
    expect(judgeBaseline(suite())).toEqual({ ok: true });
    expect(judgeBaseline(suite({ total: 0 }))).toMatchObject({ ok: false, reason: 'NO_CASES' });
    expect(judgeBaseline(suite({ failed: 1 }))).toMatchObject({ ok: false, reason: 'BASELINE_RED' });
    expect(judgeBaseline(suite({ counts: null }))).toMatchObject({ ok: false, reason: 'NO_SUITE' });
  });

  it('compares outcomes with the table: an expected survivor or unviable passes, the run class is the worst row', () => {
    const survived = judgeMutant(measure({ suite: suite() }), mutation);
    const unviable = judgeMutant(measure({ compileExit: 1 }), mutation);
    expect(rowClass('survived', survived)).toBe('passed');
    expect(rowClass('caught', survived)).toBe('failed');
    expect(rowClass('unviable', unviable)).toBe('passed');
    expect(rowClass('caught', unviable)).toBe('void');
    expect(rowClass('survived', judgeMutant(measure(), mutation))).toBe('failed');
    expect(runClass(['passed', 'passed'], false)).toBe('passed');
    expect(runClass(['passed', 'void'], false)).toBe('void');
    expect(runClass(['void', 'failed'], false)).toBe('failed');
    expect(runClass(['passed'], true)).toBe('void');
  });
});
