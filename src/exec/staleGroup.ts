import { groupAlive, terminateGroup } from './tree.js';
import { startTicks } from './procfs.js';

// A dead run's engine group found through its stale GPU lock: ended only when provably that run's own
// (same host, checked by the caller; the recorded pgid; its leader's start time equal to the recorded one),
// otherwise named and left, because a recycled pid may now belong to anyone.
export interface StaleGroup {
  pgid: number;
  action: 'ended' | 'left' | 'gone';
  why: string;
}

interface StaleHolder {
  pid: number;
  leg?: { pgid: number; startTicks: number | null } | null;
}

// Pure: what to do with a stale holder's recorded group, given what /proc says now.
export function judgeStaleGroup(holder: StaleHolder, alive: boolean, ticksNow: number | null): StaleGroup | null {
  const leg = holder.leg;
  if (!leg) return null;
  if (!alive) return { pgid: leg.pgid, action: 'gone', why: `the dead run's leg group ${leg.pgid} has already ended` };
  if (leg.startTicks === null) return { pgid: leg.pgid, action: 'left', why: `process group ${leg.pgid} is alive but its start time was not recorded, so it is not provably the dead run's; left running (end it yourself if it is)` };
  if (ticksNow !== leg.startTicks) return { pgid: leg.pgid, action: 'left', why: `process group ${leg.pgid} is alive but its leader started at tick ${ticksNow ?? 'unknown'}, not ${leg.startTicks} as recorded: not the dead run's; left running` };
  return { pgid: leg.pgid, action: 'ended', why: `ended process group ${leg.pgid} left running by dead nh-gate pid ${holder.pid} (leader start time matched the lock)` };
}

// Applies the judgement: SIGTERM then SIGKILL the group only when it is provably the dead run's.
export async function settleStaleGroup(holder: StaleHolder, graceMs = 2000): Promise<StaleGroup | null> {
  if (!holder.leg) return null;
  const pgid = holder.leg.pgid;
  const verdict = judgeStaleGroup(holder, groupAlive(pgid), startTicks(pgid));
  if (verdict?.action === 'ended') await terminateGroup(pgid, graceMs);
  return verdict;
}
