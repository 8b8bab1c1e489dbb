import fc from 'fast-check';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { repoRoot } from '../helpers/engine.js';
import { validateFile } from '../../src/config/validate.js';
import { loadGate, loadGolden, loadRecipe } from '../../src/config/load.js';
import { loadMutationTable } from '../../src/config/mutations.js';
import { loadInDiffConfig } from '../../src/config/in-diff.js';
import { resolveProfile } from '../../src/config/profiles.js';
import { loadSlurmConfig } from '../../src/slurm/config.js';
import { parseOracleText } from '../../src/oracle/vllmCpp/read.js';
import { checkAnswer, promptsFromIds } from '../../src/oracle/protocol.js';
import { loadInputs } from '../../src/gates/setup.js';
import { planA3, planAb } from '../../src/plan/plan.js';
import { buildVars } from '../../src/build/build.js';
import { NhGateError } from '../../src/errors.js';

// Issue 21: random JSON fed into every config schema, through the loaders a run uses and through validate,
// never gets exit 70 (an error that is not a named NhGateError of a user class) and never a stack trace.
// Besides wholly random documents, valid shipped configs get one random value at one random place, so the
// property reaches the deep fields (a timeout, an argv element, a token id) where the bugs were, and a config
// that still loads is planned (legs, environment, template expansion) the way a run plans it.

fc.configureGlobal({ seed: Number(process.env.NHG_FC_SEED ?? 20261201) });
const RUNS = Number(process.env.NHG_PROPERTY_RUNS ?? 0) || undefined;
const runs = (n: number): number => RUNS ?? n;

const shipped = (rel: string): unknown => JSON.parse(readFileSync(join(repoRoot, rel), 'utf8'));

// A project holding the shipped nh-ref recipe and golden, so references resolve as they do in a real one.
const PROJECT = mkdtempSync(join(tmpdir(), 'nh-prop-'));
for (const rel of ['recipes/nh-ref.json', 'recipes/llama-cpp.json', 'goldens/nh-ref-tiny/golden.json', 'goldens/llama-cpp-tiny/golden.json']) {
  mkdirSync(join(PROJECT, rel, '..'), { recursive: true });
  copyFileSync(join(repoRoot, rel), join(PROJECT, rel));
}

// Throws unless err is a user-class NhGateError (what the CLI prints without a stack trace, exit 2 or 3).
function named(err: unknown): void {
  if (err instanceof NhGateError && err.exitClass !== 'internal') return;
  throw new Error(`not a named user error (would be exit 70): ${err instanceof Error ? err.stack : String(err)}`);
}

function attempt(f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch (err) {
    named(err);
    return false;
  }
}

interface Kind {
  name: string;
  place: string;
  base: unknown;
  // The run's loader, then what a run does next with a config that loaded.
  load: (file: string, text: string) => void;
}

// The prompt-ids file and an oracle's answer are parsed by their callers (oracle/run-protocol.ts), which name
// a syntax error as BAD_INPUT; the schemas take what parses.
function parsedAsCallerDoes(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new NhGateError('BAD_INPUT', (err as Error).message);
  }
}

// After a gate loads: the inputs and the plan a run makes from them.
function planGate(file: string): void {
  const { gate } = loadGate(file);
  if (gate.kind !== 'a3' && gate.kind !== 'ab') return;
  const inputs = loadInputs({ command: gate.kind, gate: file, flagOptional: true }, PROJECT);
  buildVars(inputs.recipe, inputs.root, 'cpu', 1, PROJECT);
  if (gate.kind === 'a3') planA3(inputs.recipe, gate, gate.mode);
  else if (inputs.flag) planAb({ recipe: inputs.recipe, gate, flag: inputs.flag, repeats: gate.repeats, order: gate.order, seed: 1, mode: gate.mode, ...(gate.arms ? { armValues: gate.arms } : {}) });
}

const KINDS: Kind[] = [
  { name: 'recipe', place: 'recipes/x.json', base: shipped('recipes/nh-ref.json'), load: (f) => {
    const { recipe } = loadRecipe(f, PROJECT);
    resolveProfile(recipe.profile, PROJECT);
    buildVars(recipe, PROJECT, 'cpu', 1, PROJECT);
    planA3(recipe, null, 'both');
  } },
  { name: 'gate (ab)', place: 'gates/nh-ref/g.json', base: shipped('gates/nh-ref/decode-step-ab.json'), load: (f) => planGate(f) },
  { name: 'gate (a3)', place: 'gates/nh-ref/a.json', base: shipped('gates/llama-cpp/threads-ab.json'), load: (f) => planGate(f) },
  { name: 'golden', place: 'goldens/x/golden.json', base: shipped('goldens/nh-ref-tiny/golden.json'), load: (f) => loadGolden(f, PROJECT) },
  { name: 'mutation table', place: 'gates/nh-ref/mutations.json', base: shipped('gates/nh-ref/mutations.json'), load: (f) => loadMutationTable(f) },
  { name: 'in-diff config', place: 'gates/nh-ref/in-diff.json', base: shipped('gates/nh-ref/in-diff.json'), load: (f) => loadInDiffConfig(f) },
  { name: 'profile', place: 'profiles/p.json', base: { name: 'p', prefix: '[p]', patterns: [{ role: 'load', regex: '^{prefix} loaded in (?<loadS>[0-9.]+)s', captures: { loadS: 'float' } }] }, load: (f) => resolveProfile(f) },
  { name: 'slurm config', place: 'nh-gate.slurm.json', base: { schemaVersion: 1, partition: 'gpu', extraArgs: ['--qos=x'], pollS: 0.5, startTimeoutS: 600 }, load: (f) => loadSlurmConfig(f) },
  { name: 'oracle.json', place: 'goldens/o/oracle.json', base: shipped('test/fixtures/vllm-cpp/at-9735f150/oracle.json'), load: (f, text) => parseOracleText(text, f) },
  { name: 'prompt ids', place: 'prompts.json', base: [[1, 2, 3], { id: 4, promptTokens: [5] }], load: (f, text) => promptsFromIds(parsedAsCallerDoes(text), f) },
  { name: 'oracle answer', place: 'answer.json', base: { schemaVersion: 1, oracle: { name: 'o', version: '1' }, checkpoint: { name: 'c', revision: 'r' }, engineConfigRecorded: 'no', prompts: [{ id: 0, tokens: [1, 2] }] }, load: (_f, text) => checkAnswer(parsedAsCallerDoes(text), { schemaVersion: 1, prompts: [{ id: 0, promptTokens: [1] }], sampling: { kind: 'greedy', maxNewTokens: 2 } }, 'o') },
];

