import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { loadInputs } from '../../src/gates/setup.js';
import { runAb } from '../../src/gates/ab/run.js';
import { planAbForm } from '../../src/gates/ab/plan.js';
import { abPlanJson, abPlanText } from '../../src/gates/ab/describe.js';
import { runLines } from '../../src/report/text.js';
import { NhGateError } from '../../src/errors.js';
import { formatReason, reason } from '../../src/verdict/reasons.js';
import type { LegRequest } from '../../src/gates/leg/observe.js';
import type { AbComparison } from '../../src/results/comparison.js';
import { repoRoot } from '../helpers/engine.js';
import { scriptedDeps, scriptedGitRepo, scriptedRepo, type Script } from './scripted.js';

// Every A/B form through the one scheduler (src/gates/series/) with a deterministic executor: the legs are
// scripted (per-token and busy per arm), the builds, lock, run directory, judge, reports and ledger are real.

function isolate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nh-forms-'));
  process.env.NH_GATE_LOCK = join(dir, 'gpu.lock');
  return dir;
}
function gateFile(root: string, body: Record<string, unknown>): string {
  const path = join(root, `${String(body.name ?? 'g')}.json`);
  writeFileSync(path, JSON.stringify({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'fake', flag: 'FLAG', ...body }));
  return path;
}
const faster = (pct: number) => ({ metric: 'perOutputToken', form: 'ratio', expect: 'on-lower', atLeastPct: pct });
const busier = (pts: number) => ({ metric: 'busyFraction', form: 'points', expect: 'on-higher', atLeastPoints: pts });
const criteria = (metrics: unknown[]) => ({ criteria: { statement: 's', combine: 'all', metrics } });
// The flag-on arm 2x faster and busier; a small deterministic jitter per leg.
const onFast: Script = (req) => {
  const on = req.env.FAKE_FLAG === '1';
  const jitter = 1 + 0.01 * ((req.index * 7) % 5);
  return { perTokenS: (on ? 0.01 : 0.02) * jitter, busyPct: on ? 70 + (req.index % 3) : 20 + (req.index % 2) };
};
const ledger = (base: string) => readFileSync(join(base, 'ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const comparison = (c: unknown) => c as AbComparison;

describe('every A/B form runs through the one scheduler and the one judge', () => {
  it('fixed N: legs in ABBA order, the criterion judged, JUnit, ledger and the plan record agree', async () => {
    const repo = scriptedRepo();
    const base = isolate();
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, gate: gateFile(repo.root, { ...criteria([faster(30)]), repeats: 3, arch: 'cpu' }) }, repo.root);
    const out = await runAb({ argv: [], inputs, jobs: 1, resultsBase: base }, await scriptedDeps(onFast));
    const r = out.result;
    expect(r.legs.map((l) => l.arm).join('')).toBe('ABBAAB');
    expect(r.legs.every((l) => l.verdict === 'STRICT PASS' && l.tokens?.source === 'events')).toBe(true);
    expect(r.verdict).toMatchObject({ word: 'SUPPORTED', exitClass: 'passed' });
    expect(r.plan).toMatchObject({ form: 'fixed', binaries: 'one binary', stop: { kind: 'fixed', legs: 6 }, deviations: [] });
    expect(comparison(r.comparison).metrics[0]!.interval!.hi).toBeLessThan(0.7);
    expect(readFileSync(join(r.runDir, 'junit.xml'), 'utf8')).toMatch(/<testsuites name="nh-gate" tests="7" failures="0" errors="0"/);
    expect(ledger(base).at(-1)).toMatchObject({ verdict: 'SUPPORTED', figures: { perOutputTokenRatio: { unit: 'x', lo: expect.any(Number), hi: expect.any(Number) } } });
  });

  it('sequential: a criteria gate with a ratio and a points metric (a stand-in busy source) stops after the first block', async () => {
    const repo = scriptedRepo();
    const base = isolate();
    const seq = { sigmaLogRatio: 0.05, tauLogRatio: 0.5, maxLegs: 16, scales: { busyFraction: { sigma: 5, tau: 30 } } };
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, gate: gateFile(repo.root, { ...criteria([busier(10), faster(30)]), sequential: seq, warmupLegs: 1 }) }, repo.root);
    const out = await runAb({ argv: [], inputs, arch: '90', jobs: 1, resultsBase: base, stop: 'sequential' }, await scriptedDeps(onFast, { gpu: true }));
    const r = out.result;
    const c = comparison(r.comparison);
    expect(r.verdict).toMatchObject({ word: 'SUPPORTED', exitClass: 'passed' });
    expect(r.legs).toHaveLength(1 + 4);
    expect(r.legs[0]!.label).toBe('warm-up 1 (A, discarded)');
    expect(c).toMatchObject({ form: 'sequential', decidedAtBlock: 1, legsUsed: 4, method: { kind: 'anytime-valid' } });
    expect(c.metrics.map((m) => [m.key, m.word])).toEqual([['busyFractionPoints', 'SUPPORTED'], ['perOutputTokenRatio', 'SUPPORTED']]);
    expect(c.metrics[0]!.interval!.lo).toBeGreaterThan(10);
    expect(r.legs.slice(1).every((l) => l.quantities.busy?.status === 'measured')).toBe(true);
    expect(r.plan).toMatchObject({ form: 'sequential', stop: { kind: 'sequential', budgetLegs: 16, blocks: 4 }, warmupLegs: 1 });
    expect(readFileSync(join(r.runDir, 'sequential.svg'), 'utf8')).toMatch(/^<svg/);
    expect(readFileSync(join(r.runDir, 'sequential-perOutputTokenRatio.svg'), 'utf8')).toMatch(/^<svg/);
    expect(ledger(base).at(-1).figures).toMatchObject({ sequentialBusyFractionPoints: { unit: 'points', lo: expect.any(Number) }, sequentialPerOutputTokenRatio: { unit: 'x' } });
  });

  it('A/A: the gate\'s A arm on both sides for the whole budget, the false-alarm rate into the ledger; the calibrated gate then runs', async () => {
    const repo = scriptedRepo();
    const base = isolate();
    const seq = { sigmaLogRatio: 0.05, tauLogRatio: 0.5, maxLegs: 16, requireCalibrationDays: 7 };
    const gp = gateFile(repo.root, { ...criteria([faster(30)]), sequential: seq });
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, gate: gp }, repo.root);
    const seen: LegRequest[] = [];
    const deps = await scriptedDeps(onFast, { seen });
    const refused = await runAb({ argv: [], inputs, jobs: 1, resultsBase: base, stop: 'sequential' }, deps).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NhGateError);
    expect((refused as NhGateError).code).toBe('NO_CALIBRATION');
    const aa = await runAb({ argv: [], inputs, jobs: 1, resultsBase: base, stop: 'aa' }, deps);
    expect(aa.result.legs).toHaveLength(16);
    expect(seen.every((l) => l.env.FAKE_FLAG === '0')).toBe(true);
    expect(aa.result.verdict).toMatchObject({ word: 'MEASURED', exitClass: 'passed' });
    expect(aa.result.verdict.reasons[0]!.code).toBe('AA_CALIBRATION');
    expect(aa.result.runDir).toMatch(/-g-aa$/);
    expect(ledger(base).at(-1)).toMatchObject({ gate: 'g', verdict: 'MEASURED', figures: { aaFalseAlarmRate: { unit: 'fraction' } } });
    const ok = await runAb({ argv: [], inputs, jobs: 1, resultsBase: base, stop: 'sequential' }, deps);
    expect(ok.result.verdict.word).toBe('SUPPORTED');
    expect(ok.result.notes.join('\n')).toMatch(/^calibration: A\/A on cpu:.* false-alarm rate/m);
  });

  it('cross-commit: two worktree builds labelled "two binaries", fixed and sequential, through the same series', async () => {
    const repo = await scriptedGitRepo();
    const base = join(repo.root, 'results');
    process.env.NH_GATE_LOCK = join(isolate(), 'gpu.lock');
    const gp = gateFile(repo.root, { name: 'xc', flag: undefined, ...criteria([faster(30)]), repeats: 2, sequential: { sigmaLogRatio: 0.05, tauLogRatio: 0.5, maxLegs: 8 } });
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, gate: gp, flagOptional: true }, repo.root);
    // head is the "on" side: make its legs the fast ones
    const headFast: Script = (req) => ({ perTokenS: req.binaryPath.includes(repo.head.slice(0, 12)) ? 0.01 : 0.02 });
    const out = await runAb({ argv: [], inputs, jobs: 1, resultsBase: base, base: repo.base, head: repo.head }, await scriptedDeps(headFast));
    const r = out.result;
    expect(r.legs.map((l) => l.arm).join('')).toBe('ABBA');
    expect(r.verdict.word).toBe('SUPPORTED');
    expect(formatReason(r.verdict.reasons[0]!)).toBe(`TWO_BINARIES: two binaries: base ${repo.base} = ${repo.base}, head ${repo.head} = ${repo.head}`);
    const c = comparison(r.comparison);
    expect(c.binaries).toMatchObject({ kind: 'two', identical: false, base: { commit: repo.base }, head: { commit: repo.head } });
    if (c.binaries.kind === 'two') expect(c.binaries.base.binarySha256).not.toBe(c.binaries.head.binarySha256);
    expect(c.onArm).toBe('B');
    expect(r.plan).toMatchObject({ form: 'cross-commit', binaries: 'two binaries' });
    expect(['build-A.log', 'build-B.log'].every((f) => existsSync(join(r.runDir, f)))).toBe(true);
    expect(r.tool.version).not.toBe('0.1.0-hard-coded');
    const seq = await runAb({ argv: [], inputs, jobs: 1, resultsBase: base, base: repo.base, head: repo.head, stop: 'sequential' }, await scriptedDeps(headFast));
    expect(seq.result.verdict.word).toBe('SUPPORTED');
    expect(seq.result.legs).toHaveLength(4);
    expect(comparison(seq.result.comparison).form).toBe('cross-commit');
  });

  it('the safeguards are the series\' for every form: a missing binary on one commit is exit 2 before any leg; resume reruns a lost leg of a sequential run', async () => {
    const repo = await scriptedGitRepo();
    const git = (...a: string[]) => execa('git', ['-C', repo.root, '-c', 'user.name=t', '-c', 'user.email=t@t', ...a]);
    rmSync(join(repo.root, 'driver.sh'));
    await git('commit', '-qam', 'no driver');
    const gone = (await git('rev-parse', 'HEAD')).stdout.trim();
    process.env.NH_GATE_LOCK = join(isolate(), 'gpu.lock');
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, flagOptional: true }, repo.root);
    const out = await runAb({ argv: [], inputs, jobs: 1, resultsBase: join(repo.root, 'results'), base: repo.base, head: gone, repeats: 1 }, await scriptedDeps(onFast));
    expect(out.result.verdict).toMatchObject({ word: 'VOID', exitClass: 'usage' });
    expect(formatReason(out.result.verdict.reasons[0]!)).toMatch(/^MISSING_BINARY: .*driver\.sh does not exist/);
    expect(out.result.legs).toHaveLength(0);

    const seqRepo = scriptedRepo();
    const base = isolate();
    const gp = gateFile(seqRepo.root, { ...criteria([faster(30)]), sequential: { sigmaLogRatio: 0.05, tauLogRatio: 0.5, maxLegs: 8 } });
    const seqInputs = loadInputs({ command: 'ab', recipe: seqRepo.recipePath, gate: gp }, seqRepo.root);
    let lose = true;
    const lossy: Script = (req) => ({ ...onFast(req), ...(req.index === 1 && lose ? { fault: reason('SLURM_CANCELLED', 'job 7 was cancelled') } : {}) });
    const first = await runAb({ argv: [], inputs: seqInputs, jobs: 1, resultsBase: base, stop: 'sequential' }, await scriptedDeps(lossy));
    expect(first.result.legs[1]!.voidReasons[0]!.code).toBe('SLURM_CANCELLED');
    lose = false;
    const again = await runAb({ argv: [], inputs: seqInputs, jobs: 1, resultsBase: base, stop: 'sequential', resume: first.result.runDir }, await scriptedDeps(lossy));
    expect(again.result.runDir).toBe(first.result.runDir);
    expect(again.result.notes.join('\n')).toMatch(/finished leg\(s\) kept, 1 to run|finished leg\(s\) kept/);
    expect(again.result.legs[1]!.verdict).toBe('STRICT PASS');
  });

  it('arms {A: default, B: off} of a flag whose default is on: arm A is "on" in the plan, the judge, the text, JSON, summary, JUnit and ledger', async () => {
    const repo = scriptedRepo();
    const base = isolate();
    const gp = gateFile(repo.root, { ...criteria([faster(30)]), arms: { A: 'default', B: 'off' }, repeats: 2, arch: 'cpu' });
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, gate: gp }, repo.root);
    const plan = planAbForm({ stop: 'fixed', inputs, commits: null, cli: {}, resultsBase: base });
    expect(abPlanText(plan)).toMatch(/the flag-on arm is A/);
    expect(abPlanJson(plan)).toMatchObject({ onArm: 'A', claim: { criteria: [{ subject: 'A', reference: 'B', bound: 'A/B ≤ 0.7000' }] } });
    const out = await runAb({ argv: [], inputs, jobs: 1, resultsBase: base }, await scriptedDeps(onFast));
    const r = out.result;
    expect(r.legs.filter((l) => l.arm === 'A').every((l) => l.flagEnv.FAKE_FLAG === '1')).toBe(true);
    expect(r.verdict.word).toBe('SUPPORTED');
    const saved = JSON.parse(readFileSync(join(r.runDir, 'result.json'), 'utf8'));
    expect(saved.comparison).toMatchObject({ onArm: 'A', metrics: [{ subject: 'A', reference: 'B', bound: 'A/B ≤ 0.7000' }] });
    expect(saved.verdict.claim).toBe('superiority of perOutputToken: arm A (FLAG=default) at least 30% lower than arm B (FLAG=off): A/B ≤ 0.7000');
    expect(runLines(r).join('\n')).toMatch(/per output token ratio A\/B 0\.4\d\dx/);
    expect(runLines(r).at(-2)).toMatch(/^SUPPORTED \(superiority of perOutputToken: arm A \(FLAG=default\)/);
    expect(readFileSync(join(r.runDir, 'summary.md'), 'utf8')).toMatch(/claim decided: superiority of perOutputToken: arm A \(FLAG=default\) at least 30% lower/);
    expect(readFileSync(join(r.runDir, 'junit.xml'), 'utf8')).toMatch(/failures="0" errors="0"/);
    expect(ledger(base).at(-1).figures.perOutputTokenRatio.value).toBeLessThan(0.6);
  });

  it('deviations: --repeats on a gate that registered repeats is recorded and on the verdict line; a locked gate refuses it', async () => {
    const repo = scriptedRepo();
    const base = isolate();
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, gate: gateFile(repo.root, { ...criteria([faster(30)]), repeats: 2 }) }, repo.root);
    const out = await runAb({ argv: [], inputs, jobs: 1, resultsBase: base, repeats: 3, warmupLegs: 1 }, await scriptedDeps(onFast));
    expect(out.result.legs).toHaveLength(1 + 6);
    expect(out.result.plan!.deviations!.map((d) => d.option)).toEqual(['--repeats', '--warmup']);
    expect(runLines(out.result).at(-2)).toMatch(/DEVIATION: --repeats 3 departs from the gate's registered repeats 2; DEVIATION: --warmup 1 departs from the gate's registered warmupLegs 0/);
    expect(out.result.plan!.text).toMatch(/^deviation: --repeats 3 departs/m);
    const locked = loadInputs({ command: 'ab', recipe: repo.recipePath, gate: gateFile(repo.root, { name: 'locked', ...criteria([faster(30)]), repeats: 2, locked: true }) }, repo.root);
    const err = await runAb({ argv: [], inputs: locked, jobs: 1, resultsBase: base, repeats: 3 }, await scriptedDeps(onFast)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NhGateError);
    expect((err as NhGateError).exitClass).toBe('usage');
    expect((err as NhGateError).message).toMatch(/locked\.json: the gate is locked .* --repeats 3 departs/);
  });
});

