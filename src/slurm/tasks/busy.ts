import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BusyObserved } from '../../gates/busyJudge.js';
import { BUSY_FILES, observeBusy, type BusyRequest } from '../../gates/busyObserve.js';
import { runFromWire, runToWire, type WireRun } from './wireRun.js';
import type { TaskContext } from './context.js';

// The node side of `busy --executor slurm`: the same observation a local busy makes (the sampler beside
// the command, command.log with every line timed, marker times), on the GPU Slurm gave the job. Nothing
// is judged here: the harness reads this back and judges it with src/gates/busyJudge.ts.

export interface BusyTaskBody {
  request: BusyRequest;
}

// The busy part of the node record.
export interface BusyTaskRecord {
  observed: Omit<BusyObserved, 'run'> & { run: WireRun };
}

// Runs the command with the sampler on this node; copies command.log and the samples back when it wrote node-locally.
export async function handle(body: unknown, ctx: TaskContext): Promise<BusyTaskRecord> {
  const { request } = body as BusyTaskBody;
  const { realDeps } = await import('../../gates/deps.js');
  // The GPU is the one Slurm gave the job, never an index chosen on the submitting host.
  const observed = await observeBusy({ ...request, deviceIndex: ctx.deviceIndex }, ctx.outDir, await realDeps(), ctx.signal);
  if (ctx.outDir !== ctx.runDir) {
    for (const rel of [BUSY_FILES.log, BUSY_FILES.samples]) if (existsSync(join(ctx.outDir, rel))) copyFileSync(join(ctx.outDir, rel), join(ctx.runDir, rel));
  }
  return { observed: { ...observed, run: runToWire(observed.run) } };
}

// The observation as the harness reads it back from the record; null when the record holds none.
export function busyObservedFromRecord(body: unknown): BusyObserved | null {
  const o = (body as BusyTaskRecord | null)?.observed;
  const run = o ? runFromWire(o.run) : null;
  return o && run ? { ...o, run } : null;
}
