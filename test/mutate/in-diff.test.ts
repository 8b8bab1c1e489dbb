import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { treeSha } from '../../src/mutate/files.js';
import { sourceExclude } from '../../src/mutate/run.js';
import { ensureDist, gitStatus, latestRunDir, makeRepo, runMutateCli, type FixtureRepo } from './helpers.js';
import { git, plantedFixture } from './in-diff-helpers.js';

// `mutate --in-diff REV` end to end on the small C++ fixture: real git, real CMake builds, real doctest.
// The real reference engine has its own test (in-diff.e2e.test.ts); this one is fast enough to try
// every edge: cache, shards, GitHub annotations, an anchor that is never unique, and bad input.
const require = createRequire(import.meta.url);
interface Row { id: string; verdict: string; reason: string | null; cached?: boolean; excluded?: boolean; origin?: { line: number; operator: string }; mutation: { file: string; suite: string; filter?: string }; suite: { counts: { failingCases: string[] } | null } | null }
interface Doc { exitCode: number; rows: Row[]; survivors: { file: string; line: number; before: string; after: string }[]; cacheHits: number; userTree: { unchanged: boolean }; generation: { generated: number; caps: { perLine: number; perChange: number }; notUnique: string[]; skippedMutants: Record<string, number> } }

let repo: FixtureRepo;
let first: Doc;
let firstRun: { code: number | null; stdout: string; stderr: string };
beforeAll(async () => {
  ensureDist();
  repo = plantedFixture();
  firstRun = await runMutateCli(repo.root, ['--in-diff', 'HEAD~1', '--jobs', '2', '--json']);
  first = JSON.parse(firstRun.stdout) as Doc;
}, 600_000);

const gen = (d: Doc): Row[] => d.rows.filter((r) => r.origin);

