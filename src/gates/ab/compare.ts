import type { Hypothesis } from '../../config/gate.js';
import { bootstrapRatioCi, type RatioCi } from '../../stats/bootstrap.js';
import { relativeSpread, median } from '../../stats/summary.js';
import { measured, refused } from '../../quantity/make.js';
import { ratio as quantityRatio } from '../../quantity/compare.js';
import type { Quantity } from '../../quantity/types.js';
import type { LegRecord } from '../../results/types.js';

// The A/B comparison over token-gated legs: per-arm values, the ratio with its bootstrap interval,
// the spreads it cannot be separated from, the counter diff, and the verdict against the hypothesis.

export interface ArmValues { A: number[]; B: number[] }

const PASS = new Set(['STRICT PASS', 'NEAR-TIE PASS']);

// Per-arm values of one leg quantity, from legs that passed their token gate (a leg with wrong tokens has no speed).
export function armValues(legs: LegRecord[], key: string): ArmValues {
  const out: ArmValues = { A: [], B: [] };
  for (const l of legs) {
    if (l.arm === 'single' || !PASS.has(l.verdict)) continue;
    const q = l.quantities[key];
    if (q && q.status === 'measured') out[l.arm].push(q.value);
  }
  return out;
}

// Legs of both arms on one silicon, by the shared comparability gate of src/quantity/compare.ts: the
// first measured leg against every other; a pair on other silicon withholds the comparison (CROSS_SILICON).
// Legs whose silicon is not recorded make no claim here (the single-host series records the host's).
export function crossSilicon(legs: LegRecord[], key: string, name: string): Quantity | null {
  const qs: Quantity[] = [];
  for (const l of legs) {
    const q = l.arm !== 'single' && PASS.has(l.verdict) ? l.quantities[key] : undefined;
    if (q && q.status === 'measured' && q.silicon) qs.push({ ...q, name: `leg ${l.index + 1} (arm ${l.arm}${l.slurm?.node ? ` on ${l.slurm.node}` : ''})` });
  }
  for (const q of qs.slice(1)) {
    const g = quantityRatio(qs[0]!, q, name);
    if (g.status === 'withheld' && g.reason === 'CROSS_SILICON') return g;
  }
  return null;
}

