import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { monoNs } from './clock.js';

// Linux /proc reads: a zombie answers kill(pid, 0) like a live process, and in containers whose init
// reaps slowly a killed tree lingers as zombies, so liveness is judged by process state, not by kill.

export interface ProcStat { pid: number; state: string; ppid: number; pgrp: number; session: number; cpuTicks: number; startTicks: number }

// One buffer for every stat read: a sweep reads every process's file, and readFileSync's option handling
// and fresh buffer per file cost more than the kernel's formatting of it (issue 25).
const statBuf = Buffer.allocUnsafe(4096);

export function readStat(pid: number | string): ProcStat | null {
  try {
    const fd = openSync(`/proc/${pid}/stat`, 'r');
    let n: number;
    try {
      n = readSync(fd, statBuf, 0, statBuf.length, 0);
    } finally {
      closeSync(fd);
    }
    return parseStat(Number(pid), statBuf, n);
  } catch {
    return null;
  }
}

// The fields kept, by their place after the command's closing parenthesis: state ppid pgrp session tty tpgid
// flags minflt cminflt majflt cmajflt utime stime … starttime (the 22nd field of the line).
const PPID = 1, PGRP = 2, SESSION = 3, UTIME = 11, STIME = 12, START = 19;

// One /proc/<pid>/stat line read from its first n bytes (pure), as Number() of each space-separated field after
// the command's closing parenthesis reads it. Read straight from the bytes: a sweep reads every process's line,
// and a string per line and per field cost a third of a /proc scan's CPU (issue 25). Only a field that is not
// plain digits (never seen in a kernel's line) goes through Number(); an absent one is NaN.
export function parseStat(pid: number, b: Uint8Array, n: number): ProcStat {
  let close = -1;
  for (let i = n - 1; i >= 0; i--) {
    if (b[i] === 0x29) {
      close = i;
      break;
    }
  }
  let i = close + 2;
  let state = '';
  for (; i < n && b[i] !== 0x20; i++) state += String.fromCharCode(b[i]!);
  const f: number[] = [];
  for (let field = 1; field <= START; field++) {
    if (i >= n) {
      f.push(NaN);
      continue;
    }
    const start = ++i; // past the space before the field
    const neg = b[i] === 0x2d;
    if (neg) i += 1;
    let v = 0;
    let plain = !neg || (i < n && b[i] !== 0x20);
    for (; i < n && b[i] !== 0x20; i++) {
      const d = b[i]! - 0x30;
      if (d < 0 || d > 9) plain = false;
      v = v * 10 + d;
    }
    f.push(plain ? (neg ? -v : v) : Number(String.fromCharCode(...b.subarray(start, i))));
  }
  return { pid, state, ppid: f[PPID - 1]!, pgrp: f[PGRP - 1]!, session: f[SESSION - 1]!, cpuTicks: f[UTIME - 1]! + f[STIME - 1]!, startTicks: f[START - 1]! };
}

// Whether /proc is there to ask (Linux); elsewhere callers fall back to kill(…, 0). Asked once: /proc does
// not come and go while nh-gate runs.
let procfs: boolean | null = null;
export function hasProcfs(): boolean {
  procfs ??= readStat('self') !== null;
  return procfs;
}

// A pid that exists and is not a zombie; null when /proc cannot say.
export function procAlive(pid: number): boolean | null {
  if (!hasProcfs()) return null;
  const st = readStat(pid);
  return st !== null && st.state !== 'Z' && st.state !== 'X';
}

// Live (non-zombie) members of a process group; null when /proc cannot say.
export function groupMembers(pgid: number): number[] | null {
  if (!hasProcfs()) return null;
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = readStat(name);
    if (st && st.pgrp === pgid && st.state !== 'Z' && st.state !== 'X') out.push(st.pid);
  }
  return out;
}

// A process's start time in clock ticks since boot (/proc/<pid>/stat field 22): with the pid it names one
// process for good, so a recycled pid is never mistaken for the one recorded. Null when gone or unknown.
export function startTicks(pid: number): number | null {
  const st = readStat(pid);
  return st === null || st.state === 'Z' || st.state === 'X' || !Number.isFinite(st.startTicks) ? null : st.startTicks;
}

// The newest pid the kernel has given out in this pid namespace (the last field of /proc/loadavg: processes and
// threads share the numbers); null when /proc cannot say.
export function newestPid(): number | null {
  try {
    return parseNewestPid(readFileSync('/proc/loadavg', 'latin1'));
  } catch {
    return null;
  }
}

// "0.52 0.58 0.59 1/467 12345\n" → 12345 (pure); null for anything else.
export function parseNewestPid(loadavg: string): number | null {
  const m = /^\S+ \S+ \S+ \d+\/\d+ (\d+)\s*$/.exec(loadavg);
  return m ? Number(m[1]) : null;
}

// Whether no process or thread has been created since `pid` was: the newest pid is still it. A tree that made
// nothing after its root has no member but the root, and a scan of every process could find no more (pids are
// given out in order; only a wrap of the whole pid space within one leg, onto this very number, would fool it).
export function nothingCreatedSince(pid: number): boolean {
  return newestPid() === pid;
}

// Every process /proc lists right now (zombies included: their CPU time is still the tree's).
export function allProcs(): ProcStat[] {
  if (!hasProcfs()) return [];
  const startNs = monoNs();
  const out: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = readStat(name);
    if (st) out.push(st);
  }
  lastScan = { procs: out, startNs };
  return out;
}

// The latest allProcs scan if it began at or after sinceNs (monotonic), else a fresh one. A scan reads every
// process's stat file (tens of ms on a loaded host): a leg's tree takes its last look from the scan the exit
// sweep (contain.ts) began after the leader exited, instead of reading /proc again on the leg's critical path.
let lastScan: { procs: ProcStat[]; startNs: bigint } | null = null;
export function procsSince(sinceNs: bigint): ProcStat[] {
  return lastScan && lastScan.startNs >= sinceNs ? lastScan.procs : allProcs();
}

// A process's children, from each of its threads' /proc/<pid>/task/<tid>/children; [] once it is gone, null
// where the kernel has no such files (CONFIG_PROC_CHILDREN off), so the caller scans /proc instead.
let childrenFiles: boolean | null = null;
export function childrenOf(pid: number): number[] | null {
  childrenFiles ??= existsSync(`/proc/self/task/${process.pid}/children`);
  if (!childrenFiles) return null;
  const out: number[] = [];
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1').split(' ')) if (c) out.push(Number(c));
    } catch {
      /* the thread ended */
    }
  }
  return out;
}

// The command name of a process (/proc/<pid>/comm), for naming what was killed; null when gone.
export function procComm(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

// Whether a process's initial environment carries NAME=value exactly ('ours'), NAME with another value
// ('other'), or not at all ('none'); null when it cannot be read (gone, or another user's).
export function environMark(pid: number, name: string, value: string): 'ours' | 'other' | 'none' | null {
  let env: Buffer;
  try {
    env = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return null;
  }
  const key = Buffer.from(`${name}=`);
  let at = env.indexOf(key);
  while (at > 0 && env[at - 1] !== 0) at = env.indexOf(key, at + 1);
  if (at < 0) return 'none';
  const end = env.indexOf(0, at);
  return env.subarray(at + key.length, end < 0 ? env.length : end).toString() === value ? 'ours' : 'other';
}
