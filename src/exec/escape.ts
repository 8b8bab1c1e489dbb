import type { ProcStat } from './procfs.js';

// Which processes belong to a leg that its process group no longer holds. A driver's worker may start its own
// session (setsid), or a daemon may double-fork away from its parent: a group signal never reaches those, and
// if they keep the leg's stdout open the harness waits on the pipe for as long as they live. Three marks find
// them, each written down here once:
// - the leg marker: every leg runs with NH_GATE_LEG=<unique value> in its environment, which descendants
//   inherit whatever session they start (a process that clears its environment loses it);
// - re-parenting: nh-gate is the child subreaper (src/exec/contain.ts), so an orphan of the leg is re-parented
//   to nh-gate instead of to init, and its session says whose it is;
// - descent: anything whose parent is one of the above.

export type EscapeHow = 'group' | 'marker' | 'reparented' | 'descendant';

export interface LegView {
  // One /proc snapshot.
  procs: readonly ProcStat[];
  // nh-gate's own pid (the subreaper orphans come to).
  selfPid: number;
  // The leg's leader: its pid is its process group and session.
  leaderPid: number;
  // The leader's start time (clock ticks); a process started before it cannot descend from it. null: unknown.
  leaderStartTicks: number | null;
  // Never the leg's, whatever they look like: nh-gate's other children (the reaper, other legs' leaders).
  exclude: ReadonlySet<number>;
  // What a process's environment says of the leg marker; asked only of processes that could be the leg's.
  marker(pid: number): 'ours' | 'other' | 'none' | null;
  // Another leg runs at the same time: an orphan in a session of its own that carries no marker could be that
  // leg's, so it is not taken on re-parenting alone.
  concurrent: boolean;
}

function live(p: ProcStat): boolean {
  return p.state !== 'Z' && p.state !== 'X';
}

// The leg's live processes other than its leader, each with the mark that found it (pure but for the marker).
export function escapedOf(v: LegView): Map<number, EscapeHow> {
  const found = new Map<number, EscapeHow>();
  const candidates = v.procs.filter((p) => live(p) && p.pid !== v.selfPid && p.pid !== v.leaderPid && !v.exclude.has(p.pid));
  for (const p of candidates) {
    if (p.pgrp === v.leaderPid) {
      found.set(p.pid, 'group');
      continue;
    }
    if (v.leaderStartTicks !== null && p.startTicks < v.leaderStartTicks) continue;
    const mark = v.marker(p.pid);
    if (mark === 'ours') found.set(p.pid, 'marker');
    else if (mark !== 'other' && p.ppid === v.selfPid && (p.session === v.leaderPid || (p.session === p.pid && !v.concurrent))) found.set(p.pid, 'reparented');
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of candidates) {
      if (!found.has(p.pid) && (found.has(p.ppid) || p.ppid === v.leaderPid)) {
        found.set(p.pid, 'descendant');
        grew = true;
      }
    }
  }
  return found;
}

// Dead processes of the leg re-parented to nh-gate (zombies): they are nh-gate's to collect, since Node waits
// only for the children it spawned. Never the leader (Node's own child) or an excluded pid.
export function zombiesToReap(v: Pick<LegView, 'procs' | 'selfPid' | 'leaderPid' | 'exclude'>, known: ReadonlySet<number>): number[] {
  return v.procs
    .filter((p) => !live(p) && p.ppid === v.selfPid && p.pid !== v.leaderPid && !v.exclude.has(p.pid) && (known.has(p.pid) || p.pgrp === v.leaderPid || p.session === v.leaderPid))
    .map((p) => p.pid);
}
