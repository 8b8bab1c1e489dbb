import type { Silicon } from '../../silicon/types.js';

// What the node-side runner hands a task handler: where to write, which GPU Slurm gave the job, the
// node's own silicon, the job's interrupt, and who it is. A handler returns its kind's part of the record.
export interface TaskContext {
  // The run directory on the shared path (the request came from it; the record goes back to it).
  runDir: string;
  // Where the task writes while it runs: the run directory, or a node-local scratch (copyMode copy-back).
  outDir: string;
  deviceIndex: number;
  silicon: Silicon;
  signal: AbortSignal;
  node: string;
  jobId: string | null;
}

// A task handler: body as nh-gate wrote it, the record's kind-specific part back (JSON-safe: bigints as strings).
export type TaskHandler = (body: unknown, ctx: TaskContext) => Promise<unknown>;
