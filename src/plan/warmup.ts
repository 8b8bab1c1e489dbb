import type { Plan } from './plan.js';

// Warm-up legs declared in the gate (warmupLegs): run first, alternating A and B so both arms' caches and
// clocks settle, then discarded — never judged, never in a ratio. They stay in the result, labelled.

// The plan with n warm-up legs in front; the judged legs keep their order and are renumbered after them.
export function withWarmup(plan: Plan, n: number): Plan {
  if (n <= 0 || !plan.arms) return plan;
  const arms = plan.arms;
  const warm = Array.from({ length: n }, (_, k) => {
    const a = k % 2 === 0 ? arms.A : arms.B;
    return { index: k, arm: a.arm, label: `warm-up ${k + 1} (${a.arm}, discarded)`, env: a.env, mode: plan.legs[0]?.mode ?? 'decode' as const };
  });
  return { ...plan, legs: [...warm, ...plan.legs.map((l, i) => ({ ...l, index: n + i }))] };
}

// Whether a leg (by its 0-based index) is one of the n warm-up legs.
export function isWarmup(index: number, n: number): boolean {
  return index < n;
}
