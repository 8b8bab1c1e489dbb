// The local Slurm cluster (scripts/slurm/local-cluster.sh) as the cluster tests see it: found through
// SLURM_CONF, else $NH_SLURM_STATE/slurm.conf, else .cache/slurm/slurm.conf, and up only when the
// controller answers and both nodes are idle.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { repoRoot } from '../helpers/engine.js';

export const SLURM_CONF = process.env.SLURM_CONF ?? join(process.env.NH_SLURM_STATE ?? join(repoRoot, '.cache', 'slurm'), 'slurm.conf');

function up(): string | null {
  if (!existsSync(SLURM_CONF)) return `no ${SLURM_CONF}`;
  try {
    const out = execFileSync('sinfo', ['-h', '-N', '-o', '%N %T'], { env: { ...process.env, SLURM_CONF }, encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
    for (const n of ['n1', 'n2']) if (!new RegExp(`^${n} (idle|mixed|allocated|completing)`, 'm').test(out)) return `node ${n} is not up (sinfo: ${out.trim().replace(/\n/g, '; ')})`;
    return null;
  } catch (err) {
    return `sinfo failed (${(err as Error).message.split('\n')[0]})`;
  }
}

// Why the cluster tests are skipped, or null when the cluster is up.
export const CLUSTER_DOWN = up();
if (CLUSTER_DOWN) process.stderr.write(`slurm cluster tests SKIPPED: ${CLUSTER_DOWN} — start it with scripts/slurm/local-cluster.sh start\n`);

export const slurmEnv = { SLURM_CONF };

// Why the accounting tests are skipped (cluster down, or no slurmdbd answering sacct), or null.
function accountingDown(): string | null {
  if (CLUSTER_DOWN) return CLUSTER_DOWN;
  try {
    const type = /AccountingStorageType\s*=\s*(\S+)/.exec(execFileSync('scontrol', ['show', 'config'], { env: { ...process.env, SLURM_CONF }, encoding: 'utf8', timeout: 10_000 }))?.[1];
    if (type !== 'accounting_storage/slurmdbd') return `the cluster has no slurmdbd (AccountingStorageType=${type ?? '?'}; install slurmdbd and mariadb-server, then restart it)`;
    execFileSync('sacct', ['-n', '-X', '-o', 'JobID', '-S', 'now'], { env: { ...process.env, SLURM_CONF }, encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
    return null;
  } catch (err) {
    return `sacct failed (${(err as Error).message.split('\n')[0]})`;
  }
}
export const ACCOUNTING_DOWN = accountingDown();
if (ACCOUNTING_DOWN && !CLUSTER_DOWN) process.stderr.write(`slurm accounting tests SKIPPED: ${ACCOUNTING_DOWN}\n`);

// One test file at a time on the cluster: the files drain, down and preempt nodes, which would void the
// legs of another file running at the same time (vitest runs two files at once). A lock directory beside
// slurm.conf holding the owner's pid; a dead owner's lock is taken over. Returns the release.
export async function lockCluster(timeoutMs = 1_190_000): Promise<() => void> {
  const lock = join(dirname(SLURM_CONF), 'tests.lock');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch {
      let owner = NaN;
      try { owner = Number(readFileSync(join(lock, 'pid'), 'utf8')); } catch { /* being written or removed */ }
      if (Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`the cluster test lock ${lock} is still held (pid ${owner}) after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Slurm's own commands against the local cluster.
export function slurm(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { env: { ...process.env, SLURM_CONF }, encoding: 'utf8', timeout: 20_000 });
}

// A Slurm config file for a test.
export function slurmConfig(body: Record<string, unknown>): string {
  const f = join(mkdtempSync(join(tmpdir(), 'nh-slurm-')), 'nh-gate.slurm.json');
  writeFileSync(f, JSON.stringify({ schemaVersion: 1, pollS: 0.2, ...body }));
  return f;
}

// The CLI as users run it, against the local cluster.
export function nhGate(args: string[], resultsDir: string) {
  return execa(process.execPath, [join(repoRoot, 'bin', 'nh-gate.js'), ...args, '--results-dir', resultsDir], {
    reject: false, env: { ...slurmEnv, NH_GATE_LOCK: join(resultsDir, 'gpu.lock') },
  });
}

// Returns nodes to service; a node that already came back by itself (ReturnToService=2) is fine.
export function resumeNodes(nodes: string): void {
  try {
    slurm('scontrol', ['update', `nodename=${nodes}`, 'state=resume']);
  } catch {
    // "Invalid node state specified": the node is not down or drained any more.
  }
}
