import type { RefusalCode } from '../quantity/types.js';

// Why a leg or a run is void, as data: a stable code and a sentence. Renderers join them; no code
// ever reads a reason back out of its text.

// The codes a leg or run may be voided with (refusal codes of SPEC §3 where they apply).
export const VOID_CODES = [
  'CRASHED', 'TIMEOUT', 'PARTIAL', 'ENGINE_REFUSED', 'REFERENCE_TIER', 'CONTENDED', 'WRONG_TOKENS', 'NO_TOKENS',
  'GOLDEN_MISMATCH', 'NO_SUCH_SILICON', 'BUILD_FAILED', 'DEGRADED_BUILD', 'PROBE_FAILED', 'PREPARE_FAILED',
  'MIXED_BINARIES', 'MISSING_LEGS', 'NOT_FINISHED', 'THROTTLED', 'MISSING_BINARY', 'BAD_IDS', 'CPU_CONTENDED',
  // --executor slurm: how a leg's job was lost (src/slurm/state.ts); --resume RUN_DIR runs these legs again.
  'SLURM_CANCELLED', 'SLURM_TIMEOUT', 'SLURM_NODE_LOST', 'SLURM_PREEMPTED', 'SLURM_OUT_OF_MEMORY', 'SLURM_LAUNCH_FAILED',
  'SLURM_FAILED', 'SLURM_LOST', 'SLURM_REJECTED', 'NEVER_STARTED', 'RUN_DIR_UNREACHABLE', 'NODE_LOCKED',
  // The witness rule (src/gates/leg/witness.ts): ids the recipe declared that the harness did not see.
  'EVENTS_MISSING', 'EVENTS_EMPTY', 'EVENTS_UNPARSABLE', 'EVENTS_TRUNCATED', 'EVENTS_INCONSISTENT', 'IDS_MISSING', 'NOT_WITNESSED',
  // The engine exited 1 before it loaded (src/gates/leg/failure.ts): a failure, never a DIVERGENCE.
  'LOAD_FAILED',
  // nh-gate serve (src/serve/validity.ts): why a load run is not a valid performance result.
  'MIN_DURATION', 'MIN_REQUESTS', 'CLIENT_BEHIND', 'SERVER_DIED', 'SERVER_FAILED', 'UNFINISHED',
] as const;
export type VoidCode = (typeof VOID_CODES)[number];

// The codes a run's verdict gives beside the void codes: what decided it, and what it was decided under.
export const VERDICT_REASON_CODES = [
  // A pre-registered criterion's interval against its claim (the sentence says which claim and which interval).
  'CRITERION',
  // The gate registered no claim: figures are reported, nothing is judged.
  'NO_CLAIM',
  // A leg that is not a pass (named, with why): no speed was taken from it.
  'LEG_NOT_PASSED',
  // A cross-commit A/B: two builds, labelled so wherever the verdict goes.
  'TWO_BINARIES',
  // A command-line choice that departs from the pre-registered design (issue 21).
  'DEVIATION',
  // An A/A calibration's finding about the registered noise scale.
  'AA_CALIBRATION',
  // The run's own faults: the harness died, the results disk filled or could not be written.
  'HARNESS_DIED', 'DISK_FULL', 'UNWRITABLE',
  // A serve sweep's knee: the rate past which throughput stopped growing (or why none was found).
  'SWEEP_KNEE',
  // `nh-gate history`: a series' newest point in a worse segment (its change point), none in any series, no figures
  // matching the filter, or only ledger lines written before series keys (not fitted).
  'CHANGE_POINT', 'NO_WORSE_SEGMENT', 'NO_FIGURES', 'UNKEYED',
] as const;
export type VerdictReasonCode = (typeof VERDICT_REASON_CODES)[number];

// Every code a reason may carry: a leg's void code, a verdict's own code, or a refused figure's code (busy).
export type ReasonCode = VoidCode | VerdictReasonCode | RefusalCode;

// One reason a verdict is what it is.
export interface Reason {
  code: ReasonCode;
  message: string;
}

// Builds a reason; the one constructor, so every reason has a code.
export function reason(code: ReasonCode, message: string): Reason {
  return { code, message };
}

// "CODE: message", the one way a reason is printed.
export function formatReason(r: Reason): string {
  return `${r.code}: ${r.message}`;
}
