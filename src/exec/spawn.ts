import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { monoNs } from './clock.js';
import { LineRing, LineSplitter } from './lines.js';
import { clearGroup, startReaper, watchGroup } from './reaper.js';
import { LEG_MARKER_ENV, containment, leaderEnded, leaderStarted, legHandle, newLegMarker, sweepLeg, type KilledProcess } from './contain.js';
import type { Executor, ProcessRun, ProcessSpec, RunHooks, TimedLine } from './types.js';

const DEFAULT_GRACE_MS = 2000;
// After the leader has exited and its tree was swept, how long the harness still reads output before it stops
// waiting on pipes that something it could not find holds open (the leg's time stays bounded either way).
export const PIPE_GRACE_MS = 2000;

// Runs one process as the leader of its own process group, stamping every line on arrival.
// A crash, a timeout or a Ctrl-C comes back as data (ProcessRun), never as a thrown error.
export async function runProcess(spec: ProcessSpec, hooks: RunHooks = {}): Promise<ProcessRun> {
  const [file, ...args] = spec.argv;
  const all: TimedLine[] = [];
  const ring = spec.retainLines !== undefined ? new LineRing(Math.max(1, spec.retainLines)) : null;
  let lineCount = 0;
  const startNs = monoNs();
  const graceMs = spec.killGraceMs ?? DEFAULT_GRACE_MS;
  const emit = (batch: TimedLine[]): void => {
    for (const l of batch) {
      lineCount += 1;
      if (ring) ring.push(l);
      else all.push(l);
      hooks.onLine?.(l);
    }
  };
  if (!file) return failedStart(spec, startNs, 'empty argv');
  if (hooks.signal?.aborted) return { ...failedStart(spec, startNs, 'interrupted before start'), interrupted: true, spawnError: null };

  await startReaper();
  const contain = containment();
  // Every process the leg starts inherits this marker, whatever session it moves to (contain.ts).
  const marker = newLegMarker();
  // node:child_process rather than execa for the leg itself: every extra execa adds (its result object, its
  // cleanup-on-exit, which does nothing for a detached child) is already here or unwanted, and its set-up cost
  // about 2 ms of CPU per spawn beside Node's own (issue 25: harness work per leg).
  const child = spawn(file, args, {
    cwd: spec.cwd,
    // The inherited environment plus the leg's; an undefined value removes an inherited variable (node skips
    // undefined entries when it builds envp).
    env: { ...process.env, ...spec.env, [LEG_MARKER_ENV]: marker, ...Object.fromEntries((spec.unset ?? []).map((k) => [k, undefined])) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A start failure (ENOENT, EACCES) arrives as 'error' with no pid; kept to name it in the run.
  let startError: NodeJS.ErrnoException | null = null;
  // Settles once the process has exited and its stdout and stderr have closed, or it never started.
  const closed = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.on('error', (e: NodeJS.ErrnoException) => {
      startError ??= e;
      if (child.pid === undefined) resolve();
    });
  });

  let timedOut = false;
  let interrupted = false;
  let killing: Promise<KilledProcess[]> | null = null;
  const pid = child.pid ?? null;
  const leg = pid !== null ? legHandle(pid, marker) : null;
  // Should nh-gate itself die (SIGKILL, OOM), the reaper ends this group and the marked: no engine runs on.
  if (pid !== null) {
    leaderStarted(pid);
    watchGroup(pid, marker);
    hooks.onSpawn?.(pid);
  }
  // The leader's group and everything that escaped it (a timeout holds whatever descendants do).
  const killTree = (): void => {
    if (leg !== null && killing === null) killing = sweepLeg(leg, graceMs);
  };

  const out = new LineSplitter('stdout');
  const err = new LineSplitter('stderr');
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (c: string) => emit(out.push(c, monoNs())));
  child.stderr?.on('data', (c: string) => emit(err.push(c, monoNs())));

  const timer = spec.timeoutS !== undefined
    ? setTimeout(() => { timedOut = true; killTree(); }, spec.timeoutS * 1000)
    : null;
  const onAbort = (): void => { interrupted = true; killTree(); };
  hooks.signal?.addEventListener('abort', onAbort, { once: true });

  // The leader's exit, independent of whether orphans still hold its pipes open.
  const exited = new Promise<{ code: number | null; signal: string | null; endNs: bigint }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, endNs: monoNs() }));
    child.once('error', () => { if (child.pid === undefined) resolve({ code: null, signal: null, endNs: monoNs() }); });
  });
  const ex = await exited;
  if (timer) clearTimeout(timer);
  hooks.signal?.removeEventListener('abort', onAbort);

  // Sweep the tree: anything the leader left behind, in its group or escaped from it, is killed so its pipes
  // close and the GPU frees.
  const afterExit = killing === null;
  killTree();
  const killed = killing ? await (killing as Promise<KilledProcess[]>) : [];
  if (pid !== null) {
    leaderEnded(pid);
    clearGroup(pid);
  }
  // Pipes still held by something the sweep could not find: read for a grace, then stop waiting on them.
  const pipesHeld = !(await settlesWithin(closed, PIPE_GRACE_MS));
  if (pipesHeld) {
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
  const endStreamNs = monoNs();
  emit(out.flush(endStreamNs));
  emit(err.flush(endStreamNs));

  // Not started, or an error with neither an exit code nor a signal that no timeout or Ctrl-C explains.
  const failed = startError as NodeJS.ErrnoException | null;
  const spawnError = pid === null || (failed !== null && ex.code === null && ex.signal === null && !timedOut && !interrupted)
    ? (failed?.code ?? failed?.message ?? 'spawn failed')
    : null;
  return {
    argv: spec.argv,
    pid,
    startNs,
    endNs: ex.endNs,
    exitCode: ex.code,
    signal: ex.signal,
    timedOut,
    interrupted,
    spawnError: spawnError === null ? null : String(spawnError),
    orphansKilled: afterExit && killed.length > 0,
    lines: ring ? ring.lines() : all,
    lineCount,
    ...(killed.length > 0 || pipesHeld ? { contained: { killed, pipesHeld, mechanisms: contain.mechanisms } } : {}),
  };
}

// Whether a promise settles within ms (the timer never keeps the process alive, and is cleared after).
async function settlesWithin(p: PromiseLike<unknown>, ms: number): Promise<boolean> {
  const ctl = new AbortController();
  const done = Promise.resolve(p).then(() => true, () => true);
  const late = sleep(ms, false, { signal: ctl.signal, ref: false }).catch(() => false);
  const r = await Promise.race([done, late]);
  ctl.abort();
  return r;
}

function failedStart(spec: ProcessSpec, startNs: bigint, reason: string): ProcessRun {
  return {
    argv: spec.argv, pid: null, startNs, endNs: startNs, exitCode: null, signal: null,
    timedOut: false, interrupted: false, spawnError: reason, orphansKilled: false, lines: [],
  };
}

// The real executor used by the gates.
export const realExecutor: Executor = { run: runProcess };
