import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateFile, classify, collectFiles } from '../../src/config/validate.js';
import { didYouMean, nearestKey } from '../../src/config/nearest.js';
import { loadGolden, loadRecipe } from '../../src/config/load.js';
import { getProfile } from '../../src/config/profiles.js';
import { knownNames, locate } from '../../src/config/locate.js';
import { declaredFlag, type Recipe } from '../../src/config/recipe.js';
import { resolveArmValue } from '../../src/plan/flagArms.js';
import { loadInputs } from '../../src/gates/setup.js';

const ROOT = resolve(import.meta.dirname, '../..');
const shipped = (rel: string): Record<string, any> => JSON.parse(readFileSync(join(ROOT, rel), 'utf8'));

// A project with the shipped nh-ref recipe, its tiny golden, and its gates folder, to break one piece at a time.
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nh-refs-'));
  mkdirSync(join(dir, 'recipes'));
  mkdirSync(join(dir, 'gates', 'nh-ref'), { recursive: true });
  mkdirSync(join(dir, 'goldens', 'nh-ref-tiny'), { recursive: true });
  copyFileSync(join(ROOT, 'recipes/nh-ref.json'), join(dir, 'recipes/nh-ref.json'));
  copyFileSync(join(ROOT, 'goldens/nh-ref-tiny/golden.json'), join(dir, 'goldens/nh-ref-tiny/golden.json'));
  return dir;
}

function put(dir: string, rel: string, json: unknown): string {
  const f = join(dir, rel);
  mkdirSync(join(f, '..'), { recursive: true });
  writeFileSync(f, JSON.stringify(json, null, 2));
  return f;
}

