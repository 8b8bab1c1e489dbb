import type { Silicon } from '../silicon/types.js';
import type { SlurmLegInfo } from '../results/types.js';
import type { Reason } from '../verdict/reasons.js';

// The node-task seam as busy and mutate use it: a task (a kind, a name, a JSON body) runs on a node
// through Slurm and comes back as the node's record, the job's Slurm facts and a named fault.
// src/slurm/taskJob.ts implements it with one job per task.

export interface NodeTask {
  name: string;
  kind: 'leg' | 'busy' | 'command';
  arm: 'A' | 'B' | 'single';
  // The arch the task claims ('cpu' claims none): a node without it runs nothing (NO_SUCH_SILICON).
  arch: string;
  timeoutS: number;
  body: unknown;
  // Tasks of one block may share one allocation; blocks are independent of each other.
  block: number;
}

// What the node wrote back (null when the job never ran or left nothing) and how the job ended.
export interface TaskOutcome {
  record: { node: string; jobId: string | null; silicon: Silicon | null; originNs: bigint; fault: Reason | null; body: unknown } | null;
  slurm: SlurmLegInfo;
  fault: Reason | null;
  interrupted: boolean;
}

// Where a task runs from: the run directory on the shared path, Ctrl-C, and the run's clock origin.
export interface TaskSite {
  runDir: string;
  signal: AbortSignal;
  originNs: bigint;
}

export interface NodeTasks {
  // sbatch --test-only before anything is built or run: a bad partition is a named error (exit 2).
  preflight(site: { runDir: string; arch: string }, first: Pick<NodeTask, 'arm' | 'timeoutS'>): Promise<void>;
  run(task: NodeTask, site: TaskSite): Promise<TaskOutcome>;
  release(): Promise<void>;
}