describe('the plan reads the registered mode', () => {
  it("the gate's mode runs unless --mode departs (a deviation); a gate registering 'both' is refused by name", () => {
    const repo = scriptedRepo();
    const base = isolate();
    const inputs = (body: Record<string, unknown>) => loadInputs({ command: 'ab', recipe: repo.recipePath, gate: gateFile(repo.root, { ...criteria([faster(30)]), repeats: 1, ...body }) }, repo.root);
    const prefill = planAbForm({ stop: 'fixed', inputs: inputs({ mode: 'fresh-prefill' }), commits: null, cli: {}, resultsBase: base });
    expect(prefill.legs.legs.map((l) => l.mode)).toEqual(['fresh-prefill', 'fresh-prefill']);
    expect(prefill.deviations).toEqual([]);
    const bent = planAbForm({ stop: 'fixed', inputs: inputs({ mode: 'fresh-prefill' }), commits: null, cli: { mode: 'decode' }, resultsBase: base });
    expect(bent.legs.legs.map((l) => l.mode)).toEqual(['decode', 'decode']);
    expect(bent.deviations.map((d) => d.text)).toEqual(["--mode decode departs from the gate's registered mode fresh-prefill"]);
    expect(() => planAbForm({ stop: 'fixed', inputs: inputs({ mode: 'both' }), commits: null, cli: {}, resultsBase: base })).toThrow(/mode: "both" — an A\/B compares its arms in one mode/);
  });
});

