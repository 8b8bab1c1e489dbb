import { mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { hostname } from 'node:os';
import { NhGateError } from '../errors.js';
import { procAlive, startTicks } from './procfs.js';
import { reaperPid } from './reaper.js';


// One GPU lock per host, held for a whole series (all legs), so two gates never share the device.
export interface LockInfo {
  pid: number;
  host: string;
  command: string;
  startedAt: string;
  // The holder's start time (/proc ticks): a recycled pid is not the holder.
  startTicks?: number | null;
  reaperPid?: number | null;
  // The running leg's process group and its leader's start time, rewritten as each leg starts.
  leg?: { pgid: number; startTicks: number | null } | null;
}

export interface HeldLock {
  path: string;
  info: LockInfo;
  // Whether a stale lock (dead pid on this host) was removed to take this one; its leg group, if still
  // alive, is the caller's to settle (settleStaleGroup: ended only when provably that run's).
  replacedStale: LockInfo | null;
  // Records the running leg's group in the lock file, so a later nh-gate can end it should this one die.
  recordLeg(pgid: number): void;
  release(): void;
}

// The lock path: NH_GATE_LOCK when set, else .nh-gate/gpu.lock under the working directory.
export function lockPath(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const p = env.NH_GATE_LOCK;
  return p && p.length > 0 ? resolve(cwd, p) : resolve(cwd, '.nh-gate', 'gpu.lock');
}

// Whether a pid is alive on this host (EPERM: alive but not ours).
export function pidAlive(pid: number): boolean {
  const viaProc = procAlive(pid);
  if (viaProc !== null) return viaProc;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(path: string): LockInfo | null {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockInfo>;
    if (typeof v.pid !== 'number' || typeof v.host !== 'string') return null;
    const leg = v.leg && typeof v.leg.pgid === 'number' ? { pgid: v.leg.pgid, startTicks: typeof v.leg.startTicks === 'number' ? v.leg.startTicks : null } : null;
    return { pid: v.pid, host: v.host, command: String(v.command ?? '?'), startedAt: String(v.startedAt ?? '?'), startTicks: typeof v.startTicks === 'number' ? v.startTicks : null, leg };
  } catch {
    return null;
  }
}

// Takes the lock with O_EXCL; a lock whose pid is dead on this host is stale and replaced.
// A live holder is a LOCKED error naming who holds it and how to proceed.
export function acquireLock(path: string, command: string): HeldLock {
  mkdirSync(dirname(path), { recursive: true });
  const info: LockInfo = { pid: process.pid, host: hostname(), command, startedAt: new Date().toISOString(), startTicks: startTicks(process.pid), reaperPid: reaperPid(), leg: null };
  let replacedStale: LockInfo | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify(info) + '\n');
      closeSync(fd);
      return {
        path, info, replacedStale,
        recordLeg(pgid: number) {
          info.leg = { pgid, startTicks: startTicks(pgid) };
          const tmp = `${path}.tmp-${process.pid}`;
          try {
            writeFileSync(tmp, JSON.stringify(info) + '\n');
            renameSync(tmp, path);
          } catch {
            rmSync(tmp, { force: true });
          }
        },
        release() {
          const cur = readLock(path);
          if (cur && cur.pid === info.pid && cur.host === info.host) rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readLock(path);
      const stale = holder === null ? unreadableIsStale(path) : holder.host === info.host && !holderAlive(holder);
      if (!stale) {
        const who = holder ? `pid ${holder.pid} on ${holder.host} (${holder.command}, since ${holder.startedAt})` : 'an unreadable holder';
        throw new NhGateError('LOCKED', `the GPU lock ${path} is held by ${who}`, 'wait for that series to finish, or point NH_GATE_LOCK elsewhere if it guards a different device');
      }
      replacedStale = holder;
      rmSync(path, { force: true });
    }
  }
  throw new NhGateError('LOCKED', `could not take the GPU lock ${path} after removing a stale holder three times`, 'another nh-gate is racing for it; retry');
}

// The holder is alive when its pid is, and (where both start times are known) it is the same process.
function holderAlive(h: LockInfo): boolean {
  if (!pidAlive(h.pid)) return false;
  const now = startTicks(h.pid);
  return h.startTicks === null || h.startTicks === undefined || now === null || now === h.startTicks;
}

// A lock file without a readable holder: stale when empty or gone; garbled content is treated as held
// (someone wrote it on purpose), so the error names the file and the user decides.
function unreadableIsStale(path: string): boolean {
  try {
    return readFileSync(path, 'utf8').trim() === '';
  } catch {
    return true;
  }
}

// Runs fn with the lock held, releasing it however fn ends.
export async function withLock<T>(path: string, command: string, fn: (lock: HeldLock) => Promise<T>): Promise<T> {
  const lock = acquireLock(path, command);
  try {
    return await fn(lock);
  } finally {
    lock.release();
  }
}
