// The Slurm executor without a cluster: sbatch argv, state parsing and mapping, config validation,
// the cross-silicon gate of an A/B, and the named errors that need no controller.
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WIRE_SCHEMA_VERSION } from '../../src/slurm/wire.js';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { SlurmConfigSchema, loadSlurmConfig } from '../../src/slurm/config.js';
import { batchScript, parseJobId, sbatchArgv, shellWord, srunArgv, timeLimitMinutes, type SbatchLeg } from '../../src/slurm/sbatch.js';
import { faultOf, HOLDER_LOCKED_EXIT, neverStarted, parseSacct, parseSacctStep, parseScontrol, parseSqueue, RUNNER_RUN_DIR_EXIT, stepFault, stepIdOf } from '../../src/slurm/state.js';
import { legBlock } from '../../src/gates/ab/blocks.js';
import { judgeFixed } from '../../src/gates/ab/judge/fixed.js';
import { bindClaim } from '../../src/gates/ab/claim.js';
import { legStands } from '../../src/gates/series/resume.js';
import { parseExecutor } from '../../src/cli/executor.js';
import { ledgerEntries } from '../../src/results/ledger.js';
import { sbatchFailureKind } from '../../src/slurm/client.js';
import type { RunResult } from '../../src/results/types.js';
import { measured } from '../../src/quantity/make.js';
import type { Silicon } from '../../src/silicon/types.js';
import { leg } from '../gates/fixtures.js';
import { formatReason, reason, type Reason } from '../../src/verdict/reasons.js';

const text = (r: Reason | null): string | null => (r ? formatReason(r) : null);
import { repoRoot } from '../helpers/engine.js';

const base = SlurmConfigSchema.parse({ schemaVersion: 1 });
const L: SbatchLeg = { jobName: 'nh-gate-leg-01-A', arm: 'A', arch: 'cpu', pinnedNode: null, timeoutS: 600, outputPath: '/r/legs/leg-01-A.slurm.out', scriptPath: '/r/slurm-leg.sh', requestPath: '/r/legs/leg-01-A.request.json' };

