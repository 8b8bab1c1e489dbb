import * as z from 'zod';
import { legs, pct, repeats } from './bounds.js';
import { CRITERION_METRICS, CriteriaSchema, METRIC_NAMES, isServeMetric, type Criteria } from './criteria.js';
import { ServeLoadSchema } from './serveLoad.js';

// A hypothesis written BEFORE the measurement; the verdict is computed against it.
export const HypothesisSchema = z.strictObject({
  statement: z.string().min(1),
  metric: z.enum(['perOutputToken', 'busyFraction']),
  // The arm expected to be better; the ratio is reported as treatment/control.
  expect: z.enum(['on-faster', 'off-faster', 'on-busier', 'off-busier']),
  // "refuted if per-token time moves less than N%": the minimum effect, in percent.
  refutedIfLessThanPct: pct(),
  refutationFails: z.boolean().default(true).describe('whether REFUTED exits 1'),
});

// One metric's registered noise scale, in its criterion's own units: the log ratio for a ratio criterion,
// percentage points for a points one.
export const MetricScaleSchema = z.strictObject({
  sigma: z.number().positive().max(100).describe("sub-Gaussian scale of one block's observation, in the criterion's units (log ratio or points; measure it with ab --aa)"),
  tau: z.number().positive().max(100).optional().describe("mixing sd over effects, in the criterion's units (default: the criterion's distance from no effect)"),
});

// Sequential A/B (issue 12, docs/statistics.md): an anytime-valid test after every ABBA block of 4 legs.
export const SequentialSchema = z.strictObject({
  always: z.boolean().default(false).describe('run sequentially even without --sequential'),
  alpha: z.number().gt(0).lt(0.5).default(0.05).describe('the chance of any wrong verdict, over every look'),
  sigmaLogRatio: z.number().positive().max(10).optional().describe('registered sub-Gaussian scale of one block log ratio, for every ratio criterion without its own scale (measure it with ab --aa)'),
  tauLogRatio: z.number().positive().max(10).optional().describe('mixing sd over effects, log units (default: the criterion distance |log bound|)'),
  scales: z.partialRecord(z.enum(METRIC_NAMES), MetricScaleSchema).optional().describe('a scale per metric (points for a busy criterion, log ratio for a time); a ratio criterion without one uses sigmaLogRatio'),
  maxLegs: legs(4, 'the leg budget is smaller than one ABBA block (4 legs): give at least 4').describe('leg budget; whole ABBA blocks of 4 legs; UNRESOLVED when spent'),
  requireCalibrationDays: z.number().positive().max(3650).optional().describe('refuse unless an ab --aa calibration on this silicon is younger than this'),
});

export const GateSchema = z.strictObject({
  schemaVersion: z.literal(1),
  kind: z.enum(['a3', 'ab', 'busy', 'mutate', 'suite']),
  // A name, not a path: it names run directories and ledger lines (`../../tmp/x` is refused at validate).
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'a gate name is letters, digits, ".", "_" and "-" (no "/", no leading "."), at most 128 characters'),
  recipe: z.string(),
  golden: z.string().optional(),
  flag: z.string().optional(),
  arch: z.string().optional(),
  mode: z.enum(['decode', 'fresh-prefill', 'both']).default('decode'),
  hypothesis: HypothesisSchema.optional(),
  // Several pre-registered criteria with a combine rule (src/config/criteria.ts); not together with hypothesis.
  criteria: CriteriaSchema.optional(),
  repeats: repeats().default(4),
  order: z.enum(['abba', 'random']).default('abba'),
  // Flag value per arm of an A/B; default A=off (control), B=on (treatment). Equal values make a null A/B.
  // Arm values: on, off, default or one of the flag's declared values.
  arms: z.strictObject({ A: z.string().min(1), B: z.string().min(1) }).optional(),
  env: z.record(z.string(), z.string()).default({}).describe('environment held constant across every leg'),
  // A sweep of the gate's flag instead of two arms: every value an arm, each judged against the baseline.
  sweep: z.strictObject({
    values: z.array(z.string().min(1)).min(3).describe('three or more values of the flag (on, off, default or declared values), each an arm'),
    baseline: z.string().min(1).optional().describe('the value every other arm is compared with (default: the first)'),
  }).optional().describe('a sweep (docs/statistics.md, Sweeps): `nh-gate ab --gate FILE` runs these arms in Williams blocks, Holm-corrected'),
  sequential: SequentialSchema.optional(),
  warmupLegs: legs(0).optional().describe('legs run first and discarded (never judged)'),
  table: z.string().optional().describe('mutation table, for kind mutate'),
  voidIfCpuContended: z.boolean().optional().describe('a CPU leg whose host was busy with other processes (more than half its CPU) is VOID (CPU_CONTENDED), not only flagged'),
  voidIfThrottled: z.boolean().optional().describe('a leg whose SM clock was held down (power, thermal, hardware slowdown) in its window is VOID (THROTTLED)'),
  witness: z.literal('harness').optional().describe('a pass must rest on ids the harness read (events or ids lines); a pass from the engine\'s counters alone is VOID (NOT_WITNESSED)'),
  // "only": the gate reports figures and judges nothing; any other A/B must pre-register what it claims.
  report: z.enum(['judge', 'only']).default('judge'),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional().describe('seed of the random order and of the bootstrap (default 1); --seed otherwise is a deviation'),
  locked: z.boolean().default(false).describe('refuse any command-line option that departs from this design (repeats, order, seed, arms, budget, warm-up, mode) with exit 2'),
  serve: ServeLoadSchema.optional().describe('an A/B under load: each leg one serve load against a server started with the arm\'s environment (docs/serve.md)'),
}).superRefine((g, ctx) => {
  const registered = g.hypothesis !== undefined || g.criteria !== undefined;
  if (g.kind === 'ab' && !registered && g.report !== 'only') {
    ctx.addIssue({ code: 'custom', path: ['hypothesis'], message: 'an ab gate pre-registers its hypothesis (statement, metric, expect, refutedIfLessThanPct) or its criteria before the measurement — add one, or say "report": "only" to report figures without a verdict' });
  }
  if (g.report === 'only' && registered) ctx.addIssue({ code: 'custom', path: ['report'], message: '"only" judges nothing, but the gate registers a hypothesis or criteria — drop one of the two' });
  if (g.hypothesis && g.criteria) ctx.addIssue({ code: 'custom', path: ['criteria'], message: "a gate registers either 'hypothesis' or 'criteria', not both — move the hypothesis into criteria.metrics" });
  if (g.sequential) checkScales(g.sequential, g.criteria, g.hypothesis !== undefined, ctx);
  if (g.sweep) checkSweep(g, g.sweep, ctx);
  checkServe(g, ctx);
});