describe('validate resolves what a config references, as a run does, and says what it resolved', () => {
  it('a shipped gate: recipe, profile, golden, the flag and both arms', () => {
    const r = validateFile('gates/nh-ref/decode-step-ab.json', ROOT, ROOT, ROOT);
    expect(r.issues).toEqual([]);
    expect(r.resolved).toEqual({
      recipe: 'recipes/nh-ref.json', profile: 'nh-ref', golden: 'goldens/nh-ref-tiny/golden.json',
      flag: 'MAMBA_DECODE_STEP → NH_REF_MAMBA_DECODE_STEP: A=off (NH_REF_MAMBA_DECODE_STEP=0), B=on (NH_REF_MAMBA_DECODE_STEP=1)',
    });
    // An arm that leaves the variable unset says so.
    expect(validateFile('gates/llama-cpp/no-cuda-graphs-ab.json', ROOT, ROOT, ROOT).resolved?.flag).toBe('NO_CUDA_GRAPHS → GGML_CUDA_DISABLE_GRAPHS: A=on (GGML_CUDA_DISABLE_GRAPHS=1), B=off (unset)');
    expect(validateFile('gates/nh-ref/a3.json', ROOT, ROOT, ROOT).resolved).toEqual({ recipe: 'recipes/nh-ref.json', profile: 'nh-ref', golden: 'goldens/nh-ref-tiny/golden.json' });
  });

  it('a gate whose flag the recipe lacks: the issue the run gives, with the nearest flag', () => {
    const dir = project();
    const g = shipped('gates/nh-ref/decode-step-ab.json');
    g.flag = 'mamba_decode_stp';
    const f = put(dir, 'gates/nh-ref/g.json', g);
    expect(validateFile(f, dir).issues).toEqual([`${f}: flag: flag 'mamba_decode_stp' is not declared by recipe 'nh-ref' (${join(dir, 'recipes/nh-ref.json')}) — did you mean 'MAMBA_DECODE_STEP'?\n  fix: use one of: DEVICE_MAMBA, MAMBA_DECODE_STEP`]);
    expect(() => loadInputs({ command: 'ab', gate: f }, dir)).toThrow(/flag 'mamba_decode_stp' is not declared/);
  });

  it('a gate whose golden does not exist, and one whose arm value the flag does not declare', () => {
    const dir = project();
    const g = shipped('gates/nh-ref/decode-step-ab.json');
    g.golden = 'nh-ref-tyni';
    const f = put(dir, 'gates/nh-ref/g.json', g);
    expect(validateFile(f, dir).issues[0]).toMatch(/g\.json: golden: no golden named 'nh-ref-tyni' \(named in .*\) — did you mean 'nh-ref-tiny'\?; looked in: .*\n {2}fix: put nh-ref-tyni\/golden\.json in one of those folders, or pass a path$/);
    delete g.golden;
    g.arms = { A: 'off', B: 'onn' };
    writeFileSync(f, JSON.stringify(g));
    expect(validateFile(f, dir).issues).toEqual([`${f}: flag: flag MAMBA_DECODE_STEP of recipe 'nh-ref' does not declare the value 'onn' — did you mean 'on'?\n  fix: use one of: on, off, default (or declare it in the recipe's flags.MAMBA_DECODE_STEP.values)`]);
  });

  it("a gate's recipe that fails its own schema is the gate's issue too (the run would stop there)", () => {
    const dir = project();
    const r = shipped('recipes/nh-ref.json');
    r.driver.timeoutS = 0;
    put(dir, 'recipes/nh-ref.json', r);
    const f = put(dir, 'gates/nh-ref/a.json', shipped('gates/nh-ref/a3.json'));
    expect(validateFile(f, dir).issues[0]).toMatch(/a\.json: references: .*nh-ref\.json: driver\.timeoutS: Too small/);
  });

  it('a gate of another kind resolves its recipe and profile', () => {
    const dir = project();
    const f = put(dir, 'gates/nh-ref/busy.json', { schemaVersion: 1, kind: 'busy', name: 'b', recipe: 'nh-ref' });
    expect(validateFile(f, dir)).toMatchObject({ issues: [], resolved: { recipe: 'recipes/nh-ref.json', profile: 'nh-ref' } });
    writeFileSync(f, JSON.stringify({ schemaVersion: 1, kind: 'busy', name: 'b', recipe: 'nh-reff' }));
    expect(validateFile(f, dir).issues[0]).toMatch(/busy\.json: recipe: no recipe named 'nh-reff' .*— did you mean 'nh-ref'\?/);
  });

  it("a recipe: its profile and its default golden, found where a run finds them", () => {
    const dir = project();
    expect(validateFile(join(dir, 'recipes/nh-ref.json'), dir)).toMatchObject({ issues: [], resolved: { profile: 'nh-ref', defaultGolden: 'goldens/nh-ref-tiny/golden.json' } });
    const r = shipped('recipes/nh-ref.json');
    r.defaultGolden = 'nh-ref-tny';
    const f = put(dir, 'recipes/nh-ref.json', r);
    expect(validateFile(f, dir).issues[0]).toMatch(/nh-ref\.json: golden: no golden named 'nh-ref-tny' — did you mean 'nh-ref-tiny'\?/);
    r.defaultGolden = 'nh-ref-tiny';
    r.profile = 'nh-rf';
    writeFileSync(f, JSON.stringify(r));
    expect(validateFile(f, dir).issues).toEqual([`${f}: profile: no output profile named 'nh-rf' — did you mean 'nh-ref'?; known: nemotron-h, nh-ref\n  fix: pass --profile with one of those, or a path to a profile JSON file`]);
  });

  it('a mutation table fitted to its recipe, and an in-diff config routed to its suites', () => {
    const dir = project();
    const t = shipped('gates/nh-ref/mutations.json');
    const tf = put(dir, 'gates/nh-ref/mutations.json', t);
    expect(validateFile(tf, dir)).toMatchObject({ issues: [], resolved: { recipe: 'recipes/nh-ref.json', suites: 'nh-ref-tests' } });
    const inDiff = shipped('gates/nh-ref/in-diff.json');
    const df = put(dir, 'gates/nh-ref/in-diff.json', inDiff);
    expect(validateFile(tf, dir).resolved?.inDiff).toBe('gates/nh-ref/in-diff.json');
    expect(validateFile(df, dir)).toMatchObject({ issues: [], resolved: { recipe: 'recipes/nh-ref.json', table: 'gates/nh-ref/mutations.json' } });
    inDiff.routes[0].suite = 'nh-ref-test';
    writeFileSync(df, JSON.stringify(inDiff));
    expect(validateFile(df, dir).issues[0]).toMatch(/in-diff\.json: references: --in-diff cannot route its mutants:\n.*in-diff\.json: routes\.0\.suite: no suite 'nh-ref-test' in the recipe/);
    t.mutants[1].file = 'elsewhere/mamba.cpp';
    writeFileSync(tf, JSON.stringify(t));
    expect(validateFile(tf, dir).issues[0]).toMatch(/mutations\.json: references: mutation table does not fit its recipe:\n.*mutations\.json: mutants\.1\.file: 'elsewhere\/mamba\.cpp' is outside the recipe sourceDir 'native\/engine'/);
  });

  it('an imported golden names its original', () => {
    const dir = project();
    const g = shipped('goldens/nh-ref-tiny/golden.json');
    g.source = { format: 'vllm-cpp-oracle', file: 'oracle.json', sha256: 'a'.repeat(64), importedFrom: '/x', extra: { top: {}, entryText: [] } };
    const f = put(dir, 'goldens/imp/golden.json', g);
    expect(validateFile(f, dir).issues).toEqual([`${f}: source.file: ${join(dir, 'goldens/imp/oracle.json')} is missing`]);
  });

  it('a Slurm config is one of the configs validate checks: bounds, and its cross-key rule', () => {
    const dir = project();
    const f = put(dir, 'nh-gate.slurm.json', { schemaVersion: 1, pollS: 0.001 });
    expect(classify(f, {})).toBe('slurm');
    expect(classify('x/site.json', { schemaVersion: 1, jobPer: 'leg' })).toBe('slurm');
    expect(validateFile(f, dir).issues[0]).toMatch(/nh-gate\.slurm\.json: pollS: Too small: expected number to be >=0\.01 \(line 3, column 3\)/);
    writeFileSync(f, JSON.stringify({ schemaVersion: 1, armArgs: { A: ['--x'] } }));
    expect(validateFile(f, dir).issues[0]).toMatch(/jobPer: armArgs places the arms in jobs of their own, but jobPer is 'series'/);
    writeFileSync(f, JSON.stringify({ schemaVersion: 1 }));
    expect(validateFile(f, dir)).toEqual({ file: f, kind: 'slurm', issues: [] });
    // The default sweep of a project picks it up beside recipes/, gates/ and goldens/.
    expect(collectFiles([], dir)).toContain('nh-gate.slurm.json');
  });
});

