import { describe, expect, it } from 'vitest';
import { balanceText, checkSweepValues, planSweep, williamsCycle, williamsRow } from '../../src/plan/sweep.js';
import { parseFlagSpec } from '../../src/plan/flagArms.js';
import { RecipeSchema } from '../../src/config/recipe.js';
import { NhGateError } from '../../src/errors.js';
import { GateSchema } from '../../src/config/gate.js';

// A sweep's design: N arms in blocks, each block a row of a Williams square, so that over a full cycle every
// arm runs in every position, and after every other arm, equally often. Refusals happen at plan time.

const recipe = RecipeSchema.parse({
  schemaVersion: 1, name: 'r-sweep', profile: 'nh-ref', sourceDir: '.', buildDir: 'b-{arch}',
  configure: ['true'], build: ['true'], driver: { argv: ['true'], binary: 'x', env: { KEEP: '1' } },
  flags: { THREADS: { env: 'T_THREADS', on: '2', off: '1', values: ['1', '2', '4', '8', '16'], default: '2' } },
});

function counts(n: number, rows: number[][]): { position: number[][]; follows: Map<string, number> } {
  const position = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const follows = new Map<string, number>();
  for (const row of rows) {
    row.forEach((arm, pos) => { position[arm]![pos]! += 1; });
    for (let k = 1; k < row.length; k++) follows.set(`${row[k - 1]}>${row[k]}`, (follows.get(`${row[k - 1]}>${row[k]}`) ?? 0) + 1);
  }
  return { position, follows };
}

