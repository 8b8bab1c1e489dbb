#!/usr/bin/env node
// The node runner: what a Slurm job (or job step) runs on its node.
//   node dist/slurm/runner.js REQUEST.json        one task (a leg, a busy command, a suite run)
//   node dist/slurm/runner.js --hold LEASE.json   a lease's holder: keeps the node's GPU lock while the
//                                                 allocation lives; SIGUSR1 ends it as done (exit 0)
// For a task it reads the request nh-gate wrote, reads the node's own silicon, refuses a node without the
// series' arch, runs the kind's handler (src/slurm/tasks/), copies the task's files back when the config says
// copy-back, and writes its record (legs/<name>.node.json) last. nh-gate judges; the runner judges nothing.
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { monoNs } from '../exec/clock.js';
import { onInterrupt } from '../exec/interrupt.js';
import { writeAtomic } from '../io/atomic.js';
import { reason, type Reason } from '../verdict/reasons.js';
import { archClaimKey } from '../quantity/compare.js';
import type { Silicon } from '../silicon/types.js';
import { taskRecordJson, WIRE_SCHEMA_VERSION, type HoldRequest, type TaskRequest } from './wire.js';
import { legJobFiles } from './sbatch.js';
import { HOLDER_LOCKED_EXIT, RUNNER_RUN_DIR_EXIT } from './state.js';
import { TASK_HANDLERS } from './tasks/index.js';

const nodeName = (): string => process.env.SLURMD_NODENAME ?? hostname();

function die(message: string): never {
  process.stderr.write(`nh-gate runner on ${nodeName()}: RUN_DIR_UNREACHABLE: ${message}\n`);
  process.exit(RUNNER_RUN_DIR_EXIT);
}

