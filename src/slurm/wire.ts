import { readFileSync } from 'node:fs';
import type { ProcessRun } from '../exec/types.js';
import type { Silicon } from '../silicon/types.js';
import type { LegObserved } from '../gates/leg/observe.js';
import type { Reason } from '../verdict/reasons.js';

// The files a Slurm task travels in: the request nh-gate writes for the node, and the record the node's
// runner writes back. Both are JSON in the run directory; monotonic stamps (bigint ns) go as strings.
// A task is a leg, a busy command or a suite run (its `kind`); the envelope is the same for every kind.

export const WIRE_SCHEMA_VERSION = 2;

// What a node runs: a leg (src/slurm/tasks/leg.ts) or another kind registered in the runner's table.
export type TaskKind = 'leg' | 'busy' | 'command';

export interface TaskRequest {
  schemaVersion: typeof WIRE_SCHEMA_VERSION;
  kind: TaskKind;
  // The file stem under <runDir>/legs/ (request, record, Slurm output).
  name: string;
  runDir: string;
  copyMode: 'shared' | 'copy-back';
  nodeScratch: string;
  // The arch the series claims: a node whose silicon does not have it runs nothing (NO_SUCH_SILICON).
  arch: string;
  // Wall-clock ms of the series' origin, so the node's monotonic clock is put on the series' time axis.
  originWallMs: number;
  // The kind's own request (a LegRequest for a leg), JSON-safe.
  body: unknown;
}

// The lease holder's request (runner.js --hold FILE): which node-local GPU lock to hold for the allocation.
export interface HoldRequest {
  schemaVersion: typeof WIRE_SCHEMA_VERSION;
  kind: 'hold';
  // The node's GPU lock path; %n is the node's name.
  nodeLock: string;
  // How long to wait for a lock held by someone else before the allocation ends NODE_LOCKED.
  waitS: number;
  command: string;
}

export interface TaskRecord {
  kind: TaskKind;
  node: string;
  jobId: string | null;
  // The job step the task ran as, "JOB.STEP", when it ran inside a lease.
  stepId: string | null;
  silicon: Silicon | null;
  originNs: bigint;
  // The runner's own reason not to run the task (e.g. NO_SUCH_SILICON on this node).
  fault: Reason | null;
  // The kind's own observation, JSON-safe (null when the task did not run).
  body: unknown;
}

type WireRecord = Omit<TaskRecord, 'originNs'> & { schemaVersion: typeof WIRE_SCHEMA_VERSION; originNs: string };

// A record as the runner writes it.
export function taskRecordJson(r: TaskRecord): string {
  const wire: WireRecord = { schemaVersion: WIRE_SCHEMA_VERSION, ...r, originNs: String(r.originNs) };
  return JSON.stringify(wire) + '\n';
}

// A record as nh-gate reads it back; null when the file is absent, unreadable or not one of ours.
export function readTaskRecord(path: string): TaskRecord | null {
  let w: WireRecord;
  try {
    w = JSON.parse(readFileSync(path, 'utf8')) as WireRecord;
  } catch {
    return null;
  }
  if (w?.schemaVersion !== WIRE_SCHEMA_VERSION || typeof w.originNs !== 'string') return null;
  const { schemaVersion: _v, originNs, ...rest } = w;
  return { ...rest, stepId: rest.stepId ?? null, originNs: BigInt(originNs) };
}

type WireRun = Omit<ProcessRun, 'startNs' | 'endNs' | 'lines'> & { startNs: string; endNs: string; lines: Array<{ tNs: string; stream: 'stdout' | 'stderr'; text: string }> };

// A process run with its bigint stamps as strings, and back (a leg's, a suite run's).
export function runToWire(run: ProcessRun): WireRun {
  return { ...run, startNs: String(run.startNs), endNs: String(run.endNs), lines: run.lines.map((l) => ({ ...l, tNs: String(l.tNs) })) };
}

export function runFromWire(w: WireRun): ProcessRun {
  return { ...w, startNs: BigInt(w.startNs), endNs: BigInt(w.endNs), lines: w.lines.map((l) => ({ ...l, tNs: BigInt(l.tNs) })) };
}

// A leg's observation on the wire.
export function legObservedToWire(o: LegObserved): unknown {
  return { ...o, run: runToWire(o.run) };
}

export function legObservedFromWire(w: unknown): LegObserved | null {
  if (w === null || typeof w !== 'object' || !('run' in w)) return null;
  const o = w as Omit<LegObserved, 'run'> & { run: WireRun };
  return { ...o, run: runFromWire(o.run) };
}