// Every place in a document: paths to each value, containers included.
function places(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => places(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) places(x, [...at, k], out);
  return out;
}

function setAt(doc: unknown, path: (string | number)[], value: unknown, remove: boolean): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(doc) as Record<string | number, unknown>;
  let cur = copy;
  for (const seg of path.slice(0, -1)) cur = cur[seg] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (remove && Array.isArray(cur)) cur.splice(Number(last), 1);
  else if (remove) delete cur[last];
  else cur[last] = value;
  return copy;
}

// Values that broke runs before: past the timer, past int32, huge counts, NUL, empty, deep, wrong types.
const nasty = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(3_000_000, 2 ** 31, 1e12, 1e308, -1, 0, -0, 0.5, 1e-300, '', 'a\u0000b', '{prefix}', '{nope}', '../../x', [], {}, null, true),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

// Writes text at a kind's place and runs validate and the loader: neither may end in anything but a named error.
function judge(k: Kind, text: string): void {
  const file = join(PROJECT, k.place);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  let r;
  try {
    r = validateFile(file, PROJECT, undefined, repoRoot);
  } catch (err) {
    throw new Error(`validate threw on ${k.name}: ${(err as Error).stack}`);
  }
  expect(r.issues.every((i) => typeof i === 'string' && !/\n\s+at /.test(i))).toBe(true);
  attempt(() => k.load(file, text));
}

describe('random JSON into every config schema: never an internal error', () => {
  for (const k of KINDS) {
    it(`${k.name}: the shipped document loads; random documents, random values at random places and random text are named errors at worst`, () => {
      judge(k, JSON.stringify(k.base, null, 2));
      fc.assert(fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => judge(k, JSON.stringify(v) ?? 'null')), { numRuns: runs(60) });
      const paths = places(k.base);
      fc.assert(fc.property(fc.nat(paths.length - 1), nasty, fc.boolean(), (i, v, remove) => judge(k, JSON.stringify(setAt(k.base, paths[i]!, v, remove)))), { numRuns: runs(200) });
      fc.assert(fc.property(fc.string({ maxLength: 200 }), (t) => judge(k, t)), { numRuns: runs(30) });
    });
  }
});

describe('through the CLI: random gates and recipes, exit 0 or 2, never 70, never a stack trace', () => {
  it('validate and ab --dry-run on 8 randomly broken gates and recipes', async () => {
    const gate = KINDS[1]!;
    const recipe = KINDS[0]!;
    const samples = fc.sample(fc.tuple(fc.boolean(), fc.nat(), nasty, fc.boolean()), { numRuns: 8, seed: 7 });
    for (const [isGate, n, v, remove] of samples) {
      const k = isGate ? gate : recipe;
      const paths = places(k.base);
      const doc = setAt(k.base, paths[n % paths.length]!, v, remove);
      const dir = mkdtempSync(join(tmpdir(), 'nh-prop-cli-'));
      for (const rel of ['recipes/nh-ref.json', 'goldens/nh-ref-tiny/golden.json']) {
        mkdirSync(join(dir, rel, '..'), { recursive: true });
        copyFileSync(join(repoRoot, rel), join(dir, rel));
      }
      const file = join(dir, k.place);
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, JSON.stringify(doc, null, 2));
      const run = isGate ? ['ab', '--gate', file, '--dry-run'] : ['ab', '--recipe', file, '--flag', 'MAMBA_DECODE_STEP', '--dry-run'];
      for (const args of [['validate', file], run]) {
        const r = await execa('node', [join(repoRoot, 'bin', 'nh-gate.js'), ...args], { cwd: dir, reject: false, env: { ...process.env, NH_GATE_LOCK: join(dir, 'lock') } });
        const what = `nh-gate ${args.join(' ')} with ${JSON.stringify(v)} at ${JSON.stringify(paths[n % paths.length])}\n${r.stderr}`;
        expect([0, 2], what).toContain(r.exitCode);
        expect(r.stderr, what).not.toMatch(/INTERNAL|\n\s+at /);
      }
    }
  }, 300_000);
});
