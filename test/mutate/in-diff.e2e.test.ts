import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { treeSha } from '../../src/mutate/files.js';
import { sourceExclude } from '../../src/mutate/run.js';
import { ensureDist, gitStatus, REPO, runMutateCli } from './helpers.js';

// The "done when", on the real reference engine: a planted commit in the MoE routing code of a
// scratch clone (scripts/ci/plant-in-diff.mjs), `mutate --in-diff HEAD~1 --jobs 2`, real CMake builds
// of native/engine, real doctest runs. Slow (two engine builds): one run, many checks.
interface Row { id: string; verdict: string; reason: string | null; matchesExpectation: boolean; origin?: { line: number; operator: string }; mutation: { filter?: string }; suite: { counts: { failingCases: string[] } | null } | null }
interface Doc { exitCode: number; rows: Row[]; survivors: { file: string; line: number }[]; userTree: { unchanged: boolean }; generation: { generated: number; files: { file: string }[] } }

let root: string;
let doc: Doc;
let code: number | null;
let before: string;
const MOE = 'native/engine/src/moe.cpp';
const lineOf = (needle: string): number => readFileSync(join(root, MOE), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;

beforeAll(async () => {
  ensureDist();
  root = join(mkdtempSync(join(tmpdir(), 'nhg-indiff-')), 'repo');
  execFileSync(process.execPath, [join(REPO, 'scripts', 'ci', 'plant-in-diff.mjs'), root], { stdio: 'ignore' });
  before = treeSha(join(root, 'native', 'engine'), sourceExclude).sha;
  const run = await runMutateCli(root, ['--table', 'gates/nh-ref/mutations.json', '--in-diff', 'HEAD~1', '--jobs', '2', '--json']);
  code = run.code;
  doc = JSON.parse(run.stdout) as Doc;
}, 900_000);

const gen = (): Row[] => doc.rows.filter((r) => r.origin);
const at = (line: number, op: string): Row | undefined => gen().find((r) => r.origin!.line === line && r.origin!.operator === op);

describe('mutate --in-diff HEAD~1 on the reference engine (planted MoE change)', () => {
  it('generates rows only from the changed lines of moe.cpp, judged by the MoE cases', () => {
    expect(doc.generation.files.map((f) => f.file)).toEqual([MOE]);
    expect(gen().length).toBeGreaterThanOrEqual(15);
    for (const r of gen()) expect(r.mutation.filter).toBe('MoE*');
  });

  it('kills the meaningful mutants with the named cases', () => {
    const caught = gen().filter((r) => r.verdict === 'CAUGHT');
    expect(caught.length).toBeGreaterThanOrEqual(10);
    for (const r of caught) for (const c of r.suite?.counts?.failingCases ?? []) expect(c).toMatch(/^MoE /);
    expect(at(lineOf('sum += scores[experts[k]]'), 'drop-accumulate')?.verdict).toBe('CAUGHT');
    expect(at(lineOf('std::max(h[f], 0.0f)'), 'min-max')?.verdict).toBe('CAUGHT');
    expect(at(lineOf('h[f] = relu * relu;'), 'arithmetic')?.verdict).toBe('CAUGHT');
    expect(at(lineOf('r.weights = routedWeights(scores, r.experts);'), 'delete-statement')?.verdict).toBe('CAUGHT');
  });

  it('reports the survivors by line: the zero-sum fallback no test reaches', () => {
    const fallback = lineOf('const float share = sum > 0.0f');
    expect(doc.survivors.map((s) => `${s.file}:${s.line}`)).toContain(`${MOE}:${fallback}`);
    expect(doc.exitCode).toBe(1);
    expect(code).toBe(1);
  });

  it("keeps the table's own rows for moe.cpp on the same path and report", () => {
    const table = Object.fromEntries(doc.rows.filter((r) => !r.origin).map((r) => [r.id, `${r.verdict}${r.matchesExpectation ? '' : ' !'}`]));
    expect(table).toEqual({ 'moe-bias-dropped': 'CAUGHT', 'moe-tie-to-higher': 'CAUGHT', 'equivalent-taken-as-char': 'SURVIVED' });
  });

  it('leaves the tree byte-identical', () => {
    expect(doc.userTree.unchanged).toBe(true);
    expect(treeSha(join(root, 'native', 'engine'), sourceExclude).sha).toBe(before);
    expect(gitStatus(root)).toBe('');
  });
});
