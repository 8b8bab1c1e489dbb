import type { BusyExecutor } from '../gates/busy/busy.js';
import { busyObservedFromRecord } from './tasks/busy.js';
import type { SlurmTasks } from './task.js';
import { forOneRun } from './taskFault.js';

// busy --executor slurm: the command and its sampler run as one node task (src/slurm/tasks/busy.ts) on a
// node with one exclusive GPU; what the node observed comes back for the one busy judge.

// Without --timeout the job still needs a --time: an hour (plus the config's timeMarginS).
export const BUSY_DEFAULT_TIME_S = 3600;

// The busy executor over node tasks.
export function slurmBusyExecutor(tasks: SlurmTasks): BusyExecutor {
  const shape = (timeoutS: number | undefined) => ({ arm: 'single' as const, timeoutS: timeoutS ?? BUSY_DEFAULT_TIME_S, scopeTasks: 1 });
  return {
    kind: 'slurm',
    preflight: (runDir, req) => tasks.preflight(runDir, 'cpu', shape(req.timeoutS)),
    async run(req, site) {
      // env is always present, so the config's exported variables join it (task.ts withExported).
      const out = await tasks.run({ name: 'busy', kind: 'busy', arch: 'cpu', body: { ...req, env: req.env ?? {} }, block: 0, label: 'busy', ...shape(req.timeoutS) }, site);
      const observed = out.record ? busyObservedFromRecord(out.record.body) : null;
      return { observed, silicon: out.record?.silicon ?? null, originNs: out.record && observed ? out.record.originNs : null, slurm: out.slurm, fault: out.fault ? forOneRun(out.fault) : null, interrupted: out.interrupted };
    },
    release: () => tasks.release(),
  };
}
