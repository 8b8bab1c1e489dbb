import type { Silicon } from '../../silicon/types.js';
import type { SlurmLegInfo } from '../../results/types.js';
import type { LegObserved, LegRequest } from './observe.js';
import type { Reason } from '../../verdict/reasons.js';

// The executor seam of a series: a leg runs here (local) or as a Slurm job (src/slurm/legRunner.ts);
// either way it comes back as the same observation, and the series judges it the same way.

export interface LegRunOutcome {
  observed: LegObserved;
  // The silicon of the host that ran the leg; null means the series' own host.
  silicon: Silicon | null;
  // An origin on the executing host's monotonic clock standing for the series' origin (null: same host, same clock).
  originNs: bigint | null;
  slurm: SlurmLegInfo | null;
  // A reason the executor voids the leg by (SLURM_CANCELLED …); null when the executor did its part.
  fault: Reason | null;
}

// Where a leg runs within its series: the run directory, Ctrl-C, the series' clock origin and arch.
export interface LegSite {
  runDir: string;
  signal: AbortSignal;
  originNs: bigint;
  arch: string;
  // The leg's ABBA block (0-based; warm-up legs join the first) and the legs in it, and the series' legs:
  // the scope a Slurm allocation is taken for (jobPer block or series).
  block: number;
  blockLegs: number;
  seriesLegs: number;
}

export interface LegRunner {
  kind: 'local' | 'slurm';
  // Checks that legs can be submitted at all, before the series builds (a bad partition costs no build).
  preflight?(site: { runDir: string; arch: string; scopeLegs: number }, first: Pick<LegRequest, 'arm' | 'timeoutS'>): Promise<void>;
  run(req: LegRequest, site: LegSite): Promise<LegRunOutcome>;
  // Ends what the executor holds for the series (a Slurm allocation), once the last leg is done.
  release?(): Promise<void>;
}