describe('sbatch argv', () => {
  it('defaults: one exclusive GPU, no requeue, no exported environment, script then request last', () => {
    expect(sbatchArgv(base, L)).toEqual([
      'sbatch', '--parsable', '--job-name=nh-gate-leg-01-A', '--nodes=1', '--ntasks=1', '--gres=gpu:1', '--exclusive',
      '--time=12', '--no-requeue', '--export=NONE', '--output=/r/legs/leg-01-A.slurm.out', '--open-mode=truncate',
      '/r/slurm-leg.sh', '/r/legs/leg-01-A.request.json',
    ]);
  });

  it('site form: partition, gres, constraint for the claimed arch, pin, extra and per-arm args, each one argv element', () => {
    const c = SlurmConfigSchema.parse({ schemaVersion: 1, partition: 'gpu-h', gres: 'gpu:h100:1', exclusive: false, constraints: { '90': 'h100' }, extraArgs: ['--account=perf', '--qos=bench x'], armArgs: { B: ['--nodelist=n2'] } });
    const a = sbatchArgv(c, { ...L, arm: 'B', arch: '90', pinnedNode: 'gpu07' });
    expect(a).toContain('--partition=gpu-h');
    expect(a).toContain('--gres=gpu:h100:1');
    expect(a).not.toContain('--exclusive');
    expect(a).toContain('--constraint=h100');
    expect(a).toContain('--nodelist=gpu07');
    expect(a).toContain('--qos=bench x');
    expect(a.indexOf('--nodelist=n2')).toBeLessThan(a.indexOf('/r/slurm-leg.sh'));
    expect(sbatchArgv(c, { ...L, arch: '121a' }).some((x) => x.startsWith('--constraint'))).toBe(false);
    expect(sbatchArgv(c, { ...L, arm: 'A' })).not.toContain('--nodelist=n2');
  });

  it('an sbatch that reached no controller is told apart from one that refused the request', () => {
    expect(sbatchFailureKind('sbatch: error: fetch_config: DNS SRV lookup failed\nsbatch: fatal: Could not establish a configuration source')).toBe('unreachable');
    expect(sbatchFailureKind('sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)')).toBe('unreachable');
    expect(sbatchFailureKind('sbatch: error: invalid partition specified: nope\nallocation failure: Invalid partition name specified')).toBe('rejected');
  });

  it('--time in whole minutes with the margin, at least 1; job ids from --parsable', () => {
    expect(timeLimitMinutes(1, 0)).toBe(1);
    expect(timeLimitMinutes(61, 0)).toBe(2);
    expect(timeLimitMinutes(600, 120)).toBe(12);
    expect(parseJobId('1234\n')).toBe('1234');
    expect(parseJobId('77;cluster2')).toBe('77');
    expect(parseJobId('sbatch: error: x')).toBeNull();
  });

  it('the batch script only execs the runner, with every path quoted (no environment in it)', () => {
    expect(shellWord("a b'c")).toBe(`'a b'\\''c'`);
    const s = batchScript('/opt/node 20/bin/node', '/pkg/dist/slurm/runner.js');
    expect(s).toMatch(/^#!\/bin\/sh\n/);
    expect(s).toContain(`exec '/opt/node 20/bin/node' '/pkg/dist/slurm/runner.js' "$@"`);
    expect(s).not.toMatch(/export|=/);
  });
});

describe('Slurm states', () => {
  it('reads scontrol, squeue and sacct', () => {
    const sc = parseScontrol('JobId=9 JobName=nh-gate-leg-02-B UserId=root(0) JobState=CANCELLED Reason=None Dependency=(null) ExitCode=0:15 NodeList=n1 BatchHost=n1');
    expect(sc).toEqual({ state: 'CANCELLED', reason: null, node: 'n1', exitCode: '0:15', source: 'scontrol' });
    expect(parseScontrol('JobId=3 JobState=PENDING Reason=ReqNodeNotAvail,_UnavailableNodes:n2 NodeList=(null)')).toMatchObject({ state: 'PENDING', reason: 'ReqNodeNotAvail,_UnavailableNodes:n2', node: null });
    expect(parseScontrol('slurm_load_jobs error: Invalid job id specified')).toBeNull();
    expect(parseSqueue('RUNNING|None|n2\n')).toEqual({ state: 'RUNNING', reason: null, node: 'n2', exitCode: null, source: 'squeue' });
    expect(parseSacct('CANCELLED by 0|0:15|n1|None\n')).toEqual({ state: 'CANCELLED', reason: null, node: 'n1', exitCode: '0:15', source: 'sacct' });
    expect(parseSacct('')).toBeNull();
  });

  it('maps each way a job ends onto a named fault (or none), with job, node, state and the fix', () => {
    const s = (state: string, extra: Partial<{ reason: string; exitCode: string }> = {}) => ({ state, reason: extra.reason ?? null, node: 'n1', exitCode: extra.exitCode ?? '0:0', source: 'scontrol' as const });
    expect(faultOf('5', s('COMPLETED'), true, '/o')).toBeNull();
    expect(text(faultOf('5', s('COMPLETED'), false, '/o'))).toMatch(/^SLURM_LOST: job 5 on n1 ended COMPLETED/);
    expect(text(faultOf('5', s('CANCELLED'), true, '/o'))).toMatch(/^SLURM_CANCELLED: job 5 on n1 ended CANCELLED.*--resume RUN_DIR/);
    expect(text(faultOf('5', s('TIMEOUT'), false, '/o'))).toMatch(/^SLURM_TIMEOUT: .*raise the leg timeout/);
    expect(text(faultOf('5', s('NODE_FAIL', { reason: 'NodeDown' }), false, '/o'))).toMatch(/^SLURM_NODE_LOST: job 5 on n1 ended NODE_FAIL \(reason NodeDown\)/);
    expect(text(faultOf('5', s('PREEMPTED'), false, '/o'))).toMatch(/^SLURM_PREEMPTED: /);
    expect(text(faultOf('5', s('OUT_OF_MEMORY'), false, '/o'))).toMatch(/^SLURM_OUT_OF_MEMORY: /);
    expect(text(faultOf('5', s('FAILED', { exitCode: `${RUNNER_RUN_DIR_EXIT}:0` }), false, '/o'))).toMatch(/^RUN_DIR_UNREACHABLE: .*same path/);
    expect(text(faultOf('5', s('FAILED', { reason: 'JobLaunchFailure', exitCode: '0:53' }), false, '/o'))).toMatch(/^SLURM_LAUNCH_FAILED: .*\/o is not writable from the node/);
    expect(text(faultOf('5', s('FAILED', { exitCode: '70:0' }), false, '/o'))).toMatch(/^SLURM_FAILED: /);
    expect(text(faultOf('5', s('BOOT_FAIL'), false, '/o'))).toMatch(/^SLURM_FAILED: job 5 on n1 ended BOOT_FAIL/);
    expect(formatReason(neverStarted('7', { state: 'PENDING', reason: 'Resources', node: null, exitCode: null, source: 'scontrol' }, 30))).toMatch(/^NEVER_STARTED: job 7 was still PENDING \(reason Resources\) after 30 s and was cancelled/);
  });

  it('resume keeps legs the engine judged and runs again legs the executor lost', () => {
    const lost = { ...leg(1, 'B', null, { verdict: 'VOID' }), voidReasons: [reason('SLURM_CANCELLED', 'job 9 …')] };
    const crashed = { ...leg(2, 'A', null, { verdict: 'VOID' }), voidReasons: [reason('CRASHED', 'the driver was killed by SIGSEGV')] };
    expect(legStands(leg(0, 'A', 1))).toBe(true);
    expect(legStands(crashed)).toBe(true);
    expect(legStands(lost)).toBe(false);
    expect(legStands({ ...lost, voidReasons: [reason('NEVER_STARTED', 'job 3 …')] })).toBe(false);
  });
});

describe('Slurm config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nh-slurm-cfg-'));
  it('strict: an unknown key is a BAD_CONFIG naming file and field; extra args must be an argv array', () => {
    const f = join(dir, 'typo.json');
    writeFileSync(f, JSON.stringify({ schemaVersion: 1, partiton: 'gpu' }));
    expect(() => loadSlurmConfig(f)).toThrow(/typo\.json: partiton: unknown key — did you mean 'partition'\?/);
    writeFileSync(f, JSON.stringify({ schemaVersion: 1, extraArgs: '--qos=x' }));
    expect(() => loadSlurmConfig(f)).toThrow(/typo\.json: extraArgs: /);
    writeFileSync(f, JSON.stringify({ schemaVersion: 1, copyMode: 'rsync' }));
    expect(() => loadSlurmConfig(f)).toThrow(/copyMode/);
    expect(() => loadSlurmConfig(join(dir, 'absent.json'))).toThrow(/UNREADABLE|cannot read/);
  });

  it('no file and no --slurm-config: every default', () => {
    const { config, path } = loadSlurmConfig(undefined, dir);
    expect(path).toBeNull();
    expect(config).toMatchObject({ gres: 'gpu:1', exclusive: true, pin: 'series', copyMode: 'shared', startTimeoutS: 600 });
  });

  it('--executor: a value other than local|slurm, --slurm-config alone, and commands not yet through Slurm are named', () => {
    expect(() => parseExecutor({ executor: 'k8s' }, 'a3', true)).toThrow(/--executor k8s is not local or slurm/);
    expect(() => parseExecutor({ executor: 'local', slurmConfig: 'x.json' }, 'a3', true)).toThrow(/without --executor slurm/);
    expect(() => parseExecutor({ executor: 'slurm' }, 'busy', false)).toThrow(/busy --executor slurm' is not built yet/);
    expect(parseExecutor({}, 'ab', true)).toBe('local');
  });
});

