import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { A3_PASS, timed } from './fixtures.js';

// CLI tests run the BUILT binary (npm test builds first), the way a user runs it.
const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'nh-gate.js');
let dir = '';

function nhg(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function noStack(s: string): void {
  expect(s).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m);
}

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'analyze', 'command.js'))) throw new Error('dist/ is not built: run `npm run build` (npm test does) before the CLI tests');
  dir = mkdtempSync(join(tmpdir(), 'nhg-cli-'));
  writeFileSync(join(dir, 'a3.log'), timed(A3_PASS, [0, 300, 304, 308, 313.8, 313.8, 313.9, 313.9]).join('\n') + '\n');
  writeFileSync(join(dir, 'plain.log'), A3_PASS.join('\n') + '\n');
  writeFileSync(join(dir, 'empty.log'), '');
  const samples = [JSON.stringify({ kind: 'header', schemaVersion: 1, source: 'file', clock: 'monotonic_s', clockConversion: 'identity (test)' })];
  for (let t = 299; t <= 315; t += 0.5) samples.push(JSON.stringify({ kind: 'util', tS: t, gpuPct: 40, periodS: 0.5 }));
  samples.splice(3, 0, 'this is not json', JSON.stringify({ kind: 'util', tS: 301, gpuPct: -4 }));
  writeFileSync(join(dir, 'samples.jsonl'), samples.join('\n') + '\n');
});

describe('nh-gate analyze (built binary)', () => {
  it('prints the rate with its terms and quotes the baseline on its arch (exit 0)', () => {
    const r = nhg('analyze', '--log', 'a3.log', '--arch', '121a', '--label', 'green');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('[green]');
    expect(r.stdout).toContain('per output token 0.143750 s (decode window 13.800 s / 96 tokens compared; engine load 254.5 s excluded)');
    expect(r.stdout).toContain('per output token vs vLLM per output token 10.004x (0.143750 s / 0.014369 s; both on 121a)');
    expect(r.stdout).toContain('judged: STRICT PASS');
  });

  it('off-arch: rate prints, ratio withheld by name', () => {
    const r = nhg('analyze', '--log', 'a3.log', '--arch', '110');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('per output token 0.143750 s');
    expect(r.stdout).toMatch(/per output token vs vLLM per output token WITHHELD \(CROSS_SILICON\)/);
  });

  it('--json prints exactly one document on stdout', () => {
    const r = nhg('analyze', '--log', 'a3.log', '--arch', '121a', '--json', '--samples', 'samples.jsonl');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.quantities.perOutputToken).toMatchObject({ status: 'measured', unit: 's' });
    expect(doc.quantities.busyTimeWeighted).toMatchObject({ status: 'measured', unit: '%' });
    expect(doc.quantities.busyTimeWeighted.value).toBeCloseTo(40, 6);
    expect(doc.samples.garbage).toEqual([
      { lineNo: 4, reason: 'not JSON' },
      { lineNo: 5, reason: expect.stringMatching(/^gpuPct: /) },
    ]);
    expect(doc.exitCode).toBe(0);
  });

  it('samples garbage is named and counted in text mode too', () => {
    const r = nhg('analyze', '--log', 'a3.log', '--samples', 'samples.jsonl');
    expect(r.stdout).toContain('2 garbage line(s) skipped');
    expect(r.stdout).toContain('line 4: not JSON');
    expect(r.stderr).toContain('2 garbage line(s) skipped');
  });

  it('--window 5:3 is a refused rate (exit 3), not a crash', () => {
    const r = nhg('analyze', '--log', 'plain.log', '--window', '5:3');
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('per output token REFUSED (NON_POSITIVE_WINDOW)');
    noStack(r.stderr);
  });

  it('bad input exits 2 with a named error and no stack trace', () => {
    const cases: Array<[string[], RegExp]> = [
      [['analyze', '--log', 'plain.log', '--window', 'abc'], /USAGE: --window 'abc': expected T0:T1/],
      [['analyze', '--log', 'empty.log'], /BAD_INPUT: .*empty\.log: the driver log is empty/],
      [['analyze', '--log', 'nope.log'], /UNREADABLE_FILE: nope\.log: cannot read the driver log \(ENOENT\)/],
      [['analyze', '--log', 'plain.log', '--profile', 'llama'], /UNKNOWN_PROFILE: .*known: nemotron-h, nh-ref/],
      [['analyze', '--log', 'plain.log', '--recipe', 'llama'], /UNKNOWN_RECIPE: .*known: .*nemotron-h/],
      [['analyze', '--log', 'plain.log', '--profile', 'nh-ref', '--recipe', 'nemotron-h'], /USAGE: pass --profile or --recipe, not both/],
      [['analyze'], /required option '--log <file>'/],
    ];
    for (const [args, re] of cases) {
      const r = nhg(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(re);
      noStack(r.stderr);
    }
  });

  it('a recipe with a wrong field exits 2 with file: path: message', () => {
    const rec = JSON.parse(readFileSync(join(ROOT, 'recipes', 'nemotron-h.json'), 'utf8'));
    rec.baselines[0].arch = 121;
    writeFileSync(join(dir, 'bad-recipe.json'), JSON.stringify(rec));
    const r = nhg('analyze', '--log', 'plain.log', '--recipe', './bad-recipe.json');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad-recipe\.json: baselines\.0\.arch: Invalid input: expected string, received number/);
    noStack(r.stderr);
  });
});

describe('nh-gate validate (built binary)', () => {
  it('the shipped recipes, gates and goldens validate (exit 0)', () => {
    const r = nhg('validate');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ok recipes/nemotron-h.json (recipe)');
  });

  it('a bad file: file: path.to.field: message, exit 2; --json is one document', () => {
    mkdirSync(join(dir, 'recipes'), { recursive: true });
    writeFileSync(join(dir, 'recipes', 'x.json'), JSON.stringify({ schemaVersion: 2 }));
    const r = nhg('validate', 'recipes');
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^recipes\/x\.json: schemaVersion: /m);
    expect(r.stdout).toMatch(/^recipes\/x\.json: driver: /m);
    const j = nhg('validate', '--json', 'recipes');
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stdout).ok).toBe(false);
  });

  it('--help exits 0 and names the commands', () => {
    const r = nhg('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/analyze/);
    expect(r.stdout).toMatch(/validate/);
  });
});
