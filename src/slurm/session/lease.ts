import { rmSync } from 'node:fs';
import { monoNs, spanS } from '../../exec/clock.js';
import { writeAtomic } from '../../io/atomic.js';
import { reason, type Reason } from '../../verdict/reasons.js';
import { legJobFiles } from '../sbatch.js';
import { faultOf, TERMINAL_STATES, type JobState } from '../state.js';
import { WIRE_SCHEMA_VERSION, type HoldRequest } from '../wire.js';
import { holderUp, pause, waitJob } from './poll.js';
import { AGAIN, leaseArgv, scopeOf, submit, type Lease, type NodeTask, type Session, type TaskSite } from './state.js';

// jobPer series|block: one allocation for the scope, held by a holder that keeps the node's GPU lock, so no
// other job takes the node between two legs; each task is a step in it (run.ts). Released when the scope ends.

// How long a released holder may take to end its job before nh-gate cancels it.
const RELEASE_WAIT_S = 10;

export type LeaseGot = { lease: Lease } | { fault: Reason; jobId: string | null; state: JobState | null } | { interrupted: true; jobId: string };

// The lease for this task's scope: the one held, or a new allocation once it runs and its holder holds.
export async function leaseFor(s: Session, t: NodeTask, site: TaskSite): Promise<LeaseGot> {
  const scope = scopeOf(s.c, t);
  if (s.lease && s.lease.scope === scope) return { lease: s.lease };
  if (s.lease) await releaseLease(s);
  s.leases += 1;
  const name = `lease-${String(s.leases).padStart(2, '0')}`;
  const f = legJobFiles(site.runDir, name);
  const hold: HoldRequest = { schemaVersion: WIRE_SCHEMA_VERSION, kind: 'hold', nodeLock: s.c.nodeLock, waitS: s.c.nodeLockWaitS, command: `nh-gate ${site.runDir}` };
  for (const p of [f.output, f.node]) rmSync(p, { force: true });
  writeAtomic(f.request, JSON.stringify(hold, null, 2) + '\n');
  const sub = await submit(s, leaseArgv(s, site.runDir, t.arch, name, t));
  if ('fault' in sub) return { fault: sub.fault, jobId: null, state: null };
  s.o.progress(`[nh-gate] ${t.label}: Slurm allocation ${sub.jobId} (${scope}: ${name})`);
  const w = await waitJob(s, sub.jobId, 'running', site.signal);
  if (w.interrupted) return { interrupted: true, jobId: sub.jobId };
  if (w.fault) return { fault: w.fault, jobId: sub.jobId, state: w.state };
  if (w.state?.state !== 'RUNNING') {
    // The allocation ended before any step (the holder refused: the node's GPU lock is held, say).
    const fin = (await s.o.client.final(sub.jobId)) ?? w.state;
    const why = fin ? faultOf(sub.jobId, fin, false, f.output) : null;
    return { fault: why ?? reason('SLURM_LOST', `allocation ${sub.jobId} ended before its first step; see ${f.output}; ${AGAIN}`), jobId: sub.jobId, state: fin };
  }
  // Running is not enough: the batch script starts a moment later. The first step waits for the holder's
  // word that it holds the node's GPU lock (and so will hear the release).
  const up = await holderUp(s, sub.jobId, f.node, f.output, site.signal);
  if (up !== null) return 'interrupted' in up ? { interrupted: true, jobId: sub.jobId } : { fault: up.fault, jobId: sub.jobId, state: up.state };
  s.lease = { jobId: sub.jobId, scope, node: w.state.node };
  return { lease: s.lease };
}

// The holder exits 0 on the release signal (the job ends COMPLETED); one that does not is cancelled.
export async function releaseLease(s: Session): Promise<void> {
  const l = s.lease;
  s.lease = null;
  if (!l) return;
  await s.o.client.release(l.jobId);
  s.o.clearJob?.(l.jobId);
  for (const t0 = monoNs(); spanS(t0, monoNs()) < RELEASE_WAIT_S; await pause(s)) {
    const st = await s.o.client.live(l.jobId);
    if (st === null || TERMINAL_STATES.has(st.state)) return;
  }
  await s.o.client.cancel(l.jobId);
}
