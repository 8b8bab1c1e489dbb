// Accounting and the faults only a real cluster shows. Without a cluster: sacct lagging a job's end is
// asked again and never gives a stale state. Against the local cluster with slurmdbd (skipped, and counted
// as skipped, without it): every leg's state comes from sacct, a leg past a 1-minute --time ends TIMEOUT,
// and a leg preempted by the urgent partition ends PREEMPTED; the other legs of each series stand.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor, ProcessRun } from '../../src/exec/types.js';
import type { RunResult } from '../../src/results/types.js';
import { slurmClient } from '../../src/slurm/client.js';
import { formatReason } from '../../src/verdict/reasons.js';
import { fakeRepo } from '../gates/fake.js';
import { ACCOUNTING_DOWN, lockCluster, nhGate, resumeNodes, slurm, slurmConfig } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// An executor answering sacct and scontrol from scripts (one answer per call, the last one repeated).
function scripted(sacct: Array<[number, string]>, scontrol: string): { exec: Executor; calls: string[] } {
  const calls: string[] = [];
  let i = 0;
  const exec: Executor = {
    async run(spec) {
      calls.push(spec.argv[0]!);
      const [exitCode, out] = spec.argv[0] === 'sacct' ? sacct[Math.min(i++, sacct.length - 1)]! : [0, scontrol];
      const run: ProcessRun = { argv: spec.argv, pid: 1, startNs: 0n, endNs: 0n, exitCode, signal: null, timedOut: false, interrupted: false, spawnError: null, orphansKilled: false, lines: [{ tNs: 0n, stream: 'stdout', text: out }] };
      return run;
    },
  };
  return { exec, calls };
}

describe('the final state when accounting lags the job\'s end', () => {
  const lag = { lagS: 0.3, pollS: 0.01 };
  const ended = 'JobId=7 JobState=COMPLETED Reason=None ExitCode=0:0 NodeList=n1';

  it('no record yet, then a RUNNING record: asked again until sacct has the end', async () => {
    const { exec, calls } = scripted([[0, ''], [0, 'RUNNING|0:0|n1|None'], [0, 'TIMEOUT|0:15|n1|None']], ended);
    expect(await slurmClient(exec, {}, lag).final('7')).toEqual({ state: 'TIMEOUT', reason: null, node: 'n1', exitCode: '0:15', source: 'sacct' });
    expect(calls).toEqual(['sacct', 'sacct', 'sacct']);
  });

  it('a record that stays RUNNING: the controller answers after the lag, never the stale state', async () => {
    const { exec, calls } = scripted([[0, 'RUNNING|0:0|n1|None']], ended);
    expect(await slurmClient(exec, {}, lag).final('7')).toMatchObject({ state: 'COMPLETED', source: 'scontrol' });
    expect(calls.filter((c) => c === 'sacct').length).toBeGreaterThan(1);
  });

  it('an id accounting has seen before (ids restart): the job submitted last is this one', async () => {
    const { exec } = scripted([[0, 'COMPLETED|0:0|n2|None|2026-11-30T09:00:00\nRUNNING|0:0|n1|None|2026-12-01T10:00:00\nFAILED|1:0|n1|None|2026-01-02T08:00:00']], ended);
    expect(await slurmClient(exec, {}, lag).final('7')).toMatchObject({ state: 'COMPLETED', source: 'scontrol' });
    const { exec: later } = scripted([[0, 'COMPLETED|0:0|n2|None|2026-11-30T09:00:00\nTIMEOUT|0:15|n1|None|2026-12-01T10:00:00']], ended);
    expect(await slurmClient(later, {}, lag).final('7')).toEqual({ state: 'TIMEOUT', reason: null, node: 'n1', exitCode: '0:15', source: 'sacct' });
  });

  it('no accounting (sacct fails): the controller answers at once', async () => {
    const { exec, calls } = scripted([[1, 'sacct: error: Slurm accounting storage is disabled']], ended);
    expect(await slurmClient(exec, {}, lag).final('7')).toMatchObject({ state: 'COMPLETED', source: 'scontrol' });
    expect(calls).toEqual(['sacct', 'scontrol']);
  });
});

// Waits until the driver's run number `n` has started (the fake driver counts its runs), then the id of the
// one RUNNING nh-gate job (by name prefix: a leg's job, or the allocation a series' legs run in).
async function slowLegJob(countFile: string, n: number, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(countFile) && readFileSync(countFile, 'utf8').trim() === String(n)) {
      const jobs = slurm('squeue', ['-h', '-t', 'RUNNING', '-o', '%i %j']).split('\n').filter((l) => / nh-gate-/.test(l));
      if (jobs.length === 1) return jobs[0]!.split(' ')[0]!;
    }
    await sleep(150);
  }
  throw new Error(`driver run ${n} did not start as the one running nh-gate job within ${timeoutMs} ms`);
}

