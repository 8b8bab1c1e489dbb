import { readFileSync } from 'node:fs';
import type { ProcessRun } from '../exec/types.js';
import type { Silicon } from '../silicon/types.js';
import type { LegObserved, LegRequest } from '../gates/observe.js';
import type { Reason } from '../verdict/reasons.js';

// The two files a Slurm leg travels in: the request nh-gate writes for the job, and the record the job's
// leg runner writes back. Both are JSON in the run directory; monotonic stamps (bigint ns) go as strings.

export const WIRE_SCHEMA_VERSION = 1;

export interface SlurmLegRequest {
  schemaVersion: typeof WIRE_SCHEMA_VERSION;
  leg: LegRequest;
  runDir: string;
  copyMode: 'shared' | 'copy-back';
  nodeScratch: string;
  // The arch the series claims: a node whose silicon does not have it runs nothing (NO_SUCH_SILICON).
  arch: string;
  // Wall-clock ms of the series' origin, so the node's monotonic clock is put on the series' time axis.
  originWallMs: number;
}

type WireRun = Omit<ProcessRun, 'startNs' | 'endNs' | 'lines'> & { startNs: string; endNs: string; lines: Array<{ tNs: string; stream: 'stdout' | 'stderr'; text: string }> };

export interface NodeRecordWire {
  schemaVersion: typeof WIRE_SCHEMA_VERSION;
  node: string;
  jobId: string | null;
  silicon: Silicon | null;
  originNs: string;
  observed: (Omit<LegObserved, 'run'> & { run: WireRun }) | null;
  // The runner's own reason not to run the leg (e.g. NO_SUCH_SILICON on this node).
  fault: Reason | null;
}

export interface NodeRecord {
  node: string;
  jobId: string | null;
  silicon: Silicon | null;
  originNs: bigint;
  observed: LegObserved | null;
  fault: Reason | null;
}

// A record as the runner writes it.
export function nodeRecordJson(r: NodeRecord): string {
  const o = r.observed;
  const wire: NodeRecordWire = {
    schemaVersion: WIRE_SCHEMA_VERSION, node: r.node, jobId: r.jobId, silicon: r.silicon, originNs: String(r.originNs), fault: r.fault,
    observed: o ? { ...o, run: { ...o.run, startNs: String(o.run.startNs), endNs: String(o.run.endNs), lines: o.run.lines.map((l) => ({ ...l, tNs: String(l.tNs) })) } } : null,
  };
  return JSON.stringify(wire) + '\n';
}

// A record as nh-gate reads it back; null when the file is absent, unreadable or not one of ours.
export function readNodeRecord(path: string): NodeRecord | null {
  let w: NodeRecordWire;
  try {
    w = JSON.parse(readFileSync(path, 'utf8')) as NodeRecordWire;
  } catch {
    return null;
  }
  if (w?.schemaVersion !== WIRE_SCHEMA_VERSION || typeof w.originNs !== 'string') return null;
  const o = w.observed;
  return {
    node: w.node, jobId: w.jobId, silicon: w.silicon, originNs: BigInt(w.originNs), fault: w.fault,
    observed: o ? { ...o, run: { ...o.run, startNs: BigInt(o.run.startNs), endNs: BigInt(o.run.endNs), lines: o.run.lines.map((l) => ({ ...l, tNs: BigInt(l.tNs) })) } } : null,
  };
}
