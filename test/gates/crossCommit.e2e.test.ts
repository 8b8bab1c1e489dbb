import { describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { repoRoot } from '../helpers/engine.js';
import { loadInputs } from '../../src/gates/setup.js';
import { runAb } from '../../src/gates/ab/run.js';
import { formatReason } from '../../src/verdict/reasons.js';
import { realDeps } from '../../src/gates/deps.js';
import { NhGateError } from '../../src/errors.js';

// A throwaway git repository holding the reference engine, its recipe (doctest suites off, to halve the two
// builds) and its golden; two commits of it, so the test never adds worktrees to the project's own repo.
async function engineRepo(): Promise<{ dir: string; base: string; head: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'nh-xc-repo-'));
  cpSync(join(repoRoot, 'native', 'engine'), join(dir, 'native', 'engine'), { recursive: true, filter: (p) => !/\/build(\/|$)/.test(p) });
  cpSync(join(repoRoot, 'goldens', 'nh-ref-tiny'), join(dir, 'goldens', 'nh-ref-tiny'), { recursive: true });
  const recipe = JSON.parse(readFileSync(join(repoRoot, 'recipes', 'nh-ref.json'), 'utf8'));
  recipe.configure = [...recipe.configure, '-DNH_REF_TESTS=OFF'];
  recipe.outputs = recipe.outputs.filter((o: string) => !o.includes('nh-ref-tests'));
  mkdirSync(join(dir, 'recipes'));
  writeFileSync(join(dir, 'recipes', 'nh-ref.json'), JSON.stringify(recipe, null, 2));
  writeFileSync(join(dir, '.gitignore'), '.nh-gate/\n');
  const git = (...a: string[]) => execa('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...a]);
  await git('init', '-q');
  await git('add', '-A');
  await git('commit', '-qm', 'base');
  const base = (await git('rev-parse', 'HEAD')).stdout.trim();
  // head: the same tree under a new commit (what a docs-only change looks like to the engine)
  const head = (await git('commit-tree', 'HEAD^{tree}', '-p', 'HEAD', '-m', 'head')).stdout.trim();
  return { dir, base, head };
}

describe('ab --base REV --head REV (cross-commit, two worktrees, two builds)', () => {
  it('runs interleaved legs of two builds and says "two binaries" with both shas', async () => {
    const repo = await engineRepo();
    const results = join(repo.dir, '.nh-gate');
    process.env.NH_GATE_LOCK = join(repo.dir, 'gpu.lock');
    const inputs = loadInputs({ command: 'ab', recipe: join(repo.dir, 'recipes', 'nh-ref.json'), flagOptional: true }, repo.dir);
    const out = await runAb({ argv: [], inputs, base: repo.base, head: repo.head, repeats: 2, seed: 1, mode: 'decode', jobs: 2, resultsBase: results }, await realDeps());
    const r = out.result;
    expect(r.legs.map((l) => l.arm).join('')).toBe('ABBA');
    expect(r.legs.every((l) => l.verdict === 'STRICT PASS')).toBe(true);
    expect(formatReason(r.verdict.reasons[0]!)).toBe(`TWO_BINARIES: two binaries: base ${repo.base} = ${repo.base}, head ${repo.head} = ${repo.head}`);
    const c = r.comparison?.kind === 'ab' ? r.comparison.binaries : null;
    if (c?.kind !== 'two') throw new Error('two binaries');
    expect([c.base.commit, c.head.commit]).toEqual([repo.base, repo.head]);
    expect(c.base.tree).not.toBe(c.head.tree);
    // the same tree under two commits builds byte-identical binaries, and the result says so
    expect(c.identical).toBe(true);
    expect(r.notes.join('\n')).toMatch(/the two commits built byte-identical binaries/);
    // each arm ran the binary built in its own tree
    expect(r.legs.filter((l) => l.arm === 'A').every((l) => l.logFile)).toBe(true);
    expect(r.verdict.word).toBe('MEASURED');
    expect(r.quantities.ratio!.status).toBe('measured');
    const saved = JSON.parse(readFileSync(join(r.runDir, 'result.json'), 'utf8'));
    expect(saved.comparison.binaries.base.commit).toBe(repo.base);

    // --base equal to --head (here: two names of one commit) is a usage error
    const same = await runAb({ argv: [], inputs, base: repo.base, head: `${repo.base}^{commit}`, repeats: 2, seed: 1, mode: 'decode', jobs: 2, resultsBase: results }, await realDeps()).catch((e: unknown) => e);
    expect(same).toBeInstanceOf(NhGateError);
    expect((same as NhGateError).exitClass).toBe('usage');
    expect((same as NhGateError).message).toMatch(/are the same commit/);
  }, 600_000);

  it('--base equal to --head, or one without the other, is a usage error (exit 2, no stack)', async () => {
    const bin = join(repoRoot, 'bin', 'nh-gate.js');
    for (const args of [['--base', 'HEAD', '--head', 'HEAD'], ['--base', 'HEAD'], ['--base', 'HEAD', '--head', 'HEAD~0'], ['--base', 'no-such-rev', '--head', 'HEAD']]) {
      const r = await execa('node', [bin, 'ab', ...args, '--results-dir', mkdtempSync(join(tmpdir(), 'nh-xc-'))], { cwd: repoRoot, reject: false });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/nh-gate: USAGE: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
