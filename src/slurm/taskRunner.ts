#!/usr/bin/env node
// The node-task runner: what a busy or mutate Slurm job runs on its node (`node dist/slurm/taskRunner.js
// REQUEST.json`). It reads the request, reads the node's own silicon, checks the task's arch claim,
// dispatches on the task's kind to its handler (src/slurm/tasks/*.ts) and writes the record last.
// Like the leg runner (runner.ts) it judges nothing.
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { monoNs } from '../exec/clock.js';
import { onInterrupt } from '../exec/interrupt.js';
import { writeAtomic } from '../io/atomic.js';
import { reason, type Reason } from '../verdict/reasons.js';
import { archClaimKey } from '../quantity/compare.js';
import type { Silicon } from '../silicon/types.js';
import { RUNNER_RUN_DIR_EXIT } from './state.js';
import { taskFiles, TASK_WIRE_SCHEMA_VERSION, type TaskRecordWire, type TaskRequestWire } from './taskWire.js';
import type { TaskHandler } from './tasks/context.js';

// The handlers by task kind, loaded only when their kind runs.
const HANDLERS: Record<string, () => Promise<TaskHandler>> = {
  busy: async () => (await import('./tasks/busy.js')).handle,
  command: async () => (await import('./tasks/command.js')).handle,
};

function die(message: string): never {
  process.stderr.write(`nh-gate task runner on ${process.env.SLURMD_NODENAME ?? hostname()}: RUN_DIR_UNREACHABLE: ${message}\n`);
  process.exit(RUNNER_RUN_DIR_EXIT);
}

function readRequest(path: string | undefined): TaskRequestWire {
  if (!path) die('no request file was given (usage: taskRunner.js REQUEST.json)');
  let req: TaskRequestWire;
  try {
    req = JSON.parse(readFileSync(path, 'utf8')) as TaskRequestWire;
  } catch (err) {
    die(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): the run directory must be on a filesystem this node mounts at the same path`);
  }
  if (req.schemaVersion !== TASK_WIRE_SCHEMA_VERSION) die(`${path} is task request schema ${String(req.schemaVersion)}, this runner reads ${TASK_WIRE_SCHEMA_VERSION}: the nodes run another nh-gate version`);
  try {
    accessSync(join(req.runDir, 'tasks'), constants.W_OK);
  } catch (err) {
    die(`cannot write ${join(req.runDir, 'tasks')} (${(err as NodeJS.ErrnoException).code}): the run directory must be writable from this node`);
  }
  return req;
}

// The GPU Slurm gave this job: SLURM_JOB_GPUS names the node's index when the GPUs are not hidden by cgroups.
function jobDeviceIndex(): number | undefined {
  const first = (process.env.SLURM_JOB_GPUS ?? process.env.SLURM_STEP_GPUS ?? '').split(',')[0];
  return first && /^\d+$/.test(first) ? Number(first) : undefined;
}

// A node whose silicon does not have the task's arch runs nothing: its numbers would be another chip's.
function archFault(arch: string, s: Silicon, node: string): Reason | null {
  if (arch === 'cpu') return null;
  const have = s.kind === 'gpu' ? `cc${s.computeCapability}` : 'no GPU';
  return archClaimKey(arch) === have ? null : reason('NO_SUCH_SILICON', `node ${node} has ${s.kind === 'gpu' ? `${s.gpuName} (${have})` : 'no GPU'}, the task claims --arch ${arch}; add a constraint for ${arch} to the Slurm config`);
}

async function main(): Promise<void> {
  const req = readRequest(process.argv[2]);
  const node = process.env.SLURMD_NODENAME ?? hostname();
  const jobId = process.env.SLURM_JOB_ID ?? null;
  const originNs = monoNs() - BigInt(Math.round((Date.now() - req.originWallMs) * 1e6));
  const files = taskFiles(req.runDir, req.task.name);
  const write = (silicon: Silicon | null, fault: Reason | null, body: unknown): void => {
    const rec: TaskRecordWire = { schemaVersion: TASK_WIRE_SCHEMA_VERSION, kind: req.task.kind, node, jobId, silicon, originNs: String(originNs), fault, body };
    writeAtomic(files.node, JSON.stringify(rec) + '\n');
  };
  const interrupt = onInterrupt((sig) => process.stderr.write(`nh-gate task runner: ${sig}: killing the task's process tree\n`));
  try {
    const { detectSilicon } = await import('../silicon/detect.js');
    const deviceIndex = jobDeviceIndex();
    let silicon: Silicon;
    try {
      silicon = await detectSilicon(deviceIndex !== undefined ? { deviceIndex } : {});
    } catch {
      silicon = await detectSilicon({ deviceIndex: 0 });
    }
    const fault = archFault(req.task.arch, silicon, node);
    const load = HANDLERS[req.task.kind];
    if (fault || !load) {
      write(silicon, fault ?? reason('SLURM_FAILED', `this task runner has no handler for kind '${req.task.kind}': the nodes run another nh-gate version`), null);
      return;
    }
    const outDir = req.copyMode === 'shared' ? req.runDir : mkdtempSync(join(req.nodeScratch, `nh-gate-${jobId ?? 'task'}-`));
    try {
      const body = await (await load())(req.task.body, { runDir: req.runDir, outDir, deviceIndex: deviceIndex ?? 0, silicon, signal: interrupt.signal, node, jobId });
      write(silicon, null, body);
    } finally {
      if (outDir !== req.runDir) rmSync(outDir, { recursive: true, force: true });
    }
  } finally {
    interrupt.dispose();
  }
}

main().catch((err) => {
  process.stderr.write(`nh-gate task runner: INTERNAL: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(70);
});
