import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { floodRepo } from '../../bench/flood-repo.mjs';
import { repoRoot } from '../helpers/engine.js';

// Issue 21: every bad config class is exit 2 from `validate` AND from the run that reads it, with no stack
// trace and nothing written. Before, each of these validated (or crashed): `timeoutS: 3000000` became a 1 ms
// timer (VOID TIMEOUT), `repeats: 1e12` ran the heap out (exit 134), a NUL in an argv element was exit 70, a
// duplicate key was last-wins in silence, a gate's missing flag or golden passed validate.

const BIN = join(repoRoot, 'bin', 'nh-gate.js');

interface Run { code: number | undefined; out: string; err: string }

async function nhg(cwd: string, args: string[]): Promise<Run> {
  const r = await execa('node', [BIN, ...args], { cwd, reject: false, env: { ...process.env, NH_GATE_LOCK: join(cwd, 'res', 'gpu.lock') } });
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

// A project around the flood stand-in engine: recipe, golden, an ab gate, a suite and its mutation table.
function project(): { dir: string; recipe: Record<string, any>; gate: Record<string, any>; golden: Record<string, any> } {
  const { root } = floodRepo();
  const recipe = JSON.parse(readFileSync(join(root, 'recipes', 'flood.json'), 'utf8'));
  recipe.suites = [{ name: 'unit', argv: ['true'] }];
  recipe.flags.THREADS = { env: 'FLOOD_THREADS', on: '2', off: '1', values: ['1', '2', '4'], default: 'off' };
  writeFileSync(join(root, 'recipes', 'flood.json'), JSON.stringify(recipe, null, 2));
  const gate = {
    schemaVersion: 1, kind: 'ab', name: 'flood-ab', recipe: 'flood', flag: 'FLAG', repeats: 2, env: {},
    hypothesis: { statement: 's', metric: 'perOutputToken', expect: 'on-faster', refutedIfLessThanPct: 3 },
  };
  mkdirSync(join(root, 'gates', 'flood'), { recursive: true });
  writeFileSync(join(root, 'gates', 'flood', 'g.json'), JSON.stringify(gate, null, 2));
  writeFileSync(join(root, 'gates', 'flood', 'mutations.json'), JSON.stringify({
    schemaVersion: 1, recipe: 'flood',
    mutants: [{ id: 'self', selfTest: true, file: 'driver.sh', anchor: 'STRICT PASS', replacement: 'STRICT FAIL', why: 'w', suite: 'unit', expect: 'caught' }],
  }, null, 2));
  const golden = JSON.parse(readFileSync(join(root, 'goldens', 'g-flood', 'golden.json'), 'utf8'));
  return { dir: root, recipe, gate, golden };
}

interface BadCase {
  what: string;
  // Writes the bad file into the project; returns its path (relative to the project) for `validate`.
  write: (p: ReturnType<typeof project>) => string;
  // The command that reads it as a run does.
  run: string[];
  // What validate and the run both say.
  says: RegExp;
}

const text = (p: ReturnType<typeof project>, rel: string, body: string): string => {
  mkdirSync(join(p.dir, rel, '..'), { recursive: true });
  writeFileSync(join(p.dir, rel), body);
  return rel;
};
const json = (p: ReturnType<typeof project>, rel: string, body: unknown): string => text(p, rel, JSON.stringify(body, null, 2));
const GATE = 'gates/flood/g.json';
const RECIPE = 'recipes/flood.json';

const CASES: BadCase[] = [
  { what: 'a recipe timeout past the 2^31 ms timer', write: (p) => json(p, RECIPE, { ...p.recipe, driver: { ...p.recipe.driver, timeoutS: 3_000_000 } }), run: ['a3', '--recipe', RECIPE], says: /driver\.timeoutS: at most 2147483 s \(Node's timers hold 2\^31 − 1 ms; a longer one fires at once\) \(line \d+, column 5\)/ },
  { what: 'gate repeats of 1e12', write: (p) => json(p, GATE, { ...p.gate, repeats: 1e12 }), run: ['ab', '--gate', GATE], says: /repeats: at most 5000 repeats per arm \(10000 legs; each leg is one run of the engine\) \(line 7, column 3\)/ },
  { what: 'a criterion of 1e999 (Infinity) in a gate', write: (p) => text(p, GATE, JSON.stringify(p.gate, null, 2).replace('"refutedIfLessThanPct": 3', '"refutedIfLessThanPct": 1e999')), run: ['ab', '--gate', GATE], says: /hypothesis\.refutedIfLessThanPct: Invalid input: expected number, received Infinity/ },
  { what: 'a NUL in a driver argv element', write: (p) => json(p, RECIPE, { ...p.recipe, driver: { ...p.recipe.driver, argv: ['sh', 'a\u0000b'] } }), run: ['a3', '--recipe', RECIPE], says: /driver\.argv\.1: the string holds a NUL character \(\\u0000\)/ },
  { what: "a NUL in a gate's environment value", write: (p) => json(p, GATE, { ...p.gate, env: { X: 'a\u0000' } }), run: ['ab', '--gate', GATE], says: /env\.X: the string holds a NUL character/ },
  { what: 'a key written twice', write: (p) => text(p, GATE, JSON.stringify(p.gate, null, 2).replace('"repeats": 2,', '"repeats": 2,\n  "repeats": 20,')), run: ['ab', '--gate', GATE], says: /repeats: duplicate key 'repeats': written at line 7 and again at line 8; JSON keeps only the last \(line 8, column 3\)/ },
  { what: 'a JSON syntax error', write: (p) => text(p, RECIPE, JSON.stringify(p.recipe, null, 2).replace('"profile": "nh-ref",', '"profile": "nh-ref"')), run: ['a3', '--recipe', RECIPE], says: /not valid JSON: a ',' was expected before this \(line 5, column 3\)\n {2}5 \| {3}"sourceDir": "\.",\n {4}\| {3}\^+\n {2}fix: put a ',' between two entries/ },
  { what: 'golden prompt ids that repeat', write: (p) => json(p, 'goldens/bad/golden.json', { ...p.golden, prompts: [p.golden.prompts[0], { ...p.golden.prompts[1], id: 0 }] }), run: ['a3', '--recipe', RECIPE, '--golden', 'goldens/bad'], says: /prompts\.1\.id: duplicate prompt id 0 \(prompts\.0\.id has it too\)/ },
  { what: 'golden margins shorter than its tokens', write: (p) => json(p, 'goldens/bad/golden.json', { ...p.golden, prompts: [p.golden.prompts[0], { ...p.golden.prompts[1], top2MarginNats: [1, 1] }] }), run: ['a3', '--recipe', RECIPE, '--golden', 'goldens/bad'], says: /prompts\.1\.top2MarginNats: 2 entries for 4 tokens/ },
  { what: 'a golden prompt with no tokens', write: (p) => json(p, 'goldens/bad/golden.json', { ...p.golden, prompts: [p.golden.prompts[0], { ...p.golden.prompts[1], promptTokens: [] }] }), run: ['a3', '--recipe', RECIPE, '--golden', 'goldens/bad'], says: /prompts\.1\.promptTokens: empty: a prompt with no tokens gives the engine nothing to continue/ },
  { what: 'a gate whose flag the recipe lacks', write: (p) => json(p, GATE, { ...p.gate, flag: 'threads_' }), run: ['ab', '--gate', GATE], says: /flag 'threads_' is not declared by recipe 'flood' \(.*\) — did you mean 'THREADS'\?/ },
  { what: 'a gate whose golden does not exist', write: (p) => json(p, GATE, { ...p.gate, golden: 'g-flod' }), run: ['ab', '--gate', GATE], says: /no golden named 'g-flod' \(named in .*\) — did you mean 'g-flood'\?/ },
  { what: "a gate arm the flag does not declare", write: (p) => json(p, GATE, { ...p.gate, flag: 'THREADS', arms: { A: '1', B: '3' } }), run: ['ab', '--gate', GATE], says: /flag THREADS of recipe 'flood' does not declare the value '3'/ },
  { what: 'a mutation table timeout past the timer', write: (p) => json(p, 'gates/flood/mutations.json', { ...JSON.parse(readFileSync(join(p.dir, 'gates/flood/mutations.json'), 'utf8')), timeoutFloorS: 1e10 }), run: ['mutate', '--table', 'gates/flood/mutations.json'], says: /timeoutFloorS: at most 2147483 s/ },
  { what: "an in-diff config's NUL filter", write: (p) => json(p, 'gates/flood/in-diff.json', { schemaVersion: 1, recipe: 'flood', routes: [{ files: '*.sh', suite: 'unit', filter: 'x\u0000' }] }), run: ['mutate', '--table', 'gates/flood/mutations.json', '--in-diff', 'HEAD'], says: /routes\.0\.filter: the string holds a NUL character/ },
  { what: 'a profile file with a key written twice', write: (p) => { json(p, RECIPE, { ...p.recipe, profile: 'profiles/p.json' }); return text(p, 'profiles/p.json', '{"name": "p", "prefix": "[p]", "prefix": "[q]", "patterns": [{"role": "load", "regex": "^{prefix} loaded"}]}'); }, run: ['a3', '--recipe', RECIPE], says: /prefix: duplicate key 'prefix'/ },
  { what: 'a Slurm config polling every microsecond', write: (p) => json(p, 'nh-gate.slurm.json', { schemaVersion: 1, jobPer: 'leg', pollS: 1e-6 }), run: ['a3', '--recipe', RECIPE, '--executor', 'slurm', '--slurm-config', 'nh-gate.slurm.json'], says: /pollS: Too small: expected number to be >=0\.01/ },
];

// Nothing written: no results directory (the run's --results-dir, or mutate's .nh-gate), no lock.
function nothingWritten(dir: string): void {
  expect(existsSync(join(dir, 'res'))).toBe(false);
  expect(existsSync(join(dir, '.nh-gate'))).toBe(false);
}

// Every path under a directory, to show a run wrote nothing anywhere.
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

function noStack(r: Run): void {
  expect(r.err).not.toMatch(/INTERNAL|\n\s+at /);
  expect(r.out).not.toMatch(/\n\s+at /);
}

describe('every bad config class: exit 2 from validate and from the run, no stack trace, nothing written', () => {
  for (const c of CASES) {
    it(c.what, async () => {
      const p = project();
      const file = c.write(p);
      const v = await nhg(p.dir, ['validate', file]);
      expect({ code: v.code, says: c.says.test(v.out) }, v.out + v.err).toEqual({ code: 2, says: true });
      noStack(v);
      const args = c.run[0] === 'mutate' ? c.run : [...c.run, '--results-dir', 'res'];
      const r = await nhg(p.dir, args);
      expect({ code: r.code, says: c.says.test(r.err) }, r.out + r.err).toEqual({ code: 2, says: true });
      noStack(r);
      nothingWritten(p.dir);
    });
  }

  it('--json: one document with the error, its code, its fix and exit code 2', async () => {
    const p = project();
    CASES[1]!.write(p);
    const r = await nhg(p.dir, ['ab', '--gate', GATE, '--results-dir', 'res', '--json']);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.out);
    expect(doc).toMatchObject({ schemaVersion: 1, ok: false, exitCode: 2, error: { code: 'BAD_CONFIG', fix: 'fix the fields named above (schema: schemas/gate.json)' } });
    expect(doc.error.message).toMatch(/repeats: at most 5000 repeats per arm/);
    const v = await nhg(p.dir, ['validate', '--json', GATE]);
    expect(v.code).toBe(2);
    expect(JSON.parse(v.out).files[0].issues[0]).toMatch(/repeats: at most 5000/);
  });
});

describe('validate says what it resolved', () => {
  it("the README's example line is what validate prints for the shipped gate", async () => {
    const r = await nhg(repoRoot, ['validate', 'gates/nh-ref/decode-step-ab.json']);
    expect(r.code).toBe(0);
    const line = r.out.split('\n')[0]!;
    expect(line).toMatch(/^ok gates\/nh-ref\/decode-step-ab\.json \(gate\) → recipe recipes\/nh-ref\.json; profile nh-ref; golden goldens\/nh-ref-tiny\/golden\.json; flag MAMBA_DECODE_STEP → /);
    expect(readFileSync(join(repoRoot, 'README.md'), 'utf8')).toContain(`\n${line}\n`);
  });
});

describe('results paths of the wrong type: exit 2 with the path, nothing written (a control run passes)', () => {
  it('the same project passes with a good results directory', async () => {
    const p = project();
    const r = await nhg(p.dir, ['a3', '--recipe', RECIPE, '--results-dir', 'ok']);
    expect(r.code, r.out + r.err).toBe(0);
    expect(readdirSync(join(p.dir, 'ok'))).toEqual(expect.arrayContaining(['runs', 'ledger.jsonl']));
  });

  const PATHS: Array<[string, (dir: string) => void, string, RegExp]> = [
    ['--results-dir naming a file', (d) => writeFileSync(join(d, 'res'), 'x'), 'res', /WRONG_PATH_TYPE: the results directory .*\/res is a file, not a directory: runs\/ and ledger\.jsonl go under it; nothing was run or written\n {2}fix: pass --results-dir DIR naming a directory/],
    ['a file on the way to --results-dir', (d) => writeFileSync(join(d, 'res'), 'x'), 'res/sub', /WRONG_PATH_TYPE: .*\/res is a file, not a directory, so the results directory .*\/res\/sub cannot be made under it/],
    ['runs being a file', (d) => { mkdirSync(join(d, 'res')); writeFileSync(join(d, 'res', 'runs'), 'x'); }, 'res', /WRONG_PATH_TYPE: .*\/res\/runs is a file, not a directory: every run directory goes under it; nothing was run or written\n {2}fix: move .*\/res\/runs out of the way, or pass --results-dir DIR/],
    ['ledger.jsonl being a directory', (d) => mkdirSync(join(d, 'res', 'ledger.jsonl'), { recursive: true }), 'res', /WRONG_PATH_TYPE: .*\/res\/ledger\.jsonl is a directory, not a file: each run appends its ledger line to it; nothing was run or written/],
  ];
  for (const [what, make, base, says] of PATHS) {
    for (const command of [['a3', '--recipe', RECIPE], ['ab', '--gate', GATE]]) {
      it(`${what} (${command[0]})`, async () => {
        const p = project();
        make(p.dir);
        const before = tree(p.dir);
        const r = await nhg(p.dir, [...command, '--results-dir', base]);
        expect({ code: r.code, says: says.test(r.err) }, r.err).toEqual({ code: 2, says: true });
        noStack(r);
        expect(tree(p.dir)).toEqual(before);
      });
    }
  }
});
