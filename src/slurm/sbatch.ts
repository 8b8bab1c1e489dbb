import type { LegArm } from '../results/types.js';
import { join } from 'node:path';
import type { SlurmConfig } from './config.js';

// The sbatch command line for one leg, built as an argv array (pure, so it is tested without a cluster).
// The leg's environment never appears here: it travels in the request file the runner reads
// (--export=NONE keeps the submitting shell's variables out of the job).

export interface SbatchLeg {
  jobName: string;
  arm: LegArm;
  // The arch the series claims ('cpu' claims none); a constraint is added when the config names one for it.
  arch: string;
  // The node the series is pinned to (config pin: series), once the first leg has landed.
  pinnedNode: string | null;
  timeoutS: number;
  // Where Slurm writes the job's own stdout/stderr (the runner's messages, Slurm's errors).
  outputPath: string;
  scriptPath: string;
  requestPath: string;
  // A lease's holder (runner.js --hold REQUEST) rather than a task's runner.
  hold?: boolean;
}

// Whole minutes for --time, at least 1 (Slurm's granularity).
export function timeLimitMinutes(timeoutS: number, marginS: number): number {
  return Math.max(1, Math.ceil((timeoutS + marginS) / 60));
}

// sbatch --parsable … script request: site form from the config, then the leg's placement.
export function sbatchArgv(c: SlurmConfig, leg: SbatchLeg): string[] {
  const args = ['sbatch', '--parsable', `--job-name=${leg.jobName}`, '--nodes=1', '--ntasks=1', `--gres=${c.gres}`];
  if (c.exclusive) args.push('--exclusive');
  if (c.partition) args.push(`--partition=${c.partition}`);
  const constraint = c.constraints[leg.arch];
  if (constraint) args.push(`--constraint=${constraint}`);
  if (leg.pinnedNode) args.push(`--nodelist=${leg.pinnedNode}`);
  // --no-requeue: a job on a lost node ends NODE_FAIL for nh-gate to report, instead of Slurm running it again unseen.
  args.push(`--time=${timeLimitMinutes(leg.timeoutS, c.timeMarginS)}`, '--no-requeue', '--export=NONE', `--output=${leg.outputPath}`, '--open-mode=truncate');
  args.push(...c.extraArgs);
  // armArgs place an A/B's two arms; a sweep's arms share the site's placement.
  if (leg.arm === 'A' || leg.arm === 'B') args.push(...c.armArgs[leg.arm]);
  args.push(leg.scriptPath, ...(leg.hold ? ['--hold'] : []), leg.requestPath);
  return args;
}

// One task as a job step inside a lease: srun into the allocation, the runner as its one task. --overlap lets
// the step share the node with the holder (the batch step); --verbose makes srun name the step it launched.
export interface SrunStep {
  jobId: string;
  stepName: string;
  timeoutS: number;
  outputPath: string;
  nodeBinary: string;
  runnerPath: string;
  requestPath: string;
}

export function srunArgv(c: SlurmConfig, s: SrunStep): string[] {
  return [
    'srun', `--jobid=${s.jobId}`, '--overlap', '--nodes=1', '--ntasks=1', `--job-name=${s.stepName}`,
    `--time=${timeLimitMinutes(s.timeoutS, c.timeMarginS)}`, '--export=NONE', `--output=${s.outputPath}`, '--open-mode=truncate', '--verbose',
    s.nodeBinary, s.runnerPath, s.requestPath,
  ];
}

// The job id from `sbatch --parsable` ("123" or "123;cluster"); null when it printed none.
export function parseJobId(stdout: string): string | null {
  const m = /^(\d+)(?:;\S+)?\s*$/m.exec(stdout.trim());
  return m ? m[1]! : null;
}

// A POSIX shell word: single-quoted, with embedded quotes closed and escaped.
export function shellWord(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

// The batch script: only exec of the leg runner (sbatch needs a script; Slurm copies it to the node's
// spool, so it names absolute paths and carries no environment of its own).
export function batchScript(nodeBinary: string, runnerPath: string): string {
  return `#!/bin/sh\n# nh-gate leg runner (written by nh-gate). The leg's environment is in the request file, not here.\nexec ${shellWord(nodeBinary)} ${shellWord(runnerPath)} "$@"\n`;
}

// Per-leg paths in the run directory.
export function legJobFiles(runDir: string, name: string): { request: string; output: string; node: string; script: string } {
  return {
    request: join(runDir, 'legs', `${name}.request.json`),
    output: join(runDir, 'legs', `${name}.slurm.out`),
    node: join(runDir, 'legs', `${name}.node.json`),
    script: join(runDir, 'slurm-leg.sh'),
  };
}
