// The Slurm leg runner over a stand-in SlurmClient (no cluster): pinning, the start timeout, and which
// sbatch refusal stops a series versus voids one leg. The real sbatch/scontrol path is test/slurm/cluster.test.ts.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { slurmLegRunner } from '../../src/slurm/legRunner.js';
import { SlurmConfigSchema } from '../../src/slurm/config.js';
import type { SlurmClient } from '../../src/slurm/client.js';
import type { JobState } from '../../src/slurm/state.js';
import type { LegRequest } from '../../src/gates/leg/observe.js';
import { legJobFiles } from '../../src/slurm/sbatch.js';
import { legObservedToWire, taskRecordJson } from '../../src/slurm/wire.js';
import type { ProcessRun } from '../../src/exec/types.js';
import { NhGateError } from '../../src/errors.js';
import { formatReason, type Reason } from '../../src/verdict/reasons.js';

const text = (r: Reason | null): string | null => (r ? formatReason(r) : null);

const req = (index: number, arm: 'A' | 'B'): LegRequest => ({
  name: `leg-0${index + 1}-${arm}`, index, arm, label: `${arm}`, mode: 'decode', driver: { argv: ['true'], goldenArgv: [], eventsArgv: [], modeArgv: {} },
  vars: {}, goldenPath: '/g', env: { FLAG: arm === 'B' ? '1' : '0' }, binaryPath: '/bin/true', timeoutS: 60, sampleGpu: false, deviceIndex: 0, logHeader: '#nh-gate leg {}',
});

// What the real runner leaves when a task ran: its record and its log.
function writeRecord(runDir: string, name: string, node: string, jobId: string, stepId: string | null = null): void {
  const t = process.hrtime.bigint();
  mkdirSync(join(runDir, 'legs'), { recursive: true });
  writeFileSync(legJobFiles(runDir, name).node, taskRecordJson({ kind: 'leg', node, jobId, stepId, silicon: null, originNs: 0n, fault: null, body: legObservedToWire({ gpm: [], clocks: [], gpmStatus: null, samplerEnd: null, log: { bytes: 0, droppedBytes: 0, fault: null, error: null }, tree: { pids: [], cpuS: null, cpuNote: null },
    run: { argv: ['true'], pid: 1, startNs: t, endNs: t, exitCode: 0, signal: null, timedOut: false, interrupted: false, spawnError: null, orphansKilled: false, lines: [] },
    binarySha256: null, foreignPids: [], contentionChecked: false, samplerBackend: null, samplerNote: null, util: [], nominalPeriodS: null, sampled: false,
    files: { log: `legs/${name}.log`, events: null, samples: null },
  }) }));
  writeFileSync(join(runDir, 'legs', `${name}.log`), '');
}

// An srun's end as the client returns it.
function srunRun(exitCode: number, lines: string[]): ProcessRun {
  const t = process.hrtime.bigint();
  return { argv: ['srun'], pid: 1, startNs: t, endNs: t, exitCode, signal: null, timedOut: false, interrupted: false, spawnError: null, orphansKilled: false, lines: lines.map((text) => ({ tNs: t, stream: 'stderr' as const, text })) };
}

// A client whose jobs end as `script` says; a COMPLETED job leaves the runner's record, as the real runner does.
function fakeClient(runDir: string, script: Array<{ states: string[]; node: string; reject?: boolean }>, stepScript: Array<'ok' | 'step-cancelled' | 'step-timeout' | 'job-cancelled'> = []) {
  const submitted: string[][] = [];
  const released: string[] = [];
  const stepArgv: string[][] = [];
  const holds = new Map<string, string>();
  const cancelled: string[] = [];
  let n = 0;
  const polls = new Map<string, number>();
  const steps = new Map<string, { states: string[]; node: string; name: string }>();
  const client: SlurmClient = {
    async submit(argv) {
      const step = script[n++]!;
      if (step.reject) throw new NhGateError('SLURM_REJECTED', 'sbatch refused the leg: x');
      submitted.push(argv);
      const id = String(100 + n);
      const name = /--job-name=nh-gate-(\S+)/.exec(argv.join(' '))![1]!;
      polls.set(id, 0);
      steps.set(id, { ...step, name });
      if (argv.includes('--hold')) holds.set(id, argv[argv.length - 1]!.replace(/\.request\.json$/, '.node.json'));
      return id;
    },
    async testOnly() {},
    async live(id) {
      const step = steps.get(id)!;
      const i = Math.min(polls.get(id)!, step.states.length - 1);
      polls.set(id, polls.get(id)! + 1);
      const state = cancelled.includes(id) ? 'CANCELLED' : released.includes(id) ? 'COMPLETED' : step.states[i]!;
      const hold = holds.get(id);
      // A lease's holder says it is up once the job runs; a task job leaves its record when it completes.
      if (hold && state === 'RUNNING') writeFileSync(hold, '{}');
      if (!hold && state === 'COMPLETED') writeRecord(runDir, step.name, step.node, id);
      return { state, reason: state === 'PENDING' ? 'Resources' : null, node: state === 'PENDING' ? null : step.node, exitCode: '0:0', source: 'scontrol' } satisfies JobState;
    },
    async final(id) { return this.live(id); },
    async cancel(id) { cancelled.push(id); },
    // A step in a lease: the runner ran (record written), unless the script says how it ended instead.
    async step(argv) {
      stepArgv.push(argv);
      const job = /--jobid=(\d+)/.exec(argv.join(' '))![1]!;
      const name = /--job-name=nh-gate-(\S+)/.exec(argv.join(' '))![1]!;
      const k = stepArgv.length;
      const how = stepScript[k - 1] ?? 'ok';
      const sid = `${job}.${k - 1}`;
      if (how === 'ok') {
        writeRecord(runDir, name, steps.get(job)!.node, job, sid);
        return srunRun(0, [`srun: launching StepId=${sid} on host ${steps.get(job)!.node}`]);
      }
      if (how === 'job-cancelled') cancelled.push(job);
      return srunRun(1, [`srun: launching StepId=${sid} on host n1`, how === 'step-timeout' ? `slurmstepd: error: *** STEP ${sid} ON n1 CANCELLED AT 2026-12-01T12:00:00 DUE TO TIME LIMIT ***` : `slurmstepd: error: *** STEP ${sid} ON n1 CANCELLED AT 2026-12-01T12:00:00 ***`]);
    },
    async release(id) { released.push(id); },
    async finalStep() { return null; },
  };
  return { client, submitted, cancelled, released, stepArgv };
}

