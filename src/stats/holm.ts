// Holm's step-down correction for m comparisons (Holm 1979), in the two forms a sweep needs. Pure.
//
// With p-values: sort them; the i-th smallest (1-based) is rejected when it and every smaller one satisfy
// p_(j) ≤ α/(m − j + 1). Family-wise error ≤ α under any dependence between the comparisons, and never
// less powerful than Bonferroni (which tests every one at α/m).
//
// With a test instead of a p-value (a bootstrap interval that either lies on one side of a bound or does
// not, at a chosen level): the same rule by test inversion. With k comparisons decided so far, test every
// undecided one at α/(m − k); decide all that pass; stop when none does. Each one that passes at α/(m − k)
// has p ≤ α/(m − k) ≤ α/(m − k − j) for every later step j, so Holm would decide it too — the two forms agree.

// Holm-adjusted p-values: min(1, max over j ≤ i of (m − j + 1)·p_(j)), returned in the input's order.
export function holmAdjusted(ps: readonly number[]): number[] {
  const m = ps.length;
  const idx = ps.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
  const out = new Array<number>(m);
  let running = 0;
  idx.forEach(({ p, i }, k) => {
    running = Math.max(running, Math.min(1, (m - k) * p));
    out[i] = running;
  });
  return out;
}

export interface HolmStep {
  // 1-based round of the step-down that decided the comparison (several may fall in one round), or null.
  step: number | null;
  // The per-comparison α it was tested at when decided (the last one tried when not).
  alpha: number;
}

// Step-down by test inversion: decides(i, a) says whether comparison i is decided by a test at level a.
export function holmStepDown(m: number, familyAlpha: number, decides: (i: number, alpha: number) => boolean): HolmStep[] {
  const out: HolmStep[] = Array.from({ length: m }, () => ({ step: null, alpha: familyAlpha / Math.max(1, m) }));
  let decided = 0;
  for (let step = 1; decided < m; step++) {
    const a = familyAlpha / (m - decided);
    const now = out.flatMap((s, i) => (s.step === null && decides(i, a) ? [i] : []));
    for (const s of out) if (s.step === null) s.alpha = a;
    if (now.length === 0) break;
    for (const i of now) out[i] = { step, alpha: a };
    decided += now.length;
  }
  return out;
}

// Bonferroni's per-comparison α: the level of intervals that cover all m effects at once with 1 − α.
export function bonferroniAlpha(m: number, familyAlpha: number): number {
  return familyAlpha / Math.max(1, m);
}
