import type { Quantity } from '../quantity/types.js';
import type { HypothesisWord } from '../verdict/words.js';

// result.json's `comparison`: what a run compared, typed. An A/B's (every form) or a busy run's; a3 has none.
export type Comparison = AbComparison | BusyComparison;

// The two arms of an A/B.
export type Arm = 'A' | 'B';
// What a criterion claims: at least X better, at most X worse, or within ±X.
export type ClaimTest = 'superiority' | 'non-inferiority' | 'equivalence';
// The effect's scale: one arm ÷ the other, or one − the other in percentage points.
export type EffectScale = 'ratio' | 'points';

// The A/B forms: one binary under a flag at fixed N or sequentially, an A/A calibration, two commits, or a
// sweep of N values of one flag, each against a baseline value.
export type AbForm = 'fixed' | 'sequential' | 'aa' | 'cross-commit' | 'sweep';

// An interval on one effect, in the effect's units (a ratio, or percentage points), and how it was made.
export interface EffectInterval {
  lo: number;
  hi: number;
  // 0.95 for the bootstrap; 1 − α for an anytime-valid interval (it covers at every look at once).
  level: number;
  method: string;
}

// How a REFUTED was refuted: superiority smaller than registered or opposite in direction; non-inferiority
// worse than its margin; equivalence outside its margins.
export type RefutedAs = 'smaller' | 'opposite' | 'worse' | 'outside';

// One block of an ABBA sequential A/B: its legs and the observation it gives (or why it gives none).
export interface BlockRecord {
  block: number; // 1-based
  legs: number[]; // 1-based leg numbers, in run order
  // The block's observation in the effect's scale: mean log subject − mean log reference (ratio), or the
  // difference of means in points.
  x: number | null;
  skipped: string | null;
  // The anytime-valid interval after this block, in the effect's units (exp of the log bounds for a ratio).
  lo: number | null;
  hi: number | null;
  mean: number | null;
}

// One criterion's anytime-valid test over the blocks run so far.
export interface SequentialMetricRecord {
  sigma: number;
  tau: number;
  blocks: BlockRecord[];
  decidedAtBlock: number | null;
  observedSd: number | null;
  exceedsRegistered: boolean;
}

// One metric of an A/A calibration: how often the gate's own test would claim a difference that cannot exist.
export interface AaRecord {
  key: string;
  blocks: number;
  xs: number[];
  observedSd: number | null;
  // A nonzero mean in an A/A is a position or order effect, not noise: shown, and tested by the run's own CS.
  observedMean: number | null;
  registeredSigma: number;
  // Whether this run's own confidence sequence ever excluded no-effect.
  falseAlarmThisRun: boolean;
  // The rate over budget-long block sequences resampled from this run's centred blocks (null: too few blocks).
  falseAlarmRate: number | null;
  resamples: number;
  seed: number;
  alpha: number;
  holds: boolean;
  text: string;
}

// One criterion judged (or, for a report-only A/B, one figure reported).
export interface MetricComparison {
  key: string;
  metric: string;
  scale: EffectScale;
  test: ClaimTest;
  subject: Arm;
  reference: Arm;
  // The claim's region as a formula and in words.
  bound: string;
  says: string;
  region: { lo: number | null; hi: number | null };
  // The effect's point estimate with its terms (ratio of medians, difference of medians, or the sequential mean).
  estimate: Quantity;
  interval: EffectInterval | null;
  n: { subject: number; reference: number };
  // null: reported, not judged.
  word: HypothesisWord | null;
  refutedAs: RefutedAs | null;
  text: string;
  sequential: SequentialMetricRecord | null;
  aa: AaRecord | null;
}

// The binaries behind the arms: one build under a flag, or two commits built in their own worktrees.
export type BinariesRecord =
  | { kind: 'one' }
  | { kind: 'two'; label: string; base: CommitBinary; head: CommitBinary; identical: boolean };

export interface CommitBinary {
  rev: string;
  commit: string;
  tree: string;
  binarySha256: string | null;
}

export interface OutlierLeg {
  leg: number;
  // A or B; a sweep's arm by its name (THREADS=4).
  arm: string;
  value: number;
  modifiedZ: number;
}

