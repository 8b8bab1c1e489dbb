import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseInDiffConfig } from '../../src/config/in-diff.js';
import { loadRecipe } from '../../src/config/load.js';
import { loadMutationTable } from '../../src/config/mutations.js';
import { checkRoutes } from '../../src/mutate/generate/prepare.js';
import { ensureDist, makeRepo, REPO, runMutateCli, type FixtureRepo } from './helpers.js';
import { git, plantedFixture } from './in-diff-helpers.js';

// Every example of docs/mutate.md runs here: the sh commands on the planted fixture (with its table),
// the in-diff.json against the real recipe and table, the quoted output lines against real output.
const doc = readFileSync(join(REPO, 'docs', 'mutate.md'), 'utf8');
const commands = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n')).filter((l) => l.startsWith('nh-gate mutate '));
const argvOf = (line: string): string[] => line.replace(/#.*$/, '').trim().split(/\s+/).slice(2);

let repo: FixtureRepo;
beforeAll(() => {
  ensureDist();
  repo = plantedFixture();
});

describe('docs/mutate.md examples', () => {
  it('has the four --in-diff commands', () => {
    expect(commands.map((c) => argvOf(c).join(' '))).toEqual([
      '--in-diff HEAD~1 --jobs 2', '--in-diff HEAD~1 --format github', '--in-diff HEAD~1 --shard 1/2', '--in-diff HEAD~1 --json',
    ]);
  });

  it('each command does what its comment says', async () => {
    const [jobs, github, shard, json] = commands.map(argvOf);
    const a = await runMutateCli(repo.root, jobs!);
    expect(a.code).toBe(1);
    expect(a.stdout).toMatch(/caps: 2 per changed line, 12 per change/);
    expect(a.stdout).toMatch(/survivors \(\d+\): these lines can change and no test notices/);
    const g = await runMutateCli(repo.root, github!);
    const warn = g.stdout.split('\n').find((l) => l.startsWith('::warning '))!;
    const quoted = /^ {4}(::warning .*)$/m.exec(doc)![1]!;
    const shape = (l: string): string => l.replace(/file=[^,]+,line=\d+,col=\d+,title=SURVIVED mutant \([a-z-]+\)::.*/, 'SHAPE');
    expect(shape(warn)).toBe('::warning SHAPE');
    expect(shape(quoted)).toBe('::warning SHAPE');
    const s = await runMutateCli(repo.root, shard!);
    expect(s.stdout).toMatch(/\(shard 1\/2\)/);
    const j = JSON.parse((await runMutateCli(repo.root, json!)).stdout);
    expect(j.schemaVersion).toBe(1);
    expect(j.generation.caps).toEqual({ perLine: 2, perChange: 12 });
  }, 300_000);

  it('the in-diff.json example is the reference engine config in shape, and fits its recipe and table', () => {
    const m = /```json in-diff\.json\n([\s\S]*?)```/.exec(doc)!;
    const cfg = parseInDiffConfig(m[1]!, 'docs/mutate.md');
    const shipped = parseInDiffConfig(readFileSync(join(REPO, 'gates', 'nh-ref', 'in-diff.json'), 'utf8'), 'gates/nh-ref/in-diff.json');
    expect(cfg.routes).toEqual(shipped.routes.slice(0, 2).map(({ why: _why, ...r }) => r));
    const { recipe } = loadRecipe('nh-ref', REPO);
    const table = loadMutationTable(join(REPO, 'gates', 'nh-ref', 'mutations.json'));
    expect(() => checkRoutes(cfg, 'docs/mutate.md', recipe.suites.map((x) => x.name), table, 'gates/nh-ref/mutations.json')).not.toThrow();
  });

  it('the quoted NOT MEASURED line is what a docs-only change prints', async () => {
    const r = makeRepo();
    writeFileSync(join(r.root, 'NOTES.md'), 'not a source\n');
    git(r.root, 'add', '-A');
    git(r.root, 'commit', '-qm', 'docs only');
    const run = await runMutateCli(r.root, ['--in-diff', 'HEAD~1']);
    const quoted = /^ {4}(NOT MEASURED \(NO_SOURCE_IN_DIFF\).*)$/m.exec(doc)![1]!;
    expect(run.stdout.trim()).toBe(quoted);
    expect(run.code).toBe(3);
  }, 300_000);
});
