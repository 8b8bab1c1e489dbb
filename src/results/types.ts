import type { Quantity } from '../quantity/types.js';
import type { Silicon } from '../silicon/types.js';
import type { TokenWord } from '../verdict/words.js';
import type { VerdictRecord } from '../verdict/record.js';
import type { AbForm, Comparison, Deviation } from './comparison.js';
import type { Reason } from '../verdict/reasons.js';
import type { BuildRecord } from '../build/types.js';
import type { ServePoint, ServeRecord } from '../serve/record.js';
import type { ProcessRun } from '../exec/types.js';

// result.json's schema version; bump on any breaking change to the shapes below.
export const RESULT_SCHEMA_VERSION = 1;

// Times in a result are seconds relative to the run's origin (the first monotonic instant of the series).
export interface ProcessSummary {
  argv: string[];
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  interrupted: boolean;
  spawnError: string | null;
  end: string;
  startS: number;
  endS: number;
  lastLines: string[];
  // What containment killed besides the leader (its group's leftovers and what escaped the group, each with the
  // mark that found it), whether the output pipes were held past the sweep, and which mechanisms held.
  contained?: NonNullable<ProcessRun['contained']>;
}

// One prompt judged against the golden by the harness.
export interface PromptJudgement {
  prompt: number;
  goldenWidth: number;
  generated: number;
  compared: number;
  matched: number;
  status: 'match' | 'near-tie' | 'divergence' | 'short';
  firstMismatch: { position: number; got: number; exp: number; marginNats: number | null } | null;
  got: number[] | null;
  exp: number[];
}

export interface TokenJudgement {
  // engine claim: the rows carried counts only, no ids; the harness compared nothing itself.
  source: 'events' | 'printed ids' | 'printed rows' | 'engine claim' | 'served streams';
  // Who saw the ids the verdict rests on (SPEC §2): the harness (events or id lines it read) or only the engine
  // (its counters and verdict line). A pass the harness did not see is printed and stored as the engine's claim.
  witness: 'harness' | 'engine';
  mode: string;
  prompts: PromptJudgement[];
  compared: number;
  matched: number;
  fullRows: number;
  shortRows: number;
  word: TokenWord;
  reasons: Reason[];
}

export interface CrossCheck {
  engineWord: string | null;
  engineExit: number | null;
  engineCompared: number | null;
  engineMatched: number | null;
  agree: boolean;
  explanation: string;
}

export interface LegRecord {
  index: number;
  arm: 'A' | 'B' | 'single';
  label: string;
  mode: string;
  flagEnv: Record<string, string>;
  binarySha256: string | null;
  process: ProcessSummary;
  logFile: string;
  eventsFile: string | null;
  samplesFile: string | null;
  samplerBackend: string | null;
  samplerNote: string | null;
  loadLine: { seen: boolean; tS: number | null; loadS: number | null; source: string | null };
  decodeWindow: { startS: number; endS: number; source: string } | null;
  engineWindow: { startS: number; endS: number } | null;
  tokens: TokenJudgement | null;
  // Who saw the ids the leg's token verdict rests on (tokens.witness, lifted for every output); null: not judged.
  witness?: 'harness' | 'engine' | null;
  crossCheck: CrossCheck | null;
  referenceTierLines: number;
  counters: Record<string, number>;
  counterRecords: number;
  // ourPids: the leg's process tree as seen while it ran; treeCpuS: its CPU seconds (null without /proc).
  // cpu: the CPU contention sentence when other processes used more than half the host's CPU over the leg.
  contention: { foreignPids: number[]; checked: boolean; note: string; ourPids?: number[]; treeCpuS?: number | null; cpu?: string };
  quantities: Record<string, Quantity>;
  // The leg's own verdict: a leg with wrong tokens or a void reason has no speed.
  verdict: TokenWord;
  voidReasons: Reason[];
  // SM clocks and clock-event reasons over the decode window (issue #11); absent where no GPU was sampled.
  clocks?: { throttled: boolean; throttleReasons: string[]; reasons: Record<string, number>; samples: number; line: string };
  // Hostile output (cut lines, invalid UTF-8, NUL, \r) and log write faults, by name; absent when none.
  outputNotes?: string[];
  // The silicon of the host that ran this leg (with --executor slurm, the node's), and the Slurm job behind it.
  silicon?: Silicon | null;
  slurm?: SlurmLegInfo;
  // A serve A/B's leg (src/serve/abLeg.ts): its load as `nh-gate serve` records one, every request in it.
  serve?: ServePoint;
}

// One leg's Slurm job: id, node, final state and reason as Slurm reported them, and which command said so.
export interface SlurmLegInfo {
  jobId: string | null;
  node: string | null;
  state: string | null;
  reason: string | null;
  exitCode: string | null;
  source: 'sacct' | 'scontrol' | 'squeue' | 'sbatch' | 'srun' | null;
  // The job step the leg ran as ("JOB.STEP") when its allocation is a lease (jobPer series or block).
  stepId?: string | null;
  // Series-relative seconds: sbatch called, and the job's end seen with its record read (Slurm's own cost is
  // the gap to process.startS and from process.endS).
  submitS?: number | null;
  collectS?: number | null;
}

// The run's verdict: one typed value (src/verdict/record.ts) every output serialises.
export type { VerdictRecord };

// The plan a run was made by: its text (what --dry-run printed, and what --resume checks), its legs, and for
// an A/B its form, warm-up, stop rule and every deviation from the gate's registered design.
export interface PlanRecord {
  text: string;
  order: string;
  seed: number | null;
  legs: number;
  form?: AbForm;
  binaries?: 'one binary' | 'two binaries';
  warmupLegs?: number;
  stop?: { kind: 'fixed'; legs: number } | { kind: 'sequential'; budgetLegs: number; blocks: number };
  deviations?: Deviation[];
}

// Everything a run knows: the document behind summary.md, junit.xml, the plots and the ledger line.
export interface RunResult {
  schemaVersion: typeof RESULT_SCHEMA_VERSION;
  tool: { name: 'nh-gate'; version: string };
  command: 'a3' | 'ab' | 'busy' | 'build' | 'serve';
  argv: string[];
  runDir: string;
  startedAt: string;
  finishedAt: string | null;
  status: 'running' | 'complete' | 'interrupted' | 'failed';
  recipe: { name: string; path: string | null } | null;
  golden: { name: string; revision: string; path: string | null } | null;
  gate: { name: string; path: string; sha256: string; hypothesis: unknown } | null;
  arch: string;
  silicon: Silicon | null;
  build: Omit<BuildRecord, 'configure' | 'build' | 'probes'> & { logFile: string | null } | null;
  plan: PlanRecord | null;
  legs: LegRecord[];
  quantities: Record<string, Quantity>;
  comparison: Comparison | null;
  verdict: VerdictRecord;
  notes: string[];
  // The nh-gate process writing this run, so a later one can tell a dead run from a live one.
  harness?: { pid: number; host: string; startTicks: number | null };
  // busy --executor slurm: the job the command ran in (legs carry their own).
  slurm?: SlurmLegInfo;
  // nh-gate serve: the load, the server and each load point's requests (src/serve/record.ts).
  serve?: ServeRecord;
}
