import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeRepo } from './fake.js';

// Issue 9's cases, each run through the BUILT binary the way a user runs it.
const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'nh-gate.js');

function nhg(cwd: string, args: string[], env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 540_000, env: { ...process.env, NH_GATE_LOCK: join(cwd, 'gpu.lock'), ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function noStack(s: string): void {
  expect(s).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
}

// The reference engine's recipe, copied so its configure cannot see doctest (as on a bare machine).
function bareRecipe(dir: string, extraConfigure: string[] = []): string {
  const r = JSON.parse(readFileSync(join(ROOT, 'recipes', 'nh-ref.json'), 'utf8'));
  r.name = 'nh-ref-bare';
  r.sourceDir = join(ROOT, 'native', 'engine');
  r.buildDir = join(dir, 'build-{arch}');
  r.configure = [...r.configure, '-DCMAKE_DISABLE_FIND_PACKAGE_doctest=ON', '-DCMAKE_IGNORE_PATH=/usr/include;/usr/local/include', ...extraConfigure];
  r.defaultGolden = undefined;
  mkdirSync(join(dir, 'recipes'), { recursive: true });
  const p = join(dir, 'recipes', 'bare.json');
  writeFileSync(p, JSON.stringify(r, null, 2));
  return p;
}

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is not built: run `npm run build` first');
});

describe('a first run on a bare machine', () => {
  it('a3 builds the engine without doctest (NH_REF_TESTS AUTO) and is STRICT PASS', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-bare-'));
    const r = nhg(dir, ['a3', '--recipe', bareRecipe(dir), '--golden', join(ROOT, 'goldens', 'nh-ref-tiny'), '--results-dir', join(dir, 'res')]);
    expect(r.stdout).toMatch(/^STRICT PASS$/m);
    expect(r.code).toBe(0);
    const run = readdirSync(join(dir, 'res', 'runs'))[0]!;
    expect(readFileSync(join(dir, 'res', 'runs', run, 'build.log'), 'utf8')).toMatch(/nh-ref tests: DISABLED \(doctest not found: install doctest-dev\)/);
  }, 600_000);

  it('the suites without doctest: the cause and the fix on screen, exit 2 from build and from a3 alike', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-bare-'));
    const recipe = bareRecipe(dir, ['-DNH_REF_TESTS=ON']);
    const b = nhg(dir, ['build', '--recipe', recipe]);
    expect(b.stdout).toMatch(/\| doctest not found: install doctest-dev/);
    expect(b.stdout).toMatch(/fix: install doctest-dev \(apt-get install doctest-dev/);
    expect(b.code).toBe(2);
    const a = nhg(dir, ['a3', '--recipe', recipe, '--golden', join(ROOT, 'goldens', 'nh-ref-tiny'), '--results-dir', join(dir, 'res')]);
    expect(a.stdout).toMatch(/BUILD_FAILED: configure failed .*doctest is missing/);
    expect(a.stdout).toMatch(/fix: install doctest-dev/);
    expect(a.code).toBe(2);
    noStack(a.stderr + b.stderr);
  }, 300_000);
});

describe('bad input and plumbing', () => {
  it('a missing driver is exit 2 naming the path, before any leg', () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok' });
    const recipe = JSON.parse(readFileSync(repo.recipePath, 'utf8'));
    recipe.driver.argv = ['{root}/no-such-driver'];
    recipe.driver.binary = '{root}/no-such-driver';
    writeFileSync(repo.recipePath, JSON.stringify(recipe));
    const r = nhg(repo.root, ['a3', '--recipe', repo.recipePath, '--results-dir', join(repo.root, 'res'), '--json']);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.stdout);
    expect(doc.schemaVersion).toBe(1);
    expect(doc.legs).toEqual([]);
    expect(`${doc.verdict.reasons[0].code}: ${doc.verdict.reasons[0].message}`).toContain(`MISSING_BINARY: ${join(repo.root, 'no-such-driver')} does not exist`);
    noStack(r.stderr);
  });

  it('analyze --log of a leg log picks the profile from the log and re-judges the leg (exit as the leg)', () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok' });
    const a3 = nhg(repo.root, ['a3', '--recipe', repo.recipePath, '--results-dir', join(repo.root, 'res'), '--json']);
    expect(a3.code).toBe(0);
    const result = JSON.parse(a3.stdout);
    const log = join(result.runDir, result.legs[0].logFile);
    const an = nhg(repo.root, ['analyze', '--log', log]);
    expect(an.stdout).toMatch(/profile nh-ref: named by the leg log header/);
    expect(an.stdout).toMatch(/token gate: STRICT PASS \(engine's claim: the harness saw no ids\) — re-judged by the harness against the leg's golden, as the leg was\n  leg 1 \[a3 decode\]: exit 0; tokens 8\/8 /);
    expect(an.code).toBe(0);
    const liar = fakeRepo({ FAKE_MODE: 'liar' });
    const bad = JSON.parse(nhg(liar.root, ['a3', '--recipe', liar.recipePath, '--results-dir', join(liar.root, 'res'), '--json']).stdout);
    const again = nhg(liar.root, ['analyze', '--log', join(bad.runDir, bad.legs[0].logFile), '--json']);
    expect(JSON.parse(again.stdout).leg.verdict).toBe(bad.legs[0].verdict);
    expect(again.code).toBe(1);
  });

  it('a closed stdout ends quietly: no EPIPE stack trace, the exit code kept', () => {
    for (const args of [['validate'], ['golden', 'show', 'nh-ref-tiny']]) {
      const r = spawnSync('sh', ['-c', `(sleep 0.3; "${process.execPath}" "${BIN}" ${args.join(' ')}; echo "rc=$?" >&2) | true`], { cwd: ROOT, encoding: 'utf8' });
      expect(r.stderr).not.toMatch(/EPIPE|Unhandled|at .*\.js:\d+/);
      expect(r.stderr).toMatch(/rc=0/);
    }
  });

  it('--json everywhere: dry-run, usage errors, validate, probe and build documents carry schemaVersion', () => {
    const dry = nhg(ROOT, ['ab', '--gate', 'gates/nh-ref/decode-step-ab.json', '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ schemaVersion: 1, command: 'ab', dryRun: true, plan: { order: 'abba' } });
    const usage = nhg(ROOT, ['a3', '--bogus', '--json']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toMatchObject({ schemaVersion: 1, ok: false, error: { code: 'USAGE' }, exitCode: 2 });
    const badArg = nhg(ROOT, ['a3', '--jobs', 'x', '--json']);
    expect(JSON.parse(badArg.stdout)).toMatchObject({ schemaVersion: 1, error: { code: 'USAGE', message: expect.stringMatching(/--jobs x/) } });
    expect(JSON.parse(nhg(ROOT, ['validate', '--json']).stdout)).toMatchObject({ schemaVersion: 1, command: 'validate', ok: true });
    expect(JSON.parse(nhg(ROOT, ['probe', '--json']).stdout)).toMatchObject({ schemaVersion: 1, command: 'probe' });
    const repo = fakeRepo({ FAKE_MODE: 'ok' });
    expect(JSON.parse(nhg(repo.root, ['build', '--recipe', repo.recipePath, '--json']).stdout)).toMatchObject({ schemaVersion: 1, command: 'build', exitClass: 'passed' });
  });
});
