import { join } from 'node:path';
import { monoS } from '../../exec/clock.js';
import { formatTimedLine } from '../../profiles/timed.js';
import { openLogSink } from '../../results/logSink.js';
import { compileMarkers, markerScanner, type BusyMarkers, type BusyObserved } from './busyJudge.js';
import type { GateDeps } from '../deps.js';

// The node side of `nh-gate busy`: the GPU sampler beside the command, every line timed into command.log,
// marker arrival times noted as lines come. Effects only, no judgement: the same code runs for the local
// executor and inside a Slurm job (src/slurm/tasks/busy.ts); the harness judges (src/gates/busy/busyJudge.ts).

// What the observing host needs; plain data, so it travels to a Slurm job as JSON.
export interface BusyRequest extends BusyMarkers {
  command: string[];
  deviceIndex?: number | undefined;
  periodMs?: number | undefined;
  timeoutS?: number | undefined;
  // Added to the environment the command inherits (a Slurm task: the config's `export` names).
  env?: Record<string, string> | undefined;
}

// The files of a busy run, relative to its run directory.
export const BUSY_FILES = { log: 'command.log', samples: 'samples.jsonl' } as const;

export type BusyObserveDeps = Pick<GateDeps, 'exec' | 'openBusySampler'>;

// Runs the command with the sampler beside it, writing command.log and samples.jsonl under outDir.
export async function observeBusy(req: BusyRequest, outDir: string, deps: BusyObserveDeps, signal: AbortSignal): Promise<BusyObserved> {
  const m = compileMarkers(req);
  const sampler = await deps.openBusySampler({ samplesPath: join(outDir, BUSY_FILES.samples), ...(req.deviceIndex !== undefined ? { deviceIndex: req.deviceIndex } : {}), ...(req.periodMs ? { periodMs: req.periodMs } : {}) });
  const scan = markerScanner(m.start, m.end);
  // The command's output streams to command.log as it arrives (memory stays flat on any output size).
  const sink = openLogSink(join(outDir, BUSY_FILES.log));
  const run = await deps.exec.run(
    { argv: req.command, retainLines: 200, ...(req.timeoutS ? { timeoutS: req.timeoutS } : {}), ...(req.env ? { env: req.env } : {}) },
    {
      signal,
      onLine: (l) => {
        const t = monoS(l.tNs);
        sink.write(formatTimedLine(t, l.text));
        scan.feed(t, l.text);
      },
    },
  );
  const stopped = await sampler.stop();
  const log = sink.close();
  return {
    run, markers: scan.times(), log,
    sampler: { backend: stopped.backend, reason: sampler.reason ?? null, count: stopped.count, errors: stopped.errors, samplesFile: stopped.samplesPath ? BUSY_FILES.samples : null },
  };
}
