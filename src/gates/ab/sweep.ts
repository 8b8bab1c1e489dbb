import { NhGateError } from '../../errors.js';
import { balanceText, planSweep, type SweepDesign } from '../../plan/sweep.js';
import type { PlanRecord } from '../../results/types.js';
import type { GateDeps } from '../deps.js';
import { runSeries, type SeriesOutcome, type SeriesPlan } from '../series/series.js';
import type { Gate } from '../../config/gate.js';
import { checkProducible, type ClaimSpec } from './claim.js';
import { deviationsOf, refuseIfLocked, type DesignChoices, type Deviation } from './deviations.js';
import { correctionText, judgeSweep } from './judge/sweep.js';
import type { AbRequest } from './plan.js';
import type { AbRunOptions } from './run.js';

// A sweep as an A/B form: claim → plan (N arms in Williams blocks) → the one series → the one judge, pair by
// pair against the baseline → the report (with the scaling plot). Only the fixed-N stop rule and one binary:
// a sequential, A/A or cross-commit sweep is refused at plan time rather than run half-supported.

export interface SweepRequest extends Omit<AbRequest, 'commits'> {
  values: string[];
  baseline?: string | undefined;
}

export interface SweepPlan {
  design: SweepDesign;
  spec: ClaimSpec | null;
  flag: { name: string; env: string; on: string };
  seed: number;
  warmupLegs: number;
  plannedJudgedLegs: number;
  deviations: Deviation[];
  gateName: string;
}

// Where the command line's sweep departs from the gate's: other values (or a sweep of a two-arm gate), another baseline.
function sweepDeviations(g: Gate | null, r: SweepRequest): Deviation[] {
  if (!g) return [];
  const values = r.values.join(',');
  const out: Deviation[] = [];
  const registered = g.sweep ? g.sweep.values.join(',') : g.arms ? `A=${g.arms.A},B=${g.arms.B}` : 'A=off,B=on';
  if (registered !== values) out.push({ option: '--flag NAME=V1,V2,…', field: g.sweep ? 'sweep.values' : 'arms', registered, given: values, text: g.sweep ? `--flag ${r.inputs.flag}=${values} departs from the gate's registered sweep.values ${registered}` : `--flag ${r.inputs.flag}=${values} sweeps ${r.values.length} values where the gate registered two arms` });
  const base = g.sweep ? (g.sweep.baseline ?? g.sweep.values[0]!) : null;
  if (r.baseline !== undefined && base !== null && r.baseline !== base) out.push({ option: '--baseline', field: 'sweep.baseline', registered: base, given: r.baseline, text: `--baseline ${r.baseline} departs from the gate's registered sweep.baseline ${base}` });
  return out;
}

// The sweep's plan, refused (exit 2) where a sweep cannot honour the request.
export function planSweepForm(r: SweepRequest): SweepPlan {
  if (r.stop !== 'fixed') throw new NhGateError('USAGE', `a sweep (--flag ${r.inputs.flag}=${r.values.join(',')}) runs fixed-N blocks; ${r.stop === 'aa' ? '--aa' : '--sequential (or the gate\'s sequential.always)'} is not supported for it`, 'drop --sequential/--aa, or compare two values (--flag NAME=A,B) sequentially');
  if (r.inputs.gate?.gate.serve) throw new NhGateError('USAGE', `${r.inputs.gate.path}: serve: the gate runs each leg as a load; a sweep (--flag ${r.inputs.flag}=${r.values.join(',')}) runs driver legs`, 'compare two values under load (--flag NAME=A,B), or sweep with a gate without "serve"');
  if (r.cli.order !== undefined) throw new NhGateError('USAGE', `--order ${r.cli.order}: a sweep's order is its Williams design`, 'drop --order (the plan states the design)');
  const g = r.inputs.gate?.gate ?? null;
  const { arms: _arms, ...rest } = r.cli;
  const deviations = [...deviationsOf(g, rest as DesignChoices), ...sweepDeviations(g, r)];
  refuseIfLocked(r.inputs.gate, deviations);
  if (g?.mode === 'both' && !r.cli.mode) throw new NhGateError('BAD_INPUT', `${r.inputs.gate!.path}: mode: "both" — a sweep compares its arms in one mode`, 'register "mode": "decode" or "fresh-prefill", or pass --mode');
  const blocks = r.cli.repeats ?? g?.repeats ?? 4;
  const warmupLegs = r.cli.warmupLegs ?? g?.warmupLegs ?? 0;
  const spec = r.inputs.gate?.claim ?? null;
  if (spec) checkProducible(spec, r.inputs.recipe, r.inputs.gate!.path);
  const design = planSweep({ recipe: r.inputs.recipe, gate: g, flag: r.inputs.flag!, values: r.values, baseline: r.baseline ?? (g?.sweep && g.sweep.values.join(',') === r.values.join(',') ? g.sweep.baseline : undefined), blocks, mode: r.cli.mode ?? (g?.mode === 'both' ? 'decode' : g?.mode) ?? 'decode', warmupLegs });
  const flag = design.plan.flag!;
  return {
    design, spec, flag: { name: flag.name, env: flag.env, on: flag.on }, seed: r.cli.seed ?? g?.seed ?? 1, warmupLegs,
    plannedJudgedLegs: blocks * design.arms.length, deviations,
    gateName: g ? `${g.name}-sweep-${flag.name}` : `sweep-${flag.name}`,
  };
}

