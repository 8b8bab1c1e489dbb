// Legs through a real Slurm: the local cluster of scripts/slurm/local-cluster.sh (slurmctld + two slurmd,
// n1 = "Fake H200" cc 9.0, n2 = "Fake GB10" cc 12.1 through the stand-in NVML). Skipped, and counted as
// skipped, when that cluster is not running. One file, run in order: some cases drain or down a node.
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/results/types.js';
import { ensureEngineBuilt, repoRoot } from '../helpers/engine.js';
import { fakeRepo } from '../gates/fake.js';
import { expectLegLogsAgree } from '../helpers/legLogs.js';
import { acquireLock } from '../../src/exec/lock.js';
import { execa } from 'execa';
import { formatReason } from '../../src/verdict/reasons.js';
import { CLUSTER_DOWN, lockCluster, nhGate, resumeNodes, slurm, slurmConfig, slurmEnv } from './helpers.js';

const runsIn = (dir: string): string[] => (existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')).map((d) => join(dir, 'runs', d)) : []);
const resultOf = (runDir: string): RunResult => JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as RunResult;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Waits until a job step of that name runs (a leg inside a lease); its step id "JOB.STEP".
async function runningStep(name: string, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = slurm('squeue', ['-s', '-h', '-o', '%i %j']).split('\n').find((l) => l.trim().endsWith(` ${name}`));
    if (line) return line.trim().split(' ')[0]!;
    await sleep(150);
  }
  throw new Error(`no running step named ${name} within ${timeoutMs} ms`);
}