const slowRepo = (slowS: number) => {
  const countFile = join(mkdtempSync(join(tmpdir(), 'nh-sl-count-')), 'runs');
  // The leg timeout (300 s) is far past the job's --time, so Slurm, not nh-gate, ends the slow leg.
  return { countFile, repo: fakeRepo({ FAKE_MODE: 'ok', FAKE_COUNT_FILE: countFile, FAKE_SLOW_RUN: '2', FAKE_SLOW_S: String(slowS) }, 300) };
};

describe.skipIf(ACCOUNTING_DOWN !== null)(`accounting on the local Slurm cluster${ACCOUNTING_DOWN ? ` (skipped: ${ACCOUNTING_DOWN})` : ''}`, () => {
  let unlock = (): void => {};
  beforeAll(async () => {
    unlock = await lockCluster();
  }, 1_200_000);
  afterAll(() => {
    resumeNodes('n1,n2');
    unlock();
  });

  it('every leg\'s end comes from sacct, which knows the job by its nh-gate name', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok' });
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-acct-'));
    const r = await nhGate(['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', '1', '--executor', 'slurm', '--json', '--slurm-config', slurmConfig({})], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as RunResult;
    expect(doc.legs.map((l) => [l.verdict, l.slurm?.state, l.slurm?.source])).toEqual([['STRICT PASS', 'COMPLETED', 'sacct'], ['STRICT PASS', 'COMPLETED', 'sacct']]);
    for (const l of doc.legs) {
      // The record's state is final before its name is: slurmdbd may show a placeholder name ('allocation')
      // for a moment on a loaded machine.
      let row = '';
      for (let i = 0; i < 60; i++) {
        row = slurm('sacct', ['-n', '-P', '-X', '-j', l.slurm!.jobId!, '-o', 'JobName,State,NodeList']).trim();
        if (row.startsWith('nh-gate-')) break;
        await sleep(250);
      }
      expect(row).toMatch(new RegExp(`^nh-gate-[\\w-]+\\|COMPLETED\\|${l.slurm!.node}$`));
    }
  });

  it('a leg past its 1-minute --time (extraArgs) ends VOID SLURM_TIMEOUT, from sacct; the finished leg is kept', async () => {
    const { repo, countFile } = slowRepo(240);
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-timeout-'));
    const t0 = Date.now();
    const r = await nhGate(['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', '1', '--executor', 'slurm', '--json', '--slurm-config', slurmConfig({ extraArgs: ['--time=1'] })], dir);
    process.stderr.write(`slurm TIMEOUT case: ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(readFileSync(countFile, 'utf8').trim()).toBe('2');
    const doc = JSON.parse(r.stdout) as RunResult;
    expect(doc.legs.map((l) => l.verdict)).toEqual(['STRICT PASS', 'VOID']);
    const timedOut = doc.legs[1]!;
    expect(timedOut.slurm).toMatchObject({ state: 'TIMEOUT', source: 'sacct' });
    expect(formatReason(timedOut.voidReasons[0]!)).toMatch(new RegExp(`^SLURM_TIMEOUT: job ${timedOut.slurm!.jobId} on n[12] ended TIMEOUT.*\\[sacct\\]: the job ran past its --time`));
    expect(slurm('sacct', ['-n', '-P', '-X', '-j', timedOut.slurm!.jobId!, '-o', 'Timelimit']).trim()).toBe('00:01:00');
  }, 240_000);

  it('a leg preempted on n1 by a job of the urgent partition ends VOID SLURM_PREEMPTED; the rest of the series stands', async () => {
    const { repo, countFile } = slowRepo(120);
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-preempt-'));
    const proc = nhGate(['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', '2', '--executor', 'slurm', '--json', '--slurm-config', slurmConfig({ extraArgs: ['--nodelist=n1'] })], dir);
    const victim = await slowLegJob(countFile, 2);
    const urgent = slurm('sbatch', ['--parsable', '--partition=urgent', '--nodelist=n1', '--exclusive', '--job-name=nh-test-urgent', '--output=/dev/null', '--wrap', 'sleep 1']).trim();
    const r = await proc;
    expect(r.exitCode, r.stderr).toBe(3);
    const doc = JSON.parse(r.stdout) as RunResult;
    expect(doc.legs.map((l) => l.verdict)).toEqual(['STRICT PASS', 'VOID', 'STRICT PASS', 'STRICT PASS']);
    const preempted = doc.legs[1]!;
    expect(preempted.slurm).toMatchObject({ jobId: victim, node: 'n1', state: 'PREEMPTED', source: 'sacct' });
    expect(formatReason(preempted.voidReasons[0]!)).toMatch(new RegExp(`^SLURM_PREEMPTED: job ${victim} on n1 ended PREEMPTED.*\\[sacct\\]: a higher-priority job took the node`));
    // The urgent job ran on n1 and finished; the legs after it ran there too.
    expect(slurm('sacct', ['-n', '-P', '-X', '-j', urgent, '-o', 'State,NodeList']).trim()).toBe('COMPLETED|n1');
    expect(doc.legs.map((l) => l.slurm?.node)).toEqual(['n1', 'n1', 'n1', 'n1']);
  }, 180_000);
});
