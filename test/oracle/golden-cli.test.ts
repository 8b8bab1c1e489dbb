import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli } from '../helpers/cli.js';
import { GoldenSchema } from '../../src/config/golden.js';
import { writeFixture } from './fixture.js';


let root: string;
let ckA: string, ckB: string, prompts: string;
const staged = (r: string) => join(r, '.nh-gate', 'golden-staging', 'fx', 'golden.json');
const committed = (r: string) => join(r, 'goldens', 'fx', 'golden.json');
const capture = (ck: string, ...more: string[]) =>
  cli('golden', 'capture', '--preset', 'fixture', '--name', 'fx', '--checkpoint', ck, '--prompts', prompts, '--max-new', '6', '--runs', '2', '--root', root, ...more);

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'nh-oracle-cli-'));
  ckA = join(dir, 'a.bin');
  ckB = join(dir, 'b.bin');
  writeFileSync(ckA, writeFixture({ seed: 1 }));
  writeFileSync(ckB, writeFixture({ seed: 2 }));
  prompts = join(dir, 'prompts.json');
  writeFileSync(prompts, JSON.stringify(['hello', 'Grüße']));
});

afterEach(() => vi.restoreAllMocks());

describe('nh-gate golden capture / accept / show', () => {
  it('capture stages, never writes goldens/, and prints the review; accept moves it; a recapture of another checkpoint shows the change', async () => {
    root = mkdtempSync(join(tmpdir(), 'nh-oracle-root-'));
    const first = await capture(ckA);
    expect(first.code).toBe(0);
    expect(existsSync(staged(root))).toBe(true);
    expect(existsSync(committed(root))).toBe(false);
    expect(first.out).toMatch(/NEW golden fx/);
    expect(first.out).toMatch(/determinism: 2 oracle run\(s\), 0 multi-valued cell\(s\)/);
    expect(first.out).toMatch(/cross-check: fresh-prefill mode gives the same tokens/);
    expect(first.out).toMatch(/STAGED, not accepted\. After review: nh-gate golden accept fx/);
    const g = GoldenSchema.parse(JSON.parse(readFileSync(staged(root), 'utf8')));
    expect(g.prompts.map((p) => p.text)).toEqual(['hello', 'Grüße']);
    expect(g.prompts[1]!.promptTokens).toEqual([...Buffer.from('Grüße', 'utf8')]);
    expect(g.prompts.every((p) => p.tokens.length === 6 && p.top2MarginNats!.length === 6 && p.runnerUp!.length === 6)).toBe(true);
    expect(g.engineConfigRecorded).toBe('yes');
    expect(g.determinism).toEqual({ runs: 2, multiValuedCells: 0 });

    const acc = await cli('golden', 'accept', 'fx', '--root', root);
    expect(acc.code).toBe(0);
    expect(acc.out).toMatch(/ACCEPTED .*goldens\/fx\/golden\.json/);
    expect(existsSync(staged(root))).toBe(false);
    const before = readFileSync(committed(root), 'utf8');
    expect(JSON.parse(before).checkpoint.revision).toBe(g.checkpoint.revision);

    const second = await capture(ckB, '--json');
    expect(second.code).toBe(0);
    const doc = JSON.parse(second.out);
    expect(doc.changed).toBe(true);
    expect(doc.diff.some((l: string) => l.startsWith('  checkpoint.revision: '))).toBe(true);
    expect(doc.diff.some((l: string) => /prompt \d: \d+ of 6 tokens differ/.test(l))).toBe(true);
    // staged, not accepted: the committed golden did not move
    expect(readFileSync(committed(root), 'utf8')).toBe(before);

    const show = await cli('golden', 'show', 'fx', '--staged', '--root', root, '--top', '2');
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/smallest top-2 margins/);
    expect(show.out.match(/position \d+: /g)).toHaveLength(2);
  });

  it('accepting a recapture that changed nothing keeps the committed bytes (capturedAt included) and clears staging', async () => {
    root = mkdtempSync(join(tmpdir(), 'nh-oracle-root-'));
    expect((await capture(ckA)).code).toBe(0);
    expect((await cli('golden', 'accept', 'fx', '--root', root)).code).toBe(0);
    const before = readFileSync(committed(root), 'utf8');
    await new Promise((r) => setTimeout(r, 20)); // a later capture time
    expect((await capture(ckA)).code).toBe(0);
    expect(JSON.parse(readFileSync(staged(root), 'utf8')).capturedAt).not.toBe(JSON.parse(before).capturedAt);
    const again = await cli('golden', 'accept', 'fx', '--root', root);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/UNCHANGED .*kept byte for byte/);
    expect(readFileSync(committed(root), 'utf8')).toBe(before);
    expect(existsSync(staged(root))).toBe(false);
    const json = await (async () => { await capture(ckA); return cli('golden', 'accept', 'fx', '--root', root, '--json'); })();
    expect(JSON.parse(json.out)).toMatchObject({ schemaVersion: 1, changed: false });
  });

  it('refuses by name and exit 2: nothing staged, a wrong preset, a missing checkpoint, a pinned sha mismatch, a bad option', async () => {
    root = mkdtempSync(join(tmpdir(), 'nh-oracle-root-'));
    const none = await cli('golden', 'accept', 'fx', '--root', root);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/UNKNOWN_GOLDEN: nothing staged for golden fx/);
    const preset = await cli('golden', 'capture', '--preset', 'tiny', '--checkpoint', ckA, '--root', root);
    expect(preset.code).toBe(2);
    expect(preset.err).toMatch(/header says preset "fixture", but --preset is "tiny"/);
    const missing = await capture(join(root, 'absent.bin'));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/UNREADABLE_FILE: checkpoint .*absent\.bin cannot be read \(ENOENT\)/);
    const pinned = await capture(ckA, '--expect-sha256', 'f'.repeat(64));
    expect(pinned.code).toBe(2);
    expect(pinned.err).toMatch(/does not match the pinned f{64}/);
    const runs = await capture(ckA, '--runs', '0');
    expect(runs.code).toBe(2);
    expect(runs.err).toMatch(/--runs "0" is not a positive integer/);
    const name = await cli('golden', 'accept', '../etc', '--root', root);
    expect(name.code).toBe(2);
    expect(existsSync(staged(root))).toBe(false);
    expect([none, preset, missing, pinned, runs, name].every((r) => !/\n\s+at /.test(r.err))).toBe(true);
  });

  it('an unreadable committed golden is refused by name, not overwritten', async () => {
    root = mkdtempSync(join(tmpdir(), 'nh-oracle-root-'));
    mkdirSync(join(root, 'goldens', 'fx'), { recursive: true });
    writeFileSync(committed(root), '{ not json');
    const r = await capture(ckA, '--no-cross-check');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/golden\.json: not valid JSON: .*\(line 1, column 3\)/);
    expect(readFileSync(committed(root), 'utf8')).toBe('{ not json');
    const show = await cli('golden', 'show', 'fx', '--root', root);
    expect(show.code).toBe(2);
  });
});
