import type { Recipe } from '../config/recipe.js';
import { NhGateError } from '../errors.js';
import type { SweepArm } from '../results/types.js';
import { applyArm, resolveArmValue } from './flagArms.js';
import { baseEnv, resolveFlag, type Mode, type Plan, type PlannedLeg } from './plan.js';
import type { Gate } from '../config/gate.js';

// A sweep (`--flag THREADS=1,2,4,8`): N arms of one flag in one binary, run interleaved in blocks. Every block
// runs each arm once; the order within a block is a row of a Williams square, so over every R blocks each arm
// runs in each position equally often and follows every other arm equally often (R = N for even N, 2N for
// odd N): a linear drift and the carry-over of one leg into the next are spread evenly over the arms, as ABBA
// does for two. Pure: the plan prints and tests alone.

export interface SweepArmSpec {
  arm: SweepArm;
  // The value as given, as it resolved ('default (2)'), and the environment it implies.
  flagValue: string;
  valueLabel: string;
  env: Record<string, string>;
  unset: string[];
}

export interface SweepDesign {
  arms: SweepArmSpec[];
  // The arm every other is compared with.
  baseline: SweepArm;
  blocks: number;
  // Rows of the Williams square a full cycle has (R), and each block's order as arm indices.
  cycle: number;
  order: number[][];
  plan: Plan;
}

// The arm's name in legs, tables and the ledger: flag and value.
export function sweepArmName(flag: string, value: string): SweepArm {
  return `${flag}=${value}`;
}

// Row r of a Williams square for n treatments: 0, 1, n−1, 2, n−2 … shifted by r; rows n..2n−1 (odd n) reversed.
export function williamsRow(n: number, r: number): number[] {
  const first: number[] = [];
  for (let k = 0, lo = 1, hi = n - 1; k < n; k++) first.push(k === 0 ? 0 : k % 2 === 1 ? lo++ : hi--);
  const row = first.map((x) => (x + (r % n)) % n);
  return n % 2 === 1 && Math.floor(r / n) % 2 === 1 ? row.reverse() : row;
}

// Blocks of a full Williams cycle: every position and every ordered pair of neighbours balanced.
export function williamsCycle(n: number): number {
  return n % 2 === 0 ? n : 2 * n;
}

// The values of a sweep, checked: at least three, none twice, the baseline among them (default the first).
export function checkSweepValues(flag: string, values: readonly string[], baseline: string | undefined): string {
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v)) throw new NhGateError('USAGE', `--flag ${flag}=${values.join(',')}: the value '${v}' is listed twice`, `list each value once, e.g. --flag ${flag}=${[...new Set(values)].join(',')}`);
    seen.add(v);
  }
  const base = baseline ?? values[0]!;
  if (!seen.has(base)) throw new NhGateError('USAGE', `--baseline ${base} is not one of the sweep's values (${values.join(', ')})`, `pass --baseline with one of: ${values.join(', ')} (default: the first listed)`);
  return base;
}

export interface SweepPlanInput {
  recipe: Recipe;
  gate: Gate | null;
  flag: string;
  values: readonly string[];
  baseline?: string | undefined;
  // Blocks to run: each block runs every arm once.
  blocks: number;
  mode: Mode;
  // Warm-up legs first, cycling through the arms as declared, then discarded (the gate's warmupLegs).
  warmupLegs: number;
}

// The sweep's arms, their blocks in Williams order, and the legs.
export function planSweep(i: SweepPlanInput): SweepDesign {
  const flag = resolveFlag(i.recipe, i.flag);
  const base = checkSweepValues(flag.name, i.values, i.baseline);
  if (!Number.isInteger(i.blocks) || i.blocks < 1) throw new NhGateError('USAGE', `--repeats ${i.blocks} is not a positive integer`, 'pass --repeats N with N ≥ 1 (blocks; each runs every arm once)');
  const env0 = baseEnv(i.recipe, i.gate);
  const spec = i.recipe.flags[flag.name]!;
  const arms = i.values.map((value): SweepArmSpec => {
    const v = resolveArmValue(i.recipe, flag.name, spec, value);
    return { arm: sweepArmName(flag.name, value), flagValue: value, valueLabel: v.label, ...applyArm(env0, flag.env, v) };
  });
  const order = Array.from({ length: i.blocks }, (_, b) => williamsRow(arms.length, b));
  const warm: PlannedLeg[] = Array.from({ length: i.warmupLegs }, (_, k) => {
    const a = arms[k % arms.length]!;
    return { index: k, arm: a.arm, label: `warm-up ${k + 1} (${a.arm}, discarded)`, env: a.env, unset: a.unset, mode: i.mode };
  });
  const count = new Map<string, number>();
  const legs: PlannedLeg[] = order.flat().map((k, j) => {
    const a = arms[k]!;
    const n = (count.get(a.arm) ?? 0) + 1;
    count.set(a.arm, n);
    return { index: i.warmupLegs + j, arm: a.arm, label: `${a.arm} #${n}`, env: a.env, unset: a.unset, mode: i.mode };
  });
  return {
    arms, baseline: sweepArmName(flag.name, base), blocks: i.blocks, cycle: williamsCycle(arms.length), order,
    plan: { kind: 'ab', legs: [...warm, ...legs], order: 'williams', seed: null, flag, arms: null, blockLegs: arms.length },
  };
}

// How balanced the blocks are, in words: whole Williams cycles, or how many blocks each balance covers.
export function balanceText(d: Pick<SweepDesign, 'blocks' | 'cycle' | 'arms'>): string {
  const n = d.arms.length;
  const head = `Williams design over ${n} arms, ${d.blocks} block(s)`;
  if (d.blocks % d.cycle === 0) return `${head} = ${d.blocks / d.cycle} full cycle(s) of ${d.cycle}: each arm in each position and after each other arm equally often`;
  const pos = d.blocks - (d.blocks % n);
  const carry = d.blocks - (d.blocks % d.cycle);
  const fix = `a full cycle is ${d.cycle} blocks: pass --repeats ${d.cycle} or a multiple`;
  if (pos === 0) return `${head}: fewer than ${n} blocks, so neither position nor carry-over is balanced yet (${fix})`;
  return `${head}: positions balanced over the first ${pos}, carry-over over the first ${carry} (${fix} for both)`;
}