const site = (runDir: string, block = 0) => ({ runDir, signal: new AbortController().signal, originNs: process.hrtime.bigint(), arch: 'cpu', block, blockLegs: 4, seriesLegs: 8 });
const perLeg = (more: Record<string, unknown> = {}) => SlurmConfigSchema.parse({ schemaVersion: 1, pollS: 0.01, jobPer: 'leg', ...more });

describe('slurm leg runner (stand-in client)', () => {
  it('pin series: after the first leg lands, every later leg asks for that node', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-slr-'));
    const f = fakeClient(runDir, [{ states: ['RUNNING', 'COMPLETED'], node: 'gpu07' }, { states: ['COMPLETED'], node: 'gpu07' }]);
    const r = slurmLegRunner({ config: perLeg(), client: f.client, progress: () => {} });
    const first = await r.run(req(0, 'A'), site(runDir));
    expect(first.fault).toBeNull();
    expect(first.slurm).toMatchObject({ jobId: '101', node: 'gpu07', state: 'COMPLETED' });
    await r.run(req(1, 'B'), site(runDir));
    expect(f.submitted[0]!.some((a) => a.startsWith('--nodelist'))).toBe(false);
    expect(f.submitted[1]).toContain('--nodelist=gpu07');
    const none = fakeClient(runDir, [{ states: ['COMPLETED'], node: 'a' }, { states: ['COMPLETED'], node: 'b' }]);
    const free = slurmLegRunner({ config: perLeg({ pin: 'none' }), client: none.client, progress: () => {} });
    await free.run(req(0, 'A'), site(runDir));
    await free.run(req(1, 'B'), site(runDir));
    expect(none.submitted[1]!.some((a) => a.startsWith('--nodelist'))).toBe(false);
  });

  it('a job pending past startTimeoutS is cancelled and the leg is NEVER_STARTED with Slurm\'s reason', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-slr-'));
    const f = fakeClient(runDir, [{ states: ['PENDING'], node: 'x' }]);
    const r = slurmLegRunner({ config: perLeg({ startTimeoutS: 0.05 }), client: f.client, progress: () => {} });
    const out = await r.run(req(0, 'A'), site(runDir));
    expect(f.cancelled).toEqual(['101']);
    expect(text(out.fault)).toMatch(/^NEVER_STARTED: job 101 was still PENDING \(reason Resources\)/);
    expect(out.observed.run.interrupted).toBe(false);
  });

  it('sbatch refusing the first leg stops the series (exit 2); refusing a later leg voids only that leg', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-slr-'));
    const first = fakeClient(runDir, [{ states: [], node: 'x', reject: true }]);
    const r1 = slurmLegRunner({ config: perLeg(), client: first.client, progress: () => {} });
    await expect(r1.run(req(0, 'A'), site(runDir))).rejects.toThrow(/sbatch refused/);
    const later = fakeClient(runDir, [{ states: ['COMPLETED'], node: 'n1' }, { states: [], node: 'x', reject: true }]);
    const r2 = slurmLegRunner({ config: perLeg(), client: later.client, progress: () => {} });
    expect((await r2.run(req(0, 'A'), site(runDir))).fault).toBeNull();
    expect(text((await r2.run(req(1, 'B'), site(runDir))).fault)).toMatch(/^SLURM_REJECTED: sbatch refused the leg/);
  });
});