// The plan as lines of text (--dry-run, the result's plan text, --resume's check).
export function sweepPlanText(p: SweepPlan): string {
  const d = p.design;
  const m = d.arms.length - 1;
  return [
    `form: sweep of ${p.flag.name} (${p.flag.env}) over ${d.arms.length} values, one binary`,
    `arms: ${d.arms.map((a) => `${a.arm}${a.arm === d.baseline ? ' (baseline)' : ''}`).join(', ')}`,
    `claim: ${p.spec ? `the gate's ${p.spec.criteria.length} criterion(s), each arm against ${d.baseline}, combined by '${p.spec.combine}'` : 'none registered (figures reported, nothing judged)'}`,
    `correction: ${correctionText(m, d.baseline, p.spec !== null)}`,
    `stop: fixed, ${p.plannedJudgedLegs} judged legs (${d.blocks} blocks × ${d.arms.length} arms)`,
    `order: ${balanceText(d)}`,
    ...d.order.map((row, b) => `  block ${b + 1}: ${row.map((k) => d.arms[k]!.arm).join(' → ')}`),
    ...(p.warmupLegs ? [`warm-up: ${p.warmupLegs} leg(s) first, discarded`] : []),
    ...p.deviations.map((x) => `deviation: ${x.text}`),
    ...d.plan.legs.map((l) => `  leg ${l.index + 1}: ${l.label} (mode ${l.mode})`),
  ].join('\n');
}

export function sweepPlanJson(p: SweepPlan): Record<string, unknown> {
  const d = p.design;
  return {
    form: 'sweep', flag: p.flag, baseline: d.baseline, arms: d.arms, blocks: d.blocks, cycle: d.cycle,
    order: d.order.map((row) => row.map((k) => d.arms[k]!.arm)), correction: correctionText(d.arms.length - 1, d.baseline, p.spec !== null),
    seed: p.seed, warmupLegs: p.warmupLegs, deviations: p.deviations, text: sweepPlanText(p), legs: d.plan.legs,
  };
}

function seriesPlanOf(p: SweepPlan): SeriesPlan {
  const record: PlanRecord = {
    text: sweepPlanText(p), order: 'williams', seed: null, legs: p.design.plan.legs.length, form: 'sweep', binaries: 'one binary',
    warmupLegs: p.warmupLegs, stop: { kind: 'fixed', legs: p.plannedJudgedLegs }, deviations: p.deviations,
  };
  return { legs: p.design.plan, binaries: [{ arms: p.design.arms.map((a) => a.arm), tree: { kind: 'recipe' }, logFile: 'build.log' }], warmupLegs: p.warmupLegs, record };
}

// Runs the sweep through the one series (its scaling plot, sweep.svg, is drawn with the run's other plots).
export function runSweepPlan(p: SweepPlan, o: AbRunOptions, deps: GateDeps): Promise<SeriesOutcome> {
  return runSeries({
    command: 'ab', argv: o.argv, inputs: o.inputs, archClaim: o.arch ?? o.inputs.gate?.gate.arch, jobs: o.jobs,
    resultsBase: o.resultsBase, checkpoint: o.checkpoint, timeoutS: o.timeoutS, resume: o.resume, gateName: p.gateName,
    abPlotTitle: `${p.flag.name} sweep: per-token times per leg`,
    plan: () => seriesPlanOf(p),
    judge: (legs) => judgeSweep({ spec: p.spec, flag: p.flag, design: p.design, legs, warmupLegs: p.warmupLegs, plannedJudgedLegs: p.plannedJudgedLegs, deviations: p.deviations, seed: p.seed }),
  }, deps);
}
