import { TOOL } from '../../version.js';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { monoNs, monoS } from '../../exec/clock.js';
import { acquireLock, lockPath } from '../../exec/lock.js';
import { onInterrupt } from '../../exec/interrupt.js';
import { readSamplesFile } from '../../config/load.js';
import { hostArchKey, type Silicon } from '../../silicon/types.js';
import { createRunDir } from '../../results/write.js';
import { saveRun } from '../../report/save.js';
import { appendLedger } from '../../results/ledger.js';
import { RESULT_SCHEMA_VERSION, type RunResult, type SlurmLegInfo } from '../../results/types.js';
import { NhGateError } from '../../errors.js';
import { reason, type Reason } from '../../verdict/reasons.js';
import type { GateDeps } from '../deps.js';
import type { SeriesOutcome } from '../series/series.js';
import { compileMarkers, judgeBusy, judgeBusyFault, type BusyObserved } from './busyJudge.js';
import { observeBusy, type BusyRequest } from './busyObserve.js';

export interface BusyOptions {
  argv: string[];
  command: string[];
  startMarker?: string | undefined;
  // The window closes at the first line matching this (after the start); never at exit when it is given.
  endMarker?: string | undefined;
  deviceIndex?: number | undefined;
  periodMs?: number | undefined;
  timeoutS?: number | undefined;
  resultsBase: string;
  // Where the command runs: absent → here (the GPU lock held); set → e.g. a Slurm node (--executor slurm).
  executor?: BusyExecutor | undefined;
}

// What an executor hands back for one busy command: the observation (null when it never ran), the
// observing host's silicon and clock origin, its Slurm job, and a fault that voids it by name.
export interface BusyRunOutcome {
  observed: BusyObserved | null;
  silicon: Silicon | null;
  // The run's origin on the observing host's monotonic clock (null: this host, this clock).
  originNs: bigint | null;
  slurm: SlurmLegInfo | null;
  fault: Reason | null;
  interrupted: boolean;
}

// The executor seam of busy: the command and its sampler run elsewhere; the judge stays here.
export interface BusyExecutor {
  kind: 'slurm';
  // Checks the submission before anything runs (a bad partition is exit 2, not a NOT MEASURED run).
  preflight?(runDir: string, req: BusyRequest): Promise<void>;
  run(req: BusyRequest, site: { runDir: string; signal: AbortSignal; originNs: bigint }): Promise<BusyRunOutcome>;
  release?(): Promise<void>;
}

// nh-gate busy -- CMD: the decode-window sampler for any command. The window opens at the arrival of the
// first line matching --start-marker (at the command's start without one) and closes at the first line
// matching --end-marker after it (without one: at the last output line, so teardown after it is outside).
// A marker that never appears → WINDOW_UNKNOWN (never the whole run); no samples → NO_SAMPLES (never 0%).
export async function runBusy(o: BusyOptions, deps: GateDeps): Promise<SeriesOutcome> {
  if (o.command.length === 0) throw new NhGateError('USAGE', 'nh-gate busy needs a command after --', "e.g. nh-gate busy --start-marker 'engine loaded' -- ./driver --args");
  compileMarkers(o);
  const originNs = monoNs();
  const now = deps.now();
  const req: BusyRequest = { command: o.command, startMarker: o.startMarker, endMarker: o.endMarker, deviceIndex: o.deviceIndex, periodMs: o.periodMs, timeoutS: o.timeoutS };
  // Through an executor the submitting host's silicon is not the one measured: the node's comes back.
  const hostSilicon = o.executor ? null : await deps.detectSilicon();
  const runDir = createRunDir(o.resultsBase, 'busy', now);
  const r: RunResult = {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: TOOL, command: 'busy', argv: o.argv, runDir,
    startedAt: now.toISOString(), finishedAt: null, status: 'running', recipe: null, golden: null, gate: null,
    arch: hostSilicon ? hostArchKey(hostSilicon) : 'unknown', silicon: hostSilicon, build: null, plan: null, legs: [],
    quantities: {}, comparison: null, verdict: { word: 'NOT MEASURED', exitClass: 'void', reasons: [] }, notes: [],
  };
  if (o.executor?.preflight) {
    try {
      await o.executor.preflight(runDir, req);
    } catch (err) {
      rmSync(runDir, { recursive: true, force: true });
      throw err;
    }
  }
  const lock = o.executor ? null : acquireLock(lockPath(), 'nh-gate busy');
  const interrupt = onInterrupt();
  try {
    const out: BusyRunOutcome = o.executor
      ? await o.executor.run(req, { runDir, signal: interrupt.signal, originNs })
      : { observed: await observeBusy(req, runDir, deps, interrupt.signal), silicon: hostSilicon, originNs: null, slurm: null, fault: null, interrupted: false };
    if (out.silicon) {
      r.silicon = out.silicon;
      r.arch = hostArchKey(out.silicon);
    }
    if (out.slurm) r.slurm = out.slurm;
    const observed = out.observed;
    const fault = out.fault ?? (observed ? null : out.interrupted
      ? reason('NOT_FINISHED', 'interrupted (Ctrl-C): the Slurm job was cancelled before the node wrote what it saw')
      : reason('SLURM_LOST', 'the executor brought back no observation of the command'));
    const samplesFile = observed?.sampler.samplesFile;
    const samples = samplesFile && !fault ? await readSamplesFile(join(runDir, samplesFile)) : null;
    const j = fault || !observed
      ? judgeBusyFault(fault!)
      : judgeBusy({ command: o.command, startMarker: o.startMarker, endMarker: o.endMarker, observed, samples, silicon: r.silicon, originS: monoS(out.originNs ?? originNs) });
    r.quantities = j.quantities;
    r.comparison = j.comparison;
    r.notes.push(...j.notes);
    if (out.slurm) r.notes.push(`slurm: job ${out.slurm.jobId ?? '?'}${out.slurm.stepId ? ` step ${out.slurm.stepId}` : ''} on ${out.slurm.node ?? '?'} ${out.slurm.state ?? '?'}${out.slurm.source ? ` [${out.slurm.source}]` : ''}${r.silicon?.kind === 'gpu' ? `; silicon ${r.silicon.gpuName} (cc ${r.silicon.computeCapability})` : ''}`);
    r.verdict = j.verdict;
    r.status = interrupt.signal.aborted || out.interrupted ? 'interrupted' : 'complete';
    r.finishedAt = deps.now().toISOString();
    await saveRun(r, j.plots);
    appendLedger(o.resultsBase, r);
    return { result: r, exitClass: r.verdict.exitClass };
  } finally {
    interrupt.dispose();
    lock?.release();
    await o.executor?.release?.();
  }
}