describe('slurm leases (stand-in client): one allocation, legs as job steps', () => {
  const lease = (more: Record<string, unknown> = {}) => SlurmConfigSchema.parse({ schemaVersion: 1, pollS: 0.01, ...more });

  it('jobPer series (the default): one sbatch for the whole series, every leg an srun step in it, released at the end', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-sll-'));
    const f = fakeClient(runDir, [{ states: ['PENDING', 'RUNNING'], node: 'n1' }]);
    const r = slurmLegRunner({ config: lease(), client: f.client, progress: () => {} });
    const outs = [];
    for (let i = 0; i < 4; i++) outs.push(await r.run(req(i, i % 3 === 0 ? 'A' : 'B'), site(runDir, Math.floor(i / 2))));
    expect(f.submitted).toHaveLength(1);
    // The holder holds the allocation: --hold and a --time that covers every leg of the series (8 × 60 s + margin).
    expect(f.submitted[0]!.slice(-2)[0]).toBe('--hold');
    expect(f.submitted[0]).toContain('--time=10');
    expect(f.stepArgv).toHaveLength(4);
    for (const [i, o] of outs.entries()) {
      expect(o.fault).toBeNull();
      expect(o.slurm).toMatchObject({ jobId: '101', stepId: `101.${i}`, node: 'n1', state: 'COMPLETED', source: 'srun' });
    }
    expect(f.stepArgv[0]).toEqual(expect.arrayContaining(['--jobid=101', '--overlap', '--export=NONE']));
    expect(f.released).toEqual([]);
    await r.release!();
    expect(f.released).toEqual(['101']);
    await r.release!();
    expect(f.released).toEqual(['101']);
  });

  it('jobPer block: a new allocation per ABBA block, pinned to the node the first block ran on', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-sll-'));
    const f = fakeClient(runDir, [{ states: ['RUNNING'], node: 'n2' }, { states: ['RUNNING'], node: 'n2' }]);
    const r = slurmLegRunner({ config: lease({ jobPer: 'block' }), client: f.client, progress: () => {} });
    await r.run(req(0, 'A'), site(runDir, 0));
    await r.run(req(1, 'B'), site(runDir, 0));
    expect(f.submitted).toHaveLength(1);
    await r.run(req(4, 'A'), site(runDir, 1));
    expect(f.submitted).toHaveLength(2);
    expect(f.released).toEqual(['101']);
    expect(f.submitted[1]).toContain('--nodelist=n2');
    // A block's allocation covers the block's legs (4 × 60 s + margin).
    expect(f.submitted[1]).toContain('--time=6');
  });

  it('a step cancelled alone is that leg\'s SLURM_CANCELLED and the allocation stays; the allocation cancelled is the job\'s fault and the next leg takes a new one', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-sll-'));
    const f = fakeClient(runDir, [{ states: ['RUNNING'], node: 'n1' }, { states: ['RUNNING'], node: 'n1' }], ['ok', 'step-cancelled', 'step-timeout', 'job-cancelled', 'ok']);
    const r = slurmLegRunner({ config: lease(), client: f.client, progress: () => {} });
    expect((await r.run(req(0, 'A'), site(runDir))).fault).toBeNull();
    const c1 = await r.run(req(1, 'B'), site(runDir));
    expect(text(c1.fault)).toMatch(/^SLURM_CANCELLED: step 101\.1 on n1 was cancelled/);
    expect(c1.slurm).toMatchObject({ jobId: '101', stepId: '101.1', state: 'CANCELLED' });
    const t1 = await r.run(req(2, 'B'), site(runDir));
    expect(text(t1.fault)).toMatch(/^SLURM_TIMEOUT: step 101\.2 on n1 ran past its --time/);
    expect(f.submitted).toHaveLength(1);
    const j = await r.run(req(3, 'A'), site(runDir));
    expect(text(j.fault)).toMatch(/^SLURM_CANCELLED: job 101 on n1 ended CANCELLED/);
    expect(j.observed.run.interrupted).toBe(false);
    const after = await r.run(req(4, 'A'), site(runDir));
    expect(after.fault).toBeNull();
    expect(f.submitted).toHaveLength(2);
    expect(after.slurm?.jobId).toBe('102');
  });

  it('an allocation that never starts is NEVER_STARTED for the leg that waited; Ctrl-C cancels the allocation', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-sll-'));
    const f = fakeClient(runDir, [{ states: ['PENDING'], node: 'x' }]);
    const r = slurmLegRunner({ config: lease({ startTimeoutS: 0.05 }), client: f.client, progress: () => {} });
    const out = await r.run(req(0, 'A'), site(runDir));
    expect(text(out.fault)).toMatch(/^NEVER_STARTED: job 101 was still PENDING/);
    expect(f.cancelled).toEqual(['101']);
    expect(f.stepArgv).toHaveLength(0);
    const g = fakeClient(runDir, [{ states: ['PENDING'], node: 'x' }]);
    const r2 = slurmLegRunner({ config: lease(), client: g.client, progress: () => {} });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 30);
    const stopped = await r2.run(req(0, 'A'), { ...site(runDir), signal: ctl.signal });
    expect(stopped.observed.run.interrupted).toBe(true);
    expect(g.cancelled).toEqual(['101']);
  });
});
