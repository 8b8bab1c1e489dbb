import type { Measured, Quantity } from './types.js';
import type { Baseline } from '../config/recipe.js';
import { archToComputeCapability, siliconKey } from '../silicon/types.js';
import { isFiniteNumber, measured, refused, withheld } from './make.js';
import { formatValue } from './render.js';

// Arch claims as users write them (121a, 90, sm_90, cpu) → one key; null when the claim is not understood.
export function archClaimKey(arch: string | null | undefined): string | null {
  if (arch === null || arch === undefined) return null;
  const a = arch.trim().toLowerCase().replace(/^sm_?/, '');
  if (a === 'cpu') return 'cpu';
  const cc = archToComputeCapability(a);
  return cc === null ? null : `cc${cc}`;
}

// A side that is not measured decides the outcome: refused stays refused, withheld stays withheld.
function sideBlocks(name: string, a: Quantity, b: Quantity): Quantity | null {
  for (const side of [a, b]) {
    if (side.status === 'refused') return refused(name, side.reason, `${side.name} was refused (${side.reason}): ${side.message}`);
  }
  for (const side of [a, b]) {
    if (side.status === 'withheld') return withheld(name, side.reason, `${side.name} was withheld (${side.reason}): ${side.message}`);
  }
  return null;
}

// Two measured sides compare only on equal silicon keys; unknown silicon is not assumed equal.
function siliconBlocks(name: string, a: Measured, b: Measured): Quantity | null {
  if (!a.silicon || !b.silicon) {
    const which = !a.silicon ? a.name : b.name;
    return withheld(name, 'MISSING_TERM', `the silicon of ${which} is not recorded, so the two sides cannot be shown to share hardware`);
  }
  const ka = siliconKey(a.silicon);
  const kb = siliconKey(b.silicon);
  if (ka !== kb) return withheld(name, 'CROSS_SILICON', `${a.name} was taken on ${ka} and ${b.name} on ${kb} — a comparison would compare two pieces of silicon`);
  return null;
}

// The shared gate of ratio and delta: both sides measured and on one silicon, or the quantity that says why not.
function comparable(name: string, a: Quantity, b: Quantity): { blocked: Quantity } | { ma: Measured; mb: Measured } {
  const blocked = sideBlocks(name, a, b);
  if (blocked) return { blocked };
  const ma = a as Measured;
  const mb = b as Measured;
  const sil = siliconBlocks(name, ma, mb);
  return sil ? { blocked: sil } : { ma, mb };
}

// a ÷ b between two quantities of one silicon; withheld across silicon, refused when a side is refused.
export function ratio(a: Quantity, b: Quantity, name = `${a.name} / ${b.name}`): Quantity {
  const sides = comparable(name, a, b);
  if ('blocked' in sides) return sides.blocked;
  const { ma, mb } = sides;
  if (!isFiniteNumber(ma.value) || !isFiniteNumber(mb.value)) return refused(name, 'NON_FINITE', `a side is not finite (${ma.value}, ${mb.value})`);
  if (mb.value === 0) return refused(name, 'ZERO_DENOMINATOR', `${mb.name} is 0 — a ratio here would divide by nothing`);
  const unit = ma.unit === mb.unit ? 'x' : `${ma.unit}/${mb.unit}`;
  return measured(name, 'ratio', ma.value / mb.value, unit, {
    numerator: { value: ma.value, unit: ma.unit, label: ma.name },
    denominator: { value: mb.value, unit: mb.unit, label: mb.name },
  }, { silicon: ma.silicon ?? null });
}

// a − b in a's unit, with the relative change beside it; same refusals and withholdings as ratio.
export function delta(a: Quantity, b: Quantity, name = `${a.name} − ${b.name}`): Quantity {
  const sides = comparable(name, a, b);
  if ('blocked' in sides) return sides.blocked;
  const { ma, mb } = sides;
  if (ma.unit !== mb.unit) return refused(name, 'AMBIGUOUS', `units differ (${ma.unit} vs ${mb.unit}) — a difference needs one unit`);
  if (!isFiniteNumber(ma.value) || !isFiniteNumber(mb.value)) return refused(name, 'NON_FINITE', `a side is not finite (${ma.value}, ${mb.value})`);
  const relPct = mb.value !== 0 ? (100 * (ma.value - mb.value)) / Math.abs(mb.value) : null;
  return measured(name, 'delta', ma.value - mb.value, ma.unit, {
    a: { value: ma.value, unit: ma.unit, label: ma.name },
    b: { value: mb.value, unit: mb.unit, label: mb.name },
    relPct: { value: relPct, unit: '%', label: 'relative to b' },
  }, { silicon: ma.silicon ?? null });
}

// A run figure against a recipe baseline: quoted only when the run's arch is the baseline's arch.
export function compareToBaseline(q: Quantity, baseline: Baseline, runArch: string | null | undefined): Quantity {
  const name = `${q.name} vs ${baseline.name}`;
  if (q.status !== 'measured') {
    const make = q.status === 'refused' ? refused : withheld;
    return make(name, q.reason, `the run's figure is ${q.status} (${q.reason}), so there is nothing to compare`);
  }
  const baseKey = archClaimKey(baseline.arch);
  const runKey = archClaimKey(runArch);
  if (runArch === null || runArch === undefined) {
    return withheld(name, 'MISSING_TERM', `the run's arch is not known (pass --arch); ${baseline.name} was taken on ${baseline.arch}`);
  }
  if (runKey === null || baseKey === null) {
    return withheld(name, 'MISSING_TERM', `arch '${runKey === null ? runArch : baseline.arch}' is not an arch claim nh-gate understands (e.g. 121a, 90, 110, cpu)`);
  }
  if (runKey !== baseKey) {
    return withheld(name, 'CROSS_SILICON', `${baseline.name} ${formatValue(baseline.value, baseline.unit)} was taken on ${baseline.arch}; this run is ${runArch} — a ratio would compare two pieces of silicon`);
  }
  if (q.unit !== baseline.unit) return refused(name, 'AMBIGUOUS', `units differ (${q.unit} vs baseline ${baseline.unit})`);
  if (!isFiniteNumber(baseline.value) || baseline.value === 0) {
    return refused(name, 'ZERO_DENOMINATOR', `baseline ${baseline.name} is ${baseline.value} — a ratio would divide by nothing`);
  }
  return measured(name, 'baselineRatio', q.value / baseline.value, 'x', {
    numerator: { value: q.value, unit: q.unit, label: q.name },
    denominator: { value: baseline.value, unit: baseline.unit, label: baseline.name },
    arch: { value: baseline.arch, label: 'both on' },
    source: { value: baseline.source, label: 'baseline source' },
  }, { silicon: q.silicon ?? null });
}
