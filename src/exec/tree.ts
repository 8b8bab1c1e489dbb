import { groupMembers } from './procfs.js';

// Process-group control: every leg is spawned as the leader of its own group, so a timeout or a
// Ctrl-C reaches its children too and no orphan keeps the GPU.

// Sends a signal to a whole process group; false when the group no longer exists.
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EPERM') return true;
    return false;
  }
}

// Whether any process of the group is alive (zombies do not count: they hold no GPU).
export function groupAlive(pgid: number): boolean {
  const members = groupMembers(pgid);
  return members === null ? signalGroup(pgid, 0) : members.length > 0;
}

// SIGTERM the group, then SIGKILL whatever is left after graceMs; resolves once the group is gone
// (or after a last SIGKILL). Returns whether anything was alive to kill.
export async function terminateGroup(pgid: number, graceMs: number): Promise<boolean> {
  if (!groupAlive(pgid)) return false;
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(20);
    if (!groupAlive(pgid)) return true;
  }
  signalGroup(pgid, 'SIGKILL');
  for (let i = 0; i < 50 && groupAlive(pgid); i++) await sleep(20);
  return true;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
