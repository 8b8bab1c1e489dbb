import type { Executor } from '../exec/types.js';
import type { Silicon } from '../silicon/types.js';
import type { LegRunner } from './leg/legRunner.js';
import type { BusySampler, BusySamplerOptions, ComputeProcessesResult } from '../sampler/types.js';
import type { RunListener } from '../report/live.js';

// The effects a gate needs, in one seam: the CLI passes the real ones, tests may pass deterministic ones.
export interface GateDeps {
  exec: Executor;
  detectSilicon: () => Promise<Silicon>;
  openBusySampler: (opts: BusySamplerOptions) => Promise<BusySampler>;
  computeProcesses: (deviceIndex: number) => Promise<ComputeProcessesResult>;
  now: () => Date;
  // Progress goes to stderr as whole lines, terminal or not (a CI log shows it live); isTty lets a build
  // rewrite one status line in place instead.
  isTty: boolean;
  progress: (line: string) => void;
  // Told after every save of the run directory (the text on stdout, the exports); absent → nothing live.
  live?: RunListener;
  // Where legs run: absent → on this host (src/gates/leg/observe.ts); set → e.g. as Slurm jobs (--executor slurm).
  legRunner?: LegRunner;
}

// The real effects, loaded lazily so a command that never samples never loads the addon.
export async function realDeps(): Promise<GateDeps> {
  const [{ realExecutor }, { detectSilicon }, sampler] = await Promise.all([
    import('../exec/spawn.js'),
    import('../silicon/detect.js'),
    import('../sampler/index.js'),
  ]);
  const isTty = Boolean(process.stderr.isTTY);
  return {
    exec: realExecutor,
    detectSilicon: () => detectSilicon(),
    openBusySampler: (o) => sampler.openBusySampler(o),
    computeProcesses: (i) => sampler.computeProcesses(i),
    now: () => new Date(),
    isTty,
    progress: (line) => { process.stderr.write(`${line}\n`); },
  };
}
