import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { count, legs, MAX_INT32, MAX_LEGS, MAX_NATS, MAX_REPEATS, MAX_TIMEOUT_S, MAX_TIMER_MS, nats, pct, points, repeats, seconds, tokenId } from '../../src/config/bounds.js';
import { RecipeSchema } from '../../src/config/recipe.js';
import { GateSchema } from '../../src/config/gate.js';
import { GoldenSchema } from '../../src/config/golden.js';
import { MutationTableSchema } from '../../src/config/mutations.js';
import { InDiffConfigSchema } from '../../src/config/in-diff.js';
import { ProfileSchema } from '../../src/config/profile.js';
import { OracleDocSchema } from '../../src/config/vllmCppOracle.js';
import { OracleAnswerSchema, OracleRequestSchema, PromptIdsSchema } from '../../src/config/oracleProtocol.js';
import { SlurmConfigSchema } from '../../src/slurm/config.js';
import { validateFile } from '../../src/config/validate.js';
import { loadGate, loadGolden, loadRecipe } from '../../src/config/load.js';
import { NhGateError } from '../../src/errors.js';
import { tinyGolden } from './fixtures.js';

const ROOT = resolve(import.meta.dirname, '../..');

// Every schema a user writes a file for (zod at the boundary: these are the configs).
const CONFIGS: Record<string, z.ZodType> = {
  recipe: RecipeSchema, gate: GateSchema, golden: GoldenSchema, mutations: MutationTableSchema, 'in-diff': InDiffConfigSchema,
  profile: ProfileSchema, oracle: OracleDocSchema, 'oracle-request': OracleRequestSchema, 'oracle-answer': OracleAnswerSchema,
  'prompt-ids': PromptIdsSchema, slurm: SlurmConfigSchema,
};

type Def = { type: string; [k: string]: unknown };
// Every number schema reachable from a schema, with its path (through objects, arrays, records, unions and wrappers).
function numbers(s: z.ZodType, path: string, out: Array<{ path: string; min: number; max: number }>, seen = new Set<unknown>()): void {
  if (seen.has(s)) return;
  seen.add(s);
  const def = (s as unknown as { def: Def }).def;
  const walk = (x: unknown, p: string): void => numbers(x as z.ZodType, p, out, seen);
  switch (def.type) {
    case 'number': {
      const n = s as unknown as { minValue: number; maxValue: number };
      out.push({ path, min: n.minValue, max: n.maxValue });
      return;
    }
    case 'object': for (const [k, v] of Object.entries((s as unknown as { shape: Record<string, unknown> }).shape)) walk(v, `${path}.${k}`); return;
    case 'array': walk(def.element, `${path}[]`); return;
    case 'record': walk(def.keyType, `${path}{key}`); walk(def.valueType, `${path}{}`); return;
    case 'union': (def.options as unknown[]).forEach((o, i) => walk(o, `${path}|${i}`)); return;
    case 'pipe': walk(def.in, path); walk(def.out, path); return;
    case 'optional': case 'nullable': case 'default': case 'prefault': case 'readonly': case 'catch': case 'nonoptional': walk(def.innerType, path); return;
    default:
  }
}