describe('the CLI: --dry-run for every form (text and --json), deviations and locks before anything runs', () => {
  const bin = join(repoRoot, 'bin', 'nh-gate.js');
  const gate = (n: string) => join(repoRoot, 'gates', 'nh-ref', n);
  it('prints each form\'s plan', async () => {
    const env = { ...process.env, NH_GATE_LOCK: join(isolate(), 'l') };
    for (const [args, form, legs] of [
      [['--gate', gate('decode-step-ab.json')], 'fixed', 8],
      [['--gate', gate('decode-step-ab.json'), '--sequential'], 'sequential', 16],
      [['--gate', gate('null-ab.json'), '--aa', '--budget', '16', '--warmup', '2'], 'aa', 18],
      [['--recipe', 'nh-ref', '--base', 'HEAD~1', '--head', 'HEAD', '--repeats', '2'], 'cross-commit', 4],
    ] as const) {
      const r = await execa('node', [bin, 'ab', ...args, '--dry-run', '--json'], { reject: false, env, cwd: repoRoot });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(doc).toMatchObject({ schemaVersion: 1, dryRun: true, plan: { form } });
      expect(doc.plan.legs).toHaveLength(legs);
      const text = await execa('node', [bin, 'ab', ...args, '--dry-run'], { reject: false, env, cwd: repoRoot });
      expect(text.stdout).toMatch(new RegExp(`^form: `));
    }
  });

  it('a deviation is in the plan; a locked gate and bad option values are exit 2 with no stack', async () => {
    const dir = isolate();
    const env = { ...process.env, NH_GATE_LOCK: join(dir, 'l') };
    const dev = await execa('node', [bin, 'ab', '--gate', gate('decode-step-ab.json'), '--repeats', '10', '--dry-run'], { reject: false, env });
    expect(dev.stdout).toMatch(/deviation: --repeats 10 departs from the gate's registered repeats 4/);
    const g = JSON.parse(readFileSync(gate('decode-step-ab.json'), 'utf8'));
    writeFileSync(join(dir, 'locked.json'), JSON.stringify({ ...g, locked: true }));
    for (const args of [['--gate', join(dir, 'locked.json'), '--repeats', '10'], ['--gate', gate('decode-step-ab.json'), '--warmup', '-1'], ['--gate', gate('decode-step-ab.json'), '--order', 'zigzag'], ['--gate', gate('decode-step-ab.json'), '--seed', '1.5']]) {
      const r = await execa('node', [bin, 'ab', ...args, '--dry-run'], { reject: false, env });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    const locked = await execa('node', [bin, 'ab', '--gate', join(dir, 'locked.json'), '--repeats', '10', '--dry-run'], { reject: false, env });
    expect(locked.stderr).toMatch(/the gate is locked \("locked": true\) and --repeats 10 departs/);
  });

  it('every form goes through the executor: --sequential, --aa and --base/--head with --executor slurm read the Slurm config first', async () => {
    const dir = isolate();
    const cfg = join(dir, 'bad.slurm.json');
    writeFileSync(cfg, '{ "schemaVersion": 1, "nope": 1 }');
    for (const args of [['--gate', gate('decode-step-ab.json'), '--sequential'], ['--gate', gate('null-ab.json'), '--aa'], ['--recipe', 'nh-ref', '--base', 'HEAD~1', '--head', 'HEAD']]) {
      const r = await execa('node', [bin, 'ab', ...args, '--executor', 'slurm', '--slurm-config', cfg, '--results-dir', dir], { reject: false, cwd: repoRoot, env: { ...process.env, NH_GATE_LOCK: join(dir, 'l') } });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/bad\.slurm\.json/);
    }
  });
});
