import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureDist, REPO, runMutateCli, type CliRun } from './helpers.js';

// The sanitizer-armed re-judge on the real reference engine: a planted change moves the Mamba gate
// y * silu(z) into a helper (scripts/ci/plant-in-diff.mjs --change mamba-gate). Its loop bound flipped
// to <= writes one float past the gate buffer: the Mamba mixer case stays GREEN (the write lands in the
// allocation's slack and the extra value is never read), so the plain suite lets it through; the recipe's
// ASan + UBSan build of the same suite catches it. Real CMake builds, real doctest runs.
interface Row {
  id: string; verdict: string; reason: string | null; exitClass: string; detail: string; binarySha: string | null;
  origin?: { line: number; operator: string };
  sanitizer?: { credited: boolean; verdict: string; finding: string | null; binarySha: string | null; restoreSha: string | null; suite: { exitCode: number | null } | null };
}
interface Doc { exitCode: number; rows: Row[]; survivors: { line: number }[]; sanitizerOnly: { file: string; line: number; operator: string; finding: string }[] }

const MAMBA = 'native/engine/src/mamba.cpp';
let root: string;
let armed: CliRun;
let doc: Doc;
let plain: Doc;
let plainCode: number | null;

beforeAll(async () => {
  ensureDist();
  // Inside the repository (ignored .nh-gate/) at a fixed path, so CI's ccache (base dir: the clone) serves
  // the plain and the sanitizer builds of the engine from one run to the next.
  const work = join(REPO, '.nh-gate', 'test', 'sanitizer-e2e');
  rmSync(work, { recursive: true, force: true });
  root = join(work, 'repo');
  execFileSync(process.execPath, [join(REPO, 'scripts', 'ci', 'plant-in-diff.mjs'), root, '--change', 'mamba-gate'], { stdio: 'ignore' });
  // A table holding one armed self-test, on the Mamba mixer case (the state carry dropped), and routes that
  // judge mamba.cpp by that case with one mutant per changed line (the relational flip comes first): one
  // suite key, few builds. The deleted gate call survives too, and stays a survivor: it zeroes every Mamba
  // output alike, which a case comparing the decode arms with each other cannot see (the driver's golden
  // is the engine's own, so it cannot either).
  const table = JSON.parse(readFileSync(join(root, 'gates', 'nh-ref', 'mutations.json'), 'utf8')) as { mutants: { id: string }[] };
  const self = { ...table.mutants.find((m) => m.id === 'ssm-state-carry-dropped')!, selfTest: true, filter: 'Mamba mixer*' };
  mkdirSync(join(root, 'gates', 'san'), { recursive: true });
  writeFileSync(join(root, 'gates', 'san', 'mutations.json'), JSON.stringify({ ...table, recipe: 'nh-ref', mutants: [self] }, null, 2));
  writeFileSync(join(root, 'gates', 'san', 'in-diff.json'), JSON.stringify({
    schemaVersion: 1, recipe: 'nh-ref', perLineCap: 1, perChangeCap: 10,
    routes: [{ files: MAMBA, suite: 'nh-ref-tests', filter: 'Mamba mixer*' }],
  }, null, 2));
  armed = await runMutateCli(root, ['--table', 'gates/san/mutations.json', '--in-diff', 'HEAD~1', '--out', join(root, '.nh-gate', 'armed')]);
  doc = JSON.parse(readFileSync(join(root, '.nh-gate', 'armed', 'result.json'), 'utf8')) as Doc;
  const run = await runMutateCli(root, ['--table', 'gates/san/mutations.json', '--in-diff', 'HEAD~1', '--no-sanitizer', '--json']);
  plainCode = run.code;
  plain = JSON.parse(run.stdout) as Doc;
}, 2_400_000);

const loopLine = (): number => readFileSync(join(root, MAMBA), 'utf8').split('\n').findIndex((l) => l.includes('for (int i = 0; i < dI; ++i) g[i] = y[i] * silu(z[i]);')) + 1;
const callLine = (): number => readFileSync(join(root, MAMBA), 'utf8').split('\n').findIndex((l) => l.includes('gate(y, z, g.data(), dI);')) + 1;
const relational = (d: Doc): Row => d.rows.find((r) => r.origin?.operator === 'relational' && r.origin.line === loopLine())!;

describe('a survivor of the plain suite, re-judged in the sanitizer build (ASan + UBSan)', () => {
  it('the loop bound <= survives the plain suite: with --no-sanitizer it is a SURVIVED row and the run exits 1', () => {
    expect(relational(plain)).toMatchObject({ verdict: 'SURVIVED', exitClass: 'failed' });
    expect(relational(plain).sanitizer).toBeUndefined();
    expect(plain.survivors.map((s) => s.line)).toEqual([loopLine(), callLine()]);
    expect(plainCode).toBe(1);
  });

  it('is CAUGHT BY SANITIZER: the sanitized suite went RED on an AddressSanitizer report, with the same proofs', () => {
    const r = relational(doc);
    expect(r.verdict).toBe('CAUGHT BY SANITIZER');
    expect(r.exitClass).toBe('passed');
    expect(r.sanitizer).toMatchObject({ credited: true, verdict: 'CAUGHT' });
    expect(r.sanitizer!.finding).toMatch(/AddressSanitizer: heap-buffer-overflow/);
    expect(r.sanitizer!.finding).toMatch(/mamba\.cpp/);
    // Built and changed in the sanitizer build, then restored to its baseline (judgeMutant's proofs).
    expect(r.sanitizer!.binarySha).toMatch(/^[0-9a-f]{64}$/);
    expect(r.sanitizer!.restoreSha).toMatch(/^[0-9a-f]{64}$/);
    expect(r.sanitizer!.binarySha).not.toBe(r.sanitizer!.restoreSha);
    expect(r.sanitizer!.suite!.exitCode).not.toBe(0);
  });

  it('is counted apart from CAUGHT, and the report names the line only a sanitizer protects', () => {
    expect(doc.rows.filter((r) => r.verdict === 'CAUGHT').map((r) => r.id)).toEqual(['ssm-state-carry-dropped']);
    expect(doc.rows.filter((r) => r.verdict === 'CAUGHT BY SANITIZER').map((r) => r.id)).toEqual([relational(doc).id]);
    expect(doc.sanitizerOnly).toEqual([expect.objectContaining({ file: MAMBA, line: loopLine(), operator: 'relational' })]);
    // The deleted call is not a relational/bounds/index mutant: it is not re-judged and stays a survivor.
    expect(doc.survivors.map((s) => s.line)).toEqual([callLine()]);
    expect(doc.rows.find((r) => r.origin?.line === callLine())!.sanitizer).toBeUndefined();
    expect(armed.stdout).toMatch(/generated rows: 2: 0 caught, 1 caught only by the sanitizer build, 1 survived/);
    expect(armed.stdout).toMatch(new RegExp(`lines only a sanitizer protects \\(1\\)[^\\n]*\\n  ${MAMBA}:${loopLine()}: relational`));
    expect(armed.code).toBe(1);
  });
});