describe('every number in every config has a sane range', () => {
  it('each number schema is bounded on both sides, within ±2^31 (a timer, a count or an id an engine reads as int32)', () => {
    const found: Array<{ path: string; min: number; max: number }> = [];
    for (const [name, schema] of Object.entries(CONFIGS)) numbers(schema, name, found);
    // The walk reaches the fields the bugs were in.
    expect(found.map((f) => f.path)).toEqual(expect.arrayContaining(['recipe.driver.timeoutS', 'gate.repeats', 'gate.sequential.maxLegs', 'golden.prompts[].tokens[]', 'slurm.pollS']));
    const unbounded = found.filter((f) => !(Number.isFinite(f.min) && Number.isFinite(f.max) && Math.abs(f.min) <= 2 ** 31 && Math.abs(f.max) <= 2 ** 31));
    expect(unbounded).toEqual([]);
  });

  it('timeouts stop at the timer limit: 2^31 − 1 ms, in whole seconds', () => {
    expect(MAX_TIMER_MS).toBe(2147483647);
    expect(MAX_TIMEOUT_S).toBe(2147483);
    const s = seconds();
    expect(s.safeParse(MAX_TIMEOUT_S).success).toBe(true);
    expect(s.safeParse(MAX_TIMEOUT_S + 0.5).success).toBe(false);
    expect(s.safeParse(3_000_000).error?.issues[0]?.message).toBe("at most 2147483 s (Node's timers hold 2^31 − 1 ms; a longer one fires at once)");
    expect(s.safeParse(0).success).toBe(false);
    expect(s.safeParse(0.001).success).toBe(true);
    expect(seconds({ zero: true }).safeParse(0).success).toBe(true);
    expect(seconds({ zero: true }).safeParse(-0.1).success).toBe(false);
    expect(seconds({ zero: true }).safeParse(MAX_TIMEOUT_S + 1).success).toBe(false);
    expect(seconds({ min: 0.01 }).safeParse(0.009).success).toBe(false);
    expect(seconds({ min: 0.01 }).safeParse(0.01).success).toBe(true);
    expect(seconds({ min: 0.01 }).safeParse(MAX_TIMEOUT_S + 1).success).toBe(false);
  });

  it('counts, repeats and leg budgets are whole and bounded; their messages say why', () => {
    expect(count(2, 5).safeParse(2).success).toBe(true);
    expect(count(2, 5).safeParse(5).success).toBe(true);
    expect(count(2, 5).safeParse(1).success).toBe(false);
    expect(count(2, 5).safeParse(6).success).toBe(false);
    expect(count(2, 5).safeParse(3.5).success).toBe(false);
    expect(MAX_REPEATS * 2).toBe(MAX_LEGS);
    expect(repeats().safeParse(MAX_REPEATS).success).toBe(true);
    expect(repeats().safeParse(0).success).toBe(false);
    expect(repeats().safeParse(1e12).error?.issues[0]?.message).toBe('at most 5000 repeats per arm (10000 legs; each leg is one run of the engine)');
    expect(legs(4).safeParse(MAX_LEGS).success).toBe(true);
    expect(legs(4).safeParse(MAX_LEGS + 1).error?.issues[0]?.message).toBe('at most 10000 legs (each leg is one run of the engine)');
    expect(legs(4, 'four at least').safeParse(3).error?.issues[0]?.message).toBe('four at least');
    expect(legs(0).safeParse(0).success).toBe(true);
  });

  it('token ids fit int32; margins, percents and points have their ranges', () => {
    expect(tokenId().safeParse(MAX_INT32).success).toBe(true);
    expect(tokenId().safeParse(MAX_INT32 + 1).success).toBe(false);
    expect(tokenId().safeParse(-1).success).toBe(false);
    expect(nats().safeParse(0).success).toBe(true);
    expect(nats().safeParse(MAX_NATS).success).toBe(true);
    expect(nats().safeParse(MAX_NATS + 1).success).toBe(false);
    expect(nats().safeParse(-0.5).success).toBe(false);
    expect(pct().safeParse(1000).success).toBe(true);
    expect(pct().safeParse(1000.5).success).toBe(false);
    expect(pct().safeParse(0).success).toBe(false);
    expect(points().safeParse(100).success).toBe(true);
    expect(points().safeParse(100.5).success).toBe(false);
    expect(points().safeParse(0).success).toBe(false);
  });
});

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'nh-bounds-'));
}
const shipped = (rel: string): Record<string, any> => JSON.parse(readFileSync(join(ROOT, rel), 'utf8'));
const golden = tinyGolden;

// Writes json under dir/sub/name and returns validate's issues and the loader's error (the run's path).
function both(sub: string, name: string, json: unknown, load: (f: string) => unknown): { issues: string[]; run: NhGateError } {
  const dir = scratch();
  mkdirSync(join(dir, sub), { recursive: true });
  const f = join(dir, sub, name);
  writeFileSync(f, typeof json === 'string' ? json : JSON.stringify(json, null, 2));
  let run: unknown = null;
  try {
    load(f);
  } catch (err) {
    run = err;
  }
  expect(run).toBeInstanceOf(NhGateError);
  return { issues: validateFile(f, ROOT).issues, run: run as NhGateError };
}