export interface ComparisonResult {
  metric: string;
  // Which arm is the numerator: the arm the hypothesis expects to be better (B when both arms are equal).
  numerator: 'A' | 'B';
  ci: RatioCi | null;
  ratio: Quantity;
  spreads: Record<string, number | null>;
  counterDiff: Array<{ field: string; A: number; B: number }>;
  armsDiffered: boolean | null;
  verdict: { word: 'SUPPORTED' | 'REFUTED' | 'UNRESOLVED' | null; text: string };
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

// Counters averaged per leg in each arm, matched by field name (never by position); fields that differ.
export function diffCounters(legs: LegRecord[]): Array<{ field: string; A: number; B: number }> {
  const per: Record<'A' | 'B', Array<Record<string, number>>> = { A: [], B: [] };
  for (const l of legs) if (l.arm !== 'single') per[l.arm].push(l.counters);
  const fields = new Set([...per.A, ...per.B].flatMap((c) => Object.keys(c)));
  const out: Array<{ field: string; A: number; B: number }> = [];
  for (const f of [...fields].sort()) {
    const a = per.A.length ? mean(per.A.map((c) => c[f] ?? 0)) : NaN;
    const b = per.B.length ? mean(per.B.map((c) => c[f] ?? 0)) : NaN;
    if (a !== b) out.push({ field: f, A: a, B: b });
  }
  return out;
}

function spread(xs: number[]): number | null {
  return xs.length >= 2 ? relativeSpread(xs) : null;
}

export interface CompareInput {
  legs: LegRecord[];
  metric: 'perOutputToken' | 'busyFraction';
  armFlagValues: { A: string; B: string };
  hypothesis: Hypothesis | null;
  seed: number;
}

// The whole comparison, pure.
// Which arm the hypothesis's ratio puts on top: the arm it expects to differ (the treatment). With valued
// arms (THREADS=1,2) "on" stands for arm B; with on/off arms it is the on arm; equal arms put B on top.
export function numeratorArm(armFlagValues: { A: string; B: string }, wantOn: boolean): 'A' | 'B' {
  const bIsOn = armFlagValues.B !== 'off' && armFlagValues.A !== 'on';
  return armFlagValues.A === armFlagValues.B ? 'B' : bIsOn === wantOn ? 'B' : 'A';
}

export function compareArms(c: CompareInput): ComparisonResult {
  const key = c.metric === 'perOutputToken' ? 'perOutputToken' : 'busy';
  const vals = armValues(c.legs, key);
  const h = c.hypothesis;
  const numerator = numeratorArm(c.armFlagValues, h ? h.expect.startsWith('on') : true);
  const denominator: 'A' | 'B' = numerator === 'B' ? 'A' : 'B';
  const ci = bootstrapRatioCi(vals[numerator], vals[denominator], { seed: c.seed });
  const name = `${c.metric === 'perOutputToken' ? 'per output token' : 'GPU busy'} ratio ${numerator}/${denominator}`;
  let ratio: Quantity;
  const cross = crossSilicon(c.legs, key, name);
  if (cross) {
    ratio = cross;
  } else if (vals[numerator].length === 0 || vals[denominator].length === 0) {
    ratio = refused(name, 'NO_SAMPLES', `arm ${vals.A.length === 0 ? 'A' : 'B'} has no leg with a measured ${key} that passed its token gate`);
  } else if (!(median(vals[denominator]) > 0) || !Number.isFinite(median(vals[numerator]))) {
    ratio = refused(name, 'ZERO_DENOMINATOR', `the median ${key} of arm ${denominator} (flag ${c.armFlagValues[denominator]}) is ${median(vals[denominator])}${c.metric === 'perOutputToken' ? ' s' : '%'} — a ratio over it would divide by nothing`);
  } else {
    const est = median(vals[numerator]) / median(vals[denominator]);
    ratio = measured(name, 'abRatio', est, 'x', {
      numerator: { value: median(vals[numerator]), unit: c.metric === 'perOutputToken' ? 's' : '%', label: `median of arm ${numerator} (${vals[numerator].length} legs, flag ${c.armFlagValues[numerator]})` },
      denominator: { value: median(vals[denominator]), unit: c.metric === 'perOutputToken' ? 's' : '%', label: `median of arm ${denominator} (${vals[denominator].length} legs, flag ${c.armFlagValues[denominator]})` },
      interval: { value: ci ? `[${ci.lo.toFixed(4)}, ${ci.hi.toFixed(4)}]` : 'none: fewer than 2 legs in an arm', label: ci ? `${Math.round(ci.level * 100)}% interval (${ci.method})` : 'interval' },
    });
  }
  const loads = c.legs.map((l) => l.loadLine.loadS).filter((x): x is number => x !== null && Number.isFinite(x));
  const spreads = {
    [`arm A ${key}`]: spread(vals.A),
    [`arm B ${key}`]: spread(vals.B),
    'engine load (all legs)': spread(loads),
  };
  const counterDiff = diffCounters(c.legs);
  const shas = new Set(c.legs.map((l) => l.binarySha256));
  const hasCounters = c.legs.some((l) => l.counterRecords > 0);
  const armsDiffered = hasCounters ? counterDiff.length > 0 || shas.size > 1 : null;

  let verdict: ComparisonResult['verdict'];
  if (!h) verdict = { word: null, text: 'no hypothesis was registered: the ratio and its interval are reported, nothing is judged' };
  else if (ratio.status !== 'measured') verdict = { word: 'UNRESOLVED', text: `no ratio to judge: ${ratio.reason} — ${ratio.message}` };
  else if (!ci) verdict = { word: 'UNRESOLVED', text: `n too small: ${vals[numerator].length} and ${vals[denominator].length} token-gated legs per arm (an interval needs at least 2 per arm)` };
  else {
    const faster = h.metric === 'perOutputToken';
    const bound = faster ? 1 - h.refutedIfLessThanPct / 100 : 1 + h.refutedIfLessThanPct / 100;
    const iv = `${Math.round(ci.level * 100)}% interval [${ci.lo.toFixed(4)}, ${ci.hi.toFixed(4)}]`;
    const crit = faster ? `arm ${numerator}/${denominator} ≤ ${bound.toFixed(4)} (at least ${h.refutedIfLessThanPct}% less time per token)` : `arm ${numerator}/${denominator} ≥ ${bound.toFixed(4)} (at least ${h.refutedIfLessThanPct}% busier)`;
    const supported = faster ? ci.hi <= bound : ci.lo >= bound;
    const refuted = faster ? ci.lo > bound : ci.hi < bound;
    verdict = supported
      ? { word: 'SUPPORTED', text: `${iv} lies entirely within the criterion ${crit}` }
      : refuted
        ? { word: 'REFUTED', text: `${iv} lies entirely outside the criterion ${crit}: ${(faster ? ci.lo > 1 : ci.hi < 1) ? `the effect is opposite in direction (arm ${numerator} is ${faster ? 'slower' : 'less busy'}, not ${faster ? 'faster' : 'busier'})` : 'the effect is smaller than pre-registered'}` }
        : { word: 'UNRESOLVED', text: `${iv} straddles the criterion ${crit}` };
  }
  return { metric: c.metric, numerator, ci, ratio, spreads, counterDiff, armsDiffered, verdict };
}