describe('silicon kept apart', () => {
  const gpu = (name: string, cc: string): Silicon => ({ kind: 'gpu', gpuName: name, uuid: null, computeCapability: cc, smArch: null, archTarget: null, driverVersion: null, cudaDriverVersion: null, maxSmClockMHz: null, cpuModel: 'c', source: 'nvml' });
  const on = (l: ReturnType<typeof leg>, s: Silicon, node: string) => ({ ...l, slurm: { jobId: '1', node, state: 'COMPLETED', reason: null, exitCode: '0:0', source: 'scontrol' as const }, quantities: { perOutputToken: measured('per output token', 'perOutputToken', (l.quantities.perOutputToken as { value: number }).value, 's', {}, { silicon: s }) } });
  // The report-only figure (per-token B/A) of the one judge over these legs.
  const claim = bindClaim(null, 'B', { A: 'F=off', B: 'F=on' });
  const report = (legs: RunResult['legs']) => judgeFixed(claim.criteria[0]!, legs, 1, claim).estimate;
  const h200 = gpu('Fake H200', '9.0');
  const gb10 = gpu('Fake GB10', '12.1');

  it('arms on different silicon: the ratio is withheld CROSS_SILICON, naming legs and nodes; same silicon compares', () => {
    const legs = [on(leg(0, 'A', 2), h200, 'n1'), on(leg(1, 'B', 1), gb10, 'n2'), on(leg(2, 'B', 1.1), gb10, 'n2'), on(leg(3, 'A', 2.1), h200, 'n1')];
    const c = { ratio: report(legs) };
    expect(c.ratio).toMatchObject({ status: 'withheld', reason: 'CROSS_SILICON' });
    if (c.ratio.status === 'withheld') expect(c.ratio.message).toMatch(/leg 1 \(arm A on n1\) was taken on gpu:Fake H200\|cc9\.0 and leg 2 \(arm B on n2\) on gpu:Fake GB10\|cc12\.1/);
    expect(report(legs.map((l) => on(l, h200, 'n1'))).status).toBe('measured');
  });

  it('one arm spread over two kinds of silicon is withheld too', () => {
    const legs = [on(leg(0, 'A', 2), h200, 'n1'), on(leg(1, 'B', 1), h200, 'n1'), on(leg(2, 'B', 1.1), gb10, 'n2'), on(leg(3, 'A', 2.1), h200, 'n1')];
    expect(report(legs)).toMatchObject({ status: 'withheld', reason: 'CROSS_SILICON' });
  });
});

