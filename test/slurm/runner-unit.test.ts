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
import type { LegRequest } from '../../src/gates/observe.js';
import { legJobFiles } from '../../src/slurm/sbatch.js';
import { nodeRecordJson } from '../../src/slurm/wire.js';
import { NhGateError } from '../../src/errors.js';
import { formatReason, type Reason } from '../../src/verdict/reasons.js';

const text = (r: Reason | null): string | null => (r ? formatReason(r) : null);

const req = (index: number, arm: 'A' | 'B'): LegRequest => ({
  name: `leg-0${index + 1}-${arm}`, index, arm, label: `${arm}`, mode: 'decode', driver: { argv: ['true'], goldenArgv: [], eventsArgv: [], modeArgv: {} },
  vars: {}, goldenPath: '/g', env: { FLAG: arm === 'B' ? '1' : '0' }, binaryPath: '/bin/true', timeoutS: 60, sampleGpu: false, deviceIndex: 0, logHeader: '#nh-gate leg {}',
});

// A client whose jobs end as `script` says; a COMPLETED job leaves the runner's record, as the real runner does.
function fakeClient(runDir: string, script: Array<{ states: string[]; node: string; reject?: boolean }>) {
  const submitted: string[][] = [];
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
      return id;
    },
    async testOnly() {},
    async live(id) {
      const step = steps.get(id)!;
      const i = Math.min(polls.get(id)!, step.states.length - 1);
      polls.set(id, polls.get(id)! + 1);
      const state = cancelled.includes(id) ? 'CANCELLED' : step.states[i]!;
      if (state === 'COMPLETED') {
        const t = process.hrtime.bigint();
        mkdirSync(join(runDir, 'legs'), { recursive: true });
        writeFileSync(legJobFiles(runDir, step.name).node, nodeRecordJson({ node: step.node, jobId: id, silicon: null, originNs: 0n, fault: null, observed: { gpm: [], clocks: [], gpmStatus: null, samplerEnd: null, log: { bytes: 0, droppedBytes: 0, fault: null, error: null }, tree: { pids: [], cpuS: null, cpuNote: null },
          run: { argv: ['true'], pid: 1, startNs: t, endNs: t, exitCode: 0, signal: null, timedOut: false, interrupted: false, spawnError: null, orphansKilled: false, lines: [] },
          binarySha256: null, foreignPids: [], contentionChecked: false, samplerBackend: null, samplerNote: null, util: [], nominalPeriodS: null, sampled: false,
          files: { log: `legs/${step.name}.log`, events: null, samples: null },
        } }));
        writeFileSync(join(runDir, 'legs', `${step.name}.log`), '');
      }
      return { state, reason: state === 'PENDING' ? 'Resources' : null, node: state === 'PENDING' ? null : step.node, exitCode: '0:0', source: 'scontrol' } satisfies JobState;
    },
    async final(id) { return this.live(id); },
    async cancel(id) { cancelled.push(id); },
  };
  return { client, submitted, cancelled };
}

const site = (runDir: string) => ({ runDir, signal: new AbortController().signal, originNs: process.hrtime.bigint(), arch: 'cpu' });

describe('slurm leg runner (stand-in client)', () => {
  it('pin series: after the first leg lands, every later leg asks for that node', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-slr-'));
    const f = fakeClient(runDir, [{ states: ['RUNNING', 'COMPLETED'], node: 'gpu07' }, { states: ['COMPLETED'], node: 'gpu07' }]);
    const r = slurmLegRunner({ config: SlurmConfigSchema.parse({ schemaVersion: 1, pollS: 0.01 }), client: f.client, progress: () => {} });
    const first = await r.run(req(0, 'A'), site(runDir));
    expect(first.fault).toBeNull();
    expect(first.slurm).toMatchObject({ jobId: '101', node: 'gpu07', state: 'COMPLETED' });
    await r.run(req(1, 'B'), site(runDir));
    expect(f.submitted[0]!.some((a) => a.startsWith('--nodelist'))).toBe(false);
    expect(f.submitted[1]).toContain('--nodelist=gpu07');
    const none = fakeClient(runDir, [{ states: ['COMPLETED'], node: 'a' }, { states: ['COMPLETED'], node: 'b' }]);
    const free = slurmLegRunner({ config: SlurmConfigSchema.parse({ schemaVersion: 1, pollS: 0.01, pin: 'none' }), client: none.client, progress: () => {} });
    await free.run(req(0, 'A'), site(runDir));
    await free.run(req(1, 'B'), site(runDir));
    expect(none.submitted[1]!.some((a) => a.startsWith('--nodelist'))).toBe(false);
  });

  it('a job pending past startTimeoutS is cancelled and the leg is NEVER_STARTED with Slurm\'s reason', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-slr-'));
    const f = fakeClient(runDir, [{ states: ['PENDING'], node: 'x' }]);
    const r = slurmLegRunner({ config: SlurmConfigSchema.parse({ schemaVersion: 1, pollS: 0.01, startTimeoutS: 0.05 }), client: f.client, progress: () => {} });
    const out = await r.run(req(0, 'A'), site(runDir));
    expect(f.cancelled).toEqual(['101']);
    expect(text(out.fault)).toMatch(/^NEVER_STARTED: job 101 was still PENDING \(reason Resources\)/);
    expect(out.observed.run.interrupted).toBe(false);
  });

  it('sbatch refusing the first leg stops the series (exit 2); refusing a later leg voids only that leg', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-slr-'));
    const first = fakeClient(runDir, [{ states: [], node: 'x', reject: true }]);
    const r1 = slurmLegRunner({ config: SlurmConfigSchema.parse({ schemaVersion: 1, pollS: 0.01 }), client: first.client, progress: () => {} });
    await expect(r1.run(req(0, 'A'), site(runDir))).rejects.toThrow(/sbatch refused/);
    const later = fakeClient(runDir, [{ states: ['COMPLETED'], node: 'n1' }, { states: [], node: 'x', reject: true }]);
    const r2 = slurmLegRunner({ config: SlurmConfigSchema.parse({ schemaVersion: 1, pollS: 0.01 }), client: later.client, progress: () => {} });
    expect((await r2.run(req(0, 'A'), site(runDir))).fault).toBeNull();
    expect(text((await r2.run(req(1, 'B'), site(runDir))).fault)).toMatch(/^SLURM_REJECTED: sbatch refused the leg/);
  });
});
