import { setTimeout as sleep } from 'node:timers/promises';
import type { Executor, ProcessRun } from '../exec/types.js';
import { describeEnd } from '../exec/types.js';
import { NhGateError } from '../errors.js';
import { parseJobId } from './sbatch.js';
import { parseSacct, parseSacctStep, parseScontrol, parseSqueue, TERMINAL_STATES, type JobState } from './state.js';

// The Slurm commands nh-gate runs (sbatch, srun, scontrol, squeue, sacct, scancel), each as an argv through the
// executor, so a missing command or a refusal comes back as a named error, never a stack trace.

export interface SlurmClient {
  // Submits; the job id. SLURM_UNAVAILABLE without sbatch, SLURM_REJECTED with sbatch's own words.
  submit(argv: string[]): Promise<string>;
  // Validates a submission without queueing it (sbatch --test-only), before the series builds anything.
  testOnly(argv: string[]): Promise<void>;
  // The job while it lives: scontrol, else squeue.
  live(jobId: string): Promise<JobState | null>;
  // The job once it ended: sacct when accounting works, else scontrol while the controller remembers it.
  final(jobId: string): Promise<JobState | null>;
  cancel(jobId: string): Promise<void>;
  // Runs a job step inside a live allocation (srun --jobid …) to its end; SLURM_UNAVAILABLE without srun.
  step(argv: string[], signal: AbortSignal, timeoutS: number): Promise<ProcessRun>;
  // Ends a lease as done: SIGUSR1 to its holder, which exits 0 (the job ends COMPLETED, not CANCELLED).
  release(jobId: string): Promise<void>;
  // A finished step's end from accounting (sacct -j JOB.STEP); null where the site has no accounting.
  finalStep(stepId: string): Promise<JobState | null>;
}

function text(run: ProcessRun, stream?: 'stdout' | 'stderr'): string {
  return run.lines.filter((l) => !stream || l.stream === stream).map((l) => l.text).join('\n');
}

function unavailable(cmd: string, run: ProcessRun): NhGateError {
  return new NhGateError('SLURM_UNAVAILABLE', `--executor slurm: '${cmd}' could not run (${describeEnd(run)}): Slurm's client commands are not on PATH`, "run nh-gate on a host that can submit to the cluster (a login node), put Slurm's bin directory on PATH, or use --executor local");
}

// sbatch's words when it could not reach a controller at all (no config, controller down), as opposed to
// refusing this particular request.
const UNREACHABLE = /Could not establish a configuration source|Unable to contact slurm controller|Unable to establish controller machine|Connection refused|Socket timed out|Zero Bytes were transmitted/i;

// Which of the two a failed sbatch was (pure, so it is tested without a cluster).
export function sbatchFailureKind(output: string): 'unreachable' | 'rejected' {
  return UNREACHABLE.test(output) ? 'unreachable' : 'rejected';
}

// How long final() waits for accounting to catch up with a job's end (slurmctld sends the record to
// slurmdbd after the job ends), and how often it asks meanwhile, before the controller answers instead.
export interface AccountingLag {
  lagS: number;
  pollS: number;
}

// The client over an executor (the real one spawns; tests may pass a recording one).
export function slurmClient(exec: Executor, env: Record<string, string> = {}, acct: AccountingLag = { lagS: 10, pollS: 0.25 }): SlurmClient {
  const run = (argv: string[]) => exec.run({ argv, env, timeoutS: 60 });
  const rejected = (r: ProcessRun, argv: string[]): NhGateError => sbatchFailureKind(text(r)) === 'unreachable'
    ? new NhGateError('SLURM_UNAVAILABLE', `sbatch could not reach a Slurm controller (${describeEnd(r)}): ${text(r).trim().split('\n').slice(-2).join(' | ')}`, 'set SLURM_CONF to the cluster\'s slurm.conf (the local test cluster: export SLURM_CONF=.cache/slurm/slurm.conf after scripts/slurm/local-cluster.sh start), or run nh-gate on a login node')
    : new NhGateError('SLURM_REJECTED', `sbatch refused the leg (${describeEnd(r)}): ${text(r, 'stderr').trim() || text(r).trim() || 'no message'}\n  command: ${argv.join(' ')}`, 'fix the Slurm config (partition, gres, constraints, extraArgs: docs/fleet.md); `sinfo -s` lists the partitions this cluster has');
  return {
    async submit(argv) {
      const r = await run(argv);
      if (r.spawnError) throw unavailable(argv[0]!, r);
      const id = r.exitCode === 0 ? parseJobId(text(r, 'stdout')) : null;
      if (id === null) throw rejected(r, argv);
      return id;
    },
    async testOnly(argv) {
      const probe = [argv[0]!, '--test-only', ...argv.slice(1).filter((a) => a !== '--parsable')];
      const r = await run(probe);
      if (r.spawnError) throw unavailable(argv[0]!, r);
      // --test-only also refuses a request no node can take *now* (drained, down): a real submission would
      // wait for one, so that case is left to the start timeout (NEVER_STARTED), not refused here.
      if (r.exitCode !== 0 && !/Requested node configuration is not available/i.test(text(r))) throw rejected(r, probe);
    },
    async live(jobId) {
      const sc = await run(['scontrol', 'show', 'job', '-o', jobId]);
      if (sc.spawnError) throw unavailable('scontrol', sc);
      const s = sc.exitCode === 0 ? parseScontrol(text(sc, 'stdout')) : null;
      if (s) return s;
      const sq = await run(['squeue', '-h', '-j', jobId, '-o', '%T|%r|%N']);
      return sq.exitCode === 0 ? parseSqueue(text(sq, 'stdout')) : null;
    },
    async final(jobId) {
      // sacct failing means no accounting here (sacct missing, or accounting_storage/none). sacct answering
      // with no record yet, or a state not final yet, means accounting lags the job's end: asked again until
      // acct.lagS, then the controller answers, never a stale RUNNING.
      for (const deadline = Date.now() + acct.lagS * 1000; ;) {
        const sa = await run(['sacct', '-n', '-P', '-X', '-j', jobId, '-o', 'State,ExitCode,NodeList,Reason,Submit']);
        if (sa.spawnError || sa.exitCode !== 0) break;
        const s = parseSacct(text(sa, 'stdout'));
        if (s && TERMINAL_STATES.has(s.state)) return s;
        if (Date.now() >= deadline) break;
        await sleep(acct.pollS * 1000);
      }
      return this.live(jobId);
    },
    async cancel(jobId) {
      await run(['scancel', jobId]);
    },
    async step(argv, signal, timeoutS) {
      const r = await exec.run({ argv, env, timeoutS }, { signal });
      if (r.spawnError) throw unavailable(argv[0]!, r);
      return r;
    },
    async release(jobId) {
      // --full: the holder is the batch shell itself (the script execs node), which plain --batch does not signal.
      const r = await run(['scancel', '--batch', '--full', '--signal=USR1', jobId]);
      if (r.spawnError || r.exitCode !== 0) await run(['scancel', jobId]);
    },
    async finalStep(stepId) {
      const sa = await run(['sacct', '-n', '-P', '-j', stepId, '-o', 'JobID,State,ExitCode,NodeList']);
      if (sa.spawnError || sa.exitCode !== 0) return null;
      return parseSacctStep(text(sa, 'stdout'), stepId);
    },
  };
}