describe('ledger by silicon', () => {
  const gpu = (name: string, cc: string): Silicon => ({ kind: 'gpu', gpuName: name, uuid: null, computeCapability: cc, smArch: null, archTarget: null, driverVersion: null, cudaDriverVersion: null, maxSmClockMHz: null, cpuModel: 'c', source: 'nvml' });
  const run = (legs: RunResult['legs']): RunResult => ({
    schemaVersion: 1, tool: { name: 'nh-gate', version: '0' }, command: 'ab', argv: [], runDir: '/r', startedAt: 'x', finishedAt: 'y', status: 'complete',
    recipe: null, golden: null, gate: null, arch: 'cpu', silicon: { ...gpu('x', '1.0'), kind: 'cpu-only', cpuModel: 'login node CPU' }, build: null, plan: null,
    legs, quantities: { ratio: measured('ratio', 'abRatio', 0.5, 'x', {}) }, comparison: null, verdict: { word: 'MEASURED', exitClass: 'passed', reasons: [] }, notes: [],
  });
  it('legs on two kinds of node silicon make one line each, without the run-level ratio; one kind makes one line under it', () => {
    const es = ledgerEntries(run([{ ...leg(0, 'A', 2), silicon: gpu('Fake H200', '9.0') }, { ...leg(1, 'B', 1), silicon: gpu('Fake GB10', '12.1') }]));
    expect(es.map((e) => [e.siliconKey, e.legs, Object.keys(e.figures)])).toEqual([
      ['gpu:Fake H200|cc9.0', [1], ['leg1.perOutputToken']],
      ['gpu:Fake GB10|cc12.1', [2], ['leg2.perOutputToken']],
    ]);
    const one = ledgerEntries(run([{ ...leg(0, 'A', 2), silicon: gpu('Fake H200', '9.0') }, { ...leg(1, 'B', 1), silicon: gpu('Fake H200', '9.0') }]));
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({ siliconKey: 'gpu:Fake H200|cc9.0' });
    expect(Object.keys(one[0]!.figures)).toContain('ratio');
  });
});

