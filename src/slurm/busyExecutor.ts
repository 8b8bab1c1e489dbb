import type { BusyExecutor } from '../gates/busy.js';
import { busyObservedFromRecord } from './tasks/busy.js';
import type { NodeTasks } from './taskTypes.js';

// busy --executor slurm: the command and its sampler run as one node task (src/slurm/tasks/busy.ts) on a
// node with one exclusive GPU; what the node observed comes back for the one busy judge.

// Without --timeout the job still needs a --time: an hour (plus the config's timeMarginS).
export const BUSY_DEFAULT_TIME_S = 3600;

// The busy executor over node tasks.
export function slurmBusyExecutor(tasks: NodeTasks): BusyExecutor {
  const shape = (timeoutS: number | undefined) => ({ arm: 'single' as const, timeoutS: timeoutS ?? BUSY_DEFAULT_TIME_S });
  return {
    kind: 'slurm',
    preflight: (runDir, req) => tasks.preflight({ runDir, arch: 'cpu' }, shape(req.timeoutS)),
    async run(req, site) {
      const out = await tasks.run({ name: 'busy', kind: 'busy', arch: 'cpu', body: { request: req }, block: 0, ...shape(req.timeoutS) }, site);
      const observed = out.record ? busyObservedFromRecord(out.record.body) : null;
      return { observed, silicon: out.record?.silicon ?? null, originNs: out.record && observed ? out.record.originNs : null, slurm: out.slurm, fault: out.fault, interrupted: out.interrupted };
    },
    release: () => tasks.release(),
  };
}
