import type { Plan } from '../../plan/plan.js';
import type { Quantity } from '../../quantity/types.js';
import type { Comparison } from '../../results/comparison.js';
import type { LegRecord, PlanRecord, RunResult } from '../../results/types.js';
import type { ExitClass } from '../../verdict/words.js';
import type { VerdictRecord } from '../../verdict/record.js';
import type { Inputs } from '../setup.js';
import type { LegContext, LegOutcome } from '../leg/leg.js';
import type { PlannedLeg } from '../../plan/plan.js';

// The one scheduler's contract: a command (a3, every A/B form) gives it a plan and a pure judge; the series
// builds the plan's binaries, runs its legs through the executor seam, saves after every leg, and asks the
// judge what the legs so far amount to. Nothing the judge returns is edited afterwards.

// Where a binary is built from: the recipe's own tree, or a detached git worktree of one commit.
export type BinaryTree =
  | { kind: 'recipe' }
  | { kind: 'commit'; side: 'base' | 'head'; rev: string; commit: string; top: string; worktrees: string };

// One build and the arms whose legs run it.
export interface BinarySite {
  arms: Array<'A' | 'B' | 'single'>;
  tree: BinaryTree;
  // The build log's file name in the run directory.
  logFile: string;
}

// What the series runs: the legs (in order), the binaries, and the record the result keeps of the plan.
export interface SeriesPlan {
  legs: Plan;
  binaries: BinarySite[];
  warmupLegs: number;
  record: PlanRecord;
}

// What the legs so far amount to (a3's token gate, an A/B's judge).
export interface Judgement {
  quantities: Record<string, Quantity>;
  comparison: Comparison | null;
  verdict: VerdictRecord;
  notes: string[];
  // The verdict is decided (a sequential A/B): run no more legs.
  stop?: boolean;
}

// What a judge may read of the run besides its legs (read, never edited).
export interface JudgeSite {
  runDir: string;
  arch: string;
  silicon: RunResult['silicon'];
  recipe: RunResult['recipe'];
  plannedLegs: number;
}

export interface SeriesSpec {
  command: 'a3' | 'ab';
  argv: string[];
  inputs: Inputs;
  archClaim?: string | undefined;
  jobs: number;
  // Results base (.nh-gate by default): runs/ and ledger.jsonl live under it.
  resultsBase: string;
  checkpoint?: string | undefined;
  timeoutS?: number | undefined;
  gateName: string;
  // The plan, once the arch is known (a device arch turns device-arm flags on for a3).
  plan: (arch: string) => SeriesPlan;
  // Pure: called after every leg (done false) and once at the end (done true, unless interrupted).
  judge: (legs: readonly LegRecord[], done: boolean, at: JudgeSite) => Judgement;
  // The A/B per-leg distribution plot's title.
  abPlotTitle?: string;
  // --resume RUN_DIR: keep that run's finished legs, run only the missing ones into it.
  resume?: string | undefined;
  // What one leg is, where it is not one driver process (a serve A/B: a load against a server started with the
  // arm's env, src/serve/abLeg.ts); absent: the driver leg of src/gates/leg/leg.ts through the executor.
  runLeg?: ((ctx: LegContext, planned: PlannedLeg) => Promise<LegOutcome>) | undefined;
}

export interface SeriesOutcome {
  result: RunResult;
  exitClass: ExitClass;
}