describe('nearest-name hints: one function for config keys and for names', () => {
  it('a typo or a case slip is named; a name that shares nothing is not', () => {
    expect(didYouMean('llama-cp', ['llama-cpp', 'nh-ref'])).toBe(" — did you mean 'llama-cpp'?");
    expect(didYouMean('threads', ['THREADS', 'FLASH_ATTN'])).toBe(" — did you mean 'THREADS'?");
    expect(didYouMean('3', ['1', '2', '4'])).toBe('');
    expect(didYouMean('zzzz', ['nh-ref'])).toBe('');
    expect(nearestKey('ab', ['a'])).toBe('a');
    expect(nearestKey('x', ['y'])).toBeNull();
  });

  it('recipes, goldens, profiles, flags and flag values by name', () => {
    expect(() => loadRecipe('llama-cp', ROOT)).toThrow(/no recipe named 'llama-cp' in .* — did you mean 'llama-cpp'\?; known:/);
    expect(() => loadGolden('nh-ref-tyny', ROOT)).toThrow(/no golden named 'nh-ref-tyny' in .* — did you mean 'nh-ref-tiny'\?; known:/);
    expect(() => getProfile('nemotron')).toThrow(/no output profile named 'nemotron' — did you mean 'nemotron-h'\?/);
    expect(() => locate('recipes', 'llama-cp', { namedIn: null, roots: [ROOT], pkg: ROOT })).toThrow(/no recipe named 'llama-cp' — did you mean 'llama-cpp'\?; looked in:/);
    expect(() => locate('goldens', 'llama-cpp-tinny', { namedIn: null, roots: [ROOT], pkg: ROOT })).toThrow(/— did you mean 'llama-cpp-tiny'\?/);
    const recipe = shipped('recipes/llama-cpp.json') as Recipe;
    expect(() => declaredFlag(recipe, 'threads')).toThrow(/flag 'threads' is not declared by recipe 'llama-cpp' — did you mean 'THREADS'\?/);
    expect(declaredFlag(recipe, 'THREADS').env).toBe('LLAMA_ARG_THREADS');
    expect(() => declaredFlag({ ...recipe, flags: {} }, 'X')).toThrow(expect.objectContaining({ hint: 'this recipe declares no flags' }));
    expect(() => resolveArmValue(recipe, 'THREADS', recipe.flags.THREADS!, '3')).toThrow(/does not declare the value '3'$/);
  });

  it("the names offered are those in the folders looked in, of the kind looked for (a gate's own folder holds gates)", () => {
    const dir = project();
    put(dir, 'gates/nh-ref/nh-ref-gate.json', {});
    const tried = [join(dir, 'gates/nh-ref/x.json'), join(dir, 'recipes/x.json'), join(dir, 'nowhere/recipes/x.json')];
    expect(knownNames('recipes', tried)).toEqual(['nh-ref']);
    expect(knownNames('goldens', [join(dir, 'goldens/x/golden.json')])).toEqual(['nh-ref-tiny']);
  });
});