// A serve block belongs to an ab gate and judges only serve figures; a serve figure needs a serve block.
function checkServe(g: { kind: string; serve?: unknown; hypothesis?: unknown; criteria?: Criteria | undefined }, ctx: z.RefinementCtx): void {
  const served = g.serve !== undefined;
  if (served && g.kind !== 'ab') ctx.addIssue({ code: 'custom', path: ['serve'], message: `a serve block makes an A/B under load; a ${g.kind} gate has no arms to compare — use kind "ab", or nh-gate serve` });
  if (served && g.hypothesis !== undefined) ctx.addIssue({ code: 'custom', path: ['hypothesis'], message: 'a serve A/B judges serve figures: register "criteria" on one of ttftP50, tpotP50, itlP50, e2eP50, outputTokenThroughput, requestThroughput, goodput' });
  g.criteria?.metrics.forEach((m, i) => {
    if (isServeMetric(m.metric) === served) return;
    ctx.addIssue({ code: 'custom', path: ['criteria', 'metrics', i, 'metric'], message: served
      ? `'${m.metric}' is a figure of one driver run; a serve A/B's legs are loads — judge ttftP50, tpotP50, itlP50, e2eP50, outputTokenThroughput, requestThroughput or goodput`
      : `'${m.metric}' is a serve load's figure — add a "serve" block (concurrency or ratePerS, requests) to run each leg as a load` });
  });
}

// A sweep names each value once, its baseline among them, and is neither two arms, sequential nor under load.
function checkSweep(g: { arms?: unknown; sequential?: unknown; serve?: unknown; kind: string }, sw: { values: string[]; baseline?: string | undefined }, ctx: z.RefinementCtx): void {
  const dup = sw.values.find((v, i) => sw.values.indexOf(v) !== i);
  if (dup !== undefined) ctx.addIssue({ code: 'custom', path: ['sweep', 'values'], message: `the value '${dup}' is listed twice — list each value once` });
  if (sw.baseline !== undefined && !sw.values.includes(sw.baseline)) ctx.addIssue({ code: 'custom', path: ['sweep', 'baseline'], message: `'${sw.baseline}' is not one of sweep.values (${sw.values.join(', ')})` });
  if (g.arms !== undefined) ctx.addIssue({ code: 'custom', path: ['sweep'], message: "a gate registers either two 'arms' or a 'sweep', not both" });
  if (g.sequential !== undefined) ctx.addIssue({ code: 'custom', path: ['sweep'], message: 'a sweep runs fixed-N blocks: drop "sequential" (or compare two arms sequentially)' });
  if (g.kind !== 'ab') ctx.addIssue({ code: 'custom', path: ['sweep'], message: `a sweep is the design of an ab gate; this gate's kind is '${g.kind}'` });
  if (g.serve !== undefined) ctx.addIssue({ code: 'custom', path: ['sweep'], message: 'a sweep runs driver legs: a serve block (an A/B under load) cannot sweep — compare two arms under load, or drop "serve"' });
}

// A sequential gate registers a noise scale for every metric it judges: a ratio metric may use sigmaLogRatio,
// a points metric needs its own (in points), so the anytime-valid test of each has the σ it assumes.
function checkScales(seq: z.infer<typeof SequentialSchema>, criteria: Criteria | undefined, hypothesis: boolean, ctx: z.RefinementCtx): void {
  const metrics = criteria ? criteria.metrics : hypothesis ? [{ metric: 'perOutputToken' as const, form: 'ratio' as const }] : [];
  metrics.forEach((m, i) => {
    if (seq.scales?.[m.metric] !== undefined || (m.form === 'ratio' && seq.sigmaLogRatio !== undefined)) return;
    const what = m.form === 'ratio' ? `a log-ratio scale for ${m.metric}: sequential.sigmaLogRatio, or sequential.scales.${m.metric}.sigma` : `a scale in points for ${m.metric} (${CRITERION_METRICS[m.metric].unit}): sequential.scales.${m.metric}.sigma`;
    ctx.addIssue({ code: 'custom', path: ['sequential', m.form === 'ratio' ? 'sigmaLogRatio' : 'scales'], message: `${criteria ? `criteria.metrics.${i}` : 'the hypothesis'} needs ${what} (measure it with ab --aa)` });
  });
}

export type Gate = z.infer<typeof GateSchema>;
export type Hypothesis = z.infer<typeof HypothesisSchema>;
export type SequentialConfig = z.infer<typeof SequentialSchema>;
export type MetricScale = z.infer<typeof MetricScaleSchema>;
