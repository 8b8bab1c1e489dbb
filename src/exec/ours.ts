import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { allProcs, childrenOf, hasProcfs, nothingCreatedSince, procAlive, procsSince, readStat, type ProcStat } from './procfs.js';

// "Ours" is the leg's whole process tree, not only the driver's pid: a driver such as drivers/llama-server.mjs
// runs the engine as its child, and on a GPU that child is the compute process. A GPU process counted as
// foreign would void every such leg as CONTENDED. The tree is polled while the leg runs, because a child that
// exits, or is re-parented to init when its parent dies, can no longer be traced back afterwards.

// Pids of the tree rooted at rootPid in one /proc snapshot: descendants by ppid, plus the root's process group,
// plus pids already known to be ours (a re-parented grandchild keeps its place once seen).
export function treeOf(rootPid: number, procs: readonly ProcStat[], known: ReadonlySet<number> = new Set()): Set<number> {
  const ours = new Set<number>([rootPid, ...known]);
  for (const p of procs) if (p.pgrp === rootPid) ours.add(p.pid);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of procs) if (!ours.has(p.pid) && ours.has(p.ppid)) { ours.add(p.pid); grew = true; }
  }
  return ours;
}

export interface TreeStop {
  pids: Set<number>;
  // CPU seconds the tree used (user + system, at each pid's last sighting); null without /proc.
  cpuS: number | null;
  // CPU seconds the whole host spent busy over the same interval (all cores), wall seconds, cores, load average.
  host: { busyS: number; wallS: number; cores: number; loadAvg1: number } | null;
}

export interface TreeTracker {
  // Stops polling and reports what the tree and the host used; given the leader's exit time, a /proc scan
  // begun after it is reused rather than made again.
  stop(leaderEndNs?: bigint): TreeStop;
}

// Busy ticks of all CPUs from /proc/stat (everything but idle and iowait).
function hostBusyTicks(): number | null {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return f.reduce((a, b) => a + b, 0) - (f[3] ?? 0) - (f[4] ?? 0);
  } catch {
    return null;
  }
}

// "Other processes used more than half of the host's CPU over the leg": the figures and, if so, the sentence.
export function cpuContention(t: TreeStop): string | null {
  if (!t.host || t.cpuS === null || t.host.wallS <= 0) return null;
  const otherS = Math.max(0, t.host.busyS - t.cpuS);
  const share = otherS / (t.host.wallS * t.host.cores);
  if (share <= 0.5) return null;
  return `CPU_CONTENDED: other processes used ${otherS.toFixed(2)} CPU-s of the ${(t.host.wallS * t.host.cores).toFixed(2)} the host's ${t.host.cores} core(s) had over the leg (${(100 * share).toFixed(0)}%; load average ${t.host.loadAvg1.toFixed(2)}) — CPU timings of this leg are not its own`;
}

const TICKS_PER_S = 100; // USER_HZ: 100 on every Linux ABI node runs on
const FULL_SCAN_EVERY = 10;
// The host's logical CPUs, read once: os.cpus() parses /proc/cpuinfo, a cost on every leg's critical path.
const CORES = cpus().length;

// Polls the tree every periodMs until stopped; without /proc it knows only the root (and says so by cpuS null).
export function trackTree(rootPid: number, periodMs = 100): TreeTracker {
  const pids = new Set<number>([rootPid]);
  const ticks = new Map<number, number>();
  if (!hasProcfs()) return { stop: () => ({ pids, cpuS: null, host: null }) };
  const busy0 = hostBusyTicks();
  const t0 = process.hrtime.bigint();
  const take = (procs: readonly ProcStat[]): void => {
    for (const pid of treeOf(rootPid, procs, pids)) pids.add(pid);
    for (const p of procs) if (pids.has(p.pid) && Number.isFinite(p.cpuTicks)) ticks.set(p.pid, p.cpuTicks);
  };
  // Just spawned, the tree is its root (a new group's leader has no children yet): one stat, not a scan.
  const root = readStat(rootPid);
  if (root) take([root]);
  // Between whole scans the tree is walked down from the pids it has (their stats and children): a few
  // files instead of every process's. The whole scan, every FULL_SCAN_EVERY polls and at the end, still
  // finds a member re-parented out of the tree by its process group.
  let polls = 0;
  const walk = (): ProcStat[] | null => {
    const seen: ProcStat[] = [];
    const todo = [...pids];
    const visited = new Set<number>();
    for (let pid = todo.pop(); pid !== undefined; pid = todo.pop()) {
      if (visited.has(pid)) continue;
      visited.add(pid);
      const st = readStat(pid);
      if (st) seen.push(st);
      const kids = childrenOf(pid);
      if (kids === null) return null;
      todo.push(...kids);
    }
    return seen;
  };
  const timer = setInterval(() => take((++polls % FULL_SCAN_EVERY !== 0 ? walk() : null) ?? allProcs()), periodMs);
  timer.unref();
  return {
    stop: (leaderEndNs) => {
      clearInterval(timer);
      // A scan begun after the leader exited (the exit sweep's) sees what a new one would.
      // The root gone and nothing created since it: the tree was the root, already taken; no scan can add to it.
      if (procAlive(rootPid) === true || !nothingCreatedSince(rootPid)) take(leaderEndNs === undefined ? allProcs() : procsSince(leaderEndNs));
      let sum = 0;
      for (const t of ticks.values()) sum += t;
      const busy1 = hostBusyTicks();
      const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
      const host = busy0 !== null && busy1 !== null ? { busyS: (busy1 - busy0) / TICKS_PER_S, wallS, cores: CORES, loadAvg1: loadavg()[0] ?? 0 } : null;
      return { pids, cpuS: sum / TICKS_PER_S, host };
    },
  };
}
