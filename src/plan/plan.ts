import type { Recipe } from '../config/recipe.js';
import { declaredFlag } from '../config/recipe.js';
import type { Gate } from '../config/gate.js';
import { NhGateError } from '../errors.js';
import type { LegArm } from '../results/types.js';
import { abbaOrder, randomOrder, type Arm } from './order.js';
import { applyArm, resolveArmValue } from './flagArms.js';

export type Mode = 'decode' | 'fresh-prefill' | 'both';

// One arm of an A/B: which flag value it runs and the full environment that value implies.
export interface ArmSpec {
  arm: Arm;
  // The arm value as given (on, off, default, a declared value) and as it resolved.
  flagValue: string;
  valueLabel: string;
  env: Record<string, string>;
  // Variables this arm leaves unset (removed from the harness's own environment too).
  unset: string[];
}

// One leg to run: its position, arm, environment and mode. The driver argv is the same for every leg.
export interface PlannedLeg {
  index: number;
  arm: LegArm;
  label: string;
  env: Record<string, string>;
  // Variables the leg's process must NOT see, even when the harness's environment has them.
  unset?: string[];
  mode: Mode;
}

export interface Plan {
  kind: 'a3' | 'ab';
  legs: PlannedLeg[];
  // williams: a sweep's blocks (src/plan/sweep.ts).
  order: 'abba' | 'random' | 'single' | 'williams';
  seed: number | null;
  flag: { name: string; env: string; on: string; off: string | null } | null;
  arms: { A: ArmSpec; B: ArmSpec } | null;
  // Legs per block of the design, where it is not the A/B's ABBA block of 4: a sweep's block runs every arm
  // once. The scope of one Slurm allocation under jobPer block (src/gates/ab/blocks.ts legBlock).
  blockLegs?: number;
}

// The recipe's flag by its short name, or a usage error listing the known ones.
export function resolveFlag(recipe: Recipe, name: string): { name: string; env: string; on: string; off: string | null } {
  const f = declaredFlag(recipe, name);
  return { name, env: f.env, on: f.on, off: f.off };
}

// Environment held constant for every leg: recipe driver env, then the gate's env.
export function baseEnv(recipe: Recipe, gate: Gate | null): Record<string, string> {
  return { ...recipe.driver.env, ...(gate?.env ?? {}) };
}

export interface AbPlanInput {
  recipe: Recipe;
  gate: Gate | null;
  flag: string;
  repeats: number;
  order: 'abba' | 'random';
  seed: number;
  mode: Mode;
  // Which flag value each arm runs; default A=off (control), B=on (treatment). Equal values make a null A/B.
  armValues?: { A: string; B: string };
}

// A/B plan: A is the control (flag off), B the treatment (flag on); legs interleaved by the order.
export function planAb(input: AbPlanInput): Plan {
  const flag = resolveFlag(input.recipe, input.flag);
  const base = baseEnv(input.recipe, input.gate);
  const values = input.armValues ?? { A: 'off', B: 'on' };
  const spec = input.recipe.flags[flag.name]!;
  const arm = (a: Arm): ArmSpec => {
    const v = resolveArmValue(input.recipe, flag.name, spec, values[a]);
    const { env, unset } = applyArm(base, flag.env, v);
    return { arm: a, flagValue: values[a], valueLabel: v.label, env, unset };
  };
  const arms = { A: arm('A'), B: arm('B') };
  return interleave({ arms, flag, repeats: input.repeats, order: input.order, seed: input.seed, mode: input.mode, name: (a) => `${flag.name}=${values[a]}` });
}

export interface InterleaveInput {
  arms: { A: ArmSpec; B: ArmSpec };
  // The flag the arms set (null: two binaries, no flag between them).
  flag: Plan['flag'];
  repeats: number;
  order: 'abba' | 'random';
  seed: number;
  mode: Mode;
  // What a leg's label says its arm runs ("STEP=on", "base 1a2b3c4d").
  name: (a: Arm) => string;
}

// Legs of two arms interleaved by the order: every A/B form's legs, whatever the arms run.
export function interleave(i: InterleaveInput): Plan {
  if (!Number.isInteger(i.repeats) || i.repeats < 1) {
    throw new NhGateError('USAGE', `--repeats ${i.repeats} is not a positive integer`, 'pass --repeats N with N ≥ 1 (legs per arm)');
  }
  const seq = i.order === 'abba' ? abbaOrder(i.repeats) : randomOrder(i.repeats, i.seed);
  const count: Record<Arm, number> = { A: 0, B: 0 };
  const legs = seq.map((a, index) => {
    count[a] += 1;
    return { index, arm: a, label: `${a}${count[a]} ${i.name(a)}`, env: i.arms[a].env, unset: i.arms[a].unset, mode: i.mode };
  });
  return { kind: 'ab', legs, order: i.order, seed: i.order === 'random' ? i.seed : null, flag: i.flag, arms: i.arms };
}

// A3 plan: one leg per mode ('both' runs decode then fresh-prefill as two legs, so each leg has one
// TOKEN MATCH block, one decode window and one verdict), with the recipe's flag values plus extraEnv.
export function planA3(recipe: Recipe, gate: Gate | null, mode: Mode, extraEnv: Record<string, string> = {}): Plan {
  const env = { ...baseEnv(recipe, gate), ...extraEnv };
  const modes: Mode[] = mode === 'both' ? ['decode', 'fresh-prefill'] : [mode];
  const legs = modes.map((m, index) => ({ index, arm: 'single' as const, label: `a3 ${m}`, env, mode: m }));
  return { kind: 'a3', legs, order: 'single', seed: null, flag: null, arms: null };
}

// The plan as text, for --dry-run and the summary.
// legMode: what every leg runs when it is not the driver's decode mode (a serve A/B's legs are each one load: 'serve').
export function describePlan(plan: Plan, legMode?: string): string {
  const ab = plan.kind === 'ab' && plan.arms ? `A=${plan.arms.A.flagValue} B=${plan.arms.B.flagValue}, order ${plan.order}${plan.seed !== null ? ` seed ${plan.seed}` : ''}, ${plan.legs.length} legs` : '';
  const head = plan.kind === 'ab' && plan.arms
    ? (plan.flag ? `A/B of ${plan.flag.name} (${plan.flag.env}): ${ab}` : `A/B of two binaries: ${ab}`)
    : `A3: ${plan.legs.length} leg(s)`;
  const armEnv = plan.kind === 'ab' && plan.flag && plan.arms
    ? (['A', 'B'] as const).map((a) => {
        const spec = plan.arms![a];
        const own = spec.unset.includes(plan.flag!.env) ? `${plan.flag!.env} UNSET` : `${plan.flag!.env}=${spec.env[plan.flag!.env]}`;
        const rest = Object.entries(spec.env).filter(([k]) => k !== plan.flag!.env).map(([k, v]) => `${k}=${v}`);
        return `  arm ${a} (${plan.flag!.name}=${spec.valueLabel}) environment: ${[own, ...rest].join(' ')}`;
      })
    : [];
  return [head, ...armEnv, ...plan.legs.map((l) => `  leg ${l.index + 1}: ${l.label} (mode ${legMode ?? l.mode})`)].join('\n');
}
