import { readFileSync, existsSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { treeSha } from '../../src/mutate/files.js';
import { sourceExclude } from '../../src/mutate/run.js';
import { ensureDist, gitStatus, latestRunDir, makeRepo, readResult, runMutateCli, writeJson, type FixtureRepo } from './helpers.js';

// End to end: the real CLI, real CMake + ninja builds of the C++ fixture, real doctest runs.
const require = createRequire(import.meta.url);
let repo: FixtureRepo;
beforeAll(() => {
  ensureDist();
  repo = makeRepo();
});

const verdicts = (root: string): Record<string, string> =>
  Object.fromEntries(readResult(root).rows.map((r) => [r.id, `${r.verdict}${r.reason ? ` ${r.reason}` : ''}${r.matchesExpectation ? '' : ' !'}`]));

describe('nh-gate mutate on the fixture', () => {
  it('judges every row, never writes the user tree, and writes Stryker JSON, HTML and junit', async () => {
    const before = treeSha(join(repo.root, 'engine'), sourceExclude).sha;
    const run = await runMutateCli(repo.root, ['--jobs', '2']);
    expect(run.stderr).not.toMatch(/INTERNAL/);
    expect(verdicts(repo.root)).toEqual({
      'self-add': 'CAUGHT',
      'group-clamp': 'CAUGHT',
      'window-off-by-one': 'CAUGHT',
      'twice-equivalent': 'SURVIVED',
      'add-unviable': 'VOID UNVIABLE',
      'comment-only': 'VOID NOT_REBUILT !',
    });
    expect(run.code).toBe(3); // one VOID the table did not expect, no survivor it did not expect
    const res = readResult(repo.root);
    expect(res.rows.find((r) => r.id === 'group-clamp')?.mustFailCaseFailed).toBe(true);
    expect(res.rows.find((r) => r.id === 'add-unviable')?.compileExit).not.toBe(0);
    // UNVIABLE carries the compiler's first error line, so the reason is on the row itself.
    expect((res.rows.find((r) => r.id === 'add-unviable') as unknown as { detail: string }).detail).toMatch(/compile failed \(exit \d+, \d+ error lines\): .*calc\.cpp:\d+:\d+: error: /);
    expect(run.stdout).toMatch(/│ id\s+│ build\s+│ binary sha12\s+│ cases\s+│ status\s+│ verdict/);
    // the table fits 100 columns, whatever the row texts
    for (const line of run.stdout.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(100);
    expect(run.stdout).toMatch(/byte-identical/);
    expect(gitStatus(repo.root)).toBe('');
    expect(treeSha(join(repo.root, 'engine'), sourceExclude).sha).toBe(before);
    expect((res.userTree as { unchanged: boolean }).unchanged).toBe(true);

    const dir = latestRunDir(repo.root);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toMatch(/^## nh-gate mutate: VOID/);
    const ledger = readFileSync(join(repo.root, '.nh-gate', 'ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(ledger.at(-1)).toMatchObject({ schemaVersion: 1, command: 'mutate', recipe: 'mutfix', verdict: 'VOID', figures: { caught: { value: 3 }, survived: { value: 1 } } });
    const Ajv = require('ajv');
    const ajv = new Ajv({ allErrors: true, strict: false });
    const schema = require('mutation-testing-report-schema/mutation-testing-report-schema.json');
    const report = JSON.parse(readFileSync(join(dir, 'mutation-report.json'), 'utf8'));
    expect(ajv.validate(schema, report), JSON.stringify(ajv.errors)).toBe(true);
    const statuses = Object.values(report.files as Record<string, { mutants: { id: string; status: string }[] }>).flatMap((f) => f.mutants.map((m) => `${m.id}:${m.status}`)).sort();
    expect(statuses).toEqual(['add-unviable:CompileError', 'comment-only:RuntimeError', 'group-clamp:Killed', 'self-add:Killed', 'twice-equivalent:Survived', 'window-off-by-one:Killed']);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testsuites name="nh-gate mutate" tests="6" failures="0" errors="1"/);
    expect(readFileSync(join(dir, 'mutation-report.html'), 'utf8')).toMatch(/comment-only[\s\S]*NOT_REBUILT/);
  });

  it('--only runs one row after its self-test; every row as promised exits 0', async () => {
    const run = await runMutateCli(repo.root, ['--only', 'group-clamp']);
    expect(verdicts(repo.root)).toEqual({ 'self-add': 'CAUGHT', 'group-clamp': 'CAUGHT' });
    expect(run.code).toBe(0);
  });

  it('--in-diff REF runs only the rows whose file changed since REF', async () => {
    appendFileSync(join(repo.root, 'engine', 'src', 'window.cpp'), '// touched\n');
    try {
      const run = await runMutateCli(repo.root, ['--in-diff', 'HEAD', '--json']);
      const doc = JSON.parse(run.stdout);
      expect(doc.rows.map((r: { id: string }) => r.id)).toEqual(['self-add', 'window-off-by-one']);
      expect(run.code).toBe(0);
      const bad = await runMutateCli(repo.root, ['--in-diff', 'no-such-ref']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--in-diff no-such-ref: not a revision git knows/);
    } finally {
      writeFileSyncBack(repo);
    }
  });

  it('a self-test that is not CAUGHT voids its suite; a hang is TIMEOUT, not CAUGHT', async () => {
    const saved = structuredClone(repo.table);
    try {
      repo.table.mutants = [
        { ...saved.mutants[3]!, id: 'self-equivalent', selfTest: true, expect: 'caught' },
        saved.mutants[1]!,
      ];
      writeJson(repo);
      let run = await runMutateCli(repo.root, []);
      expect(verdicts(repo.root)).toEqual({ 'self-equivalent': 'SURVIVED !', 'group-clamp': 'VOID SELF_TEST_FAILED !' });
      expect(run.code).toBe(1);

      repo.table.timeoutFloorS = 3;
      repo.table.mutants = [saved.mutants[0]!, { id: 'spin-forever', file: 'engine/src/calc.cpp', anchor: 'volatile int stride = 1;', replacement: 'volatile int stride = 0;', why: 'never terminates', suite: 'calc', expect: 'caught' }];
      writeJson(repo);
      run = await runMutateCli(repo.root, []);
      expect(verdicts(repo.root)).toEqual({ 'self-add': 'CAUGHT', 'spin-forever': 'TIMEOUT !' });
      expect(run.code).toBe(3);
    } finally {
      repo.table = saved;
      writeJson(repo);
    }
  });

  it('STALE and AMBIGUOUS anchors are VOID before any build', async () => {
    const r = makeRepo((x) => {
      x.table.mutants = [
        x.table.mutants[0]!,
        { ...x.table.mutants[1]!, id: 'stale', anchor: 'no such text' },
        { ...x.table.mutants[1]!, id: 'ambiguous', anchor: 'return ' },
      ];
      x.table.mutants[0] = { ...x.table.mutants[0]!, anchor: 'not here either' };
    });
    const run = await runMutateCli(r.root, []);
    expect(verdicts(r.root)).toEqual({ 'self-add': 'VOID STALE !', stale: 'VOID STALE !', ambiguous: 'VOID AMBIGUOUS !' });
    expect(run.code).toBe(3);
    expect(existsSync(join(r.root, '.nh-gate', 'mutate', 'mutfix', 'tree-0'))).toBe(false);
  });

  it('a bad table exits 2 naming the file and field, without a stack trace', async () => {
    const r = makeRepo((x) => {
      x.table.mutants = [{ ...x.table.mutants[0]!, expect: 'killed' }, { ...x.table.mutants[1]!, suite: 'nope' }];
    });
    const run = await runMutateCli(r.root, []);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/gates\/mutations\.json: mutants\.0\.expect:/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('a restore that does not rebuild the baseline binary is VOID NOT_RESTORED', async () => {
    const r = makeRepo((x) => {
      x.recipe.name = 'mutfix-stamp';
      // Every build after the baseline marks the binary the same way: a restore that is reproducible, and wrong.
      x.recipe.build = ['sh', '-c', 'cmake --build "$0" -j "$1" && if [ -f "$0/.baselined" ]; then printf x >> "$0/calc_tests"; else touch "$0/.baselined"; fi', '{buildDir}', '{jobs}'];
    });
    const run = await runMutateCli(r.root, ['--only', 'self-add']);
    const res = JSON.parse(readFileSync(join(latestRunDir(r.root, 'mutfix-stamp'), 'result.json'), 'utf8'));
    expect(res.rows.map((x: { id: string; reason: string }) => `${x.id}:${x.reason}`)).toEqual(['self-add:NOT_RESTORED']);
    expect(run.code).toBe(3);
  });

  it('a build that is not reproducible (the same bytes built twice differ) is VOID NOT_REPRODUCIBLE, naming both shas', async () => {
    const r = makeRepo((x) => {
      x.recipe.name = 'mutfix-clock';
      // Every build stamps the binary with the time, as nvcc's per-compile temp names did.
      x.recipe.build = ['sh', '-c', 'cmake --build "$0" -j "$1" && date +%s%N >> "$0/calc_tests"', '{buildDir}', '{jobs}'];
    });
    const run = await runMutateCli(r.root, ['--only', 'self-add']);
    const res = JSON.parse(readFileSync(join(latestRunDir(r.root, 'mutfix-clock'), 'result.json'), 'utf8'));
    expect(res.rows.map((x: { id: string; reason: string }) => `${x.id}:${x.reason}`)).toEqual(['self-add:NOT_REPRODUCIBLE']);
    expect(res.rows[0].detail).toMatch(/^CAUGHT, but the unmutated engine\/src\/calc\.cpp built twice gave [0-9a-f]{16} and [0-9a-f]{16} \(baseline [0-9a-f]{16}\)/);
    expect(run.code).toBe(3);
  });

  it('device rows on arch cpu: VOID NO_GPU_ARCH before any build, left out of the score; a run of only those is NOT MEASURED', async () => {
    const r = makeRepo((x) => {
      x.recipe.name = 'mutfix-device';
      x.table.mutants.push({ id: 'dev-clamp', file: 'engine/src/calc.cpp', anchor: 'return head / heads_per_group;', replacement: 'return 0;', why: 'stands for a kernel defect', suite: 'calc', expect: 'caught', device: true });
    });
    const both = await runMutateCli(r.root, ['--only', 'group-clamp,dev-clamp']);
    const res = JSON.parse(readFileSync(join(latestRunDir(r.root, 'mutfix-device'), 'result.json'), 'utf8'));
    const dev = res.rows.find((x: { id: string }) => x.id === 'dev-clamp');
    expect(dev).toMatchObject({ verdict: 'VOID', reason: 'NO_GPU_ARCH', excluded: true, compileExit: null, binarySha: null });
    expect(res.rows.map((x: { id: string; verdict: string }) => `${x.id}:${x.verdict}`)).toEqual(['self-add:CAUGHT', 'group-clamp:CAUGHT', 'dev-clamp:VOID']);
    expect(both.stdout).toContain('1 device row(s) not run on arch cpu (VOID NO_GPU_ARCH, left out of the score)');
    expect(both.code).toBe(0);
    const only = await runMutateCli(r.root, ['--only', 'dev-clamp']);
    expect(only.code).toBe(3);
  });
});

function writeFileSyncBack(r: FixtureRepo): void {
  const path = join(r.root, 'engine', 'src', 'window.cpp');
  const text = readFileSync(path, 'utf8').replace('// touched\n', '');
  require('node:fs').writeFileSync(path, text);
}