describe.skipIf(CLUSTER_DOWN !== null)(`legs through the local Slurm cluster${CLUSTER_DOWN ? ` (skipped: ${CLUSTER_DOWN})` : ''}`, () => {
  let unlock = (): void => {};
  beforeAll(async () => {
    await ensureEngineBuilt();
    unlock = await lockCluster();
  }, 1_200_000);
  afterAll(() => {
    resumeNodes('n1,n2');
    unlock();
  });

  it('a3 --executor slurm (jobPer series, the default): STRICT PASS, the allocation, the step, node and the node\'s silicon in every leg', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-a3-'));
    const r = await nhGate(['a3', '--executor', 'slurm', '--json', '--slurm-config', slurmConfig({})], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as RunResult;
    expect(doc.verdict.word).toBe('STRICT PASS');
    expect(doc.legs.length).toBeGreaterThan(0);
    for (const l of doc.legs) {
      expect(l.slurm?.jobId).toMatch(/^\d+$/);
      expect(l.slurm?.stepId).toMatch(new RegExp(`^${l.slurm?.jobId}\\.\\d+$`));
      expect(l.slurm).toMatchObject({ state: 'COMPLETED', exitCode: '0:0' });
      expect(['n1', 'n2']).toContain(l.slurm?.node);
      expect(l.silicon?.gpuName).toBe(l.slurm?.node === 'n1' ? 'Fake H200' : 'Fake GB10');
      // The allocation is Slurm's, not made up: the controller knows it by the lease's name, and the holder
      // ended it as done (COMPLETED, not cancelled) once the series was over.
      let job = '';
      for (let i = 0; i < 50 && !/JobState=COMPLETED/.test(job); i++, await sleep(100)) job = slurm('scontrol', ['show', 'job', '-o', l.slurm!.jobId!]);
      expect(job).toContain('JobName=nh-gate-lease-01');
      expect(job).toMatch(/JobState=COMPLETED .*ExitCode=0:0/);
      expect(readFileSync(join(doc.runDir, l.logFile), 'utf8')).toMatch(/TOKEN MATCH: 128\/128/);
    }
    expect(readFileSync(join(doc.runDir, 'legs', 'lease-01.slurm.out'), 'utf8')).toMatch(/nh-gate holder on n[12]: job \d+ holds/);
    // The log the node wrote re-judges, through analyze, exactly as the series judged it.
    expect(await expectLegLogsAgree([dir])).toBe(doc.legs.length);
  });

  it('a3 --executor slurm with jobPer leg: each leg its own job, named for the leg', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-a3l-'));
    const r = await nhGate(['a3', '--executor', 'slurm', '--json', '--slurm-config', slurmConfig({ jobPer: 'leg' })], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as RunResult;
    for (const l of doc.legs) {
      expect(l.slurm).toMatchObject({ state: 'COMPLETED', exitCode: '0:0' });
      expect(l.slurm?.stepId ?? null).toBeNull();
      expect(slurm('scontrol', ['show', 'job', '-o', l.slurm!.jobId!])).toContain(`JobName=nh-gate-leg-0${l.index + 1}-decode`);
    }
    expect(await expectLegLogsAgree([dir])).toBe(doc.legs.length);
  });

  it('copy-back: the leg writes node-locally and the job copies its files into the run directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-copy-'));
    const scratch = mkdtempSync(join(tmpdir(), 'nh-sl-scratch-'));
    const r = await nhGate(['a3', '--executor', 'slurm', '--json', '--slurm-config', slurmConfig({ copyMode: 'copy-back', nodeScratch: scratch })], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as RunResult;
    const l = doc.legs[0]!;
    expect(readFileSync(join(doc.runDir, l.logFile), 'utf8')).toMatch(/STRICT PASS/);
    expect(readFileSync(join(doc.runDir, l.eventsFile!), 'utf8').length).toBeGreaterThan(0);
    // The events were written under the scratch dir while the leg ran, and the scratch is gone after.
    expect(JSON.parse(readFileSync(join(doc.runDir, 'legs', 'leg-01-decode.node.json'), 'utf8')).body.run.argv.join(' ')).toContain(scratch);
    expect(readdirSync(scratch)).toEqual([]);
    expect(await expectLegLogsAgree([dir])).toBe(1);
  });

  it('an ab whose arms land on n1 and n2: the ratio is withheld CROSS_SILICON, never printed', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok' });
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-cross-'));
    const cfg = slurmConfig({ pin: 'none', jobPer: 'leg', armArgs: { A: ['--nodelist=n1'], B: ['--nodelist=n2'] } });
    const r = await nhGate(['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', '1', '--executor', 'slurm', '--slurm-config', cfg, '--json'], dir);
    expect(r.exitCode, r.stderr).toBe(3);
    const doc = JSON.parse(r.stdout) as RunResult;
    expect(doc.legs.map((l) => [l.arm, l.slurm?.node, l.silicon?.gpuName])).toEqual([['A', 'n1', 'Fake H200'], ['B', 'n2', 'Fake GB10']]);
    expect(doc.quantities.ratio).toMatchObject({ status: 'withheld', reason: 'CROSS_SILICON' });
    const text = await nhGate(['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', '1', '--executor', 'slurm', '--slurm-config', cfg], dir);
    expect(text.stdout).toMatch(/ratio B\/A WITHHELD \(CROSS_SILICON\): leg 1 \(arm A on n1\) was taken on gpu:Fake H200\|cc9\.0 and leg 2 \(arm B on n2\) on gpu:Fake GB10\|cc12\.1/);
  });

  it('every A/B form goes through the executor: --sequential, --aa and --base/--head legs each carry their Slurm job', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.2' });
    const gate = join(repo.root, 'seq.json');
    writeFileSync(gate, JSON.stringify({
      schemaVersion: 1, kind: 'ab', name: 'seq', recipe: 'fake', flag: 'FLAG',
      criteria: { statement: 's', combine: 'all', metrics: [{ metric: 'perOutputToken', form: 'ratio', claim: 'non-inferiority', worse: 'higher', atMostPct: 50 }] },
      sequential: { sigmaLogRatio: 0.3, maxLegs: 4 },
    }));
    const git = (...a: string[]) => execa('git', ['-C', repo.root, '-c', 'user.name=t', '-c', 'user.email=t@t', ...a]);
    writeFileSync(join(repo.root, '.gitignore'), '.nh-gate/\n');
    await git('init', '-q');
    await git('add', '-A');
    await git('commit', '-qm', 'base');
    writeFileSync(join(repo.root, 'driver.sh'), readFileSync(join(repo.root, 'driver.sh'), 'utf8') + '# head\n', { mode: 0o755 });
    await git('commit', '-qam', 'head');
    const cfg = slurmConfig({ jobPer: 'leg' });
    for (const [form, args] of [
      ['sequential', ['--gate', gate, '--sequential']],
      ['aa', ['--gate', gate, '--aa']],
      ['cross-commit', ['--recipe', repo.recipePath, '--base', 'HEAD~1', '--head', 'HEAD', '--repeats', '1']],
    ] as const) {
      const dir = mkdtempSync(join(tmpdir(), `nh-sl-${form}-`));
      const r = await execa(process.execPath, [join(repoRoot, 'bin', 'nh-gate.js'), 'ab', ...args, '--executor', 'slurm', '--slurm-config', cfg, '--json', '--results-dir', dir], {
        reject: false, cwd: repo.root, env: { ...slurmEnv, NH_GATE_LOCK: join(dir, 'gpu.lock') },
      });
      expect([0, 1, 3], `${form}: ${r.stderr}`).toContain(r.exitCode);
      const doc = JSON.parse(r.stdout) as RunResult;
      expect(doc.comparison?.kind === 'ab' && doc.comparison.form, form).toBe(form);
      expect(doc.legs.length, form).toBeGreaterThan(0);
      for (const l of doc.legs) {
        expect(l.slurm?.jobId, `${form} leg ${l.index + 1}`).toMatch(/^\d+$/);
        expect(l.slurm).toMatchObject({ state: 'COMPLETED' });
        expect(slurm('scontrol', ['show', 'job', '-o', l.slurm!.jobId!])).toContain(`JobName=nh-gate-leg-0${l.index + 1}-${l.arm}`);
      }
      if (form === 'cross-commit') expect(doc.verdict.reasons[0]!.code).toBe('TWO_BINARIES');
    }
  }, 900_000);

  it('a leg cancelled with scancel mid-run (its step) is that leg\'s named VOID; the rest of the series stands in the same allocation; --resume runs only that leg', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '2' });
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-cancel-'));
    const cfg = slurmConfig({});
    const args = ['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', '2', '--executor', 'slurm', '--slurm-config', cfg];
    const proc = nhGate(args, dir);
    const stepId = await runningStep('nh-gate-leg-02-B-decode');
    const jobId = stepId.split('.')[0]!;
    slurm('scancel', [stepId]);
    const r = await proc;
    expect(r.exitCode, r.stderr).toBe(3);
    const [runDir] = runsIn(dir);
    const doc = resultOf(runDir!);
    expect(doc.legs.map((l) => l.verdict)).toEqual(['STRICT PASS', 'VOID', 'STRICT PASS', 'STRICT PASS']);
    const cancelled = doc.legs[1]!;
    expect(cancelled.slurm).toMatchObject({ jobId, stepId, state: 'CANCELLED' });
    expect(formatReason(cancelled.voidReasons[0]!)).toMatch(new RegExp(`^SLURM_CANCELLED: step ${jobId}\\.\\d+ on n[12] was cancelled.*--resume RUN_DIR`));
    expect(cancelled.quantities.perOutputToken).toMatchObject({ status: 'refused' });
    expect(r.stdout).toMatch(/SLURM_CANCELLED/);
    // Cancelling the step did not cost the allocation: every leg ran in it.
    expect(new Set(doc.legs.map((l) => l.slurm?.jobId))).toEqual(new Set([jobId]));

    const again = await nhGate([...args, '--resume', runDir!, '--json'], dir);
    expect(again.exitCode, again.stderr).toBe(0);
    const resumed = JSON.parse(again.stdout) as RunResult;
    expect(resumed.runDir).toBe(runDir);
    expect(resumed.legs.map((l) => l.verdict)).toEqual(['STRICT PASS', 'STRICT PASS', 'STRICT PASS', 'STRICT PASS']);
    // Only the lost leg was submitted again, in an allocation of its own: the others keep theirs.
    expect(resumed.legs.map((l) => l.slurm?.jobId)).toEqual([jobId, expect.not.stringMatching(`^${jobId}$`), jobId, jobId]);
    expect(resumed.notes.join('\n')).toMatch(/3 finished leg\(s\) kept, 1 to run/);
  });

  it('the allocation cancelled mid-leg: that leg is SLURM_CANCELLED (the job\'s), the next legs run in a new allocation on the same node', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '2' });
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-lease-'));
    const proc = nhGate(['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', '2', '--executor', 'slurm', '--json', '--slurm-config', slurmConfig({})], dir);
    const stepId = await runningStep('nh-gate-leg-02-B-decode');
    const jobId = stepId.split('.')[0]!;
    slurm('scancel', [jobId]);
    const r = await proc;
    expect(r.exitCode, r.stderr).toBe(3);
    const doc = JSON.parse(r.stdout) as RunResult;
    expect(doc.legs.map((l) => l.verdict), doc.legs.map((l) => l.voidReasons.map(formatReason).join('; ')).join('\n')).toEqual(['STRICT PASS', 'VOID', 'STRICT PASS', 'STRICT PASS']);
    expect(formatReason(doc.legs[1]!.voidReasons[0]!)).toMatch(new RegExp(`^SLURM_CANCELLED: job ${jobId} on n[12] ended CANCELLED`));
    const second = doc.legs[2]!.slurm!.jobId;
    expect(second).not.toBe(jobId);
    expect(doc.legs[3]!.slurm!.jobId).toBe(second);
    expect(new Set(doc.legs.map((l) => l.slurm?.node)).size).toBe(1);
    expect(slurm('scontrol', ['show', 'job', '-o', second!])).toContain('JobName=nh-gate-lease-02');
  });

  it('the GPU lock spans the series: the holder keeps the node\'s lock between legs; a node whose lock is held runs nothing (NODE_LOCKED)', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '1' });
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-lock-'));
    const locks = mkdtempSync(join(tmpdir(), 'nh-sl-locks-'));
    const cfg = slurmConfig({ nodeLock: join(locks, 'gpu-%n.lock'), nodeLockWaitS: 1, extraArgs: ['--nodelist=n1'] });
    const proc = nhGate(['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', '2', '--executor', 'slurm', '--json', '--slurm-config', cfg], dir);
    await runningStep('nh-gate-leg-02-B-decode');
    // Between legs and during them, the node's lock names the allocation; a local nh-gate on n1 is refused.
    const held = JSON.parse(readFileSync(join(locks, 'gpu-n1.lock'), 'utf8')) as { command: string };
    expect(held.command).toMatch(/Slurm job \d+/);
    const local = await execa(process.execPath, [join(repoRoot, 'bin', 'nh-gate.js'), 'a3', '--recipe', repo.recipePath, '--results-dir', dir], { reject: false, env: { NH_GATE_LOCK: join(locks, 'gpu-n1.lock') } });
    expect(local.exitCode).toBe(2);
    expect(local.stderr).toMatch(/LOCKED/);
    const r = await proc;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(join(locks, 'gpu-n1.lock'))).toBe(false);

    // The other way round: a local run holds n1's lock, so an allocation there ends at once, by name.
    const mine = acquireLock(join(locks, 'gpu-n1.lock'), 'a local nh-gate (test)');
    try {
      const refused = await nhGate(['a3', '--recipe', repo.recipePath, '--executor', 'slurm', '--json', '--slurm-config', cfg], dir);
      expect(refused.exitCode, refused.stderr).toBe(3);
      const doc = JSON.parse(refused.stdout) as RunResult;
      expect(formatReason(doc.legs[0]!.voidReasons[0]!)).toMatch(/^NODE_LOCKED: job \d+ on n1 ended FAILED.*GPU lock is held by another nh-gate/);
    } finally {
      mine.release();
    }
  });

  it('--arch 90 with a constraint lands on the cc 9.0 node and samples busy there; the same claim on n2 runs nothing (NO_SUCH_SILICON)', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.5' });
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-arch-'));
    const r = await nhGate(['a3', '--recipe', repo.recipePath, '--arch', '90', '--executor', 'slurm', '--json', '--slurm-config', slurmConfig({ constraints: { '90': 'h200' } })], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as RunResult;
    const l = doc.legs[0]!;
    expect(l.slurm?.node).toBe('n1');
    expect(l.samplerBackend).toBe('nvml');
    expect(l.quantities.busy).toMatchObject({ status: 'measured', unit: '%' });
    expect(l.quantities.busy?.status === 'measured' && l.quantities.busy.silicon?.gpuName).toBe('Fake H200');
    const wrong = await nhGate(['a3', '--recipe', repo.recipePath, '--arch', '90', '--executor', 'slurm', '--json', '--slurm-config', slurmConfig({ extraArgs: ['--nodelist=n2'] })], dir);
    expect(wrong.exitCode).toBe(3);
    expect(formatReason((JSON.parse(wrong.stdout) as RunResult).legs[0]!.voidReasons[0]!)).toMatch(/^NO_SUCH_SILICON: node n2 has Fake GB10 \(cc12\.1\), the series claims --arch 90/);
  });

  it('Ctrl-C of nh-gate cancels the allocation (scancel), keeps the finished legs, exit 3', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '2' });
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-int-'));
    const proc = nhGate(['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', '2', '--executor', 'slurm', '--slurm-config', slurmConfig({})], dir);
    const jobId = (await runningStep('nh-gate-leg-02-B-decode')).split('.')[0]!;
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode, r.stderr).toBe(3);
    const doc = resultOf(runsIn(dir)[0]!);
    expect(doc.status).toBe('interrupted');
    expect(doc.legs.map((l) => l.verdict)).toEqual(['STRICT PASS']);
    let state = '';
    for (let i = 0; i < 50 && !/JobState=(CANCELLED|COMPLETED)/.test(state); i++) {
      state = slurm('scontrol', ['show', 'job', '-o', jobId]);
      await sleep(100);
    }
    expect(state).toMatch(/JobState=CANCELLED/);
  });

  it('nh-gate SIGKILLed mid-series: its reaper cancels the allocation, so the node is not held until the job\'s --time', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '2' });
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-kill-'));
    const proc = nhGate(['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', '2', '--executor', 'slurm', '--slurm-config', slurmConfig({})], dir);
    const jobId = (await runningStep('nh-gate-leg-02-B-decode')).split('.')[0]!;
    proc.kill('SIGKILL');
    await proc;
    let state = '';
    for (let i = 0; i < 100 && !/JobState=(CANCELLED|COMPLETED)/.test(state); i++, await sleep(100)) state = slurm('scontrol', ['show', 'job', '-o', jobId]);
    expect(state).toMatch(/JobState=CANCELLED/);
  });

  it('a partition the cluster lacks: sbatch\'s own error, exit 2, before any build, no result written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-part-'));
    const r = await nhGate(['a3', '--executor', 'slurm', '--slurm-config', slurmConfig({ partition: 'nope' })], dir);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/SLURM_REJECTED: sbatch refused the leg .*invalid partition specified: nope/);
    expect(r.stderr).toMatch(/fix: .*sinfo -s/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(runsIn(dir)).toEqual([]);
  });

  it('a job that never starts within startTimeoutS is cancelled: VOID NEVER_STARTED with Slurm\'s reason', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok' });
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-never-'));
    slurm('scontrol', ['update', 'nodename=n2', 'state=drain', 'reason=nh-gate-test']);
    try {
      const r = await nhGate(['a3', '--recipe', repo.recipePath, '--executor', 'slurm', '--json', '--slurm-config', slurmConfig({ extraArgs: ['--nodelist=n2'], startTimeoutS: 3 })], dir);
      expect(r.exitCode, r.stderr).toBe(3);
      const doc = JSON.parse(r.stdout) as RunResult;
      expect(formatReason(doc.legs[0]!.voidReasons[0]!)).toMatch(/^NEVER_STARTED: job \d+ was still PENDING \(reason ReqNodeNotAvail.*\) after \d+ s and was cancelled/);
      expect(slurm('scontrol', ['show', 'job', '-o', doc.legs[0]!.slurm!.jobId!])).toMatch(/JobState=CANCELLED/);
    } finally {
      resumeNodes('n2');
    }
  });

  it('a node lost mid-leg: VOID SLURM_NODE_LOST with the state Slurm gives (NODE_FAIL)', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '3' });
    const dir = mkdtempSync(join(tmpdir(), 'nh-sl-lost-'));
    const proc = nhGate(['a3', '--recipe', repo.recipePath, '--executor', 'slurm', '--json', '--slurm-config', slurmConfig({ extraArgs: ['--nodelist=n1'] })], dir);
    await runningStep('nh-gate-leg-01-decode');
    slurm('scontrol', ['update', 'nodename=n1', 'state=down', 'reason=nh-gate-test-lost']);
    try {
      const r = await proc;
      expect(r.exitCode, r.stderr).toBe(3);
      const doc = JSON.parse(r.stdout) as RunResult;
      expect(doc.legs[0]!.slurm?.state).toBe('NODE_FAIL');
      expect(formatReason(doc.legs[0]!.voidReasons[0]!)).toMatch(/^SLURM_NODE_LOST: job \d+ on n1 ended NODE_FAIL/);
    } finally {
      resumeNodes('n1');
    }
  });
});
