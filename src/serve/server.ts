import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Executor, ProcessRun } from '../exec/types.js';
import { describeEnd, lastLines } from '../exec/types.js';
import { openLogSink, type LogSinkResult } from '../results/logSink.js';
import type { ServerAtEnd } from './validity.js';

// The engine's server for one load: started once through the executor (its own process group, killed with
// it), probed until ready (the load is timed here and kept out of every window), checked alive at the end, and
// stopped. Its output goes to a log in the run directory. A server that never got ready is data, not a throw.

export interface ServerSpec {
  exec: Executor;
  argv: string[];
  env: Record<string, string>;
  unset: string[];
  cwd: string;
  port: number;
  readyPath: string;
  readyTimeoutS: number;
  logPath: string;
  signal: AbortSignal;
  onSpawn?: (pid: number) => void;
}

export interface RunningServer {
  loadS: number;
  // Whether it still runs and answers its readiness path.
  checkAlive(): Promise<ServerAtEnd>;
  // Stops it (its whole group) and returns how it ended, with its log's write result.
  stop(): Promise<{ run: ProcessRun; log: LogSinkResult }>;
}

export type ServerStart = { ok: true; server: RunningServer } | { ok: false; why: string; run: ProcessRun; log: LogSinkResult };

// A port free on 127.0.0.1 now (the server binds it a moment later; a clash shows as a server that exits).
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolvePort(port));
    });
  });
}

// One GET to the readiness path: its HTTP status, or null when nothing answered.
async function probe(port: number, path: string): Promise<number | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5000) });
    await r.arrayBuffer();
    return r.status;
  } catch {
    return null;
  }
}

export async function startServer(s: ServerSpec): Promise<ServerStart> {
  const stopper = new AbortController();
  const log = openLogSink(s.logPath);
  const t0 = performance.now();
  let ended: ProcessRun | null = null;
  const running = s.exec
    .run({ argv: s.argv, env: s.env, unset: s.unset, cwd: s.cwd, retainLines: 200, killGraceMs: 5000 }, { onLine: (l) => log.write(`${l.text}\n`), ...(s.onSpawn ? { onSpawn: s.onSpawn } : {}), signal: AbortSignal.any([s.signal, stopper.signal]) })
    .then((run) => (ended = run));
  const stop = async (): Promise<{ run: ProcessRun; log: LogSinkResult }> => {
    stopper.abort();
    const run = await running;
    return { run, log: log.close() };
  };
  const fail = async (why: string): Promise<ServerStart> => {
    const { run, log: l } = await stop();
    return { ok: false, why: `${why}; last lines: ${lastLines(run, 8).join(' | ') || '(none)'}`, run, log: l };
  };
  const deadline = t0 + s.readyTimeoutS * 1e3;
  let last: number | null = null;
  while (performance.now() < deadline) {
    if (ended) return fail(`the server ended before it was ready (${describeEnd(ended)})`);
    if (s.signal.aborted) return fail('interrupted before the server was ready');
    last = await probe(s.port, s.readyPath);
    if (last === 200) break;
    await sleep(50);
  }
  if (last !== 200) return fail(`the server did not answer GET ${s.readyPath} with 200 within ${s.readyTimeoutS} s (last: ${last === null ? 'no answer' : `HTTP ${last}`})`);
  const loadS = (performance.now() - t0) / 1e3;
  const checkAlive = async (): Promise<ServerAtEnd> => {
    if (ended) return { alive: false, why: `the server process ended during the run (${describeEnd(ended)})` };
    const status = await probe(s.port, s.readyPath);
    return status === 200 ? { alive: true, why: null } : { alive: false, why: `GET ${s.readyPath} answered ${status === null ? 'nothing' : `HTTP ${status}`}` };
  };
  return { ok: true, server: { loadS, checkAlive, stop } };
}
