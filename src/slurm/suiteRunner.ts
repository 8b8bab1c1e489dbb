import { monoNs } from '../exec/clock.js';
import type { ProcessRun } from '../exec/types.js';
import type { SuiteRunner } from '../mutate/steps.js';
import type { ExecutorFault, ExecutorFaultCode } from '../mutate/types.js';
import { reason, type Reason } from '../verdict/reasons.js';
import { commandRunFromRecord } from './tasks/command.js';
import type { NodeTasks } from './taskTypes.js';
import { taskName } from './taskWire.js';

// mutate --executor slurm: each suite run (the baselines, every mutant's suite) is a command task on a
// node, so a GPU suite runs where the GPU is. The builds stay on the submitting host, in scratch trees on
// the shared path; one task per worker is in flight, so --jobs N gives up to N.

// A suite with no time-out of its own (the baselines) still needs a --time: an hour (plus timeMarginS).
export const SUITE_DEFAULT_TIME_S = 3600;

const FAULT_CODES: ReadonlySet<string> = new Set<ExecutorFaultCode>([
  'SLURM_CANCELLED', 'SLURM_TIMEOUT', 'SLURM_NODE_LOST', 'SLURM_PREEMPTED', 'SLURM_OUT_OF_MEMORY', 'SLURM_LAUNCH_FAILED',
  'SLURM_FAILED', 'SLURM_LOST', 'SLURM_REJECTED', 'NEVER_STARTED', 'RUN_DIR_UNREACHABLE', 'NO_SUCH_SILICON',
]);

// An executor's reason as a row's VOID reason; any other code is kept in the words under SLURM_FAILED.
export function executorFault(r: Reason): ExecutorFault {
  return FAULT_CODES.has(r.code) ? (r as ExecutorFault) : (reason('SLURM_FAILED', `${r.code}: ${r.message}`) as ExecutorFault);
}

function emptyRun(argv: string[], interrupted: boolean): ProcessRun {
  const t = monoNs();
  return { argv, pid: null, startNs: t, endNs: t, exitCode: null, signal: null, timedOut: false, interrupted, spawnError: null, orphansKilled: false, lines: [] };
}

// The suite runner over node tasks; runDir is the mutate run's report directory (tasks/ goes under it).
// arch: the recipe arch the trees were configured for; a suite built for a GPU arch claims it (constraints).
export function slurmSuiteRunner(tasks: NodeTasks, runDir: string, arch = 'cpu', originNs: bigint = monoNs()): SuiteRunner {
  return {
    async run(spec, hooks, at) {
      const signal = hooks.signal ?? new AbortController().signal;
      const out = await tasks.run({ name: taskName(at.name), kind: 'command', arm: 'single', arch, timeoutS: spec.timeoutS ?? SUITE_DEFAULT_TIME_S, body: { spec }, block: at.tree }, { runDir, signal, originNs });
      const ran = out.record ? commandRunFromRecord(out.record.body) : null;
      // Our own Ctrl-C is an interrupted run (INTERRUPTED), not a fault of the job.
      const fault = out.interrupted ? null : out.fault ? executorFault(out.fault) : ran ? null : executorFault(reason('SLURM_LOST', `job ${out.slurm.jobId ?? '?'} left no record of the suite run`));
      // A job Slurm ended was interrupted on the node by Slurm's signal: that is its fault, not our Ctrl-C.
      return { run: { ...(ran ?? emptyRun(spec.argv, out.interrupted)), interrupted: out.interrupted }, slurm: out.slurm, fault };
    },
  };
}