describe('mutate --in-diff on the fixture', () => {
  it('generates capped rows from the changed lines, judges them with the routed cases, names survivors by line', () => {
    expect(firstRun.stderr).not.toMatch(/INTERNAL|\n\s+at /);
    expect(first.generation.caps).toEqual({ perLine: 2, perChange: 12 });
    expect(gen(first)).toHaveLength(12);
    expect(first.generation.skippedMutants.OVER_CHANGE_CAP).toBeGreaterThan(0);
    for (const r of gen(first)) expect(`${r.mutation.file} ${r.mutation.suite} ${r.mutation.filter}`).toBe('engine/src/window.cpp calc window*');
    const caught = gen(first).filter((r) => r.verdict === 'CAUGHT');
    expect(caught.length).toBeGreaterThan(0);
    for (const r of caught) expect(r.suite?.counts?.failingCases ?? ['(crash)']).toEqual(['window covers k values']);
    // The loop rewrite is tested: its dropped term, loop bound and guard flips are caught.
    const at = (line: number, op: string) => gen(first).find((r) => r.origin?.line === line && r.origin.operator === op)?.verdict;
    expect(at(6, 'drop-term')).toBe('CAUGHT');
    expect(at(7, 'relational')).toBe('CAUGHT');
    expect(at(8, 'relational')).toBe('CAUGHT');
    // `s += 1` right after `int s = 0` is `s = 1` to the compiler: same binary, excluded, never a catch.
    const same = gen(first).filter((r) => r.reason === 'NOT_REBUILT');
    expect(same.length).toBeGreaterThan(0);
    for (const r of same) expect(r.excluded).toBe(true);
    // pad_a/pad_b are tested by nothing: their mutants survive, reported by file:line with the diff.
    expect(first.survivors.length).toBeGreaterThan(0);
    for (const s of first.survivors) {
      expect(s.file).toBe('engine/src/window.cpp');
      expect(s.line).toBeGreaterThan(12);
      expect(s.before).not.toBe(s.after);
    }
    expect(first.exitCode).toBe(1);
    expect(firstRun.code).toBe(1);
    expect(first.userTree.unchanged).toBe(true);
    expect(gitStatus(repo.root)).toBe('');
  });

  it('names the lines whose anchor is never unique and leaves them (and the tree) alone', () => {
    expect(first.generation.notUnique.length).toBeGreaterThan(0);
    for (const l of first.generation.notUnique) expect(l).toMatch(/^engine\/src\/window\.cpp:(1[5-9]|2\d|3\d)$/);
    const lines = new Set(gen(first).map((r) => r.origin!.line));
    for (const l of first.generation.notUnique) expect(lines.has(Number(l.split(':')[1]))).toBe(false);
  });

  it('writes the same rows into the Stryker JSON (valid against the schema) and JUnit, with lines', () => {
    const dir = latestRunDir(repo.root);
    const report = JSON.parse(readFileSync(join(dir, 'mutation-report.json'), 'utf8'));
    const Ajv = require('ajv');
    const schema = require('mutation-testing-report-schema/mutation-testing-report-schema.json');
    const ajv = new Ajv({ allErrors: true, strict: false });
    expect(ajv.validate(schema, report), JSON.stringify(ajv.errors)).toBe(true);
    const mutants = report.files['engine/src/window.cpp'].mutants as { id: string; mutatorName: string; status: string; location: { start: { line: number } } }[];
    for (const r of gen(first)) {
      const m = mutants.find((x) => x.id === r.id)!;
      expect(m.mutatorName).toBe(r.origin!.operator);
      expect(m.location.start.line).toBe(r.origin!.line);
    }
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(new RegExp(`name="${first.survivors.length ? gen(first).find((r) => r.verdict === 'SURVIVED')!.id : 'x'}" file="engine/src/window.cpp" line="\\d+"[^>]*>\\s*<failure`));
  });

  it('a re-run reuses every proven generated row from the cache; --no-cache judges them again', async () => {
    const run = await runMutateCli(repo.root, ['--in-diff', 'HEAD~1', '--jobs', '2', '--json']);
    const doc = JSON.parse(run.stdout) as Doc;
    expect(doc.cacheHits).toBe(12);
    expect(gen(doc).every((r) => r.cached === true)).toBe(true);
    expect(gen(doc).map((r) => `${r.id}:${r.verdict}`)).toEqual(gen(first).map((r) => `${r.id}:${r.verdict}`));
    const again = JSON.parse((await runMutateCli(repo.root, ['--in-diff', 'HEAD~1', '--jobs', '2', '--no-cache', '--json'])).stdout) as Doc;
    expect(again.cacheHits).toBe(0);
    expect(gen(again).filter((r) => !r.cached)).toHaveLength(12);
    // --only picks one generated row (after its suite's self-test).
    const one = gen(first).find((r) => r.verdict === 'CAUGHT')!;
    const only = JSON.parse((await runMutateCli(repo.root, ['--in-diff', 'HEAD~1', '--only', one.id, '--json'])).stdout) as Doc;
    expect(only.rows.map((r) => r.id)).toEqual(['self-add', one.id]);
  }, 300_000);

  it('--shard K/N splits the generated rows into disjoint shards that cover them all', async () => {
    const ids = await Promise.all([1, 2].map(async (k) => {
      const d = JSON.parse((await runMutateCli(repo.root, ['--in-diff', 'HEAD~1', '--shard', `${k}/2`, '--workspace', `.nh-gate/shard-${k}`, '--json'])).stdout) as Doc;
      return gen(d).map((r) => r.id);
    }));
    expect(ids[0]!.length).toBe(6);
    expect(ids[0]!.filter((id) => ids[1]!.includes(id))).toEqual([]);
    expect([...ids[0]!, ...ids[1]!].sort()).toEqual(gen(first).map((r) => r.id).sort());
  }, 300_000);

  it('--format github prints one ::warning per survivor at its file and line', async () => {
    const run = await runMutateCli(repo.root, ['--in-diff', 'HEAD~1', '--format', 'github']);
    const warnings = run.stdout.split('\n').filter((l) => l.startsWith('::warning '));
    expect(warnings).toHaveLength(first.survivors.length);
    for (const s of first.survivors) expect(run.stdout).toContain(`::warning file=engine/src/window.cpp,line=${s.line},`);
    expect(run.stdout).toMatch(/^::notice title=nh-gate mutate::generated rows: 12: /m);
    expect(run.code).toBe(1);
  }, 300_000);

  it('bad input: an unknown REV exits 2 by name; a diff touching no source is NOT MEASURED (3) before any tree', async () => {
    const bad = await runMutateCli(repo.root, ['--in-diff', 'no-such-rev']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/USAGE: --in-diff no-such-rev: not a revision git knows/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const r = makeRepo();
    writeFileSync(join(r.root, 'NOTES.md'), 'not a source\n');
    git(r.root, 'add', '-A');
    git(r.root, 'commit', '-qm', 'docs only');
    const before = treeSha(join(r.root, 'engine'), sourceExclude).sha;
    const none = await runMutateCli(r.root, ['--in-diff', 'HEAD~1']);
    expect(none.code).toBe(3);
    expect(none.stdout).toMatch(/NOT MEASURED \(NO_SOURCE_IN_DIFF\): --in-diff HEAD~1: the diff touches no C\/C\+\+\/CUDA source under engine \(it changes 1 file\(s\): NOTES\.md\)/);
    expect(existsSync(join(r.root, '.nh-gate', 'mutate', 'mutfix', 'tree-0'))).toBe(false);
    expect(treeSha(join(r.root, 'engine'), sourceExclude).sha).toBe(before);
    const badShard = await runMutateCli(r.root, ['--in-diff', 'HEAD~1', '--shard', '3/2']);
    expect(badShard.code).toBe(2);
    expect(badShard.stderr).toMatch(/--shard 3\/2: not K\/N/);
  }, 300_000);
});
