// busy and mutate through a real Slurm: the local cluster of scripts/slurm/local-cluster.sh (n1 = "Fake H200"
// cc 9.0, n2 = "Fake GB10" cc 12.1 through the stand-in NVML). busy's command and sampler run on a node and
// come back to the one busy judge; each mutate suite run is a node task. Skipped, and counted as skipped,
// when that cluster is not running.
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/results/types.js';
import { repoRoot } from '../helpers/engine.js';
import { ensureDist, makeRepo } from '../mutate/helpers.js';
import { CLUSTER_DOWN, lockCluster, nhGate, slurm, slurmConfig, slurmEnv } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// The node GPU lock a lease holds: this file's own, so a cluster of another checkout on this host (same node
// names) never shares it.
const nodeLock = join(mkdtempSync(join(tmpdir(), 'nh-sl-locks-')), 'gpu-%n.lock');
const cfg = (body: Record<string, unknown> = {}): string => slurmConfig({ nodeLock, ...body });

// Waits until a job of that name is RUNNING; its id. within: a path its command names, when given.
async function runningJob(name: string, timeoutMs = 60_000, within = ''): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = slurm('squeue', ['-h', '-o', '%i|%j|%T|%o']).split('\n').find((l) => { const [, j, t] = l.split('|').map((x) => x.trim()); return j === name && t === 'RUNNING' && (within === '' || l.includes(within)); });
    if (line) return line.split('|')[0]!;
    await sleep(100);
  }
  throw new Error(`no RUNNING job named ${name} within ${timeoutMs} ms (${within}): ${slurm('squeue', ['-h', '-o', '%i|%j|%T|%o'])}`);
}

// Waits until a job step of that name runs inside job jobId (squeue -s lists steps as JOB.STEP).
async function runningStep(jobId: string, name: string, timeoutMs = 60_000): Promise<void> {
  for (const t0 = Date.now(); Date.now() - t0 < timeoutMs; await sleep(100)) {
    if (slurm('squeue', ['-h', '-s', '-o', '%i %j']).split('\n').some((l) => { const [i, j] = l.trim().split(/\s+/); return i!.startsWith(`${jobId}.`) && j === name; })) return;
  }
  throw new Error(`no step ${name} in job ${jobId} within ${timeoutMs} ms`);
}

interface Row { id: string; verdict: string; reason: string | null; detail: string; suite: { slurm?: { jobId: string | null; node: string | null; state: string | null } } | null }
interface MutateDoc { exitCode: number; rows: Row[]; baselines: Array<{ suites: Record<string, { slurm?: { jobId: string | null } }> }> }

// `nh-gate mutate` as users run it, in cwd, with the local cluster's SLURM_CONF.
function mutate(args: string[], cwd = repoRoot) {
  return execa(process.execPath, [join(repoRoot, 'bin', 'nh-gate.js'), 'mutate', ...args], { cwd, reject: false, env: slurmEnv });
}

