import { dirname, join } from 'node:path';
import type { Golden } from '../config/golden.js';
import type { DriverReport } from '../profiles/types.js';
import type { LegRecord } from '../results/types.js';
import type { LegLogHeader, LegLogTrailer } from '../results/legLog.js';
import type { ProcessRun } from '../exec/types.js';
import { readEngineEvents } from '../gates/leg/events.js';
import { judgeLeg } from '../gates/leg/judge.js';

// A leg log judged again, offline, by the very function the leg used (judgeLeg): same report, same
// golden, same events file, same process end. Only what the log cannot hold (busy samples, silicon) is absent.
export function rejudgeLegLog(logPath: string, report: DriverReport, header: LegLogHeader, trailer: LegLogTrailer, golden: Golden): LegRecord {
  const t0 = report.firstLineS ?? 0;
  const t1 = report.lastLineS ?? t0;
  const ns = (s: number): bigint => BigInt(Math.round(s * 1e6)) * 1000n;
  const run: ProcessRun = {
    argv: [], pid: null, startNs: ns(t0), endNs: ns(t1),
    exitCode: trailer.exitCode, signal: trailer.signal, timedOut: trailer.timedOut, interrupted: trailer.interrupted,
    spawnError: trailer.spawnError, orphansKilled: false, lines: [],
  };
  const events = header.events ? readEngineEvents(join(dirname(logPath), header.events)) : null;
  const leg = judgeLeg({
    index: header.index, arm: header.arm, label: header.label, mode: header.mode, flagEnv: {}, binarySha256: null,
    run, originNs: ns(t0), report, events, golden, deviceClaim: header.deviceClaim,
    busy: trailer.foreignPids.length > 0 ? { util: [], nominalPeriodS: null, backend: null, note: null, foreignPids: trailer.foreignPids, contentionChecked: true } : null,
    silicon: null,
    ...(header.requireWitness ? { requireWitness: header.requireWitness } : {}),
    files: { log: logPath, events: header.events, samples: null },
  });
  // judgeLeg reads "no samples" as "no GPU on this host"; here it only means the log does not hold them.
  return leg.quantities.busy ? leg : { ...leg, samplerNote: 'busy is not in a leg log: pass its samples file with --samples' };
}
