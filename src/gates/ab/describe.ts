import { describePlan } from '../../plan/plan.js';
import type { PlanRecord } from '../../results/types.js';
import type { SeriesPlan } from '../series/types.js';
import { claimLine } from './claim.js';
import type { AbPlan } from './plan.js';
import { describeServeLeg } from '../../serve/abLegRecord.js';

// An A/B plan as the reader sees it (--dry-run, the result's plan text, --resume's check) and as the series
// runs it. The text says every choice the plan made, so two runs with the same text ran the same design.

const FORM_NAME: Record<AbPlan['form'], string> = { fixed: 'fixed N', sequential: 'sequential', aa: 'A/A calibration', 'cross-commit': 'cross-commit', sweep: 'sweep' };

// The plan as lines of text.
export function abPlanText(p: AbPlan): string {
  const stop = p.stop.kind === 'fixed'
    ? `stop: fixed, ${p.stop.legs} judged legs`
    : `stop: ${p.form === 'aa' ? 'the whole budget' : 'when decided, or'} at the budget of ${p.stop.budgetLegs} legs (${p.stop.blocks} ABBA blocks of 4)`;
  return [
    `form: ${FORM_NAME[p.form]}${p.binaries.kind === 'two' ? ` (${p.binaries.label})` : ' (one binary)'}`,
    `claim: ${claimLine(p.claim) ?? 'none registered (figures reported, nothing judged)'}; the flag-on arm is ${p.claim.onArm}`,
    ...(p.claim.source !== 'none' && p.claim.criteria.length > 1 ? p.claim.criteria.map((c) => `  ${c.key}: ${c.says}: ${c.bound}`) : []),
    `interval: ${p.method.kind}`,
    stop,
    ...(p.warmupLegs ? [`warm-up: ${p.warmupLegs} leg(s) first, discarded`] : []),
    ...(p.serve ? [`each leg: ${describeServeLeg(p.serve)}`] : []),
    ...(p.deviations.length ? p.deviations.map((d) => `deviation: ${d.text}`) : []),
    describePlan(p.legs, p.serve ? 'serve' : undefined),
  ].join('\n');
}

// What result.json keeps of the plan.
export function abPlanRecord(p: AbPlan): PlanRecord {
  return {
    text: abPlanText(p), order: p.legs.order, seed: p.legs.seed, legs: p.legs.legs.length, form: p.form,
    binaries: p.binaries.kind === 'two' ? 'two binaries' : 'one binary', warmupLegs: p.warmupLegs, stop: p.stop, deviations: p.deviations,
  };
}

// The plan as the series runs it: the legs, and the build(s) behind each arm.
export function seriesPlanOf(p: AbPlan): SeriesPlan {
  const b = p.binaries;
  const binaries: SeriesPlan['binaries'] = b.kind === 'one'
    ? [{ arms: ['A', 'B'], tree: { kind: 'recipe' }, logFile: 'build.log' }]
    : ([['A', 'base', b.base], ['B', 'head', b.head]] as const).map(([arm, side, c]) => ({ arms: [arm], tree: { kind: 'commit', side, rev: c.rev, commit: c.commit, top: b.top, worktrees: b.worktrees }, logFile: `build-${arm}.log` }));
  return { legs: p.legs, binaries, warmupLegs: p.warmupLegs, record: abPlanRecord(p) };
}

// The plan as --dry-run --json prints it.
export function abPlanJson(p: AbPlan): Record<string, unknown> {
  return {
    form: p.form, binaries: p.binaries, onArm: p.claim.onArm, arms: p.claim.armLabels,
    claim: { source: p.claim.source, statement: p.claim.statement, combine: p.claim.combine, refutationFails: p.claim.refutationFails, criteria: p.claim.criteria.map((c) => ({ key: c.key, metric: c.metric, scale: c.scale, test: c.test, subject: c.subject, reference: c.reference, region: c.region, bound: c.bound, says: c.says })) },
    method: p.method, order: p.order, seed: p.seed, warmupLegs: p.warmupLegs, stop: p.stop, deviations: p.deviations,
    text: abPlanText(p), legs: p.legs.legs,
  };
}
