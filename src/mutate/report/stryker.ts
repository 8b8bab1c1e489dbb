import type { MutantResult } from '../types.js';

// mutation-testing-elements statuses (schema v2 of stryker-mutator/mutation-testing-elements).
export type StrykerStatus = 'Killed' | 'Survived' | 'NoCoverage' | 'CompileError' | 'RuntimeError' | 'Timeout' | 'Ignored' | 'Pending';

// How our verdicts map onto Stryker's: UNVIABLE is a CompileError, VOIDs decided before any build are
// Ignored, every other VOID (not rebuilt, not restored, no cases, interrupted) is a RuntimeError.
export function strykerStatus(r: MutantResult): StrykerStatus {
  if (r.verdict === 'CAUGHT' || r.verdict === 'CAUGHT BY SANITIZER') return 'Killed';
  if (r.verdict === 'SURVIVED') return 'Survived';
  if (r.verdict === 'TIMEOUT') return 'Timeout';
  if (r.reason === 'UNVIABLE') return 'CompileError';
  if (r.reason === 'STALE' || r.reason === 'AMBIGUOUS' || r.reason === 'SELF_TEST_FAILED' || r.reason === 'BASELINE_RED') return 'Ignored';
  return 'RuntimeError';
}

// Serializes the rows as a mutation-testing-elements report (schemaVersion 2): one file entry per
// mutated file with its source, so any Stryker dashboard or viewer reads it.
export function toStrykerReport(rows: MutantResult[], readSource: (file: string) => string | null): object {
  const files: Record<string, { language: string; source: string; mutants: object[] }> = {};
  for (const r of rows) {
    const f = r.mutation.file;
    files[f] ??= { language: /\.(cu|cuh)$/.test(f) ? 'cuda' : /\.(c|h)$/.test(f) ? 'c' : 'cpp', source: readSource(f) ?? '', mutants: [] };
    const span = r.span ?? { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } };
    files[f]!.mutants.push({
      id: r.id,
      mutatorName: r.origin ? r.origin.operator : r.mutation.selfTest ? 'SelfTest' : 'AnchorReplacement',
      replacement: r.origin ? r.origin.edit : r.mutation.replacement,
      description: r.mutation.why,
      location: { start: span.start, end: span.end },
      status: strykerStatus(r),
      statusReason: `${r.reason ? `${r.verdict} ${r.reason}` : r.verdict}: ${r.detail}${r.matchesExpectation ? '' : ` (expected ${r.expected})`}`,
      ...(r.suite?.counts ? { testsCompleted: r.suite.counts.cases.total, killedBy: r.suite.counts.failingCases } : {}),
      ...(r.suite ? { duration: Math.round(r.suite.durationS * 1000) } : {}),
    });
  }
  return { schemaVersion: '2', thresholds: { high: 80, low: 60 }, projectRoot: '.', files };
}