function readJson<T extends { schemaVersion?: unknown }>(path: string | undefined, usage: string): T {
  if (!path) die(`no request file was given (usage: ${usage})`);
  let v: T;
  try {
    v = JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (err) {
    die(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): the run directory must be on a filesystem this node mounts at the same path`);
  }
  if (v.schemaVersion !== WIRE_SCHEMA_VERSION) die(`${path} is request schema ${String(v.schemaVersion)}, this runner reads ${WIRE_SCHEMA_VERSION}: the nodes run another nh-gate version`);
  return v;
}

function readRequest(path: string | undefined): TaskRequest {
  const req = readJson<TaskRequest>(path, 'runner.js REQUEST.json');
  try {
    accessSync(join(req.runDir, 'legs'), constants.W_OK);
  } catch (err) {
    die(`cannot write ${join(req.runDir, 'legs')} (${(err as NodeJS.ErrnoException).code}): the run directory must be writable from this node`);
  }
  return req;
}

// The GPU Slurm gave this job: SLURM_JOB_GPUS names the node's index when the GPUs are not hidden by cgroups.
function jobDeviceIndex(): number | undefined {
  const first = (process.env.SLURM_STEP_GPUS ?? process.env.SLURM_JOB_GPUS ?? '').split(',')[0];
  return first && /^\d+$/.test(first) ? Number(first) : undefined;
}

// A node whose silicon does not have the series' arch runs nothing: its numbers would be another chip's.
function archFault(arch: string, s: Silicon, node: string): Reason | null {
  if (arch === 'cpu') return null;
  const want = archClaimKey(arch);
  const have = s.kind === 'gpu' ? `cc${s.computeCapability}` : 'no GPU';
  return want === have ? null : reason('NO_SUCH_SILICON', `node ${node} has ${s.kind === 'gpu' ? `${s.gpuName} (${have})` : 'no GPU'}, the series claims --arch ${arch}; add a constraint for ${arch} to the Slurm config`);
}

async function runTask(requestPath: string | undefined): Promise<void> {
  const req = readRequest(requestPath);
  const node = nodeName();
  const jobId = process.env.SLURM_JOB_ID ?? null;
  const stepId = jobId !== null && process.env.SLURM_STEP_ID !== undefined && /^\d+$/.test(process.env.SLURM_STEP_ID) ? `${jobId}.${process.env.SLURM_STEP_ID}` : null;
  const originNs = monoNs() - BigInt(Math.round((Date.now() - req.originWallMs) * 1e6));
  const files = legJobFiles(req.runDir, req.name);
  const write = (silicon: Silicon | null, fault: Reason | null, body: unknown): void =>
    writeAtomic(files.node, taskRecordJson({ kind: req.kind, node, jobId, stepId, silicon, originNs, fault, body }));
  const handler = TASK_HANDLERS[req.kind];
  if (!handler) {
    write(null, reason('SLURM_FAILED', `this runner on ${node} has no handler for task kind '${req.kind}': the nodes run another nh-gate version`), null);
    return;
  }
  const interrupt = onInterrupt((sig) => process.stderr.write(`nh-gate runner: ${sig}: killing the task's process tree\n`));
  try {
    const { detectSilicon } = await import('../silicon/detect.js');
    const deviceIndex = jobDeviceIndex();
    let silicon: Silicon;
    try {
      silicon = await detectSilicon(deviceIndex !== undefined ? { deviceIndex } : {});
    } catch {
      silicon = await detectSilicon({ deviceIndex: 0 });
    }
    const fault = archFault(req.arch, silicon, node);
    if (fault) return write(silicon, fault, null);
    const outDir = req.copyMode === 'shared' ? req.runDir : mkdtempSync(join(req.nodeScratch, `nh-gate-${jobId ?? 'task'}-`));
    const out = await handler(req.body, { runDir: req.runDir, outDir, deviceIndex: deviceIndex ?? 0, silicon, sampleGpu: silicon.kind === 'gpu' && req.arch !== 'cpu', signal: interrupt.signal, node, jobId });
    if (outDir !== req.runDir) {
      // The job's own copy step: the task wrote node-locally while it ran; its files go back now, then the scratch goes.
      for (const rel of out.files) {
        if (!existsSync(join(outDir, rel))) continue;
        mkdirSync(dirname(join(req.runDir, rel)), { recursive: true });
        copyFileSync(join(outDir, rel), join(req.runDir, rel));
      }
      rmSync(outDir, { recursive: true, force: true });
    }
    write(silicon, null, out.body);
    // Signalled (scancel, a time limit): the record says what was seen, and the exit says it was cut short.
    if (interrupt.signal.aborted) process.exitCode = 143;
  } finally {
    interrupt.dispose();
  }
}

// The lease's holder: the node's GPU lock for as long as the allocation lives.
async function hold(path: string | undefined): Promise<void> {
  const req = readJson<HoldRequest>(path, 'runner.js --hold LEASE.json');
  const ready = path!.replace(/\.request\.json$/, '.node.json');
  const { acquireLock } = await import('../exec/lock.js');
  const { NhGateError } = await import('../errors.js');
  const lockFile = req.nodeLock.replace(/%n/g, nodeName());
  let lock: { release(): void } | null = null;
  // A holder being torn down (the allocation before this one, cancelled a moment ago) may still hold the lock
  // for a second or two: wait for it before calling the node taken.
  for (const t0 = Date.now(); lock === null; await new Promise((r) => setTimeout(r, 250))) {
    try {
      lock = acquireLock(lockFile, `${req.command} (Slurm job ${process.env.SLURM_JOB_ID ?? '?'})`);
    } catch (err) {
      if (Date.now() - t0 < req.waitS * 1000) continue;
      const why = err instanceof NhGateError ? `${err.code}: ${err.message}` : String(err);
      process.stderr.write(`nh-gate holder on ${nodeName()}: NODE_LOCKED: the node's GPU lock ${lockFile} is held (${why}); the allocation ends\n`);
      process.exit(HOLDER_LOCKED_EXIT);
    }
  }
  process.stdout.write(`nh-gate holder on ${nodeName()}: job ${process.env.SLURM_JOB_ID ?? '?'} holds ${lockFile}\n`);
  // nh-gate starts the first step once this is on disk: the lock is held and a release signal will be heard.
  writeAtomic(ready, JSON.stringify({ schemaVersion: WIRE_SCHEMA_VERSION, kind: 'hold', node: nodeName(), jobId: process.env.SLURM_JOB_ID ?? null, lock: lockFile, pid: process.pid }) + '\n');
  await new Promise<void>((resolve) => {
    const done = (): void => resolve();
    process.once('SIGUSR1', done);
    process.once('SIGTERM', done);
    process.once('SIGINT', done);
    // Keeps the event loop alive until a signal comes.
    setInterval(() => {}, 1 << 30);
  });
  lock!.release();
  process.exit(0);
}

const main = process.argv[2] === '--hold' ? () => hold(process.argv[3]) : () => runTask(process.argv[2]);
main().catch((err) => {
  process.stderr.write(`nh-gate runner: INTERNAL: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(70);
});
