import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { monoNs, spanS } from '../exec/clock.js';
import { NhGateError } from '../errors.js';
import { writeAtomic } from '../io/atomic.js';
import { reason, type Reason } from '../verdict/reasons.js';
import type { SlurmLegInfo } from '../results/types.js';
import type { SlurmConfig } from './config.js';
import type { SlurmClient } from './client.js';
import { batchScript, legJobFiles, sbatchArgv, srunArgv } from './sbatch.js';
import { faultOf, neverStarted, PENDING_STATES, stepFault, stepIdOf, TERMINAL_STATES, type JobState } from './state.js';
import { readTaskRecord, WIRE_SCHEMA_VERSION, type HoldRequest, type TaskKind, type TaskRecord, type TaskRequest } from './wire.js';

// --executor slurm for any unit of work a node runs (a leg, a busy command, a suite run): the "node task".
// jobPer leg: each task is its own job (sbatch). jobPer series|block: one allocation (a lease: an exclusive
// job whose holder keeps the node's GPU lock) is taken for the series or the ABBA block, and each task is a
// job step in it (srun), so no other job can take the node between two legs. Either way nh-gate waits for
// the task, reads the runner's record from the run directory, and maps a Slurm fault onto a named reason.

export interface NodeTask {
  // File stem under <runDir>/legs/.
  name: string;
  kind: TaskKind;
  arm: 'A' | 'B' | 'single';
  arch: string;
  timeoutS: number;
  // The kind's request (JSON-safe); the environment to pass is in it, never in a shell string.
  body: unknown;
  // The ABBA block the task belongs to (jobPer block takes one allocation per block).
  block: number;
  // How many tasks the lease's scope will run, for the allocation's --time (series: the plan's legs).
  scopeTasks: number;
  // Progress label.
  label: string;
}

export interface TaskSite {
  runDir: string;
  signal: AbortSignal;
  // The series' origin on this host's monotonic clock.
  originNs: bigint;
}

export interface TaskOutcome {
  record: TaskRecord | null;
  slurm: SlurmLegInfo;
  fault: Reason | null;
  // The series' own Ctrl-C stopped the task (not a Slurm fault).
  interrupted: boolean;
}

export interface SlurmTasks {
  // sbatch --test-only: a missing sbatch or a partition the cluster lacks is a named error before any build.
  preflight(runDir: string, arch: string, first: { arm: 'A' | 'B' | 'single'; timeoutS: number; scopeTasks: number }): Promise<void>;
  run(task: NodeTask, site: TaskSite): Promise<TaskOutcome>;
  // Ends the lease, if one is held (the series is done).
  release(): Promise<void>;
}

export interface SlurmTasksOptions {
  config: SlurmConfig;
  client: SlurmClient;
  progress: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  // The harness's reaper (src/exec/reaper.ts): told each job nh-gate holds, and when it no longer does.
  watchJob?: (jobId: string) => void;
  clearJob?: (jobId: string) => void;
}

