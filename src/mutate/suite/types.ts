import type { SuiteFormat } from '../../config/recipe.js';

export type { SuiteFormat } from '../../config/recipe.js';

// What a suite printed or wrote, as the reader got it: a structured report when the suite wrote one.
export type SuiteSource = 'console' | 'junit' | 'gtest-json' | 'catch2-xml' | 'doctest-xml';

// A case passed, failed, or did not run (skipped by the framework, by its own skip message, or disabled).
export type CaseStatus = 'passed' | 'failed' | 'skipped';

// One test case as the suite reported it. A case fails only when the suite reports a failure for it:
// printed output (a MESSAGE, a warning, a skip notice) never makes a case fail.
export interface CaseResult {
  name: string;
  status: CaseStatus;
  // Assertions where the format counts them; passed is null where it counts only failures (GoogleTest,
  // Catch2 without -s, doctest's console), and the whole record is null where it counts none (CTest).
  assertions: { passed: number | null; failed: number } | null;
  // The words that decided a failed or skipped status (the exception, the skip message), first line only.
  note?: string | undefined;
}

// One suite run read per case. cases are over the selected cases (skipped ones included: total =
// passed + failed + skipped); ran = passed + failed. caseResults lists every selected case when
// complete is true (structured reports, gtest and CTest consoles); doctest's and Catch2's consoles name
// only the cases that printed something, so there the totals come from the suite's own summary.
export interface SuiteCounts {
  format: SuiteFormat;
  source: SuiteSource;
  cases: { total: number; passed: number; failed: number; skipped: number };
  // The suite's own assertion totals where it prints them.
  assertions: { total: number; passed: number; failed: number } | null;
  success: boolean | null;
  failingCases: string[];
  skippedCases: string[];
  caseResults: CaseResult[];
  complete: boolean;
}

// A case as a reader saw it, with what it printed (MESSAGE, warning, its CTest output), which read.ts
// matches against the suite's skip message and then drops: printed text is evidence, not a result.
export interface ReadCase extends CaseResult {
  messages: string[];
}

// A reader's partial answer before read.ts applies the suite's skip message and derives the lists.
export interface ReadCases {
  cases: ReadCase[];
  complete: boolean;
  // The suite's own case totals (doctest and Catch2 consoles); derived from cases when null.
  totals: { passed: number; failed: number; skipped: number } | null;
  assertions: { total: number; passed: number; failed: number } | null;
  success: boolean | null;
}
