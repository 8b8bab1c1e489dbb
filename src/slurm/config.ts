import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import * as z from 'zod';
import { seconds } from '../config/bounds.js';
import { parseJsonFile } from '../config/load.js';
import { NhGateError } from '../errors.js';

// How a site's Slurm is asked for one leg (docs/fleet.md). Strict: an unknown key is an error, so a typo
// (say "partiton") is named instead of silently running on the default partition.
const argv = z.array(z.string().min(1));

export const SlurmConfigSchema = z.strictObject({
  schemaVersion: z.literal(1),
  partition: z.string().min(1).optional().describe('sbatch --partition; absent: the cluster default'),
  gres: z.string().min(1).default('gpu:1').describe("the site's form of one GPU (sbatch --gres=…), e.g. gpu:h100:1"),
  exclusive: z.boolean().default(true).describe('sbatch --exclusive: no other job shares the node during a leg'),
  extraArgs: argv.default([]).describe('more sbatch arguments, one array element per argument (never a shell string)'),
  armArgs: z.strictObject({ A: argv.default([]), B: argv.default([]) }).default({ A: [], B: [] })
    .describe('sbatch arguments per A/B arm, to place the arms on purpose; arms on other silicon are CROSS_SILICON, never a ratio'),
  constraints: z.record(z.string().min(1), z.string().min(1)).default({}).describe('arch claim → sbatch --constraint (node feature), e.g. {"121a": "gb10"}'),
  pin: z.enum(['series', 'none']).default('series').describe('series: every leg after the first runs on the node the first ran on (one silicon); none: wherever Slurm puts it'),
  jobPer: z.enum(['series', 'block', 'leg']).default('series')
    .describe('series: one allocation holds the node for the whole series and each leg is a job step in it (the GPU lock spans the series); block: one allocation per ABBA block; leg: each leg its own job'),
  nodeLock: z.string().min(1).default('/tmp/nh-gate-gpu-%n.lock')
    .describe("the node-local GPU lock an allocation holds while it lives (%n: the node's name); point NH_GATE_LOCK at it for local runs on that node"),
  nodeLockWaitS: seconds({ zero: true }).default(15).describe("how long a new allocation's holder waits for the node's GPU lock (a holder being torn down may keep it a moment) before the allocation ends NODE_LOCKED"),
  copyMode: z.enum(['shared', 'copy-back']).default('shared')
    .describe('shared: the leg writes straight into the run directory; copy-back: it writes under nodeScratch and the job copies its files back at the end'),
  nodeScratch: z.string().min(1).default('/tmp').describe('node-local directory for copy-back'),
  export: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]).describe("names of this shell's variables handed to the leg (the leg's own environment always is)"),
  startTimeoutS: seconds().default(600).describe('a job still pending after this long is cancelled: that leg is VOID NEVER_STARTED'),
  timeMarginS: seconds({ zero: true }).default(120).describe("added to the leg's timeout for the job's --time"),
  pollS: seconds({ min: 0.01 }).max(3600).default(0.5).describe('how often the job state is read'),
  recordWaitS: seconds({ zero: true }).default(30).describe("how long a COMPLETED job's record may take to appear on the shared filesystem (NFS lookup caches)"),
  node: z.string().min(1).optional().describe("node binary on the nodes (default: this one's path)"),
  runner: z.string().min(1).optional().describe("the leg runner on the nodes (default: this package's dist/slurm/runner.js)"),
});

export type SlurmConfig = z.infer<typeof SlurmConfigSchema>;

// A rule across keys: per-arm sbatch arguments place arms in different jobs, which a shared allocation cannot.
export function crossKeyProblem(c: SlurmConfig): string | null {
  const armed = c.armArgs.A.length > 0 || c.armArgs.B.length > 0;
  return armed && c.jobPer !== 'leg' ? `armArgs places the arms in jobs of their own, but jobPer is '${c.jobPer}' (both arms share one allocation): set "jobPer": "leg" to use armArgs` : null;
}

// The file looked for when --slurm-config is not given.
export const DEFAULT_CONFIG_NAME = 'nh-gate.slurm.json';

// --slurm-config FILE, else ./nh-gate.slurm.json, else every default (the cluster's default partition, gpu:1).
export function loadSlurmConfig(file: string | undefined, cwd = process.cwd()): { config: SlurmConfig; path: string | null } {
  const path = file !== undefined ? resolve(cwd, file) : resolve(cwd, DEFAULT_CONFIG_NAME);
  if (file === undefined && !existsSync(path)) return { config: SlurmConfigSchema.parse({ schemaVersion: 1 }), path: null };
  try {
    const config = parseJsonFile(path, SlurmConfigSchema, 'slurm').data;
    const problem = crossKeyProblem(config);
    if (problem) throw new NhGateError('BAD_CONFIG', `${path}: ${problem}`, 'docs/fleet.md: armArgs, jobPer');
    return { config, path };
  } catch (err) {
    if (err instanceof NhGateError && err.code === 'BAD_CONFIG') throw new NhGateError('BAD_CONFIG', err.message, 'fix the fields named above (docs/fleet.md lists every key of the Slurm config)');
    throw err;
  }
}
