import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { CLI, LLAMA_NEED, llamaReady } from './llama.js';
import { needsTitle } from '../helpers/needs.js';

// `nh-gate ab --flag THREADS=1,2,4` on the real llama-server CPU build: three arms in Williams blocks, every
// leg token-checked against the golden by the harness, each arm against the baseline with its corrected
// interval, the per-arm table and the scaling plot. Refusals happen at plan time, before anything is built.

const dir = mkdtempSync(join(tmpdir(), 'nh-gate-llama-sweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cli = (args: string[]) => execa('node', [CLI, ...args], { cwd: dir, reject: false, all: true, timeout: 300_000 });

describe('a sweep is refused at plan time when it cannot be run as asked (exit 2, nothing written)', () => {
  it.each([
    [['--flag', 'THREADS=1,2,3'], /does not declare the value '3'/],
    [['--flag', 'THREADS=1,2,1'], /the value '1' is listed twice/],
    [['--flag', 'THREADS=1,2,4', '--baseline', '8'], /--baseline 8 is not one of the sweep's values \(1, 2, 4\)/],
    [['--flag', 'THREADS=1,2', '--baseline', '2'], /--baseline names the baseline arm of a sweep/],
    [['--flag', 'THREADS=1,2,4', '--sequential'], /--sequential cannot be combined with a sweep/],
    [['--flag', 'THREADS=1,2,4', '--aa'], /--aa cannot be combined with a sweep/],
    [['--flag', 'THREADS=1,2,4', '--base', 'HEAD~1', '--head', 'HEAD'], /--base cannot be combined with a sweep/],
  ])('ab %j', async (args, message) => {
    const res = join(dir, `refused-${args.join('_').replace(/[^\w]/g, '')}`);
    const r = await cli(['ab', '--recipe', 'llama-cpp', ...args, '--results-dir', res]);
    expect(r.exitCode, r.all).toBe(2);
    expect(r.all).toMatch(message);
    expect(r.all).not.toMatch(/\n\s+at /);
    expect(existsSync(res)).toBe(false);
  });

  it('--dry-run prints the arms, the blocks in their order and the correction method', async () => {
    const r = await cli(['ab', '--recipe', 'llama-cpp', '--flag', 'THREADS=1,2,4,8', '--baseline', '2', '--dry-run', '--json']);
    expect(r.exitCode, r.all).toBe(0);
    const plan = JSON.parse(r.stdout).plan;
    expect(plan.baseline).toBe('THREADS=2');
    expect(plan.order).toEqual([['THREADS=1', 'THREADS=2', 'THREADS=8', 'THREADS=4'], ['THREADS=2', 'THREADS=4', 'THREADS=1', 'THREADS=8'], ['THREADS=4', 'THREADS=8', 'THREADS=2', 'THREADS=1'], ['THREADS=8', 'THREADS=1', 'THREADS=4', 'THREADS=2']]);
    expect(plan.correction).toMatch(/nothing decided \(no claim registered\) over the 3 comparison\(s\) against THREADS=2; intervals Bonferroni-adjusted to 98\.33%/);
    expect(plan.text).toMatch(/Williams design over 4 arms, 4 block\(s\) = 1 full cycle\(s\) of 4/);
    expect(plan.legs).toHaveLength(16);
  });

  it('a gate that registers the sweep runs it with its claim; a --baseline other than the gate\'s is a deviation', async () => {
    const gate = join(CLI, '..', '..', 'gates', 'llama-cpp', 'threads-sweep.json');
    const r = await cli(['ab', '--gate', gate, '--dry-run']);
    expect(r.exitCode, r.all).toBe(0);
    expect(r.stdout).toMatch(/^claim: the gate's 1 criterion\(s\), each arm against THREADS=1, combined by 'all'$/m);
    expect(r.stdout).toMatch(/^correction: decisions by Holm's step-down over the 2 comparison\(s\) against THREADS=1 \(family-wise α 0\.05, per criterion\)/m);
    expect(r.stdout).toMatch(/6 block\(s\) = 1 full cycle\(s\) of 6/);
    expect(r.stdout).not.toMatch(/^deviation:/m);
    const moved = await cli(['ab', '--gate', gate, '--baseline', '2', '--dry-run']);
    expect(moved.stdout).toMatch(/^deviation: --baseline 2 departs from the gate's registered sweep\.baseline 1$/m);
    expect(moved.stdout).toMatch(/^arms: THREADS=1, THREADS=2 \(baseline\), THREADS=4$/m);
  });
});

describe.skipIf(!llamaReady)(needsTitle('a THREADS sweep on llama.cpp', LLAMA_NEED), () => {
  it('three arms, every leg token-checked, the per-arm table, the plot and the method', async () => {
    const res = join(dir, 'res');
    const r = await cli(['ab', '--recipe', 'llama-cpp', '--flag', 'THREADS=1,2,4', '--repeats', '2', '--results-dir', res]);
    // Report-only: MEASURED; a leg the harness voids (a contended host can time one out) makes it VOID, never a pass.
    expect([0, 3], r.all).toContain(r.exitCode);
    expect(r.all).toMatch(/^THREADS\s+n\s+median s\/token\s+tokens\/s\s+ratio vs THREADS=1 \[97\.5%\]\s+word$/m);
    expect(r.all).toMatch(/^correction: nothing decided \(no claim registered\) over the 2 comparison\(s\) against THREADS=1; intervals Bonferroni-adjusted to 97\.5%/m);
    expect(r.all).toMatch(/MULTIPLE_COMPARISONS: /);
    const runDir = r.all.match(/^run directory: (.+)$/m)![1]!;
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8'));
    expect(result.plan).toMatchObject({ form: 'sweep', order: 'williams', legs: 6 });
    expect(result.legs.map((l: { arm: string }) => l.arm)).toEqual(['THREADS=1', 'THREADS=2', 'THREADS=4', 'THREADS=2', 'THREADS=4', 'THREADS=1']);
    for (const l of result.legs) {
      // Token-gated by the harness: every id compared against the golden, whatever the leg's speed.
      expect(l.witness, l.label).toBe('harness');
      if (l.verdict === 'STRICT PASS') expect(l.tokens.matched, l.label).toBe(l.tokens.compared);
      expect(l.flagEnv.LLAMA_ARG_THREADS, l.label).toBe(l.arm.slice('THREADS='.length));
    }
    const s = result.comparison.sweep;
    expect(s.comparisons.map((c: { arm: string }) => c.arm)).toEqual(['THREADS=2', 'THREADS=4']);
    expect(s.correction.method).toBe('holm');
    if (r.exitCode === 0) {
      expect(result.verdict.word).toBe('MEASURED');
      for (const c of s.comparisons) expect(c.interval.level).toBeCloseTo(0.975, 9);
    }
    expect(readFileSync(join(runDir, 'summary.md'), 'utf8')).toMatch(/### Sweep\n\n\| THREADS \| n \| median s\/token \| tokens\/s \| ratio vs THREADS=1 \[97\.5%\] \| word \|/);
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    expect(html).toMatch(/<table id="sweep">/);
    expect(html).toMatch(/<figure class="plot" id="sweep\.svg"><svg/);
    expect(readFileSync(join(runDir, 'sweep.svg'), 'utf8')).toMatch(/THREADS sweep: per-token time ÷ THREADS=1/);
    // The same series' --resume: the plan text matches, every finished leg is kept; another sweep's plan is refused.
    const again = await cli(['ab', '--recipe', 'llama-cpp', '--flag', 'THREADS=1,2,4', '--repeats', '2', '--results-dir', res, '--resume', runDir]);
    expect(again.all).toMatch(/resumed .*: 6 finished leg\(s\) kept, 0 to run/);
    const other = await cli(['ab', '--recipe', 'llama-cpp', '--flag', 'THREADS=1,2,8', '--repeats', '2', '--results-dir', res, '--resume', runDir]);
    expect(other.exitCode, other.all).toBe(2);
    expect(other.all).toMatch(/the plan differs/);
  }, 300_000);
});
