import { reason, type Reason } from '../verdict/reasons.js';
import type { ExecutorFault, ExecutorFaultCode } from '../mutate/types.js';

// A node task's fault as busy and mutate report it. The seam's words end with the series' advice
// (--resume RUN_DIR), which busy and mutate do not have: they get "run it again" instead.

const SERIES_ADVICE = /;?\s*the finished legs are kept; --resume RUN_DIR submits only the missing legs/g;

// The fault with the series-only advice replaced.
export function forOneRun(r: Reason): Reason {
  const m = r.message.replace(SERIES_ADVICE, '');
  return m === r.message ? r : reason(r.code, `${m}; run it again`);
}

const FAULT_CODES: ReadonlySet<string> = new Set<ExecutorFaultCode>([
  'SLURM_CANCELLED', 'SLURM_TIMEOUT', 'SLURM_NODE_LOST', 'SLURM_PREEMPTED', 'SLURM_OUT_OF_MEMORY', 'SLURM_LAUNCH_FAILED',
  'SLURM_FAILED', 'SLURM_LOST', 'SLURM_REJECTED', 'NEVER_STARTED', 'RUN_DIR_UNREACHABLE', 'NO_SUCH_SILICON', 'NODE_LOCKED',
]);

// A node task's fault as a mutate row's VOID reason; a code outside the executor's is kept in the words under SLURM_FAILED.
export function executorFault(r: Reason): ExecutorFault {
  const one = forOneRun(r);
  return FAULT_CODES.has(one.code) ? (one as ExecutorFault) : (reason('SLURM_FAILED', `${one.code}: ${one.message}`) as ExecutorFault);
}
