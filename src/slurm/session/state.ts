import type { LegArm } from '../../results/types.js';
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { monoNs, spanS } from '../../exec/clock.js';
import { NhGateError } from '../../errors.js';
import { writeAtomic } from '../../io/atomic.js';
import { reason, type Reason } from '../../verdict/reasons.js';
import type { SlurmLegInfo } from '../../results/types.js';
import type { SlurmConfig } from '../config.js';
import type { SlurmClient } from '../client.js';
import { batchScript, legJobFiles, sbatchArgv } from '../sbatch.js';
import { WIRE_SCHEMA_VERSION, type TaskKind, type TaskRecord, type TaskRequest } from '../wire.js';

// The Slurm executor of one series as a record, and the small steps every job takes: its argv, its request
// file, its submission, and how its outcome is settled. The job and step runs (run.ts), the lease (lease.ts)
// and the polling (poll.ts) are functions over this record, each testable alone.

export interface NodeTask {
  // File stem under <runDir>/legs/.
  name: string;
  kind: TaskKind;
  arm: LegArm;
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

export interface SlurmTasksOptions {
  config: SlurmConfig;
  client: SlurmClient;
  progress: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  // The harness's reaper (src/exec/reaper.ts): told each job nh-gate holds, and when it no longer does.
  watchJob?: (jobId: string) => void;
  clearJob?: (jobId: string) => void;
}

// An allocation held for a scope (the series, or one ABBA block) whose holder keeps the node's GPU lock.
export interface Lease {
  jobId: string;
  scope: string;
  node: string | null;
}

// One series' executor: its options, and what it has learnt (the node it is pinned to, its lease).
export interface Session {
  o: SlurmTasksOptions;
  c: SlurmConfig;
  env: NodeJS.ProcessEnv;
  nodeBinary: string;
  runnerPath: string;
  pinnedNode: string | null;
  submitted: number;
  lease: Lease | null;
  leases: number;
  // Batch scripts written, per run directory (the script is the same for every job of one).
  scripts: Set<string>;
}

export const AGAIN = 'the finished legs are kept; --resume RUN_DIR submits only the missing legs';

// The runner shipped in this package: dist/slurm/runner.js beside the slurm folder.
function defaultRunnerPath(): string {
  return fileURLToPath(new URL('../runner.js', import.meta.url));
}

export function newSession(o: SlurmTasksOptions): Session {
  return {
    o, c: o.config, env: o.env ?? process.env, nodeBinary: o.config.node ?? process.execPath, runnerPath: o.config.runner ?? defaultRunnerPath(),
    pinnedNode: null, submitted: 0, lease: null, leases: 0, scripts: new Set(),
  };
}

// The batch script of a run directory, written once.
function script(s: Session, runDir: string): string {
  const path = legJobFiles(runDir, 'x').script;
  if (!s.scripts.has(path) || !existsSync(path)) writeAtomic(path, batchScript(s.nodeBinary, s.runnerPath));
  s.scripts.add(path);
  return path;
}

// The allocation scope a task runs in: one per ABBA block, or one for the series.
export function scopeOf(c: SlurmConfig, t: Pick<NodeTask, 'block'>): string {
  return c.jobPer === 'block' ? `block-${t.block + 1}` : 'series';
}

// sbatch for a task that is its own job.
export function jobArgv(s: Session, runDir: string, arch: string, name: string, t: Pick<NodeTask, 'arm' | 'timeoutS'>): string[] {
  const f = legJobFiles(runDir, name);
  return sbatchArgv(s.c, { jobName: `nh-gate-${name}`, arm: t.arm, arch, pinnedNode: s.pinnedNode, timeoutS: t.timeoutS, outputPath: f.output, scriptPath: script(s, runDir), requestPath: f.request });
}

// sbatch for a lease: it lives for the scope's legs, each up to its timeout, plus one margin.
export function leaseArgv(s: Session, runDir: string, arch: string, name: string, t: Pick<NodeTask, 'timeoutS' | 'scopeTasks'>): string[] {
  const f = legJobFiles(runDir, name);
  return sbatchArgv(s.c, { jobName: `nh-gate-${name}`, arm: 'single', arch, pinnedNode: s.pinnedNode, timeoutS: Math.max(1, t.scopeTasks) * t.timeoutS, outputPath: f.output, scriptPath: script(s, runDir), requestPath: f.request, hold: true });
}

// Submits; the first refusal stops the series (a config error, exit 2), a later one is only this task's fault.
export async function submit(s: Session, argv: string[]): Promise<{ jobId: string } | { fault: Reason }> {
  try {
    const jobId = await s.o.client.submit(argv);
    s.submitted += 1;
    // Should nh-gate die (even SIGKILL), its reaper cancels the job instead of leaving the node held.
    s.o.watchJob?.(jobId);
    return { jobId };
  } catch (err) {
    if (s.submitted === 0 || !(err instanceof NhGateError) || err.code !== 'SLURM_REJECTED') throw err;
    return { fault: reason('SLURM_REJECTED', `${err.message}; ${AGAIN}`) };
  }
}

// The config's exported variables join the task's own environment (the task's values win).
export function withExported(c: SlurmConfig, env: NodeJS.ProcessEnv, body: unknown): unknown {
  if (c.export.length === 0 || body === null || typeof body !== 'object' || !('env' in body)) return body;
  const exported = Object.fromEntries(c.export.flatMap((k) => (env[k] !== undefined ? [[k, env[k]!]] : [])));
  return { ...body, env: { ...exported, ...(body as { env: Record<string, string> }).env } };
}

// The task's request file (its stale node record and output removed first).
export function writeRequest(s: Session, t: NodeTask, site: TaskSite): ReturnType<typeof legJobFiles> {
  const f = legJobFiles(site.runDir, t.name);
  const request: TaskRequest = {
    schemaVersion: WIRE_SCHEMA_VERSION, kind: t.kind, name: t.name, runDir: site.runDir, copyMode: s.c.copyMode, nodeScratch: s.c.nodeScratch,
    arch: t.arch, originWallMs: Date.now() - spanS(site.originNs, monoNs()) * 1000, body: withExported(s.c, s.env, t.body),
  };
  for (const p of [f.node, f.output]) rmSync(p, { force: true });
  writeAtomic(f.request, JSON.stringify(request, null, 2) + '\n');
  return f;
}

// The outcome: the runner's own fault joins Slurm's; the node pins the series once a task ran there.
export function settle(s: Session, rec: TaskRecord | null, fault0: Reason | null, interrupted: boolean, slurm: SlurmLegInfo): TaskOutcome {
  const fault = fault0 ?? rec?.fault ?? null;
  if (s.c.pin === 'series' && !fault && !interrupted && slurm.node && s.pinnedNode === null) s.pinnedNode = slurm.node;
  return { record: rec, slurm, fault, interrupted };
}