describe('each bad config class is refused by validate and by the loader a run uses, with the same words', () => {
  it('a recipe timeout past the timer limit', () => {
    const r = shipped('recipes/nh-ref.json');
    r.driver.timeoutS = 3_000_000;
    const { issues, run } = both('recipes', 'r.json', r, (f) => loadRecipe(f, ROOT));
    expect(issues).toEqual([expect.stringMatching(/r\.json: driver\.timeoutS: at most 2147483 s \(Node's timers hold 2\^31 − 1 ms; a longer one fires at once\) \(line \d+, column 5\)$/)]);
    expect(run.code).toBe('BAD_CONFIG');
    expect(run.message).toBe(issues[0]);
  });

  it('gate repeats of 1e12, and a criterion of 1e999 (Infinity in JSON)', () => {
    const g = shipped('gates/nh-ref/decode-step-ab.json');
    g.repeats = 1e12;
    const text = JSON.stringify(g, null, 2).replace(/"refutedIfLessThanPct": [0-9.]+/, '"refutedIfLessThanPct": 1e999');
    const { issues, run } = both('gates', 'g.json', text, (f) => loadGate(f));
    expect(issues.map((i) => i.replace(/ \(line.*$/, ''))).toEqual([
      expect.stringMatching(/g\.json: hypothesis\.refutedIfLessThanPct: Invalid input: expected number, received Infinity$/),
      expect.stringMatching(/g\.json: repeats: at most 5000 repeats per arm/),
    ]);
    expect(run.message.split('\n')).toEqual(issues);
  });

  it('a NUL in an argv element and in an environment key', () => {
    const r = shipped('recipes/nh-ref.json');
    r.driver.argv[1] = 'a\u0000b';
    r.driver.env = { 'X\u0000Y': '1' };
    const { issues, run } = both('recipes', 'r.json', r, (f) => loadRecipe(f, ROOT));
    expect(issues.map((i) => i.split('\n')[0])).toEqual([
      expect.stringMatching(/r\.json: driver\.argv\.1: the string holds a NUL character \(\\u0000\) \(line \d+, column 7\)$/),
      expect.stringMatching(/r\.json: driver\.env\.X\u0000Y: the key holds a NUL character/),
    ]);
    expect(run.message).toContain('the string holds a NUL character');
  });

  it('a duplicate key names both lines', () => {
    const text = readFileSync(join(ROOT, 'gates/nh-ref/a3.json'), 'utf8').replace('"schemaVersion": 1,', '"schemaVersion": 1,\n  "schemaVersion": 1,');
    const { issues, run } = both('gates', 'g.json', text, (f) => loadGate(f));
    expect(issues[0]!.split('\n')[0]).toMatch(/g\.json: schemaVersion: duplicate key 'schemaVersion': written at line 2 and again at line 3; JSON keeps only the last \(line 3, column 3\)$/);
    expect(run.message).toBe(issues[0]);
  });

  it('goldens: duplicate prompt ids, margins shorter than tokens, a prompt with no tokens', () => {
    const g = golden();
    g.prompts[1].id = g.prompts[0].id;
    g.prompts[2].top2MarginNats = g.prompts[2].top2MarginNats.slice(1);
    g.prompts[0].promptTokens = [];
    const ok = join(scratch(), 'goldens', 'ok', 'golden.json');
    mkdirSync(join(ok, '..'), { recursive: true });
    writeFileSync(ok, JSON.stringify(golden()));
    expect(validateFile(ok, ROOT).issues).toEqual([]);
    expect(loadGolden(ok, ROOT).golden.prompts).toHaveLength(4);
    const { issues, run } = both('goldens/x', 'golden.json', g, (f) => loadGolden(f, ROOT));
    expect(issues.map((i) => i.replace(/ \(line.*$/, '').replace(/^.*golden\.json: /, ''))).toEqual([
      'prompts.0.promptTokens: empty: a prompt with no tokens gives the engine nothing to continue',
      `prompts.1.id: duplicate prompt id ${g.prompts[0].id} (prompts.0.id has it too): a row would be judged against the wrong prompt — give each prompt its own id`,
      `prompts.2.top2MarginNats: ${g.prompts[2].tokens.length - 1} entries for ${g.prompts[2].tokens.length} tokens: one per generated position (null the whole field where the oracle had no logits)`,
    ]);
    expect(run.message.split('\n')).toEqual(issues);
    const none = golden();
    none.prompts[3].tokens = [];
    none.prompts[3].top2MarginNats = null;
    delete none.prompts[3].runnerUp;
    expect(both('goldens/y', 'golden.json', none, (f) => loadGolden(f, ROOT)).issues[0]).toMatch(/prompts\.3\.tokens: empty: a prompt with no golden tokens compares nothing/);
  });

  it('a runner-up list of the wrong length', () => {
    const g = golden();
    g.prompts[0].runnerUp = [1, 2];
    expect(both('goldens/z', 'golden.json', g, (f) => loadGolden(f, ROOT)).issues).toEqual([expect.stringMatching(/prompts\.0\.runnerUp: 2 entries for 3 tokens/)]);
  });
});
