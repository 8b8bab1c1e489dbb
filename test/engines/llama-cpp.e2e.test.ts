import { mkdtempSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { repoRoot } from '../helpers/engine.js';
import { CLI, LLAMA_NEED, llamaReady } from './llama.js';
import { needsTitle } from '../helpers/needs.js';
import { expectLegLogsAgree } from '../helpers/legLogs.js';

const dir = mkdtempSync(join(tmpdir(), 'nh-gate-llama-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cli = (args: string[], cwd = dir) => execa('node', [CLI, ...args], { cwd, reject: false, all: true, timeout: 300_000 });
const committed = JSON.parse(readFileSync(join(repoRoot, 'goldens', 'llama-cpp-tiny', 'golden.json'), 'utf8'));

// A golden file that differs from the committed one at (prompt, position), with the margin given there.
function editedGolden(name: string, prompt: number, position: number, token: number, marginNats: number): string {
  const g = structuredClone(committed);
  g.name = name;
  g.prompts[prompt].tokens[position] = token;
  g.prompts[prompt].top2MarginNats[position] = marginNats;
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(g));
  return file;
}

describe.skipIf(!llamaReady)(needsTitle('llama.cpp judged by the harness', LLAMA_NEED), () => {
  it('a driver that prints only token ids (no events file) is judged by the harness: STRICT PASS from printed ids', async () => {
    const recipe = JSON.parse(readFileSync(join(repoRoot, 'recipes', 'llama-cpp.json'), 'utf8'));
    recipe.name = 'llama-cpp-ids-only';
    recipe.driver.eventsArgv = [];
    recipe.sourceDir = join(repoRoot, recipe.sourceDir);
    recipe.buildDir = join(repoRoot, recipe.buildDir);
    recipe.profile = join(repoRoot, recipe.profile);
    recipe.prepare = [];
    recipe.driver.argv = recipe.driver.argv.map((a: string) => a.replace('{root}', repoRoot));
    const file = join(dir, 'llama-cpp-ids-only.json');
    writeFileSync(file, JSON.stringify(recipe));
    const r = await cli(['a3', '--recipe', file, '--golden', join(repoRoot, 'goldens', 'llama-cpp-tiny'), '--results-dir', join(dir, 'res'), '--verbose']);
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toMatch(/tokens 128\/128 over 4 prompt\(s\) \(full rows=4, short rows=0, mode=decode, from printed ids\) → STRICT PASS/);
    expect(r.all).toMatch(/engine said nothing \(exit 0\): agrees with the harness/);
    expect(r.all).toMatch(/per output token after the first \(the engine's own timer\) \d/);
  }, 300_000);

  it('a wrong token against a wide margin is a DIVERGENCE named at its position (exit 1)', async () => {
    const exp = committed.prompts[0].tokens[5] === 7 ? 8 : 7;
    const r = await cli(['a3', '--recipe', 'llama-cpp', '--golden', editedGolden('llama-div', 0, 5, exp, 2), '--results-dir', join(dir, 'res'), '--verbose']);
    expect(r.exitCode, r.all).toBe(1);
    expect(r.all).toMatch(/prompt 0: first mismatch at position 5 \(divergence, golden top-2 margin 2\.0000 nats\)/);
    expect(r.all).toMatch(/→ DIVERGENCE/);
  }, 300_000);

  it('the runner-up at a licensed near-tie is a NEAR-TIE PASS with the margin named (exit 0)', async () => {
    const p = committed.prompts[3];
    const r = await cli(['a3', '--recipe', 'llama-cpp', '--golden', editedGolden('llama-tie', 3, 16, p.runnerUp[16], 0.0005), '--results-dir', join(dir, 'res'), '--verbose']);
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toMatch(/prompt 3: first mismatch at position 16 \(near-tie, golden top-2 margin 0\.0005 nats\)/);
    expect(r.all).toMatch(/NEAR-TIE PASS/);
  }, 300_000);

  it('an undeclared flag value is refused with exit 2 before anything is built', async () => {
    const r = await cli(['ab', '--recipe', 'llama-cpp', '--flag', 'THREADS=1,3', '--results-dir', join(dir, 'res-none')]);
    expect(r.exitCode, r.all).toBe(2);
    expect(r.all).toMatch(/does not declare the value '3'/);
    expect(existsSync(join(dir, 'res-none'))).toBe(false);
  });

  // The three a3 runs above wrote one leg each into res/: printed ids (STRICT PASS), events (DIVERGENCE) and
  // events (NEAR-TIE PASS). The undeclared-flag run writes nothing, and its folder is res-none.
  it('analyze of every leg log above (printed ids, divergence, near-tie) says what its leg said', async () => {
    expect(await expectLegLogsAgree([join(dir, 'res')])).toBe(3);
  }, 120_000);
});

describe('golden capture --oracle-cmd: a bad oracle stages nothing', () => {
  const oracle = (name: string, body: string): string => {
    const f = join(dir, `${name}.mjs`);
    writeFileSync(f, `const req = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));\n${body}\n`.replace("require('node:fs')", "(await import('node:fs'))"));
    return f;
  };
  const ids = join(dir, 'ids.json');
  writeFileSync(ids, JSON.stringify([[5, 6], [7]]));
  const answer = `const a = (p) => ({ id: p.id, tokens: Array(req.sampling.maxNewTokens).fill(9), top2MarginNats: Array(req.sampling.maxNewTokens).fill(1) });
const out = { schemaVersion: 1, oracle: { name: 'toy', version: '1' }, checkpoint: { name: 'ck', revision: 'r' }, engineConfigRecorded: 'unknown', prompts: req.prompts.map(a) };`;
  const capture = (file: string, extra: string[] = []) => cli(['golden', 'capture', '--oracle-cmd', `node ${file}`, '--prompt-ids', ids, '--name', 'toy', '--max-new', '3', '--runs', '2', '--root', dir, ...extra]);

  it('a good oracle stages a golden with its provenance and determinism evidence', async () => {
    const r = await capture(oracle('good', `${answer}\nprocess.stdout.write(JSON.stringify(out));`));
    expect(r.exitCode, r.all).toBe(0);
    const staged = JSON.parse(readFileSync(join(dir, '.nh-gate', 'golden-staging', 'toy', 'golden.json'), 'utf8'));
    expect([staged.oracle.name, staged.origin, staged.determinism.runs, staged.engineConfigRecorded]).toEqual(['toy', 'independent', 2, 'unknown']);
    rmSync(join(dir, '.nh-gate', 'golden-staging'), { recursive: true, force: true });
  });

  // Only the hanging oracle runs under a short --oracle-timeout: the others must fail for their own reason,
  // and under load (2 shared cores) starting node twice can take longer than 2 s, which would end them as
  // 'ran past 2 s' instead (the default timeout is 600 s).
  it.each([
    ['fewer prompts', `${answer}\nout.prompts.pop(); process.stdout.write(JSON.stringify(out));`, /prompt 1 answered 0 times/, []],
    ['non-integer ids', `${answer}\nout.prompts[0].tokens[1] = 2.5; process.stdout.write(JSON.stringify(out));`, /prompts\.0\.tokens\.1/, []],
    ['dies mid-capture', `process.stderr.write('boom\\n'); process.exit(9);`, /failed \(exit 9\): boom; nothing was staged/, []],
    ['hangs', `setTimeout(() => {}, 60000);`, /ran past 2 s and was killed; nothing was staged/, ['--oracle-timeout', '2']],
  ])('%s: exit 2, named, nothing staged', async (name, body, message, extra) => {
    // each case starts with no staged golden, so one case's failure does not turn the next red
    rmSync(join(dir, '.nh-gate', 'golden-staging'), { recursive: true, force: true });
    const r = await capture(oracle(name.replace(/\W/g, '-'), body), extra);
    expect(r.exitCode, r.all).toBe(2);
    expect(r.all).toMatch(message);
    expect(existsSync(join(dir, '.nh-gate', 'golden-staging', 'toy'))).toBe(false);
  }, 300_000);
});

describe('analyze of a raw llama-server log', () => {
  it('gives what its timer lines honestly support: the engine timer, labelled, and no per-token rate of its own', async () => {
    const r = await cli(['analyze', '--log', join(repoRoot, 'test', 'engines', 'fixtures', 'llama-server-raw.log'), '--profile', join(repoRoot, 'profiles', 'llama-server.json')]);
    expect(r.exitCode, r.all).toBe(3);
    expect(r.all).toMatch(/per output token after the first \(the engine's own timer\) 0\.003882 s \(engine's decode time, summed over its timer lines 0\.240660 s; decode steps the engine counted 62 tokens; timer lines 2\)/);
    expect(r.all).toMatch(/per output token REFUSED \(MISSING_TERM\)/);
    expect(r.all).toMatch(/the engine's own timer: 2 line\(s\); it is the engine's claim/);
  });
});
