import { allProcs, hasProcfs, type ProcStat } from './procfs.js';

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

export interface TreeTracker {
  // Stops polling; the pids seen and the CPU seconds they used (user + system, at their last sighting).
  stop(): { pids: Set<number>; cpuS: number | null };
}

const TICKS_PER_S = 100; // USER_HZ: 100 on every Linux ABI node runs on

// Polls the tree every periodMs until stopped; without /proc it knows only the root (and says so by cpuS null).
export function trackTree(rootPid: number, periodMs = 100): TreeTracker {
  const pids = new Set<number>([rootPid]);
  const ticks = new Map<number, number>();
  if (!hasProcfs()) return { stop: () => ({ pids, cpuS: null }) };
  const poll = (): void => {
    const procs = allProcs();
    for (const pid of treeOf(rootPid, procs, pids)) pids.add(pid);
    for (const p of procs) if (pids.has(p.pid) && Number.isFinite(p.cpuTicks)) ticks.set(p.pid, p.cpuTicks);
  };
  poll();
  const timer = setInterval(poll, periodMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      poll();
      let sum = 0;
      for (const t of ticks.values()) sum += t;
      return { pids, cpuS: sum / TICKS_PER_S };
    },
  };
}