describe('the Williams design', () => {
  it.each([2, 3, 4, 5, 6, 7, 8])('over a full cycle of %i arms: each row a permutation, positions and carry-over balanced', (n) => {
    const cycle = williamsCycle(n);
    expect(cycle).toBe(n % 2 === 0 ? n : 2 * n);
    const rows = Array.from({ length: cycle }, (_, r) => williamsRow(n, r));
    for (const row of rows) expect([...row].sort((a, b) => a - b)).toEqual([...Array(n).keys()]);
    const { position, follows } = counts(n, rows);
    for (const perArm of position) expect(new Set(perArm)).toEqual(new Set([cycle / n]));
    // Every ordered pair of distinct arms is neighbours the same number of times.
    expect(follows.size).toBe(n * (n - 1));
    expect(new Set(follows.values())).toEqual(new Set([cycle / n]));
  });

  it('the textbook square for four arms (0 1 3 2, then shifted)', () => {
    expect([0, 1, 2, 3].map((r) => williamsRow(4, r))).toEqual([[0, 1, 3, 2], [1, 2, 0, 3], [2, 3, 1, 0], [3, 0, 2, 1]]);
  });

  it('says how much of the balance a short run has', () => {
    const arms = [1, 2, 3].map(() => ({})) as never[];
    expect(balanceText({ blocks: 6, cycle: 6, arms })).toMatch(/6 block\(s\) = 1 full cycle\(s\) of 6: each arm in each position and after each other arm equally often/);
    expect(balanceText({ blocks: 4, cycle: 6, arms })).toMatch(/positions balanced over the first 3, carry-over over the first 0 \(a full cycle is 6 blocks: pass --repeats 6/);
    expect(balanceText({ blocks: 2, cycle: 6, arms })).toMatch(/fewer than 3 blocks, so neither position nor carry-over is balanced yet/);
  });
});

describe('the sweep plan', () => {
  it('legs: every block runs each arm once in its Williams order, warm-ups first and cycling the arms', () => {
    const d = planSweep({ recipe, gate: null, flag: 'THREADS', values: ['1', '2', '4', '8'], blocks: 2, mode: 'decode', warmupLegs: 2 });
    expect(d.baseline).toBe('THREADS=1');
    expect(d.plan.order).toBe('williams');
    expect(d.plan.legs.map((l) => l.arm)).toEqual(['THREADS=1', 'THREADS=2', 'THREADS=1', 'THREADS=2', 'THREADS=8', 'THREADS=4', 'THREADS=2', 'THREADS=4', 'THREADS=1', 'THREADS=8']);
    expect(d.plan.legs.map((l) => l.index)).toEqual([...Array(10).keys()]);
    expect(d.plan.legs[0]!.label).toBe('warm-up 1 (THREADS=1, discarded)');
    expect(d.plan.legs[9]!.label).toBe('THREADS=8 #2');
    expect(d.plan.legs[5]!.env).toEqual({ KEEP: '1', T_THREADS: '4' });
  });

  it('--baseline names the arm every other is compared with', () => {
    expect(planSweep({ recipe, gate: null, flag: 'THREADS', values: ['1', '2', '4'], baseline: '4', blocks: 1, mode: 'decode', warmupLegs: 0 }).baseline).toBe('THREADS=4');
  });

  const refusal = (f: () => unknown): NhGateError => {
    try { f(); } catch (e) { return e as NhGateError; }
    throw new Error('not refused');
  };
  it.each([
    ['a duplicate value', () => checkSweepValues('THREADS', ['1', '2', '1'], undefined), 'USAGE', /the value '1' is listed twice/],
    ['a baseline not among the values', () => checkSweepValues('THREADS', ['1', '2', '4'], '8'), 'USAGE', /--baseline 8 is not one of the sweep's values \(1, 2, 4\)/],
    ['an undeclared value', () => planSweep({ recipe, gate: null, flag: 'THREADS', values: ['1', '2', '3'], blocks: 1, mode: 'decode', warmupLegs: 0 }), 'UNKNOWN_FLAG', /does not declare the value '3'/],
    ['zero blocks', () => planSweep({ recipe, gate: null, flag: 'THREADS', values: ['1', '2', '4'], blocks: 0, mode: 'decode', warmupLegs: 0 }), 'USAGE', /--repeats 0/],
  ])('refuses %s by name', (_what, f, code, message) => {
    const e = refusal(f);
    expect(e).toBeInstanceOf(NhGateError);
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
  });

  it('--flag NAME=V1,V2,V3 is a sweep; two values an A/B; one a usage error', () => {
    expect(parseFlagSpec('THREADS=1,2,4,8')).toEqual({ name: 'THREADS', arms: null, sweep: ['1', '2', '4', '8'] });
    expect(parseFlagSpec('THREADS=1,2')).toEqual({ name: 'THREADS', arms: { A: '1', B: '2' }, sweep: null });
    expect(() => parseFlagSpec('THREADS=1')).toThrow(/an A\/B takes two values and a sweep three or more/);
    expect(() => parseFlagSpec('THREADS=1,,4')).toThrow(/none empty/);
  });
});

describe('a gate that registers a sweep', () => {
  const gate = (extra: Record<string, unknown>) => GateSchema.safeParse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', flag: 'THREADS', report: 'only', ...extra });
  const messages = (r: ReturnType<typeof gate>): string[] => (r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));

  it('three or more values, each once, the baseline among them', () => {
    expect(gate({ sweep: { values: ['1', '2', '4'], baseline: '2' } }).success).toBe(true);
    expect(messages(gate({ sweep: { values: ['1', '2'] } }))[0]).toMatch(/^sweep\.values: /);
    expect(messages(gate({ sweep: { values: ['1', '2', '1'] } }))).toEqual(["sweep.values: the value '1' is listed twice — list each value once"]);
    expect(messages(gate({ sweep: { values: ['1', '2', '4'], baseline: '8' } }))).toEqual(["sweep.baseline: '8' is not one of sweep.values (1, 2, 4)"]);
  });

  it('is neither two arms, nor sequential, nor another kind of gate', () => {
    expect(messages(gate({ sweep: { values: ['1', '2', '4'] }, arms: { A: '1', B: '2' } }))).toEqual(["sweep: a gate registers either two 'arms' or a 'sweep', not both"]);
    expect(messages(gate({ sweep: { values: ['1', '2', '4'] }, sequential: { sigmaLogRatio: 0.1, maxLegs: 8 } })).some((m) => m.startsWith('sweep: a sweep runs fixed-N blocks'))).toBe(true);
    expect(messages(gate({ kind: 'a3', sweep: { values: ['1', '2', '4'] } }))).toContain("sweep: a sweep is the design of an ab gate; this gate's kind is 'a3'");
  });
});
