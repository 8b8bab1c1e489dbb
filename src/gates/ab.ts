import { planAb, type Mode } from '../plan/plan.js';
import type { ExitClass } from '../errors.js';
import type { RunResult, VerdictRecord } from '../results/types.js';
import type { GateDeps } from './deps.js';
import type { Inputs } from './setup.js';
import { runSeries, type SeriesOutcome } from './series.js';
import { compareArms, type ComparisonResult } from './compare.js';
import { legClass } from './verdict.js';
import { worstClass } from '../cli/exit.js';

export interface AbOptions {
  argv: string[];
  inputs: Inputs;
  arch?: string | undefined;
  repeats?: number | undefined;
  order?: 'abba' | 'random' | undefined;
  seed: number;
  mode: Mode;
  jobs: number;
  resultsBase: string;
  checkpoint?: string | undefined;
  timeoutS?: number | undefined;
  // Arm values from --flag NAME=A,B (else the gate's arms, else off/on).
  arms?: { A: string; B: string } | undefined;
}

// A spread is printed only when it is a number: fewer than 2 legs, or a minimum of 0, say so instead of NaN.
export function pct(x: number | null): string {
  if (x === null) return 'n<2';
  return Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : 'undefined (the smallest leg is 0)';
}

// Lines a reader needs beside the ratio: the spreads it cannot be separated from and the counter diff.
function comparisonNotes(c: ComparisonResult): string[] {
  const notes: string[] = [];
  notes.push(`spreads beside the delta (max−min)/min: ${Object.entries(c.spreads).map(([k, v]) => `${k} ${pct(v)}`).join(', ')}`);
  if (c.armsDiffered === false) notes.push('the arms did NOT differ: identical counters and identical binary in both arms — whatever the ratio says, the flag changed nothing this run can see');
  else if (c.counterDiff.length) notes.push(`counters that differ (mean per leg, by field name): ${c.counterDiff.map((d) => `${d.field} A=${Number(d.A.toPrecision(6))} B=${Number(d.B.toPrecision(6))}`).join(', ')}`);
  else if (c.armsDiffered === null) notes.push('the engine printed no counters: whether the arms took different paths is not shown');
  notes.push(`hypothesis: ${c.verdict.text}`);
  return notes;
}

function abVerdict(r: RunResult, c: ComparisonResult, refutationFails: boolean, expectedLegs: number, hasGate: boolean): VerdictRecord {
  const reasons: string[] = [];
  const bad = r.legs.filter((l) => l.verdict !== 'STRICT PASS' && l.verdict !== 'NEAR-TIE PASS');
  for (const l of bad) reasons.push(`leg ${l.index + 1} (${l.label}): ${l.verdict}${l.voidReasons.length ? ` — ${l.voidReasons.join('; ')}` : ''} (no speed taken from it)`);
  const shas = new Set(r.legs.map((l) => l.binarySha256));
  if (shas.size > 1) return { word: 'VOID', exitClass: 'void', reasons: [`the legs ran ${shas.size} different binaries — an A/B compares one binary under a flag`, ...reasons] };
  if (bad.some((l) => l.verdict === 'DIVERGENCE')) return { word: 'DIVERGENCE', exitClass: 'failed', reasons };
  if (r.legs.length < expectedLegs) reasons.push(`only ${r.legs.length} of ${expectedLegs} legs ran`);
  const legWorst: ExitClass = worstClass(bad.map(legClass));
  if (legWorst === 'usage') return { word: 'VOID', exitClass: 'usage', reasons };
  const word = c.verdict.word;
  if (!hasGate || word === null) {
    const measuredOk = c.ratio.status === 'measured';
    return { word: measuredOk ? 'MEASURED' : 'NOT MEASURED', exitClass: measuredOk ? 'passed' : 'void', reasons: [...reasons, 'no hypothesis was registered'] };
  }
  reasons.unshift(c.verdict.text);
  if (word === 'SUPPORTED') return { word, exitClass: 'passed', reasons };
  if (word === 'REFUTED') return { word, exitClass: refutationFails ? 'failed' : 'passed', reasons };
  return { word, exitClass: 'void', reasons };
}

// nh-gate ab: one binary, interleaved legs of the two arms, each token-gated; the ratio with a bootstrap
// interval over legs; spreads and counters beside it; the verdict against the gate's pre-registered criterion.
export async function runAb(o: AbOptions, deps: GateDeps): Promise<SeriesOutcome> {
  const { recipe, gate } = o.inputs;
  const flag = o.inputs.flag!;
  const repeats = o.repeats ?? gate?.gate.repeats ?? 4;
  const order = o.order ?? gate?.gate.order ?? 'abba';
  const arms = o.arms ?? gate?.gate.arms ?? { A: 'off', B: 'on' };
  const hypothesis = gate?.gate.hypothesis ?? null;
  const metric = hypothesis?.metric ?? 'perOutputToken';
  return runSeries({
    command: 'ab', argv: o.argv, inputs: o.inputs, archClaim: o.arch ?? gate?.gate.arch, jobs: o.jobs,
    resultsBase: o.resultsBase, checkpoint: o.checkpoint, timeoutS: o.timeoutS,
    gateName: gate?.gate.name ?? `ab-${flag}`,
    abPlotTitle: `${flag}: per-token times per leg (A=${arms.A}, B=${arms.B})`,
    plan: () => planAb({ recipe, gate: gate?.gate ?? null, flag, repeats, order, seed: o.seed, mode: o.mode, armValues: arms }),
    finalize: (r, legs, done) => {
      const c = compareArms({ legs: legs.map((l) => l.record), metric, armFlagValues: arms, hypothesis, seed: o.seed });
      const quantities: RunResult['quantities'] = { ratio: c.ratio };
      if (metric !== 'perOutputToken') {
        const speed = compareArms({ legs: legs.map((l) => l.record), metric: 'perOutputToken', armFlagValues: arms, hypothesis: null, seed: o.seed });
        quantities.perTokenRatio = speed.ratio;
      }
      const notes = [...r.notes.filter((n) => !n.startsWith('spreads beside') && !n.startsWith('the arms did') && !n.startsWith('counters that') && !n.startsWith('the engine printed no counters') && !n.startsWith('hypothesis:')), ...comparisonNotes(c)];
      const comparison = { metric: c.metric, numerator: c.numerator, ci: c.ci, spreads: c.spreads, counterDiff: c.counterDiff, armsDiffered: c.armsDiffered, hypothesis: c.verdict, arms };
      const verdict = done || legs.length > 0 ? abVerdict(r, c, hypothesis?.refutationFails ?? true, r.plan?.legs ?? repeats * 2, gate !== null) : r.verdict;
      return { quantities, comparison, verdict, notes };
    },
  }, deps);
}
