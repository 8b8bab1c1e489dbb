import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { monoNs } from '../exec/clock.js';
import { writeAtomic } from '../io/atomic.js';
import type { LegRunner, LegRunOutcome } from '../gates/leg/legRunner.js';
import { legFiles, type LegObserved, type LegRequest } from '../gates/leg/observe.js';
import { slurmTasks, type SlurmTasksOptions } from './task.js';
import { legObservedFromWire } from './wire.js';

// --executor slurm for a3/ab series: each leg is a node task (src/slurm/task.ts): its own job, or a step in
// the series' (or the ABBA block's) allocation. The node's observation comes back as the very LegObserved a
// local leg gives, so the series judges it the same way; Slurm faults come back as the leg's named VOID.

function emptyRun(argv: string[]): LegObserved['run'] {
  const t = monoNs();
  return { argv, pid: null, startNs: t, endNs: t, exitCode: null, signal: null, timedOut: false, interrupted: false, spawnError: null, orphansKilled: false, lines: [] };
}

// What a leg whose job never ran (or left no record) observed: nothing.
function lostObservation(req: LegRequest): LegObserved {
  return {
    run: emptyRun([]), binarySha256: null, foreignPids: [], contentionChecked: false, samplerBackend: null, samplerNote: null,
    util: [], gpm: [], clocks: [], gpmStatus: null, nominalPeriodS: null, sampled: false, files: { ...legFiles(req), events: null, samples: null },
    samplerEnd: null, log: { bytes: 0, droppedBytes: 0, fault: null, error: null }, tree: { pids: [], cpuS: null, cpuNote: null },
  };
}

// The Slurm executor of one series.
export function slurmLegRunner(o: SlurmTasksOptions): LegRunner {
  const tasks = slurmTasks(o);
  return {
    kind: 'slurm',
    async preflight(site, first) {
      await tasks.preflight(site.runDir, site.arch, { ...first, scopeTasks: site.scopeLegs });
    },
    async run(req, at): Promise<LegRunOutcome> {
      const out = await tasks.run(
        { name: req.name, kind: 'leg', arm: req.arm, arch: at.arch, timeoutS: req.timeoutS, body: req, block: at.block, scopeTasks: o.config.jobPer === 'block' ? at.blockLegs : at.seriesLegs, label: `leg ${req.index + 1}: ${req.label}` },
        at,
      );
      const rec = out.record;
      const observed: LegObserved = legObservedFromWire(rec?.body ?? null) ?? lostObservation(req);
      // A job ended by Slurm is that leg's fault, not a Ctrl-C of the series; ours is the series' interrupt.
      observed.run = { ...observed.run, interrupted: out.interrupted };
      // A task that never ran left no log: the header alone says which leg this was.
      const log = join(at.runDir, observed.files.log);
      if (!existsSync(log)) writeAtomic(log, req.logHeader + '\n');
      return { observed, silicon: rec?.silicon ?? null, originNs: rec && rec.body ? rec.originNs : null, slurm: out.slurm, fault: out.fault };
    },
    release: () => tasks.release(),
  };
}
