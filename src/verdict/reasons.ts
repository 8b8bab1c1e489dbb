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

// One reason a verdict is what it is.
export interface Reason {
  code: VoidCode;
  message: string;
}

// Builds a reason; the one constructor, so every reason has a code.
export function reason(code: VoidCode, message: string): Reason {
  return { code, message };
}

// "CODE: message", the one way a reason is printed.
export function formatReason(r: Reason): string {
  return `${r.code}: ${r.message}`;
}
