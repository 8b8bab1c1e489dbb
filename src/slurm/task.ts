import type { LegArm } from '../results/types.js';
import { asJob, asStep } from './session/run.js';
import { releaseLease } from './session/lease.js';
import { jobArgv, leaseArgv, newSession, type NodeTask, type SlurmTasksOptions, type TaskOutcome, type TaskSite } from './session/state.js';

// --executor slurm for any unit of work a node runs (a leg, a busy command, a suite run): the "node task".
// jobPer leg: each task is its own job (sbatch). jobPer series|block: one allocation (a lease: an exclusive
// job whose holder keeps the node's GPU lock) is taken for the series or the ABBA block, and each task is a
// job step in it (srun), so no other job can take the node between two legs. The pieces are in session/:
// the series' record and each job's small steps (state.ts), polling (poll.ts), the lease (lease.ts) and the
// job and step runs (run.ts).

export type { NodeTask, SlurmTasksOptions, TaskOutcome, TaskSite } from './session/state.js';

export interface SlurmTasks {
  // sbatch --test-only: a missing sbatch or a partition the cluster lacks is a named error before any build.
  preflight(runDir: string, arch: string, first: { arm: LegArm; timeoutS: number; scopeTasks: number }): Promise<void>;
  run(task: NodeTask, site: TaskSite): Promise<TaskOutcome>;
  // Ends the lease, if one is held (the series is done).
  release(): Promise<void>;
}

// The Slurm executor of one series (it remembers the node the series is pinned to, and its lease).
export function slurmTasks(o: SlurmTasksOptions): SlurmTasks {
  const s = newSession(o);
  return {
    async preflight(runDir, arch, first) {
      await o.client.testOnly(s.c.jobPer === 'leg' ? jobArgv(s, runDir, arch, 'preflight', first) : leaseArgv(s, runDir, arch, 'preflight', first));
    },
    run: (t, site) => (s.c.jobPer === 'leg' ? asJob(s, t, site) : asStep(s, t, site)),
    release: () => releaseLease(s),
  };
}
