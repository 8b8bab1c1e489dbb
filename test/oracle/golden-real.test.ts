import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProgram } from '../../src/cli/main.js';
import { ensureEngineBuilt, repoRoot } from '../helpers/engine.js';
import { readCheckpoint } from '../../src/oracle/checkpoint.js';
import { buildModel } from '../../src/oracle/model.js';
import { generate } from '../../src/oracle/generate.js';
import { readGoldenFile, committedPath } from '../../src/oracle/store.js';
import { DEFAULT_PROMPTS, promptTokens } from '../../src/oracle/prompts.js';

// The committed golden against the real checkpoint from the engine's nh-ref-ckpt:
// red when the engine's pinned weights move without a recapture, or when the oracle's math drifts.
describe('goldens/nh-ref-tiny against the real tiny checkpoint', () => {
  it('was captured from this checkpoint revision, and the oracle reproduces it token for token', async () => {
    const engine = await ensureEngineBuilt();
    const ck = await readCheckpoint(await engine.checkpoint('tiny'));
    const golden = await readGoldenFile(committedPath(repoRoot, 'nh-ref-tiny'));
    expect(golden, 'goldens/nh-ref-tiny/golden.json is missing').not.toBeNull();
    const g = golden!;
    expect(g.checkpoint.revision, 'the engine\'s tiny checkpoint changed: recapture with nh-gate golden capture and review').toBe(ck.sha256);
    expect(g.prompts.map((p) => p.text)).toEqual([...DEFAULT_PROMPTS]);
    expect(g.determinism?.multiValuedCells).toBe(0);
    const model = buildModel(ck);
    for (const p of g.prompts) {
      expect(p.promptTokens).toEqual(promptTokens(p.text!));
      const gen = generate(model, p.promptTokens, g.sampling.maxNewTokens, 'decode');
      expect(gen.tokens).toEqual(p.tokens);
      gen.top2MarginNats.forEach((m, i) => expect(Math.abs(m - p.top2MarginNats![i]!)).toBeLessThan(1e-9));
    }
  });

  it('the engine driver matches it STRICT at full width (float32 engine vs float64 oracle)', async () => {
    const engine = await ensureEngineBuilt();
    const ckpt = await engine.checkpoint('tiny');
    const r = await execa(engine.driver, ['--checkpoint', ckpt, '--golden', join(repoRoot, 'goldens', 'nh-ref-tiny')], { reject: false, all: true });
    expect(r.all).toMatch(/\[nh-ref\] TOKEN MATCH: 128\/128 over 4 prompt\(s\) \(full rows=4, short rows=0, mode=decode\)/);
    expect(r.all).toMatch(/STRICT PASS/);
    expect(r.exitCode).toBe(0);
  });
});

describe('golden capture without --checkpoint', () => {
  it('asks the recipe\'s engine build for nh-ref-ckpt and stages a golden of the pinned checkpoint', async () => {
    const engine = await ensureEngineBuilt();
    const ck = await readCheckpoint(await engine.checkpoint('tiny'));
    const root = mkdtempSync(join(tmpdir(), 'nh-oracle-recipe-'));
    mkdirSync(join(root, 'recipes'));
    writeFileSync(join(root, 'recipes', 'nh-ref.json'), JSON.stringify({
      schemaVersion: 1, name: 'nh-ref', profile: 'nh-ref', sourceDir: join(repoRoot, 'native', 'engine'), buildDir: engine.buildDir,
      configure: ['true'], build: ['true'], driver: { argv: ['{buildDir}/nh-ref-gen'], binary: '{buildDir}/nh-ref-gen' },
    }));
    writeFileSync(join(root, 'p.txt'), 'The quick brown fox\n');
    process.exitCode = 0;
    const out: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => { out.push(String(s)); return true; }) as typeof process.stdout.write;
    try {
      await createProgram().parseAsync(['node', 'nh-gate', 'golden', 'capture', '--recipe', 'nh-ref', '--preset', 'tiny', '--root', root,
        '--prompts', join(root, 'p.txt'), '--max-new', '8', '--runs', '1', '--no-cross-check', '--json']);
    } finally {
      process.stdout.write = write;
    }
    expect(process.exitCode).toBe(0);
    const doc = JSON.parse(out.join(''));
    expect(doc.golden.checkpoint.revision).toBe(ck.sha256);
    const committed = JSON.parse(readFileSync(join(repoRoot, 'goldens', 'nh-ref-tiny', 'golden.json'), 'utf8'));
    expect(doc.golden.prompts[0].tokens).toEqual(committed.prompts[0].tokens.slice(0, 8));
  });
});

describe('golden capture from another project (issue 24: nh-gate used from a project with no recipes/ of its own)', () => {
  it('--recipe nh-ref is found among the built-ins, as a3 finds it; its build is the package\'s, the golden is staged in the project', async () => {
    const engine = await ensureEngineBuilt();
    const ck = await readCheckpoint(await engine.checkpoint('tiny'));
    const project = mkdtempSync(join(tmpdir(), 'nh-oracle-project-'));
    writeFileSync(join(project, 'p.txt'), 'The quick brown fox\n');
    const r = await execa(process.execPath, [join(repoRoot, 'bin', 'nh-gate.js'), 'golden', 'capture', '--recipe', 'nh-ref', '--preset', 'tiny',
      '--prompts', 'p.txt', '--max-new', '8', '--runs', '1', '--no-cross-check', '--json'], { cwd: project, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.golden.checkpoint.revision).toBe(ck.sha256);
    expect(doc.staged.startsWith(realpathSync(project)) || doc.staged.startsWith(project)).toBe(true);
    expect(existsSync(doc.staged)).toBe(true);
  });
});

describe('goldens/nh-ref-medium against the engine\'s medium preset', () => {
  it('names the revision the engine pins, and the oracle reproduces its first tokens', async () => {
    const engine = await ensureEngineBuilt();
    const printed = await execa(engine.ckptTool, ['--preset', 'medium', '--print-sha']);
    const pinned = printed.stdout.trim().split(/\s+/)[1];
    const g = (await readGoldenFile(committedPath(repoRoot, 'nh-ref-medium')))!;
    expect(g, 'goldens/nh-ref-medium/golden.json is missing').not.toBeNull();
    expect(g.checkpoint.revision, 'the engine\'s medium checkpoint changed: recapture nh-ref-medium').toBe(pinned);
    const model = buildModel(await readCheckpoint(await engine.checkpoint('medium'), pinned));
    const p = g.prompts[0]!;
    expect(generate(model, p.promptTokens, 3, 'decode').tokens).toEqual(p.tokens.slice(0, 3));
  }, 180_000);
});
