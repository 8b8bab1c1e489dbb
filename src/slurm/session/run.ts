import { monoNs, spanS } from '../../exec/clock.js';
import { reason, type Reason } from '../../verdict/reasons.js';
import type { SlurmLegInfo } from '../../results/types.js';
import { srunArgv } from '../sbatch.js';
import { faultOf, stepFault, stepIdOf, TERMINAL_STATES, type JobState } from '../state.js';
import { readTaskRecord } from '../wire.js';
import { leaseFor } from './lease.js';
import { nodeRecord, settledJob, tail, waitJob } from './poll.js';
import { AGAIN, jobArgv, settle, submit, writeRequest, type NodeTask, type Session, type TaskOutcome, type TaskSite } from './state.js';

// One node task run through Slurm: as its own job (jobPer leg), or as a step in the scope's lease (jobPer
// series|block). Either way nh-gate waits for it, reads the runner's record from the run directory, and maps a
// Slurm fault onto a named reason.

// slurmstepd's line when it ended a step (scancel JOB.STEP, the step's time limit).
const STEP_ENDED_BY_SLURM = /\*\*\* STEP \S+ ON \S+ CANCELLED/;

const lostJob = (jobId: string, output: string): Reason => reason('SLURM_LOST', `job ${jobId} is no longer known to the controller and accounting (sacct) has no record of it; see ${output}; ${AGAIN}`);

// jobPer leg: the task is one job, polled to its end.
export async function asJob(s: Session, t: NodeTask, site: TaskSite): Promise<TaskOutcome> {
  const f = writeRequest(s, t, site);
  const submittedNs = monoNs();
  const sub = await submit(s, jobArgv(s, site.runDir, t.arch, t.name, t));
  if ('fault' in sub) return { record: null, slurm: { jobId: null, node: null, state: null, reason: null, exitCode: null, source: 'sbatch' }, fault: sub.fault, interrupted: false };
  const { jobId } = sub;
  s.o.progress(`[nh-gate] ${t.label}: Slurm job ${jobId}`);
  const w = await waitJob(s, jobId, 'ended', site.signal);
  let last = w.state;
  let fault = w.fault;
  if (!fault && !w.interrupted) {
    // The most authoritative source for how the job ended (sacct, else scontrol, else what we last saw).
    const fin = (await s.o.client.final(jobId)) ?? last;
    last = fin;
    const rec0 = await nodeRecord(s, f.node, fin?.state === 'COMPLETED', site.signal);
    fault = fin ? faultOf(jobId, fin, rec0 !== null, f.output) : lostJob(jobId, f.output);
  }
  s.o.clearJob?.(jobId);
  const rec = readTaskRecord(f.node);
  return settle(s, rec, fault, w.interrupted, {
    jobId, node: rec?.node ?? last?.node ?? null, state: w.interrupted ? 'CANCELLED' : (last?.state ?? null), reason: last?.reason ?? null, exitCode: last?.exitCode ?? null, source: last?.source ?? null,
    submitS: spanS(site.originNs, submittedNs), collectS: spanS(site.originNs, monoNs()),
  });
}

// How a step ended: the allocation gone under it (the job's fault, the lease lost), the step's own end (its
// time limit, scancel JOB.STEP, a runner that could not start), or a clean end.
async function stepEnd(s: Session, jobId: string, node: string | null, run: { exitCode: number | null; signal: string | null }, srunText: string, hasRecord: boolean, output: string): Promise<{ state: JobState; fault: Reason | null; leaseLost: boolean }> {
  const stepId = stepIdOf(srunText);
  const state: JobState = { state: run.exitCode === 0 ? 'COMPLETED' : 'FAILED', reason: null, node, exitCode: `${run.exitCode ?? 0}:${run.signal ? 1 : 0}`, source: 'srun' };
  // The allocation may have ended under the step (cancelled, timed out, node lost): that is the job's fault
  // and the lease is gone, even if the runner, signalled, still wrote a record of what it saw.
  const job = await settledJob(s, jobId, srunText);
  if (job === null || job.state !== 'RUNNING') {
    const fin = (await s.o.client.final(jobId)) ?? job;
    return { state: fin ?? state, fault: fin ? faultOf(jobId, fin, false, output) : lostJob(jobId, output), leaseLost: true };
  }
  // The runner exits 0 whatever the engine did; slurmstepd writes its own words into the step's output file.
  if (run.exitCode !== 0 || !hasRecord || STEP_ENDED_BY_SLURM.test(tail(output))) {
    const fault = stepFault(stepId ?? `${jobId}.?`, node, run.exitCode, `${srunText}\n${tail(output)}`, output);
    return { state: { ...state, state: fault.code === 'SLURM_TIMEOUT' ? 'TIMEOUT' : fault.code === 'SLURM_CANCELLED' ? 'CANCELLED' : 'FAILED' }, fault, leaseLost: false };
  }
  // Accounting, where the site has it, is the authority on how the step ended.
  const acct = stepId ? await s.o.client.finalStep(stepId) : null;
  return { state: acct && TERMINAL_STATES.has(acct.state) ? { ...acct, node: acct.node ?? node } : state, fault: null, leaseLost: false };
}

// jobPer series|block: the task is a step in the scope's allocation.
export async function asStep(s: Session, t: NodeTask, site: TaskSite): Promise<TaskOutcome> {
  const f = writeRequest(s, t, site);
  const submittedNs = monoNs();
  const got = await leaseFor(s, t, site);
  const times = (): Pick<SlurmLegInfo, 'submitS' | 'collectS'> => ({ submitS: spanS(site.originNs, submittedNs), collectS: spanS(site.originNs, monoNs()) });
  const none = (jobId: string | null, st: JobState | null): SlurmLegInfo => ({ jobId, node: st?.node ?? null, state: st?.state ?? null, reason: st?.reason ?? null, exitCode: st?.exitCode ?? null, source: st?.source ?? 'sbatch', stepId: null, ...times() });
  if ('interrupted' in got) return settle(s, null, null, true, { ...none(got.jobId, null), state: 'CANCELLED' });
  if ('fault' in got) return settle(s, null, got.fault, false, none(got.jobId, got.state));
  const l = got.lease;
  const run = await s.o.client.step(srunArgv(s.c, { jobId: l.jobId, stepName: `nh-gate-${t.name}`, timeoutS: t.timeoutS, outputPath: f.output, nodeBinary: s.nodeBinary, runnerPath: s.runnerPath, requestPath: f.request }), site.signal, t.timeoutS + s.c.timeMarginS + 60);
  const srunText = run.lines.map((x) => x.text).join('\n');
  const stepId = stepIdOf(srunText);
  if (site.signal.aborted) {
    await s.o.client.cancel(l.jobId);
    s.lease = null;
    return settle(s, readTaskRecord(f.node), null, true, { ...none(l.jobId, null), node: l.node, state: 'CANCELLED', stepId });
  }
  const rec = await nodeRecord(s, f.node, run.exitCode === 0, site.signal);
  const end = await stepEnd(s, l.jobId, rec?.node ?? l.node, run, srunText, rec !== null, f.output);
  if (end.leaseLost) s.lease = null;
  return settle(s, rec, end.fault, false, {
    jobId: l.jobId, stepId, node: rec?.node ?? end.state.node ?? l.node, state: end.state.state, reason: end.state.reason, exitCode: end.state.exitCode, source: end.state.source, ...times(),
  });
}
