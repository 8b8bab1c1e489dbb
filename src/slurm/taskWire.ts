import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Silicon } from '../silicon/types.js';
import type { Reason } from '../verdict/reasons.js';
import type { NodeTask } from './taskTypes.js';

// The two files a node task travels in (src/slurm/taskJob.ts → dist/slurm/taskRunner.js → back): the
// request nh-gate writes and the record the node writes last. JSON in <run dir>/tasks/; bigints as strings.

export const TASK_WIRE_SCHEMA_VERSION = 1;

export interface TaskRequestWire {
  schemaVersion: typeof TASK_WIRE_SCHEMA_VERSION;
  task: Pick<NodeTask, 'name' | 'kind' | 'arch' | 'body'>;
  runDir: string;
  copyMode: 'shared' | 'copy-back';
  nodeScratch: string;
  // Wall-clock ms of the run's origin, so the node's monotonic clock is put on the run's time axis.
  originWallMs: number;
}

export interface TaskRecordWire {
  schemaVersion: typeof TASK_WIRE_SCHEMA_VERSION;
  kind: NodeTask['kind'];
  node: string;
  jobId: string | null;
  silicon: Silicon | null;
  originNs: string;
  // The node's own reason not to run the task (NO_SUCH_SILICON on this node).
  fault: Reason | null;
  // The handler's kind-specific part (src/slurm/tasks/*.ts); null when nothing ran.
  body: unknown;
}

// Per-task paths in the run directory: tasks/<name>.{request.json,slurm.out,node.json}, one batch script.
export function taskFiles(runDir: string, name: string): { request: string; output: string; node: string; script: string } {
  return {
    request: join(runDir, 'tasks', `${name}.request.json`),
    output: join(runDir, 'tasks', `${name}.slurm.out`),
    node: join(runDir, 'tasks', `${name}.node.json`),
    script: join(runDir, 'slurm-task.sh'),
  };
}

// A task name safe as a file name and a job name (mutant ids are free text).
export function taskName(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 100);
}

// A record as the harness reads it back; null when absent, unreadable or not one of ours.
export function readTaskRecord(path: string): (Omit<TaskRecordWire, 'originNs' | 'schemaVersion'> & { originNs: bigint }) | null {
  let w: TaskRecordWire;
  try {
    w = JSON.parse(readFileSync(path, 'utf8')) as TaskRecordWire;
  } catch {
    return null;
  }
  if (w?.schemaVersion !== TASK_WIRE_SCHEMA_VERSION || typeof w.originNs !== 'string') return null;
  return { kind: w.kind, node: w.node, jobId: w.jobId, silicon: w.silicon, originNs: BigInt(w.originNs), fault: w.fault, body: w.body };
}