export interface CounterDiff {
  field: string;
  A: number;
  B: number;
}

// A command-line choice that departs from the gate's registered design (issue 21): recorded, and printed on
// the verdict line; a locked gate refuses it.
export interface Deviation {
  // The command-line option, and the gate field it departs from.
  option: string;
  field: string;
  registered: string;
  given: string;
  text: string;
}

// The error rates a verdict's method states, and what they assume.
export interface ErrorRates {
  wrongSupportedMax: number;
  wrongRefutedMax: number;
  assumes: string;
}

export interface AbComparison {
  kind: 'ab';
  form: AbForm;
  // The claim as bound to these arms (source none: report-only).
  claim: { source: 'hypothesis' | 'criteria' | 'none'; statement: string | null; combine: 'all' | 'any'; refutationFails: boolean };
  // The arms as the gate and the command line named them, and which one ran the flag on.
  arms: Record<Arm, string>;
  onArm: Arm;
  binaries: BinariesRecord;
  // The interval method the verdict rests on.
  method: { kind: 'bootstrap' | 'anytime-valid' | 'aa-calibrated'; text: string };
  metrics: MetricComparison[];
  // A sequential run: the block after which the combined verdict was decided, and the legs that took.
  decidedAtBlock: number | null;
  legsUsed: number;
  errorRates: ErrorRates;
  spreads: Record<string, number | null>;
  counterDiff: CounterDiff[];
  // null: the engine printed no counters; false: identical counters and one binary in both arms.
  armsDiffered: boolean | null;
  outliers: OutlierLeg[];
  // A sweep: its arms, design, correction and one comparison per arm against the baseline.
  sweep?: SweepRecord;
}

// One arm of a sweep: its legs and per-token figures (median over the legs that passed their token gate).
export interface SweepArmRecord {
  arm: string;
  value: string;
  baseline: boolean;
  // Judged legs of the arm, and those with a measured per-token time that passed their token gate.
  legs: number;
  n: number;
  medianPerTokenS: number | null;
  tokensPerS: number | null;
}

// One non-baseline arm against the baseline: the per-token ratio with its simultaneous (Bonferroni)
// interval, each criterion as Holm's step-down decided it, and the arm's word by the gate's combine rule.
export interface SweepComparisonRecord {
  arm: string;
  value: string;
  ratio: Quantity;
  interval: EffectInterval | null;
  metrics: MetricComparison[];
  // Per criterion: the Holm step that decided it (null: never) and the per-comparison α it was tested at.
  holm: Array<{ key: string; step: number | null; alpha: number }>;
  word: HypothesisWord | null;
  // The counters that differ between the baseline (A) and this arm (B), by field name, and whether the two took
  // different paths at all (null: the engine printed no counters), as an A/B of the two reads them.
  counterDiff: CounterDiff[];
  armsDiffered: boolean | null;
}

export interface SweepRecord {
  flag: string;
  baseline: string;
  values: string[];
  design: { kind: 'williams'; blocks: number; cycle: number; order: string[][]; text: string };
  correction: { method: 'holm'; familyAlpha: number; comparisons: number; intervals: 'bonferroni'; intervalLevel: number; text: string };
  arms: SweepArmRecord[];
  comparisons: SweepComparisonRecord[];
}

// A busy run: the process, the window busy was taken over, clocks and the sampler.
export interface BusyComparison {
  kind: 'busy';
  process: { argv: string[]; exitCode: number | null; signal: string | null; timedOut: boolean; end: string; lastLines: string[] };
  window: { startS: number; endS: number; opensAt: string; closesAt: string } | null;
  clocks: { throttled: boolean; throttleReasons: string[]; reasons: Record<string, number>; samples: number };
  sampler: { backend: string; reason: string | null; count: number; errors: string[]; samplesFile: string | null };
}

// The run-level figure key of a criterion's anytime-valid estimate: sequential<Key> ('ratio' → 'sequentialRatio').
export function sequentialKey(key: string): string {
  return `sequential${key.charAt(0).toUpperCase()}${key.slice(1)}`;
}
