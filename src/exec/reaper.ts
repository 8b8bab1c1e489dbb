import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTicks } from './procfs.js';
import { excludeFromSweeps } from './contain.js';

// The engine dies with the harness. Node cannot run code between fork and exec, so the child's
// parent-death signal (prctl PR_SET_PDEATHSIG) is out of reach without a compiled exec helper, and it would
// reach only the group's leader, not the engine's own children. Instead one small supervisor per nh-gate
// (scripts/reaper.mjs, its own session) holds a pipe from the harness and ends each watched leg's whole
// process group when that pipe closes, which the kernel does however the harness dies, SIGKILL included.
const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'reaper.mjs');

let reaper: ChildProcess | null = null;
let failed = false;
let ready: Promise<void> = Promise.resolve();
// How long a first spawn waits for the reaper to say it is listening before going on without that wait.
const READY_WAIT_MS = 3000;

function ensure(): ChildProcess | null {
  if (reaper || failed || process.platform !== 'linux' || process.env.NH_GATE_NO_REAPER === '1') return reaper;
  try {
    const child = spawn(process.execPath, [SCRIPT], { detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
    // The reaper writes one byte once it listens; until then its start-up competes for the CPU with whatever
    // is spawned next, which would stamp a leg's first lines late.
    ready = new Promise<void>((resolve) => {
      // Ref'd (like the pipe) until the byte arrives: the first spawn is waiting on it anyway.
      const timer = setTimeout(() => done(), READY_WAIT_MS);
      function done(): void {
        clearTimeout(timer);
        child.stdout?.destroy();
        resolve();
      }
      child.stdout?.once('data', done);
      child.stdout?.once('end', done);
      child.once('error', done);
    });
    child.on('error', () => { failed = true; reaper = null; });
    child.stdin?.on('error', () => { failed = true; reaper = null; });
    // Neither the reaper nor its pipe keeps nh-gate alive; at a normal exit the pipe closes with nothing watched.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    reaper = child;
    // nh-gate's own child, never a leg's escaped process.
    if (child.pid !== undefined) excludeFromSweeps(child.pid);
  } catch {
    failed = true;
  }
  return reaper;
}

// Starts the reaper if it is not running and waits until it listens; called before a process is spawned,
// so the reaper's start-up never lands between that process's first lines.
export async function startReaper(): Promise<void> {
  ensure();
  await ready;
}

// The reaper's pid (recorded in the GPU lock, so a test or an operator can find it); null when none runs.
export function reaperPid(): number | null {
  return ensure()?.pid ?? null;
}

// What is written to the reaper, some of it held for the next write. Every write wakes the reaper, and on a
// loaded host the woken reaper takes the CPU from the harness just after a leg's exit, on the way to its report
// (~0.3 ms median, several ms at the tail: issue 25). So the "clear" of a group watched with its leader's start
// time waits for the next write (the next leg's "watch", which follows it, so a recycled pid is cleared before it
// is watched again). Unsent, it is harmless: the reaper signals only a group whose leader is alive with the
// recorded start time, which an exited leader is not, and what still carries that leg's marker was the leg's.
// A group watched without a start time is cleared at once.
export function reaperOutbox(): { watch(pgid: number, ticks: number | null, marker: string): string; clear(pgid: number): string | null; take(line: string): string } {
  let held = '';
  const timed = new Set<number>();
  const take = (line: string): string => {
    const out = held + line;
    held = '';
    return out;
  };
  return {
    watch: (pgid, ticks, marker) => {
      if (ticks !== null) timed.add(pgid);
      else timed.delete(pgid);
      return take(`watch ${pgid} ${ticks ?? '-'} ${marker}\n`);
    },
    clear: (pgid) => {
      if (!timed.delete(pgid)) return take(`clear ${pgid}\n`);
      held += `clear ${pgid}\n`;
      return null;
    },
    take,
  };
}

const outbox = reaperOutbox();

// Hands a freshly spawned group leader to the reaper, with its start time so a recycled pid is never hit, and
// the leg's marker, so what escaped the group is ended too.
export function watchGroup(pgid: number, marker = '-'): void {
  ensure()?.stdin?.write(outbox.watch(pgid, startTicks(pgid), marker));
}

// The group ended under the harness's own control: the reaper forgets it (with the next write, where it can wait).
export function clearGroup(pgid: number): void {
  if (!reaper) return;
  const now = outbox.clear(pgid);
  if (now !== null) reaper.stdin?.write(now);
}

// A Slurm job the harness holds (a lease, a leg's job): the reaper cancels it should the harness die.
export function watchJob(jobId: string): void {
  ensure()?.stdin?.write(outbox.take(`job ${jobId}\n`));
}

// The job ended, or was released, under the harness's own control: the reaper forgets it.
export function clearJob(jobId: string): void {
  reaper?.stdin?.write(outbox.take(`unjob ${jobId}\n`));
}