describe('named errors with no cluster', () => {
  const bin = join(repoRoot, 'bin', 'nh-gate.js');
  it('no sbatch on PATH: SLURM_UNAVAILABLE, exit 2, before any build, with the fix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-nosbatch-'));
    const r = await execa(process.execPath, [bin, 'a3', '--executor', 'slurm', '--results-dir', dir], { reject: false, env: { PATH: '/nonexistent', NH_GATE_LOCK: join(dir, 'lock') } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/SLURM_UNAVAILABLE: --executor slurm: 'sbatch' could not run .*not on PATH/);
    expect(r.stderr).toMatch(/fix: .*login node/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).not.toMatch(/build:/);
  });

  it('the leg runner on a node that cannot read the run directory exits 78 (RUN_DIR_UNREACHABLE) and says why', async () => {
    const r = await execa(process.execPath, [join(repoRoot, 'dist', 'slurm', 'runner.js'), '/nonexistent/run/legs/leg-01-A.request.json'], { reject: false, env: { SLURMD_NODENAME: 'n9' } });
    expect(r.exitCode).toBe(RUNNER_RUN_DIR_EXIT);
    expect(r.stderr).toMatch(/on n9: RUN_DIR_UNREACHABLE: cannot read \/nonexistent\/run\/legs\/leg-01-A\.request\.json \(ENOENT\): the run directory must be on a filesystem this node mounts at the same path/);
    const run = mkdtempSync(join(tmpdir(), 'nh-runner-'));
    mkdirSync(join(run, 'legs'));
    writeFileSync(join(run, 'legs', 'r.json'), JSON.stringify({ schemaVersion: WIRE_SCHEMA_VERSION, kind: 'leg', name: 'r', runDir: join(run, 'gone'), body: {} }));
    const w = await execa(process.execPath, [join(repoRoot, 'dist', 'slurm', 'runner.js'), join(run, 'legs', 'r.json')], { reject: false });
    expect(w.exitCode).toBe(RUNNER_RUN_DIR_EXIT);
    expect(w.stderr).toMatch(/cannot write .*gone\/legs \(ENOENT\)/);
    // A request from another nh-gate version is named as such, not misread.
    writeFileSync(join(run, 'legs', 'old.json'), JSON.stringify({ schemaVersion: 1, runDir: run, leg: {} }));
    const old = await execa(process.execPath, [join(repoRoot, 'dist', 'slurm', 'runner.js'), join(run, 'legs', 'old.json')], { reject: false });
    expect(old.exitCode).toBe(RUNNER_RUN_DIR_EXIT);
    expect(old.stderr).toMatch(/is request schema 1, this runner reads 2: the nodes run another nh-gate version/);
  });
});

