import { planAb, type Mode } from '../../plan/plan.js';
import type { RunResult, VerdictRecord } from '../../results/types.js';
import type { GateDeps } from '../deps.js';
import type { Inputs } from '../setup.js';
import { runSeries, type SeriesOutcome } from '../series.js';
import { compareArms, type ComparisonResult } from './compare.js';
import { worstClass, hypothesisClass, isPass, type ExitClass } from '../../verdict/words.js';
import { legClass, legWhy } from '../verdict.js';
import { checkCriteriaProducible, judgeCriteria, type CriteriaResult } from './criteria.js';
import { withWarmup } from '../../plan/warmup.js';
import { screenLegs } from './legScreen.js';

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
  resume?: string | undefined;
  // Arm values from --flag NAME=A,B (else the gate's arms, else off/on).
  arms?: { A: string; B: string } | undefined;
}

// A spread is printed only when it is a number: fewer than 2 legs, or a minimum of 0, say so instead of NaN.
export function pct(x: number | null): string {
  if (x === null) return 'n<2';
  return Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : 'undefined (the smallest leg is 0)';
}

// Lines a reader needs beside the ratio: the spreads it cannot be separated from and the counter diff.
export function comparisonNotes(c: ComparisonResult): string[] {
  const notes: string[] = [];
  notes.push(`spreads beside the delta (max−min)/min: ${Object.entries(c.spreads).map(([k, v]) => `${k} ${pct(v)}`).join(', ')}`);
  if (c.armsDiffered === false) notes.push('the arms did NOT differ: identical counters and identical binary in both arms — whatever the ratio says, the flag changed nothing this run can see');
  else if (c.counterDiff.length) notes.push(`counters that differ (mean per leg, by field name): ${c.counterDiff.map((d) => `${d.field} A=${Number(d.A.toPrecision(6))} B=${Number(d.B.toPrecision(6))}`).join(', ')}`);
  else if (c.armsDiffered === null) notes.push('the engine printed no counters: whether the arms took different paths is not shown');
  notes.push(`hypothesis: ${c.verdict.text}`);
  return notes;
}

// Exported for the sequential A/B (abSequential.ts), which judges the same legs by another interval.
export function abVerdict(r: RunResult, c: ComparisonResult, refutationFails: boolean, expectedLegs: number, hasGate: boolean): VerdictRecord {
  const reasons: string[] = [];
  const bad = r.legs.filter((l) => !isPass(l.verdict));
  for (const l of bad) reasons.push(`leg ${l.index + 1} (${l.label}): ${l.verdict} — ${legWhy(l)} (no speed taken from it)`);
  const shas = new Set(r.legs.map((l) => l.binarySha256));
  if (shas.size > 1) return { word: 'VOID', exitClass: 'void', reasons: [`the legs ran ${shas.size} different binaries — an A/B compares one binary under a flag`, ...reasons] };
  if (bad.some((l) => l.verdict === 'DIVERGENCE')) return { word: 'DIVERGENCE', exitClass: 'failed', reasons };
  if (r.legs.length < expectedLegs) reasons.push(`only ${r.legs.length} of ${expectedLegs} legs ran`);
  const legWorst: ExitClass = worstClass(bad.map(legClass));
  if (legWorst === 'usage') return { word: 'VOID', exitClass: 'usage', reasons };
  const word = c.verdict.word;
  if (!hasGate || word === null) {
    const measuredOk = c.ratio.status === 'measured';
    // A report-only A/B with a void leg is not a clean measurement: the ratio over the other legs is shown
    // beside, and the run is VOID (exit 3), never a quiet MEASURED.
    if (measuredOk && legWorst !== 'passed') return { word: 'VOID', exitClass: worstClass([legWorst, 'void']), reasons: [...reasons, 'no hypothesis was registered; the ratio over the other legs is reported beside'] };
    return { word: measuredOk ? 'MEASURED' : 'NOT MEASURED', exitClass: measuredOk ? 'passed' : 'void', reasons: [...reasons, 'no hypothesis was registered'] };
  }
  reasons.unshift(c.verdict.text);
  return { word, exitClass: hypothesisClass(word, refutationFails), reasons };
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
  const criteria = gate?.gate.criteria ?? null;
  if (criteria && gate) checkCriteriaProducible(criteria, recipe, gate.path);
  const onArm: 'A' | 'B' = arms.B === 'on' || arms.A !== 'on' ? 'B' : 'A';
  const metric = hypothesis?.metric ?? 'perOutputToken';
  return runSeries({
    command: 'ab', argv: o.argv, inputs: o.inputs, archClaim: o.arch ?? gate?.gate.arch, jobs: o.jobs,
    resultsBase: o.resultsBase, checkpoint: o.checkpoint, timeoutS: o.timeoutS, resume: o.resume,
    gateName: gate?.gate.name ?? `ab-${flag}`,
    abPlotTitle: `${flag}: per-token times per leg (A=${arms.A}, B=${arms.B})`,
    plan: () => withWarmup(planAb({ recipe, gate: gate?.gate ?? null, flag, repeats, order, seed: o.seed, mode: o.mode, armValues: arms }), gate?.gate.warmupLegs ?? 0),
    finalize: (r, legs, done) => {
      const screen = screenLegs(legs.map((l) => l.record), gate?.gate.warmupLegs ?? 0, metric === 'perOutputToken' ? 'perOutputToken' : 'busy');
      const c = compareArms({ legs: screen.judged, metric, armFlagValues: arms, hypothesis, seed: o.seed });
      const judged = criteria ? judgeCriteria(criteria, screen.judged, onArm, o.seed) : null;
      if (judged) c.verdict = criteriaVerdict(judged);
      const quantities: RunResult['quantities'] = judged ? Object.fromEntries(judged.results.map((j) => [j.key, j.quantity])) : { ratio: c.ratio };
      if (!judged && metric !== 'perOutputToken') {
        const speed = compareArms({ legs: screen.judged, metric: 'perOutputToken', armFlagValues: arms, hypothesis: null, seed: o.seed });
        quantities.perTokenRatio = speed.ratio;
      }
      const notes = [...screen.notes, ...comparisonNotes(c)];
      if (judged) notes.push(...judged.results.map((j) => `criterion ${j.text}`));
      const comparison = {
        metric: c.metric, numerator: c.numerator, ci: c.ci, spreads: c.spreads, counterDiff: c.counterDiff, armsDiffered: c.armsDiffered, hypothesis: c.verdict, arms, outliers: screen.outliers,
        ...(judged ? { criteria: { statement: criteria!.statement, combine: judged.combine, word: judged.word, results: judged.results.map((j) => ({ metric: j.criterion.metric, form: j.criterion.form, criterion: j.criterion, key: j.key, word: j.word, refutedAs: j.refutedAs, text: j.text, ci: j.ci })) } } : {}),
      };
      const refutationFails = criteria ? criteria.refutationFails : (hypothesis?.refutationFails ?? true);
      const verdict = done || legs.length > 0 ? abVerdict(r, judged ? { ...c, ratio: judged.results[0]!.quantity } : c, refutationFails, r.plan?.legs ?? repeats * 2, gate !== null) : r.verdict;
      return { quantities, comparison, verdict, notes };
    },
  }, deps);
}

// The gate's verdict line from its criteria: the combined word, and each criterion's own sentence after it.
function criteriaVerdict(j: CriteriaResult): ComparisonResult['verdict'] {
  return { word: j.word, text: `${j.text} — ${j.results.map((r) => `${r.word} ${r.text}`).join('; ')}` };
}
