import type { Silicon } from '../../silicon/types.js';

// What the node runner hands each kind's handler, and what a handler gives back.

export interface TaskContext {
  runDir: string;
  // Where the task writes its files: the run directory (copyMode shared) or node-local scratch (copy-back).
  outDir: string;
  // The GPU Slurm gave this job (an index into the node's GPUs).
  deviceIndex: number;
  silicon: Silicon;
  // The series claims a device arch and the node has a GPU: sample it.
  sampleGpu: boolean;
  signal: AbortSignal;
  node: string;
  jobId: string | null;
}

export interface TaskResult {
  // The kind's observation, JSON-safe (bigints as strings): the record's body.
  body: unknown;
  // Files (relative to outDir) the runner copies into the run directory in copy-back mode.
  files: string[];
}

// One kind's node-side work.
export type TaskHandler = (body: unknown, ctx: TaskContext) => Promise<TaskResult>;
