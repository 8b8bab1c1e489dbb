import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { monoNs, spanS } from '../../exec/clock.js';
import { reason, type Reason } from '../../verdict/reasons.js';
import { faultOf, neverStarted, PENDING_STATES, TERMINAL_STATES, type JobState } from '../state.js';
import { readTaskRecord, type TaskRecord } from '../wire.js';
import { AGAIN, type Session } from './state.js';

// Waiting on Slurm: a job until it runs or ends, a node's record until it shows, a lease's holder until it
// holds the node, an allocation being torn down until it says how it ended. Each gives up by a named fault.

// A wait that ends early (resolving, never rejecting) when the series is interrupted.
export function pause(s: Session, signal?: AbortSignal, ms = s.c.pollS * 1000): Promise<void> {
  return sleep(ms, undefined, signal ? { signal } : {}).catch(() => undefined);
}

// How a job waits: until it runs (a lease) or ends (a task job); a pending job past startTimeoutS is cancelled.
export type Waited = { state: JobState | null; fault: Reason | null; interrupted: boolean };

export async function waitJob(s: Session, jobId: string, until: 'running' | 'ended', signal: AbortSignal): Promise<Waited> {
  const t0 = monoNs();
  let last: JobState | null = null;
  for (;;) {
    if (signal.aborted) {
      await s.o.client.cancel(jobId);
      return { state: last, fault: null, interrupted: true };
    }
    const st = await s.o.client.live(jobId);
    if (st === null) return { state: last, fault: null, interrupted: false };
    last = st;
    if (TERMINAL_STATES.has(st.state)) return { state: st, fault: null, interrupted: false };
    if (until === 'running' && st.state === 'RUNNING') return { state: st, fault: null, interrupted: false };
    if (PENDING_STATES.has(st.state) && spanS(t0, monoNs()) > s.c.startTimeoutS) {
      await s.o.client.cancel(jobId);
      return { state: st, fault: neverStarted(jobId, st, spanS(t0, monoNs())), interrupted: false };
    }
    await pause(s, signal);
  }
}

// A record the node wrote; a shared filesystem may show it only after its lookup cache expires.
export async function nodeRecord(s: Session, path: string, expected: boolean, signal: AbortSignal): Promise<TaskRecord | null> {
  let rec = readTaskRecord(path);
  for (const t0 = monoNs(); rec === null && expected && spanS(t0, monoNs()) < s.c.recordWaitS && !signal.aborted; rec = readTaskRecord(path)) await pause(s, signal, 200);
  return rec;
}

// Null once the holder's ready file is there; else why it never came (the allocation ended, or Ctrl-C).
export async function holderUp(s: Session, jobId: string, readyPath: string, outputPath: string, signal: AbortSignal): Promise<null | { interrupted: true } | { fault: Reason; state: JobState | null }> {
  const t0 = monoNs();
  for (;;) {
    if (existsSync(readyPath)) return null;
    if (signal.aborted) {
      await s.o.client.cancel(jobId);
      return { interrupted: true };
    }
    const st = await s.o.client.live(jobId);
    if (st === null || TERMINAL_STATES.has(st.state)) {
      const fin = (await s.o.client.final(jobId)) ?? st;
      return { fault: (fin ? faultOf(jobId, fin, false, outputPath) : null) ?? reason('SLURM_LOST', `allocation ${jobId} ended before its holder started; ${AGAIN}`), state: fin };
    }
    if (spanS(t0, monoNs()) > s.c.startTimeoutS + s.c.recordWaitS) {
      await s.o.client.cancel(jobId);
      return { fault: reason('NEVER_STARTED', `allocation ${jobId} was RUNNING but its holder never said it held the node (no ${readyPath} after ${spanS(t0, monoNs()).toFixed(0)} s); it was cancelled; ${AGAIN}`), state: st };
    }
    await pause(s, signal);
  }
}

// srun's words when the allocation it was sent into is gone (the controller may still say RUNNING a moment).
const JOB_GONE = /has expired|already completed|Invalid job id|Job step aborted before step completely launched/i;
// How long an allocation being torn down is given to reach its final state.
const SETTLE_WAIT_S = 10;

// The allocation's state once it has settled: a job being torn down (COMPLETING, or one srun already calls
// gone) is polled for a few seconds until the controller says how it ended.
export async function settledJob(s: Session, jobId: string, srunText: string): Promise<JobState | null> {
  let st = await s.o.client.live(jobId);
  for (const t0 = monoNs(); st !== null && (st.state === 'COMPLETING' || (st.state === 'RUNNING' && JOB_GONE.test(srunText))) && spanS(t0, monoNs()) < SETTLE_WAIT_S; st = await s.o.client.live(jobId)) {
    await pause(s);
  }
  return st;
}

// The last few KiB of a Slurm output file ('' when it cannot be read).
export function tail(path: string): string {
  try {
    return readFileSync(path, 'utf8').slice(-4096);
  } catch {
    return '';
  }
}
