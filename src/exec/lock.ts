import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { hostname } from 'node:os';
import { NhGateError } from '../errors.js';
import { procAlive } from './procfs.js';

// One GPU lock per host, held for a whole series (all legs), so two gates never share the device.
export interface LockInfo {
  pid: number;
  host: string;
  command: string;
  startedAt: string;
}

export interface HeldLock {
  path: string;
  info: LockInfo;
  // Whether a stale lock (dead pid on this host) was removed to take this one.
  replacedStale: LockInfo | null;
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
    return { pid: v.pid, host: v.host, command: String(v.command ?? '?'), startedAt: String(v.startedAt ?? '?') };
  } catch {
    return null;
  }
}

// Takes the lock with O_EXCL; a lock whose pid is dead on this host is stale and replaced.
// A live holder is a LOCKED error naming who holds it and how to proceed.
export function acquireLock(path: string, command: string): HeldLock {
  mkdirSync(dirname(path), { recursive: true });
  const info: LockInfo = { pid: process.pid, host: hostname(), command, startedAt: new Date().toISOString() };
  let replacedStale: LockInfo | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify(info) + '\n');
      closeSync(fd);
      return {
        path, info, replacedStale,
        release() {
          const cur = readLock(path);
          if (cur && cur.pid === info.pid && cur.host === info.host) rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readLock(path);
      const stale = holder === null ? unreadableIsStale(path) : holder.host === info.host && !pidAlive(holder.pid);
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
