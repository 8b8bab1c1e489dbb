// Which golden file a driver is handed, by its recipe's goldenFormat: decided at load (a stale original
// refuses before any build), placed per run (a written one lands in the run directory).
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../../src/gates/setup.js';
import { placeDriverGolden } from '../../src/gates/driverGolden.js';
import { parseOracleText } from '../../src/oracle/vllmCpp/read.js';
import { runImport } from '../../src/oracle/run-import.js';
import { acceptStaged } from '../../src/oracle/store.js';
import { repoRoot } from '../helpers/engine.js';
import { collectFiles, validateFile } from '../../src/config/validate.js';

const ORACLE = join(repoRoot, 'test/fixtures/vllm-cpp/at-9735f150/oracle.json');
const quiet = async <T>(f: () => Promise<T>): Promise<T> => {
  const w = process.stdout.write.bind(process.stdout);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try { return await f(); } finally { process.stdout.write = w; }
};

describe('driver golden', () => {
  it('nh-gate recipes keep handing golden.json; nemotron-h gets a written oracle.json for a golden with no original', () => {
    const ref = loadInputs({ command: 'a3', recipe: 'nh-ref' });
    expect(ref.driverGolden).toEqual({ format: 'nh-gate' });
    const nemo = loadInputs({ command: 'a3', recipe: 'nemotron-h', golden: join(repoRoot, 'goldens/nh-ref-tiny') });
    const run = mkdtempSync(join(tmpdir(), 'nh-dg-'));
    const placed = placeDriverGolden(nemo.driverGolden, nemo.goldenPath, run);
    expect(placed.path).toBe(join(run, 'golden', 'oracle.json'));
    const doc = parseOracleText(readFileSync(placed.path, 'utf8'), placed.path);
    expect(doc.golden.map((e) => e.token_ids)).toEqual(nemo.golden.prompts.map((p) => p.tokens));
  });

  it('an imported original that changed after accept refuses at load, before anything is built', async () => {
    const root = mkdtempSync(join(tmpdir(), 'nh-dg-root-'));
    cpSync(ORACLE, join(root, 'in.json'));
    await quiet(() => runImport({ root, file: join(root, 'in.json'), format: 'vllm-cpp-oracle', name: 'g', json: false }));
    await acceptStaged(root, 'g');
    const dir = join(root, 'goldens', 'g');
    expect(loadInputs({ command: 'a3', recipe: 'nemotron-h', golden: dir }).driverGolden).toMatchObject({ format: 'vllm-cpp-oracle', handoff: { origin: 'original', path: join(dir, 'oracle.json') } });
    const sweep = () => collectFiles([], root).map((f) => validateFile(f, root, root));
    expect(sweep().map((r) => [r.file, r.kind, r.issues])).toEqual([['goldens/g/golden.json', 'golden', []], ['goldens/g/oracle.json', 'oracle', []]]);
    writeFileSync(join(dir, 'oracle.json'), readFileSync(join(dir, 'oracle.json'), 'utf8') + ' ');
    expect(sweep()[0]!.issues).toEqual(['goldens/g/golden.json: source.sha256: ' + join(dir, 'oracle.json') + ' is not the file this golden was imported from (re-import and accept it)']);
    expect(() => loadInputs({ command: 'a3', recipe: 'nemotron-h', golden: dir })).toThrow(/oracle\.json: sha256 [0-9a-f]{64} is not the [0-9a-f]{64} that .*golden\.json recorded at import/);
  });
});