// The runner shipped in this package: dist/slurm/runner.js beside this file.
function defaultRunnerPath(): string {
  return fileURLToPath(new URL('./runner.js', import.meta.url));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

// The last few KiB of a Slurm output file ('' when it cannot be read).
function tail(path: string): string {
  try {
    const t = readFileSync(path, 'utf8');
    return t.slice(-4096);
  } catch {
    return '';
  }
}

// slurmstepd's line when it ended a step (scancel JOB.STEP, the step's time limit).
const STEP_ENDED_BY_SLURM = /\*\*\* STEP \S+ ON \S+ CANCELLED/;

// srun's words when the allocation it was sent into is gone (the controller may still say RUNNING a moment).
const JOB_GONE = /has expired|already completed|Invalid job id|Job step aborted before step completely launched/i;
// How long an allocation being torn down is given to reach its final state.
const SETTLE_WAIT_S = 10;

// How long a released holder may take to end its job before nh-gate cancels it.
const RELEASE_WAIT_S = 10;

const AGAIN = 'the finished legs are kept; --resume RUN_DIR submits only the missing legs';

interface Lease {
  jobId: string;
  scope: string;
  node: string | null;
}

// How a job waits: until it runs (a lease) or ends (a task job); a pending job past startTimeoutS is cancelled.
type Waited = { state: JobState | null; fault: Reason | null; interrupted: boolean };

// The Slurm executor of one series (it remembers the node the series is pinned to, and its lease).
export function slurmTasks(o: SlurmTasksOptions): SlurmTasks {
  const c = o.config;
  const env = o.env ?? process.env;
  const nodeBinary = c.node ?? process.execPath;
  const runnerPath = c.runner ?? defaultRunnerPath();
  let pinnedNode: string | null = null;
  let submitted = 0;
  let lease: Lease | null = null;
  let leases = 0;

  // The batch script is the same for every job of a run directory: written once per directory.
  const scripts = new Set<string>();
  const script = (runDir: string): string => {
    const path = legJobFiles(runDir, 'x').script;
    if (!scripts.has(path) || !existsSync(path)) writeAtomic(path, batchScript(nodeBinary, runnerPath));
    scripts.add(path);
    return path;
  };
  const scopeOf = (t: Pick<NodeTask, 'block'>): string => (c.jobPer === 'block' ? `block-${t.block + 1}` : 'series');
  const jobArgv = (runDir: string, arch: string, name: string, t: Pick<NodeTask, 'arm' | 'timeoutS'>): string[] => {
    const f = legJobFiles(runDir, name);
    return sbatchArgv(c, { jobName: `nh-gate-${name}`, arm: t.arm, arch, pinnedNode, timeoutS: t.timeoutS, outputPath: f.output, scriptPath: script(runDir), requestPath: f.request });
  };
  const leaseArgv = (runDir: string, arch: string, name: string, t: Pick<NodeTask, 'timeoutS' | 'scopeTasks'>): string[] => {
    const f = legJobFiles(runDir, name);
    // The allocation lives for the scope's legs, each up to its timeout, plus one margin.
    return sbatchArgv(c, { jobName: `nh-gate-${name}`, arm: 'single', arch, pinnedNode, timeoutS: Math.max(1, t.scopeTasks) * t.timeoutS, outputPath: f.output, scriptPath: script(runDir), requestPath: f.request, hold: true });
  };

  // Submits; the first refusal stops the series (a config error, exit 2), a later one is only this task's fault.
  async function submit(argv: string[]): Promise<{ jobId: string } | { fault: Reason }> {
    try {
      const jobId = await o.client.submit(argv);
      submitted += 1;
      // Should nh-gate die (even SIGKILL), its reaper cancels the job instead of leaving the node held.
      o.watchJob?.(jobId);
      return { jobId };
    } catch (err) {
      if (submitted === 0 || !(err instanceof NhGateError) || err.code !== 'SLURM_REJECTED') throw err;
      return { fault: reason('SLURM_REJECTED', `${err.message}; ${AGAIN}`) };
    }
  }

  async function wait(jobId: string, until: 'running' | 'ended', signal: AbortSignal): Promise<Waited> {
    const t0 = monoNs();
    let last: JobState | null = null;
    for (;;) {
      if (signal.aborted) {
        await o.client.cancel(jobId);
        return { state: last, fault: null, interrupted: true };
      }
      const s = await o.client.live(jobId);
      if (s === null) return { state: last, fault: null, interrupted: false };
      last = s;
      if (TERMINAL_STATES.has(s.state)) return { state: s, fault: null, interrupted: false };
      if (until === 'running' && s.state === 'RUNNING') return { state: s, fault: null, interrupted: false };
      if (PENDING_STATES.has(s.state) && spanS(t0, monoNs()) > c.startTimeoutS) {
        await o.client.cancel(jobId);
        return { state: s, fault: neverStarted(jobId, s, spanS(t0, monoNs())), interrupted: false };
      }
      await sleep(c.pollS * 1000, signal);
    }
  }

  // A record the node wrote; a shared filesystem may show it only after its lookup cache expires.
  async function record(path: string, expected: boolean, signal: AbortSignal): Promise<TaskRecord | null> {
    let rec = readTaskRecord(path);
    for (const t0 = monoNs(); rec === null && expected && spanS(t0, monoNs()) < c.recordWaitS && !signal.aborted; rec = readTaskRecord(path)) await sleep(200, signal);
    return rec;
  }

  function writeRequest(t: NodeTask, site: TaskSite): ReturnType<typeof legJobFiles> {
    const f = legJobFiles(site.runDir, t.name);
    const request: TaskRequest = {
      schemaVersion: WIRE_SCHEMA_VERSION, kind: t.kind, name: t.name, runDir: site.runDir, copyMode: c.copyMode, nodeScratch: c.nodeScratch,
      arch: t.arch, originWallMs: Date.now() - spanS(site.originNs, monoNs()) * 1000, body: withExported(t.body),
    };
    for (const p of [f.node, f.output]) rmSync(p, { force: true });
    writeAtomic(f.request, JSON.stringify(request, null, 2) + '\n');
    return f;
  }

  // The config's exported variables join the task's own environment (the task's values win).
  function withExported(body: unknown): unknown {
    if (c.export.length === 0 || body === null || typeof body !== 'object' || !('env' in body)) return body;
    const exported = Object.fromEntries(c.export.flatMap((k) => (env[k] !== undefined ? [[k, env[k]!]] : [])));
    return { ...body, env: { ...exported, ...(body as { env: Record<string, string> }).env } };
  }

  // jobPer leg: the task is one job, polled to its end.
  async function asJob(t: NodeTask, site: TaskSite): Promise<TaskOutcome> {
    const f = writeRequest(t, site);
    const submittedNs = monoNs();
    const sub = await submit(jobArgv(site.runDir, t.arch, t.name, t));
    if ('fault' in sub) return { record: null, slurm: { jobId: null, node: null, state: null, reason: null, exitCode: null, source: 'sbatch' }, fault: sub.fault, interrupted: false };
    const { jobId } = sub;
    o.progress(`[nh-gate] ${t.label}: Slurm job ${jobId}`);
    const w = await wait(jobId, 'ended', site.signal);
    let last = w.state;
    let fault = w.fault;
    if (!fault && !w.interrupted) {
      // The most authoritative source for how the job ended (sacct, else scontrol, else what we last saw).
      const fin = (await o.client.final(jobId)) ?? last;
      last = fin;
      const rec0 = await record(f.node, fin?.state === 'COMPLETED', site.signal);
      fault = fin ? faultOf(jobId, fin, rec0 !== null, f.output) : reason('SLURM_LOST', `job ${jobId} is no longer known to the controller and accounting (sacct) has no record of it; see ${f.output}; ${AGAIN}`);
    }
    o.clearJob?.(jobId);
    const rec = readTaskRecord(f.node);
    return settle(rec, fault, w.interrupted, {
      jobId, node: rec?.node ?? last?.node ?? null, state: w.interrupted ? 'CANCELLED' : (last?.state ?? null), reason: last?.reason ?? null, exitCode: last?.exitCode ?? null, source: last?.source ?? null,
      submitS: spanS(site.originNs, submittedNs), collectS: spanS(site.originNs, monoNs()),
    });
  }

  // The lease for this task's scope: the one held, or a new allocation once it runs.
  async function leaseFor(t: NodeTask, site: TaskSite): Promise<{ lease: Lease } | { fault: Reason; jobId: string | null; state: JobState | null } | { interrupted: true; jobId: string }> {
    const scope = scopeOf(t);
    if (lease && lease.scope === scope) return { lease };
    if (lease) await releaseLease();
    leases += 1;
    const name = `lease-${String(leases).padStart(2, '0')}`;
    const f = legJobFiles(site.runDir, name);
    const hold: HoldRequest = { schemaVersion: WIRE_SCHEMA_VERSION, kind: 'hold', nodeLock: c.nodeLock, waitS: c.nodeLockWaitS, command: `nh-gate ${site.runDir}` };
    for (const p of [f.output, f.node]) rmSync(p, { force: true });
    writeAtomic(f.request, JSON.stringify(hold, null, 2) + '\n');
    const sub = await submit(leaseArgv(site.runDir, t.arch, name, t));
    if ('fault' in sub) return { fault: sub.fault, jobId: null, state: null };
    o.progress(`[nh-gate] ${t.label}: Slurm allocation ${sub.jobId} (${scope}: ${name})`);
    const w = await wait(sub.jobId, 'running', site.signal);
    if (w.interrupted) return { interrupted: true, jobId: sub.jobId };
    if (w.fault) return { fault: w.fault, jobId: sub.jobId, state: w.state };
    if (w.state?.state !== 'RUNNING') {
      // The allocation ended before any step (the holder refused: the node's GPU lock is held, say).
      const fin = (await o.client.final(sub.jobId)) ?? w.state;
      const why = fin ? faultOf(sub.jobId, fin, false, f.output) : null;
      return { fault: why ?? reason('SLURM_LOST', `allocation ${sub.jobId} ended before its first step; see ${f.output}; ${AGAIN}`), jobId: sub.jobId, state: fin };
    }
    // Running is not enough: the batch script starts a moment later. The first step waits for the holder's
    // word that it holds the node's GPU lock (and so will hear the release).
    const up = await holderUp(sub.jobId, f.node, f.output, site.signal);
    if (up !== null) return 'interrupted' in up ? { interrupted: true, jobId: sub.jobId } : { fault: up.fault, jobId: sub.jobId, state: up.state };
    lease = { jobId: sub.jobId, scope, node: w.state.node };
    return { lease };
  }

  // Null once the holder's ready file is there; else why it never came (the allocation ended, or Ctrl-C).
  async function holderUp(jobId: string, readyPath: string, outputPath: string, signal: AbortSignal): Promise<null | { interrupted: true } | { fault: Reason; state: JobState | null }> {
    const t0 = monoNs();
    for (;;) {
      if (existsSync(readyPath)) return null;
      if (signal.aborted) {
        await o.client.cancel(jobId);
        return { interrupted: true };
      }
      const s = await o.client.live(jobId);
      if (s === null || TERMINAL_STATES.has(s.state)) {
        const fin = (await o.client.final(jobId)) ?? s;
        return { fault: (fin ? faultOf(jobId, fin, false, outputPath) : null) ?? reason('SLURM_LOST', `allocation ${jobId} ended before its holder started; ${AGAIN}`), state: fin };
      }
      if (spanS(t0, monoNs()) > c.startTimeoutS + c.recordWaitS) {
        await o.client.cancel(jobId);
        return { fault: reason('NEVER_STARTED', `allocation ${jobId} was RUNNING but its holder never said it held the node (no ${readyPath} after ${spanS(t0, monoNs()).toFixed(0)} s); it was cancelled; ${AGAIN}`), state: s };
      }
      await sleep(c.pollS * 1000, signal);
    }
  }

  // The allocation's state once it has settled: a job being torn down (COMPLETING, or one srun already calls
  // gone) is polled for a few seconds until the controller says how it ended.
  async function settledJob(jobId: string, srunText: string): Promise<JobState | null> {
    const never = new AbortController().signal;
    let s = await o.client.live(jobId);
    for (const t0 = monoNs(); s !== null && (s.state === 'COMPLETING' || (s.state === 'RUNNING' && JOB_GONE.test(srunText))) && spanS(t0, monoNs()) < SETTLE_WAIT_S; s = await o.client.live(jobId)) {
      await sleep(c.pollS * 1000, never);
    }
    return s;
  }

  // The holder exits 0 on the release signal (the job ends COMPLETED); one that does not is cancelled.
  async function releaseLease(): Promise<void> {
    const l = lease;
    lease = null;
    if (!l) return;
    await o.client.release(l.jobId);
    o.clearJob?.(l.jobId);
    const never = new AbortController().signal;
    for (const t0 = monoNs(); spanS(t0, monoNs()) < RELEASE_WAIT_S; await sleep(c.pollS * 1000, never)) {
      const s = await o.client.live(l.jobId);
      if (s === null || TERMINAL_STATES.has(s.state)) return;
    }
    await o.client.cancel(l.jobId);
  }

  // jobPer series|block: the task is a step in the scope's allocation.
  async function asStep(t: NodeTask, site: TaskSite): Promise<TaskOutcome> {
    const f = writeRequest(t, site);
    const submittedNs = monoNs();
    const got = await leaseFor(t, site);
    const none = (jobId: string | null, s: JobState | null): SlurmLegInfo => ({ jobId, node: s?.node ?? null, state: s?.state ?? null, reason: s?.reason ?? null, exitCode: s?.exitCode ?? null, source: s?.source ?? 'sbatch', stepId: null, submitS: spanS(site.originNs, submittedNs), collectS: spanS(site.originNs, monoNs()) });
    if ('interrupted' in got) return settle(null, null, true, { ...none(got.jobId, null), state: 'CANCELLED' });
    if ('fault' in got) return settle(null, got.fault, false, none(got.jobId, got.state));
    const l = got.lease;
    const stepTimeoutS = t.timeoutS + c.timeMarginS + 60;
    const run = await o.client.step(srunArgv(c, { jobId: l.jobId, stepName: `nh-gate-${t.name}`, timeoutS: t.timeoutS, outputPath: f.output, nodeBinary, runnerPath, requestPath: f.request }), site.signal, stepTimeoutS);
    const srunText = run.lines.map((x) => x.text).join('\n');
    const stepId = stepIdOf(srunText);
    if (site.signal.aborted) {
      await o.client.cancel(l.jobId);
      lease = null;
      return settle(readTaskRecord(f.node), null, true, { ...none(l.jobId, null), node: l.node, state: 'CANCELLED', stepId });
    }
    const rec = await record(f.node, run.exitCode === 0, site.signal);
    let state: JobState = { state: run.exitCode === 0 ? 'COMPLETED' : 'FAILED', reason: null, node: rec?.node ?? l.node, exitCode: `${run.exitCode ?? 0}:${run.signal ? 1 : 0}`, source: 'srun' };
    let fault: Reason | null = null;
    // The allocation may have ended under the step (cancelled, timed out, node lost): that is the job's fault
    // and the lease is gone, even if the runner, signalled, still wrote a record of what it saw.
    const job = await settledJob(l.jobId, srunText);
    if (job === null || job.state !== 'RUNNING') {
      lease = null;
      const fin = (await o.client.final(l.jobId)) ?? job;
      fault = fin ? faultOf(l.jobId, fin, false, f.output) : reason('SLURM_LOST', `allocation ${l.jobId} is no longer known to the controller and accounting (sacct) has no record of it; see ${f.output}; ${AGAIN}`);
      if (fin) state = fin;
    } else if (run.exitCode !== 0 || rec === null || STEP_ENDED_BY_SLURM.test(tail(f.output))) {
      // The runner exits 0 whatever the engine did; anything else is the step's own end (its time limit,
      // scancel JOB.STEP, a runner that could not start).
      // slurmstepd writes its own words (CANCELLED …, DUE TO TIME LIMIT) into the step's output file.
      fault = stepFault(stepId ?? `${l.jobId}.?`, l.node, run.exitCode, `${srunText}\n${tail(f.output)}`, f.output);
      state = { ...state, state: fault.code === 'SLURM_TIMEOUT' ? 'TIMEOUT' : fault.code === 'SLURM_CANCELLED' ? 'CANCELLED' : 'FAILED' };
    }
    // Accounting, where the site has it, is the authority on how the step ended.
    const acct = stepId ? await o.client.finalStep(stepId) : null;
    if (acct && fault === null && TERMINAL_STATES.has(acct.state)) state = { ...acct, node: acct.node ?? state.node };
    return settle(rec, fault, false, {
      jobId: l.jobId, stepId, node: rec?.node ?? state.node ?? l.node, state: state.state, reason: state.reason, exitCode: state.exitCode, source: state.source,
      submitS: spanS(site.originNs, submittedNs), collectS: spanS(site.originNs, monoNs()),
    });
  }

  // The outcome: the runner's own fault joins Slurm's; the node pins the series once a task ran there.
  function settle(rec: TaskRecord | null, fault0: Reason | null, interrupted: boolean, slurm: SlurmLegInfo): TaskOutcome {
    const fault = fault0 ?? rec?.fault ?? null;
    if (c.pin === 'series' && !fault && !interrupted && slurm.node && pinnedNode === null) pinnedNode = slurm.node;
    return { record: rec, slurm, fault, interrupted };
  }

  return {
    async preflight(runDir, arch, first) {
      const argv = c.jobPer === 'leg' ? jobArgv(runDir, arch, 'preflight', first) : leaseArgv(runDir, arch, 'preflight', first);
      await o.client.testOnly(argv);
    },
    run(t, site) {
      return c.jobPer === 'leg' ? asJob(t, site) : asStep(t, site);
    },
    release: releaseLease,
  };
}
