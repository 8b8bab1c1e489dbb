// busy's and mutate's node tasks without a cluster: the node runner (dist/slurm/runner.js) run as a job
// would run it, with the busy and command handlers on this host, and node tasks over a stand-in SlurmClient
// (a suite run Slurm lost mapped onto the row's VOID code). The real path is busy-mutate.test.ts.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/engine.js';
import { ensureDist } from '../mutate/helpers.js';
import { SlurmConfigSchema } from '../../src/slurm/config.js';
import type { SlurmClient } from '../../src/slurm/client.js';
import { slurmTasks } from '../../src/slurm/task.js';
import { mutateSlurmConfig, slurmSuiteRunner, taskName } from '../../src/slurm/suiteRunner.js';
import { executorFault } from '../../src/slurm/taskFault.js';
import { legJobFiles } from '../../src/slurm/sbatch.js';
import { readTaskRecord, WIRE_SCHEMA_VERSION, type TaskRequest } from '../../src/slurm/wire.js';
import { busyObservedFromRecord } from '../../src/slurm/tasks/busy.js';
import { commandRunFromRecord } from '../../src/slurm/tasks/command.js';
import { reason } from '../../src/verdict/reasons.js';

const fakeNvml = { NH_GATE_NVML_LIBRARY: join(repoRoot, 'native', 'addon', 'build', 'Release', 'libfake-nvidia-ml.so'), FAKE_NVML_NAME: 'Fake H200', FAKE_NVML_CC: '9.0' };

// Writes a request into a fresh run directory and runs the task runner on it, as the batch script does.
async function runTask(task: Pick<TaskRequest, 'name' | 'kind' | 'arch' | 'body'>, o: { copyMode?: 'shared' | 'copy-back'; nodeScratch?: string; env?: Record<string, string> } = {}) {
  const runDir = mkdtempSync(join(tmpdir(), 'nh-task-'));
  mkdirSync(join(runDir, 'legs'));
  const f = legJobFiles(runDir, task.name);
  const req: TaskRequest = { schemaVersion: WIRE_SCHEMA_VERSION, ...task, runDir, copyMode: o.copyMode ?? 'shared', nodeScratch: o.nodeScratch ?? tmpdir(), originWallMs: Date.now() };
  writeFileSync(f.request, JSON.stringify(req));
  const r = await execa(process.execPath, [join(repoRoot, 'dist', 'slurm', 'runner.js'), f.request], { reject: false, env: { SLURMD_NODENAME: 'nX', SLURM_JOB_ID: '77', ...o.env } });
  return { r, runDir, rec: readTaskRecord(f.node) };
}

describe('the node-task runner and its handlers (no cluster)', () => {
  beforeAll(() => {
    ensureDist();
  });

  it('a command task: the process runs on the node, every line comes back stamped, with the node and job', async () => {
    const { r, rec } = await runTask({ name: 'mutant-x', kind: 'command', arch: 'cpu', body: { argv: ['sh', '-c', 'echo one; echo "$NH_X"; exit 3'], env: { NH_X: 'two' } } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(rec).toMatchObject({ kind: 'command', node: 'nX', jobId: '77', fault: null });
    const run = commandRunFromRecord(rec!.body)!;
    expect(run.lines.map((l) => l.text)).toEqual(['one', 'two']);
    expect(run.exitCode).toBe(3);
    expect(typeof run.startNs).toBe('bigint');
  });

  it('a busy task: sampler beside the command on the node, command.log and samples in the run directory, marker times noted', async () => {
    const { r, runDir, rec } = await runTask({ name: 'busy', kind: 'busy', arch: 'cpu', body: { command: ['sh', '-c', 'echo engine loaded; sleep 0.6; echo done'], startMarker: 'engine loaded' } }, { env: fakeNvml });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(rec?.silicon).toMatchObject({ gpuName: 'Fake H200' });
    const o = busyObservedFromRecord(rec!.body)!;
    expect(o.sampler).toMatchObject({ backend: 'nvml', samplesFile: 'samples.jsonl' });
    expect(o.markers.markerS).not.toBeNull();
    expect(o.markers.lastLineS! - o.markers.markerS!).toBeGreaterThan(0.5);
    expect(readFileSync(join(runDir, 'command.log'), 'utf8')).toMatch(/\tengine loaded\n.*\tdone\n$/);
    expect(existsSync(join(runDir, 'samples.jsonl'))).toBe(true);
  });

  it('copy-back: the busy task writes under the node scratch, its files come back, the scratch goes', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'nh-task-scratch-'));
    const { rec, runDir } = await runTask({ name: 'busy', kind: 'busy', arch: 'cpu', body: { command: ['sh', '-c', 'echo hi; sleep 0.3'] } }, { copyMode: 'copy-back', nodeScratch: scratch, env: fakeNvml });
    expect(busyObservedFromRecord(rec!.body)?.run.exitCode).toBe(0);
    expect(readFileSync(join(runDir, 'command.log'), 'utf8')).toMatch(/\thi\n$/);
    expect(existsSync(join(runDir, 'samples.jsonl'))).toBe(true);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('a node without the claimed arch runs no suite (NO_SUCH_SILICON)', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'nh-task-m-')), 'ran');
    const wrong = await runTask({ name: 't', kind: 'command', arch: '121a', body: { argv: ['touch', marker] } }, { env: fakeNvml });
    expect(wrong.rec?.fault).toMatchObject({ code: 'NO_SUCH_SILICON', message: expect.stringMatching(/^node nX has Fake H200 \(cc9\.0\), the series claims --arch 121a/) });
    expect(wrong.rec?.body).toBeNull();
    expect(existsSync(marker)).toBe(false);
  });
});

