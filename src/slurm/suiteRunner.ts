import { monoNs } from '../exec/clock.js';
import type { ProcessRun } from '../exec/types.js';
import type { SuiteRunner } from '../mutate/steps.js';
import { reason } from '../verdict/reasons.js';
import type { SlurmConfig } from './config.js';
import { commandRunFromRecord } from './tasks/command.js';
import type { SlurmTasks } from './task.js';
import { executorFault } from './taskFault.js';

// mutate --executor slurm: each suite run (the baselines, every mutant's suite) is a command task on a
// node, so a GPU suite runs where the GPU is. The builds stay on the submitting host, in scratch trees on
// the shared path; one task per worker is in flight, so --jobs N gives up to N.

// A suite with no time-out of its own (the baselines) still needs a --time: an hour (plus timeMarginS).
export const SUITE_DEFAULT_TIME_S = 3600;

// The config mutate submits with: each suite run its own job, wherever Slurm puts it. Suite runs are
// verdicts, not timings, so no allocation is held across them (the rebuilds between them would idle it),
// and the workers are not pinned to one node (--jobs N runs side by side on up to N nodes).
export function mutateSlurmConfig(c: SlurmConfig): SlurmConfig {
  return { ...c, jobPer: 'leg', pin: 'none' };
}

function emptyRun(argv: string[], interrupted: boolean): ProcessRun {
  const t = monoNs();
  return { argv, pid: null, startNs: t, endNs: t, exitCode: null, signal: null, timedOut: false, interrupted, spawnError: null, orphansKilled: false, lines: [] };
}

// A name safe as a file stem and a job name (mutant ids are free text).
export function taskName(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 100);
}

// The suite runner over node tasks; runDir is the mutate run's report directory (legs/ goes under it).
// arch: the recipe arch the trees were configured for; a suite built for a GPU arch claims it (constraints).
export function slurmSuiteRunner(tasks: SlurmTasks, runDir: string, arch = 'cpu', originNs: bigint = monoNs()): SuiteRunner {
  return {
    async run(spec, hooks, at) {
      const signal = hooks.signal ?? new AbortController().signal;
      const name = taskName(at.name);
      const body = { ...spec, env: spec.env ?? {} };
      const out = await tasks.run({ name, kind: 'command', arm: 'single', arch, timeoutS: spec.timeoutS ?? SUITE_DEFAULT_TIME_S, body, block: at.tree, scopeTasks: 1, label: `suite ${name}` }, { runDir, signal, originNs });
      const ran = out.record ? commandRunFromRecord(out.record.body) : null;
      // Our own Ctrl-C is an interrupted run (INTERRUPTED), not a fault of the job.
      const fault = out.interrupted ? null : out.fault ? executorFault(out.fault) : ran ? null : executorFault(reason('SLURM_LOST', `job ${out.slurm.jobId ?? '?'} left no record of the suite run`));
      // A job Slurm ended was interrupted on the node by Slurm's signal: that is its fault, not our Ctrl-C.
      return { run: { ...(ran ?? emptyRun(spec.argv, out.interrupted)), interrupted: out.interrupted }, slurm: out.slurm, fault };
    },
  };
}
