import type { BusyObserved } from '../../gates/busy/busyJudge.js';
import { BUSY_FILES, observeBusy, type BusyRequest } from '../../gates/busy/busyObserve.js';
import { runFromWire, runToWire } from '../wire.js';
import type { TaskHandler } from './types.js';

// The node side of `busy --executor slurm`: the same observation a local busy makes (the sampler beside
// the command, command.log with every line timed, marker times), on the GPU Slurm gave the job. Nothing
// is judged here: the harness reads this back and judges it with src/gates/busy/busyJudge.ts.

// The record's busy body: the observation with its process's bigint stamps as strings.
type BusyWire = Omit<BusyObserved, 'run'> & { run: ReturnType<typeof runToWire> };

// Runs the command with the sampler on this node; command.log and the samples are the files copy-back returns.
export const handleBusy: TaskHandler = async (body, ctx) => {
  const { realDeps } = await import('../../gates/deps.js');
  // The GPU is the one Slurm gave the job, never an index chosen on the submitting host.
  const observed = await observeBusy({ ...(body as BusyRequest), deviceIndex: ctx.deviceIndex }, ctx.outDir, await realDeps(), ctx.signal);
  const wire: BusyWire = { ...observed, run: runToWire(observed.run) };
  return { body: wire, files: [BUSY_FILES.log, ...(observed.sampler.samplesFile ? [observed.sampler.samplesFile] : [])] };
};

// The observation as the harness reads it back from the record's body; null when it holds none.
export function busyObservedFromRecord(body: unknown): BusyObserved | null {
  const o = body as BusyWire | null;
  if (!o || typeof o !== 'object' || !o.run || typeof o.run.startNs !== 'string' || !o.markers || !o.sampler) return null;
  return { ...o, run: runFromWire(o.run) };
}
