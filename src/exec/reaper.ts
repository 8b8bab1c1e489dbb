import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTicks } from './procfs.js';

// The engine dies with the harness. Node cannot run code between fork and exec, so the child's
// parent-death signal (prctl PR_SET_PDEATHSIG) is out of reach without a compiled exec helper, and it would
// reach only the group's leader, not the engine's own children. Instead one small supervisor per nh-gate
// (scripts/reaper.mjs, its own session) holds a pipe from the harness and ends each watched leg's whole
// process group when that pipe closes, which the kernel does however the harness dies, SIGKILL included.
const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'reaper.mjs');

let reaper: ChildProcess | null = null;
let failed = false;

function ensure(): ChildProcess | null {
  if (reaper || failed || process.platform !== 'linux' || process.env.NH_GATE_NO_REAPER === '1') return reaper;
  try {
    const child = spawn(process.execPath, [SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', () => { failed = true; reaper = null; });
    child.stdin?.on('error', () => { failed = true; reaper = null; });
    // Neither the reaper nor its pipe keeps nh-gate alive; at a normal exit the pipe closes with nothing watched.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    reaper = child;
  } catch {
    failed = true;
  }
  return reaper;
}

// Starts the reaper if it is not running; called before a leg is spawned, so its start-up cost never lands
// between a leg's first lines.
export function startReaper(): void {
  ensure();
}

// The reaper's pid (recorded in the GPU lock, so a test or an operator can find it); null when none runs.
export function reaperPid(): number | null {
  return ensure()?.pid ?? null;
}

// Hands a freshly spawned group leader to the reaper, with its start time so a recycled pid is never hit.
export function watchGroup(pgid: number): void {
  ensure()?.stdin?.write(`watch ${pgid} ${startTicks(pgid) ?? '-'}\n`);
}

// The group ended under the harness's own control: the reaper forgets it.
export function clearGroup(pgid: number): void {
  reaper?.stdin?.write(`clear ${pgid}\n`);
}
