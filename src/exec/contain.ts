import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadAddon } from '../sampler/load.js';
import { allProcs, environMark, hasProcfs, nothingCreatedSince, procAlive, procComm, startTicks } from './procfs.js';
import { signalGroup, terminateGroup } from './tree.js';
import { escapedOf, zombiesToReap, type EscapeHow, type LegView } from './escape.js';

// Containment: nothing a leg starts outlives it. The process group (every leg leads its own) reaches the
// ordinary children; the leg marker and the child subreaper (escape.ts) find what left the group. nh-gate
// becomes the subreaper through the NVML addon (native/addon/src/subreaper.cc), chosen over a helper binary
// between nh-gate and the driver (which would stand in for the driver's pid, exit status and signals
// everywhere a leg is recorded) and over a cgroup v2 scope (it needs a delegated, writable cgroup tree, which
// containers and CI runners rarely give). Where the addon cannot load, the group and the marker still hold.

export const LEG_MARKER_ENV = 'NH_GATE_LEG';

export interface ContainmentState {
  subreaper: boolean;
  // Which mechanisms hold, by name (recorded with every leg that had something to kill).
  mechanisms: string;
  reap: ((pid: number) => boolean) | null;
}

let state: ContainmentState | null = null;

// Makes this process the child subreaper once, and says what containment holds here.
export function containment(): ContainmentState {
  if (state) return state;
  const base = hasProcfs() ? 'process group + leg marker (NH_GATE_LEG in the environment)' : 'process group only (no /proc to find escaped processes)';
  if (process.platform !== 'linux') return (state = { subreaper: false, mechanisms: `${base}; no subreaper: Linux only`, reap: null });
  const addon = loadAddon();
  const b = addon.ok ? addon.binding : null;
  const set = b?.setChildSubreaper;
  const reapChild = b?.reapChild;
  if (!set || !reapChild) {
    const why = addon.ok ? `${addon.path} predates the subreaper (rebuild: node scripts/build-addon.mjs)` : addon.reason;
    return (state = { subreaper: false, mechanisms: `${base}; no subreaper: ${why}`, reap: null });
  }
  const r = set();
  if (!r.ok) return (state = { subreaper: false, mechanisms: `${base}; no subreaper: ${r.code}: ${r.message}`, reap: null });
  return (state = { subreaper: true, mechanisms: `child subreaper + ${base}`, reap: (pid) => reapChild(pid) });
}

let seq = 0;
// A value no other leg, here or in another nh-gate, carries: this pid, a counter and random bits.
export function newLegMarker(): string {
  seq += 1;
  return `${process.pid}.${seq}.${randomBytes(6).toString('hex')}`;
}

// Leaders of legs running now in this process, and the reaper: never taken as another leg's escaped process.
const leaders = new Set<number>();
const excludedPids = new Set<number>();
export function leaderStarted(pid: number): void {
  leaders.add(pid);
}
export function leaderEnded(pid: number): void {
  leaders.delete(pid);
}
export function excludeFromSweeps(pid: number): void {
  excludedPids.add(pid);
}

// Node's own child processes (spawned by this process, so Node waits for them); private API, guarded.
function nodeChildren(): number[] {
  const handles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.() ?? [];
  return handles.map((h) => (h as { pid?: unknown }).pid).filter((p): p is number => typeof p === 'number');
}

export interface KilledProcess {
  pid: number;
  comm: string | null;
  how: EscapeHow;
  // The last signal it was sent; survived: still alive after SIGKILL (uninterruptible sleep).
  signal: 'SIGTERM' | 'SIGKILL';
  survived?: boolean;
}

export interface LegHandle {
  pid: number;
  startTicks: number | null;
  marker: string;
}

// The leader's start time, read as soon as it is spawned (with the pid, it names the leader for good).
export function legHandle(pid: number, marker: string): LegHandle {
  return { pid, startTicks: startTicks(pid), marker };
}

function view(leg: LegHandle): LegView {
  const exclude = new Set<number>([...excludedPids, ...nodeChildren(), ...[...leaders].filter((p) => p !== leg.pid)]);
  return {
    procs: allProcs(), selfPid: process.pid, leaderPid: leg.pid, leaderStartTicks: leg.startTicks, exclude,
    marker: (pid) => environMark(pid, LEG_MARKER_ENV, leg.marker), concurrent: leaders.size > 1,
  };
}

function kill(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone already */
  }
}

// Ends the leg's group (leader included) and everything that escaped it: SIGTERM, then SIGKILL after graceMs;
// collects the re-parented dead. Returns what was killed besides the leader. One /proc scan when nothing is
// left; when something was, a second before SIGKILL (what started during the grace) and one to collect.
export async function sweepLeg(leg: LegHandle, graceMs: number): Promise<KilledProcess[]> {
  if (!hasProcfs()) {
    await terminateGroup(leg.pid, graceMs);
    return [];
  }
  // The leader gone and nothing created since it was: its tree was the leader alone, so there is nothing to
  // find, kill or collect, and no scan of every process to make on the leg's critical path (issue 25). In that
  // order: a live leader could still make children; a dead one cannot.
  if (procAlive(leg.pid) !== true && nothingCreatedSince(leg.pid)) return [];
  const killed = new Map<number, KilledProcess>();
  const reap = containment().reap;
  const hit = (sig: 'SIGTERM' | 'SIGKILL'): LegView => {
    // The scan comes first: a process signalled before it is seen would be missed from the record.
    const v = view(leg);
    signalGroup(leg.pid, sig);
    for (const [pid, how] of escapedOf(v)) {
      const k = killed.get(pid);
      if (k && procAlive(pid) !== true) continue;
      killed.set(pid, { pid, comm: k?.comm ?? procComm(pid), how: k?.how ?? how, signal: sig });
      kill(pid, sig);
    }
    return v;
  };
  const alive = (): boolean => procAlive(leg.pid) === true || [...killed.keys()].some((p) => procAlive(p) === true);
  const first = hit('SIGTERM');
  // The leg's dead already re-parented here (a worker that exited after its parent): collected now.
  if (reap) for (const pid of zombiesToReap(first, new Set())) reap(pid);
  if (killed.size === 0 && !alive()) return [];
  const deadline = Date.now() + graceMs;
  while (alive() && Date.now() < deadline) await sleep(20);
  hit('SIGKILL');
  for (let i = 0; i < 50 && alive(); i++) await sleep(20);
  for (const k of killed.values()) if (procAlive(k.pid) === true) k.survived = true;
  if (reap) for (const pid of zombiesToReap(view(leg), new Set(killed.keys()))) reap(pid);
  return [...killed.values()];
}
