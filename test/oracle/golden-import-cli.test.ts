// `nh-gate golden import | accept | export` for vllm.cpp oracle.json, through the real command parser:
// staged for review, accepted through the one accept path, handed back byte for byte.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/engine.js';


const ORACLE = join(repoRoot, 'test/fixtures/vllm-cpp/nemotron_35_lightning_greedy/oracle.json');
const NAME = 'nemotron_35_lightning_greedy';

describe('golden import --format vllm-cpp-oracle', () => {
  it('stages, accepts and exports the original byte for byte; an original edited after accept is refused', async () => {
    const root = mkdtempSync(join(tmpdir(), 'nh-import-'));
    const imp = await cli('golden', 'import', '--format', 'vllm-cpp-oracle', ORACLE, '--root', root);
    expect(imp.code).toBe(0);
    expect(imp.out).toContain('oracle            vllm 0.23.1rc1.dev1511+g555967922');
    expect(imp.out).toContain('engine config     recorded: no');
    expect(imp.out).toContain('licenses no NEAR-TIE PASS');
    expect(imp.out).toMatch(/source {12}vllm-cpp-oracle: oracle\.json beside it, sha256 659c26bd2301317d/);
    expect(imp.out).toContain(`STAGED, not accepted. After review: nh-gate golden accept ${NAME}`);
    const committedDir = join(root, 'goldens', NAME);
    expect(existsSync(committedDir)).toBe(false);
    expect(readFileSync(join(root, '.nh-gate/golden-staging', NAME, 'oracle.json'))).toEqual(readFileSync(ORACLE));

    expect((await cli('golden', 'accept', NAME, '--root', root)).code).toBe(0);
    expect(readFileSync(join(committedDir, 'oracle.json'))).toEqual(readFileSync(ORACLE));
    const g = JSON.parse(readFileSync(join(committedDir, 'golden.json'), 'utf8'));
    expect(g.source).toMatchObject({ format: 'vllm-cpp-oracle', file: 'oracle.json' });

    const out = join(root, 'handed.json');
    const exp = await cli('golden', 'export', NAME, '--format', 'vllm-cpp-oracle', '--out', out, '--root', root, '--json');
    expect(exp.code).toBe(0);
    expect(JSON.parse(exp.out)).toMatchObject({ schemaVersion: 1, origin: 'original' });
    expect(readFileSync(out)).toEqual(readFileSync(ORACLE));

    // The original edited after accept: refused by name, nothing handed over.
    writeFileSync(join(committedDir, 'oracle.json'), readFileSync(ORACLE, 'utf8').replace('6993', '6994'));
    const edited = await cli('golden', 'export', NAME, '--format', 'vllm-cpp-oracle', '--out', join(root, 'x.json'), '--root', root);
    expect(edited.code).toBe(2);
    expect(edited.err).toMatch(/BAD_INPUT: .*oracle\.json: sha256 [0-9a-f]{64} is not the [0-9a-f]{64} that .*golden\.json recorded at import/);
    expect(existsSync(join(root, 'x.json'))).toBe(false);
  });

  it('bad files exit 2 with file and field named, and stage nothing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'nh-import-bad-'));
    const dir = join(root, 'in', 'broken_golden');
    mkdirSync(dir, { recursive: true });
    const write = (t: string): string => { writeFileSync(join(dir, 'oracle.json'), t); return join(dir, 'oracle.json'); };
    const doc = JSON.parse(readFileSync(ORACLE, 'utf8'));
    const bad: Array<[string, RegExp]> = [
      [JSON.stringify({ ...doc, golden: [] }), /oracle\.json: golden: empty: the engine refuses a golden with ZERO entries/],
      [JSON.stringify({ ...doc, golden: [{ ...doc.golden[0], prompt_token_ids: [] }] }), /golden\.0\.prompt_token_ids: empty/],
      [JSON.stringify({ ...doc, golden: [{ ...doc.golden[0], token_ids: [] }] }), /golden\.0\.token_ids: empty/],
      [JSON.stringify({ ...doc, golden: [{ ...doc.golden[0], token_ids: doc.golden[0].token_ids.map((t: number) => t + 0.5) }] }), /golden\.0\.token_ids\.0: a token id must be an integer/],
      [readFileSync(ORACLE, 'utf8').slice(0, 3000), /\(root\): not valid JSON/],
    ];
    for (const [t, msg] of bad) {
      const r = await cli('golden', 'import', '--format', 'vllm-cpp-oracle', write(t), '--root', root);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(msg);
      expect(r.err).toContain('broken_golden/oracle.json');
      expect(r.err).not.toMatch(/\n\s+at /);
      expect(existsSync(join(root, '.nh-gate', 'golden-staging'))).toBe(false);
    }
    const fmt = await cli('golden', 'import', '--format', 'gguf', ORACLE, '--root', root);
    expect(fmt.code).toBe(2);
    expect(fmt.err).toContain('fix: pass --format vllm-cpp-oracle');
  });
});