describe('leases: the pure parts', () => {
  it('a step is srun into the allocation with the runner as its one task; the step\'s --time is its own', () => {
    const c = SlurmConfigSchema.parse({ schemaVersion: 1 });
    const argv = srunArgv(c, { jobId: '70', stepName: 'nh-gate-leg-01-A', timeoutS: 60, outputPath: '/r/legs/leg-01-A.slurm.out', nodeBinary: '/usr/bin/node', runnerPath: '/p/runner.js', requestPath: '/r/legs/leg-01-A.request.json' });
    expect(argv.slice(0, 2)).toEqual(['srun', '--jobid=70']);
    expect(argv).toEqual(expect.arrayContaining(['--overlap', '--nodes=1', '--ntasks=1', '--time=3', '--export=NONE', '--output=/r/legs/leg-01-A.slurm.out', '--verbose']));
    expect(argv.slice(-3)).toEqual(['/usr/bin/node', '/p/runner.js', '/r/legs/leg-01-A.request.json']);
    // The holder's job runs the runner with --hold before its request.
    const hold = sbatchArgv(c, { jobName: 'nh-gate-lease-01', arm: 'single', arch: 'cpu', pinnedNode: null, timeoutS: 240, outputPath: '/o', scriptPath: '/s.sh', requestPath: '/r.json', hold: true });
    expect(hold.slice(-3)).toEqual(['/s.sh', '--hold', '/r.json']);
  });

  it('reads the step id srun names, and a step\'s line from sacct among the job\'s', () => {
    expect(stepIdOf('srun: jobid 70: nodes(1)\nsrun: launching StepId=70.3 on host n1, 1 tasks: 0')).toBe('70.3');
    expect(stepIdOf('srun: error: Unable to create step')).toBeNull();
    expect(parseSacctStep('70|RUNNING|0:0|n1\n70.batch|RUNNING|0:0|n1\n70.3|CANCELLED by 0|0:15|n1\n', '70.3')).toEqual({ state: 'CANCELLED', reason: null, node: 'n1', exitCode: '0:15', source: 'sacct' });
    expect(parseSacctStep('70|RUNNING|0:0|n1\n', '70.3')).toBeNull();
  });

  it('a step that ended on its own (the allocation lives) is named from Slurm\'s words', () => {
    const f = (exit: number | null, text: string) => formatReason(stepFault('70.3', 'n1', exit, text, '/o'));
    expect(f(137, 'srun: Job step aborted\nslurmstepd-n1: error: *** STEP 70.3 ON n1 CANCELLED AT 2026-12-01T12:07:43 DUE TO TIME LIMIT ***')).toMatch(/^SLURM_TIMEOUT: step 70\.3 on n1 ran past its --time/);
    expect(f(137, 'slurmstepd-n1: error: *** STEP 70.3 ON n1 CANCELLED AT 2026-12-01T12:07:43 ***')).toMatch(/^SLURM_CANCELLED: step 70\.3 on n1 was cancelled/);
    expect(f(RUNNER_RUN_DIR_EXIT, 'srun: error: n1: task 0: Exited with exit code 78')).toMatch(/^RUN_DIR_UNREACHABLE: step 70\.3/);
    expect(f(1, 'srun: error: n1: task 0: Exited with exit code 1')).toMatch(/^SLURM_FAILED: step 70\.3 on n1 ended with srun exit 1 and no record \(srun: error: n1: task 0: Exited with exit code 1\)/);
  });

  it('a holder that found the node\'s GPU lock held ends its allocation: NODE_LOCKED, not a generic failure', () => {
    const r = faultOf('71', { state: 'FAILED', reason: 'NonZeroExitCode', node: 'n1', exitCode: `${HOLDER_LOCKED_EXIT}:0`, source: 'scontrol' }, false, '/o');
    expect(formatReason(r!)).toMatch(/^NODE_LOCKED: job 71 on n1 ended FAILED .*GPU lock is held by another nh-gate \(see \/o\)/);
  });

  it('the ABBA block of a leg: warm-up legs join the first block; the last block may be short', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => legBlock(i, 0, 8))).toEqual([0, 0, 0, 0, 1, 1, 1, 1].map((block) => ({ block, blockLegs: 4 })));
    expect([0, 1, 2, 5, 6, 7].map((i) => legBlock(i, 2, 8))).toEqual([{ block: 0, blockLegs: 6 }, { block: 0, blockLegs: 6 }, { block: 0, blockLegs: 6 }, { block: 0, blockLegs: 6 }, { block: 1, blockLegs: 2 }, { block: 1, blockLegs: 2 }]);
    expect(legBlock(0, 0, 1)).toEqual({ block: 0, blockLegs: 1 });
  });

  it('armArgs need jobPer leg (arms in one allocation cannot be placed apart): BAD_CONFIG naming both keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-slcfg-'));
    const f = join(dir, 'nh-gate.slurm.json');
    writeFileSync(f, JSON.stringify({ schemaVersion: 1, armArgs: { A: ['--nodelist=n1'], B: [] } }));
    expect(() => loadSlurmConfig(f)).toThrow(/armArgs places the arms in jobs of their own, but jobPer is 'series'.*set "jobPer": "leg"/);
    writeFileSync(f, JSON.stringify({ schemaVersion: 1, jobPer: 'leg', armArgs: { A: ['--nodelist=n1'], B: [] } }));
    expect(loadSlurmConfig(f).config.jobPer).toBe('leg');
    expect(SlurmConfigSchema.parse({ schemaVersion: 1 })).toMatchObject({ jobPer: 'series', nodeLock: '/tmp/nh-gate-gpu-%n.lock' });
  });
});