// A client whose every job ends in `state` without leaving a record (as a cancelled job does).
function endingClient(state: string): { client: SlurmClient; cancelled: string[]; submitted: string[][] } {
  const cancelled: string[] = [];
  const submitted: string[][] = [];
  let n = 0;
  const st = { state, reason: null, node: 'n2', exitCode: '0:15', source: 'scontrol' as const };
  return {
    cancelled, submitted,
    client: {
      submit: async (argv) => { submitted.push(argv); return String(500 + ++n); },
      testOnly: async () => {},
      live: async () => st,
      final: async () => st,
      cancel: async (id) => { cancelled.push(id); },
      step: async () => { throw new Error('mutate never runs a step'); },
      release: async () => {},
      finalStep: async () => null,
    },
  };
}

describe('the suite runner over node tasks and a stand-in client', () => {
  // mutate's own form of the site's config: each suite run its own job, never pinned (the default is a lease, pinned).
  const config = mutateSlurmConfig(SlurmConfigSchema.parse({ schemaVersion: 1, pollS: 0.01, recordWaitS: 0 }));

  it('a suite job Slurm cancelled: the suite run carries SLURM_CANCELLED and the job, and is not our interrupt', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-task-fake-'));
    const c = endingClient('CANCELLED');
    const tasks = slurmTasks({ config, client: c.client, progress: () => {} });
    const runner = slurmSuiteRunner(tasks, runDir);
    const out = await runner.run({ argv: ['/t/suite'], timeoutS: 30 }, {}, { name: 'mutant-a b', tree: 1 });
    expect(out.fault).toMatchObject({ code: 'SLURM_CANCELLED', message: expect.stringMatching(/^job 501 on n2 ended CANCELLED.*; run it again$/) });
    expect(out.fault?.message).not.toMatch(/--resume/);
    // A second suite run is not pinned to the first one's node: the workers spread over the nodes.
    await runner.run({ argv: ['/t/suite'] }, {}, { name: 'mutant-c', tree: 0 });
    expect(c.submitted[1]!.some((a) => a.startsWith('--nodelist'))).toBe(false);
    expect(c.submitted[0]![0]).toBe('sbatch');
    expect(out.slurm).toMatchObject({ jobId: '501', node: 'n2', state: 'CANCELLED' });
    expect(out.run.interrupted).toBe(false);
    // The request went where the node looks for it, under a name safe for files and jobs.
    expect(JSON.parse(readFileSync(legJobFiles(runDir, 'mutant-a-b').request, 'utf8'))).toMatchObject({ kind: 'command', body: { argv: ['/t/suite'], timeoutS: 30 } });
  });

  it('our own Ctrl-C cancels the job and is an interrupted run, not a fault', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-task-int-'));
    const c = endingClient('RUNNING');
    const tasks = slurmTasks({ config, client: c.client, progress: () => {} });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const out = await slurmSuiteRunner(tasks, runDir).run({ argv: ['/t/suite'] }, { signal: ac.signal }, { name: 'baseline-t0-1', tree: 0 });
    expect(out.fault).toBeNull();
    expect(out.run.interrupted).toBe(true);
    expect(c.cancelled).toEqual(['501']);
  });

  it('an executor reason outside the Slurm codes is kept in the words under SLURM_FAILED; names are file-safe', () => {
    expect(executorFault(reason('SLURM_TIMEOUT', 'x'))).toEqual({ code: 'SLURM_TIMEOUT', message: 'x' });
    expect(executorFault(reason('CRASHED', 'y'))).toEqual({ code: 'SLURM_FAILED', message: 'CRASHED: y' });
    expect(executorFault(reason('NODE_LOCKED', 'held; the finished legs are kept; --resume RUN_DIR submits only the missing legs'))).toEqual({ code: 'NODE_LOCKED', message: 'held; run it again' });
    expect(taskName('mutant-gen:src/a.cpp:12 ≠')).toBe('mutant-gen-src-a.cpp-12-');
  });
});
