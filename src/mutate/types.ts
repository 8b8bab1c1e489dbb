import type { Expectation, Mutation } from '../config/mutations.js';
import type { ExitClass } from '../errors.js';
import type { GeneratedOrigin } from './generate/generate.js';
import type { SlurmLegInfo } from '../results/types.js';
import type { Reason, VoidCode } from '../verdict/reasons.js';
import type { VerdictWord } from '../verdict/words.js';
import type { SuiteCounts } from './suite/types.js';

// An executor's reason a suite run measured nothing (--executor slurm: the job was cancelled, lost …).
export type ExecutorFaultCode = Extract<VoidCode, `SLURM_${string}` | 'NEVER_STARTED' | 'RUN_DIR_UNREACHABLE' | 'NO_SUCH_SILICON' | 'NODE_LOCKED'>;
export type ExecutorFault = Reason & { code: ExecutorFaultCode };

// Why a mutant proved nothing. STALE/AMBIGUOUS are decided before any build; the rest by the run.
export type VoidReason =
  | 'STALE'            // anchor not found in the file
  | 'AMBIGUOUS'        // anchor found more than once
  | 'UNVIABLE'         // the mutant did not compile: never a catch
  | 'NOT_REBUILT'      // the suite binary's sha equals the baseline: the mutant never reached it
  | 'NOT_RESTORED'     // after restore + rebuild the binary is not the baseline again
  | 'NOT_REPRODUCIBLE' // the unmutated file built twice gave two binaries: no sha can prove restore or equivalence
  | 'NO_GPU_ARCH'      // a device row on arch cpu: the defect is in code this build does not compile
  | 'GPU_SKIPPED'      // a device row's suite ran GREEN with its GPU cases on their skip path: not a GPU result
  | 'NO_CASES'         // the suite (with its filter) selected zero test cases
  | 'BASELINE_RED'     // the unmutated suite is not GREEN: a RED mutant would prove nothing
  | 'SELF_TEST_FAILED' // the armed self-test of this suite was not CAUGHT
  | 'NO_SUITE'         // the suite did not run or its output could not be read (missing, no summary, format unknown)
  | 'GPU_SKIPPED'      // a GPU arch run whose GPU cases took their skip path: not a GPU result
  | 'INTERRUPTED'      // SIGINT/SIGTERM arrived before this mutant finished
  | 'TREE_BROKEN'      // no scratch tree left that restored cleanly
  | ExecutorFaultCode; // the suite's Slurm job ended without running it (cancelled, timed out, node lost …)

// A row's verdict word (SPEC §2); TIMEOUT is kept apart from CAUGHT: a hang is not a named red case, and
// CAUGHT BY SANITIZER apart from both: a survivor of the plain suites that only their sanitizer build sees.
export type Verdict = Extract<VerdictWord, 'CAUGHT' | 'CAUGHT BY SANITIZER' | 'SURVIVED' | 'TIMEOUT' | 'VOID'>;

// Where an anchor sits in its file, 1-based (the mutation-testing-elements convention).
export interface SourceSpan {
  start: { line: number; column: number };
  end: { line: number; column: number };
  offset: number;
}

// A mutant the plan cleared to run (anchor found once), or one it voided before any build.
export type PlannedMutant =
  | { kind: 'run'; mutation: Mutation; span: SourceSpan }
  | { kind: 'void'; mutation: Mutation; reason: 'STALE' | 'AMBIGUOUS'; count: number };

// One suite run: what the process did and what its framework reported, per case (src/mutate/suite/).
export interface SuiteRun {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  interrupted: boolean;
  durationS: number;
  counts: SuiteCounts | null;
  // Why counts is null: the suite did not finish, or its output could not be read as its format.
  readWhy?: string | null | undefined;
  // A sanitizer's first report in the output (ASan, UBSan …), or null.
  sanitizer?: string | null | undefined;
  tail: string[];
  // --executor slurm: the job the suite ran in, and its fault when Slurm ended it (the row is VOID by it).
  slurm?: SlurmLegInfo | undefined;
  fault?: ExecutorFault | undefined;
}

// One compile: exit, error lines, how long, and the suite binaries' sha256 afterwards.
export interface BuildRun {
  exitCode: number | null;
  errorCount: number;
  firstError: string | null;
  durationS: number;
  interrupted: boolean;
  tail: string[];
}

// Everything measured for one row; verdict + reason are derived from it by verdict.ts.
export interface MutantResult {
  id: string;
  mutation: Mutation;
  span: SourceSpan | null;
  tree: number | null;
  compileExit: number | null;
  errorCount: number | null;
  binarySha: string | null;
  suite: SuiteRun | null;
  mustFailCaseFailed: boolean | null;
  restoreSha: string | null;
  verdict: Verdict;
  reason: VoidReason | null;
  detail: string;
  expected: Expectation;
  matchesExpectation: boolean;
  exitClass: ExitClass;
  buildS: number | null;
  // Generated rows (--in-diff): where the mutant came from; absent on the table's own rows.
  origin?: GeneratedOrigin | undefined;
  // A generated row that proved nothing about the tests (UNVIABLE, NOT_REBUILT): shown as VOID, left
  // out of the run's exit class and score, as cargo-mutants does with unviable mutants.
  excluded?: boolean | undefined;
  // Taken from the result cache: same mutant, same file sha, same baseline binary sha.
  cached?: boolean | undefined;
  // A generated survivor of a relational/bounds/index operator, re-run under the recipe's sanitizer build.
  sanitizer?: SanitizerRejudge | undefined;
}

// One survivor's re-run in the sanitizer build, with the same proofs (changed binary, restored baseline).
// credited: the sanitized suite went RED with a sanitizer report, so the row reads CAUGHT BY SANITIZER.
export interface SanitizerRejudge {
  credited: boolean;
  verdict: Verdict;
  reason: VoidReason | null;
  detail: string;
  finding: string | null;
  binarySha: string | null;
  restoreSha: string | null;
  suite: SuiteRun | null;
  buildS: number | null;
}

// Baseline of one scratch tree: binaries' sha and the GREEN suite runs that gate every mutant.
export interface TreeBaseline {
  tree: number;
  buildS: number;
  binarySha: Record<string, string>;
  suites: Record<string, SuiteRun>;
}