describe.skipIf(CLUSTER_DOWN !== null)(`busy and mutate through the local Slurm cluster${CLUSTER_DOWN ? ` (skipped: ${CLUSTER_DOWN})` : ''}`, () => {
  // One cluster test file at a time: another file's jobs (the same lease names) must not be taken for ours.
  let unlock: () => void = () => {};
  beforeAll(async () => {
    ensureDist();
    unlock = await lockCluster();
  }, 1_200_000);
  afterAll(() => unlock());

  it('busy --executor slurm on n1: MEASURED from the node\'s stand-in NVML samples, with the job, the node and the node\'s silicon', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-busy-'));
    const r = await nhGate(['busy', '--executor', 'slurm', '--slurm-config', cfg({ partition: 'h200' }), '--start-marker', 'engine loaded', '--json', '--', 'sh', '-c', 'echo engine loaded; sleep 1; echo decode done'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as RunResult;
    expect(doc.verdict.word).toBe('MEASURED');
    // The default jobPer series: an allocation that holds the node (and its GPU lock), the command a step in it.
    expect(doc.slurm).toMatchObject({ jobId: expect.stringMatching(/^\d+$/), stepId: expect.stringMatching(/^\d+\.\d+$/), node: 'n1', state: 'COMPLETED' });
    expect(slurm('scontrol', ['show', 'job', '-o', doc.slurm!.jobId!])).toContain('JobName=nh-gate-lease-01');
    // The node's silicon, read by the node's own NVML (the submitting host has no GPU at all).
    expect(doc.silicon).toMatchObject({ kind: 'gpu', gpuName: 'Fake H200', computeCapability: '9.0' });
    expect(doc.arch).toBe('90');
    expect(doc.quantities.busy).toMatchObject({ status: 'measured', unit: '%' });
    expect(doc.quantities.busy?.status === 'measured' && doc.quantities.busy.silicon?.gpuName).toBe('Fake H200');
    expect(doc.comparison).toMatchObject({ sampler: { backend: 'nvml', samplesFile: 'samples.jsonl' }, window: { opensAt: 'first line matching /engine loaded/' } });
    // The command's timed lines and the samples came back to the run directory.
    expect(readFileSync(join(doc.runDir, 'command.log'), 'utf8')).toMatch(/^\d+\.\d{6}\tengine loaded\n\d+\.\d{6}\tdecode done\n$/);
    expect(readFileSync(join(doc.runDir, 'samples.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"kind":"util"')).length).toBeGreaterThan(0);
  });

  it('busy through the cluster with an --end-marker that never appears: WINDOW_UNKNOWN, exit 3', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-busy-end-'));
    const r = await nhGate(['busy', '--executor', 'slurm', '--slurm-config', cfg(), '--end-marker', 'never printed', '--json', '--', 'sh', '-c', 'echo start; sleep 0.3; echo bye'], dir);
    expect(r.exitCode, r.stderr).toBe(3);
    const doc = JSON.parse(r.stdout) as RunResult;
    expect(doc.verdict.word).toBe('NOT MEASURED');
    expect(doc.quantities.busy).toMatchObject({ status: 'refused', reason: 'WINDOW_UNKNOWN', message: expect.stringMatching(/end marker \/never printed\/ never appeared.*not closed at exit/) });
    expect(doc.slurm?.jobId).toMatch(/^\d+$/);
  });

  it('busy whose job is cancelled with scancel: NOT MEASURED naming SLURM_CANCELLED, exit 3', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-busy-cancel-'));
    const proc = nhGate(['busy', '--executor', 'slurm', '--slurm-config', cfg(), '--json', '--results-dir', dir, '--', 'sh', '-c', 'echo start; sleep 30; echo bye'], dir);
    const jobId = await runningJob('nh-gate-lease-01', 60_000, dir);
    // The command runs once the busy step is up in the allocation.
    await runningStep(jobId, 'nh-gate-busy');
    await sleep(500);
    slurm('scancel', [jobId]);
    const r = await proc;
    expect(r.exitCode, r.stderr).toBe(3);
    const doc = JSON.parse(r.stdout) as RunResult;
    // The allocation was cancelled under its step: Slurm names the job or the step it ended first.
    expect(`${doc.verdict.reasons[0]!.code}: ${doc.verdict.reasons[0]!.message}`).toMatch(new RegExp(`^SLURM_CANCELLED: (job ${jobId} on n[12] ended CANCELLED|step ${jobId}\\.\\d+ on n[12] was cancelled)`));
    expect(doc.slurm?.jobId).toBe(jobId);
    expect(doc.verdict.reasons[0]!.message).toMatch(/; run it again$/);
    expect(doc.quantities.busy).toMatchObject({ status: 'refused' });
  });

  it('Ctrl-C of a busy through Slurm cancels its allocation: interrupted, NOT MEASURED, exit 3', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-busy-int-'));
    const proc = nhGate(['busy', '--executor', 'slurm', '--slurm-config', cfg(), '--json', '--results-dir', dir, '--', 'sh', '-c', 'echo start; sleep 30; echo bye'], dir);
    const jobId = await runningJob('nh-gate-lease-01', 60_000, dir);
    await runningStep(jobId, 'nh-gate-busy');
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode, r.stderr).toBe(3);
    const doc = JSON.parse(r.stdout) as RunResult;
    expect(doc.status).toBe('interrupted');
    expect(doc.verdict.word).toBe('NOT MEASURED');
    let state = '';
    for (let i = 0; i < 50 && !/JobState=(CANCELLED|COMPLETED)/.test(state); i++) {
      state = slurm('scontrol', ['show', 'job', '-o', jobId]);
      await sleep(100);
    }
    expect(state).toMatch(/JobState=CANCELLED/);
  });

  it('a partition the cluster lacks: busy and mutate stop with sbatch\'s own words (exit 2) before anything runs or builds; --device is Slurm\'s to choose', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-busy-part-'));
    const bad = cfg({ partition: 'nope' });
    const b = await nhGate(['busy', '--executor', 'slurm', '--slurm-config', bad, '--', 'true'], dir);
    expect(b.exitCode).toBe(2);
    expect(b.stderr).toMatch(/SLURM_REJECTED: sbatch refused .*invalid partition specified: nope/);
    expect(existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')) : []).toEqual([]);
    const reportDirs = (): string[] => { try { return readdirSync(join(repoRoot, '.nh-gate', 'runs')).filter((d) => d.includes('-mutate-nh-ref')); } catch { return []; } };
    const before = reportDirs();
    const m = await mutate(['--only', 'gqa-head-mapping', '--workspace', mkdtempSync(join(tmpdir(), 'nh-sl-mut-pws-')), '--executor', 'slurm', '--slurm-config', bad]);
    expect(m.exitCode).toBe(2);
    expect(m.stderr).toMatch(/SLURM_REJECTED: .*invalid partition specified: nope/);
    expect(m.stderr).not.toMatch(/\n\s+at /);
    expect(reportDirs()).toEqual(before);
    const d = await nhGate(['busy', '--executor', 'slurm', '--device', '0', '--', 'true'], dir);
    expect(d.exitCode).toBe(2);
    expect(d.stderr).toMatch(/--device with --executor slurm/);
  });

  it('mutate --executor slurm --jobs 2 on the reference engine\'s table: the same row verdicts as the local executor, each suite run a Slurm job', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nh-sl-mut-ws-'));
    const rows = ['--only', 'gqa-head-mapping', '--jobs', '2', '--workspace', ws, '--json'];
    const local = await mutate([...rows, '--out', mkdtempSync(join(tmpdir(), 'nh-sl-mut-local-'))]);
    expect(local.exitCode, local.stderr).toBe(0);
    const viaSlurm = await mutate([...rows, '--out', mkdtempSync(join(tmpdir(), 'nh-sl-mut-slurm-')), '--executor', 'slurm', '--slurm-config', cfg()]);
    expect(viaSlurm.exitCode, viaSlurm.stderr).toBe(0);
    const [l, s] = [JSON.parse(local.stdout) as MutateDoc, JSON.parse(viaSlurm.stdout) as MutateDoc];
    expect(s.rows.map((r) => [r.id, r.verdict, r.reason])).toEqual(l.rows.map((r) => [r.id, r.verdict, r.reason]));
    expect(s.rows.map((r) => r.id)).toEqual(['moe-bias-dropped', 'gqa-head-mapping']);
    for (const r of s.rows) {
      expect(r.suite?.slurm).toMatchObject({ jobId: expect.stringMatching(/^\d+$/), node: expect.stringMatching(/^n[12]$/), state: 'COMPLETED' });
      expect(slurm('scontrol', ['show', 'job', '-o', r.suite!.slurm!.jobId!])).toContain(`JobName=nh-gate-mutant-${r.id}`);
    }
    // The baseline ran on a node too; the local run's rows name no job.
    expect(Object.values(s.baselines[0]!.suites).every((b) => /^\d+$/.test(b.slurm?.jobId ?? ''))).toBe(true);
    expect(l.rows.every((r) => r.suite?.slurm === undefined)).toBe(true);
  }, 600_000);

  it('a suite task cancelled with scancel: that row is VOID SLURM_CANCELLED (never CAUGHT), the other rows stand', async () => {
    // A mutant whose suite spins for a long while (the suite is in the fixture engine): time to catch its job running.
    const repo = makeRepo((r) => {
      r.table.timeoutFloorS = 300;
      r.table.mutants = [
        r.table.mutants[0]!,
        { id: 'slow-clamp', file: 'engine/src/calc.cpp', anchor: 'return head / heads_per_group;', replacement: 'for (volatile unsigned long i = 0; i < 40000000000UL; ++i) {} return head / heads_per_group;', why: 'a suite that runs long enough to be cancelled', suite: 'calc', expect: 'caught' },
      ];
    });
    const proc = mutate(['--table', 'gates/mutations.json', '--json', '--executor', 'slurm', '--slurm-config', cfg()], repo.root);
    const jobId = await runningJob('nh-gate-mutant-slow-clamp', 300_000, repo.root);
    slurm('scancel', [jobId]);
    const r = await proc;
    expect(r.exitCode, r.stderr).toBe(3);
    const doc = JSON.parse(r.stdout) as MutateDoc;
    expect(doc.rows.map((x) => [x.id, x.verdict, x.reason])).toEqual([['self-add', 'CAUGHT', null], ['slow-clamp', 'VOID', 'SLURM_CANCELLED']]);
    const row = doc.rows[1]!;
    expect(row.detail).toMatch(new RegExp(`^suite not run: SLURM_CANCELLED: job ${jobId} on n[12] ended CANCELLED`));
    expect(row.suite?.slurm).toMatchObject({ jobId, state: 'CANCELLED' });
  }, 600_000);
});
