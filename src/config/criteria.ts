import * as z from 'zod';
import { pct, points } from './bounds.js';

// Several pre-registered criteria in one ab gate (issue #11), each on its own metric, scale and claim
// (superiority, non-inferiority, equivalence: issue 20), and the rule that combines them. `ratio`: one
// arm ÷ the other, the effect a relative change in percent. `points`: one arm − the other in percentage
// points, only for metrics that are percentages (busy, GPM activity).

// Metrics an A/B can judge, with the leg quantity they read and whether they are percentages.
export const CRITERION_METRICS = {
  perOutputToken: { quantity: 'perOutputToken', unit: 's', percentage: false, needs: null },
  perOutputTokenEngine: { quantity: 'perOutputTokenEngine', unit: 's', percentage: false, needs: 'events' },
  // The median gap between a prompt's tokens on the engine's event stamps: a decode step's own time, which a
  // preemption of the engine lengthens for one gap only (a mean over the window takes all of it).
  interTokenLatency: { quantity: 'interTokenLatency', unit: 's', percentage: false, needs: 'events' },
  busyFraction: { quantity: 'busy', unit: '%', percentage: true, needs: 'gpu' },
  smUtil: { quantity: 'smUtil', unit: '%', percentage: true, needs: 'gpu' },
  smOccupancy: { quantity: 'smOccupancy', unit: '%', percentage: true, needs: 'gpu' },
  dramBwUtil: { quantity: 'dramBwUtil', unit: '%', percentage: true, needs: 'gpu' },
  // A serve A/B's figures (the gate's "serve" block: each leg one load, src/serve/abLeg.ts), keyed as
  // `nh-gate serve` keys them: median latencies over the leg's requests, and its rates over the load window.
  ttftP50: { quantity: 'ttftP50', unit: 's', percentage: false, needs: 'serve' },
  tpotP50: { quantity: 'tpotP50', unit: 's', percentage: false, needs: 'serve' },
  itlP50: { quantity: 'itlP50', unit: 's', percentage: false, needs: 'serve' },
  e2eP50: { quantity: 'e2eP50', unit: 's', percentage: false, needs: 'serve' },
  ttftP99: { quantity: 'ttftP99', unit: 's', percentage: false, needs: 'serve' },
  e2eP99: { quantity: 'e2eP99', unit: 's', percentage: false, needs: 'serve' },
  outputTokenThroughput: { quantity: 'outputTokenThroughput', unit: 'tokens/s', percentage: false, needs: 'serve' },
  requestThroughput: { quantity: 'requestThroughput', unit: 'requests/s', percentage: false, needs: 'serve' },
  goodput: { quantity: 'goodput', unit: 'requests/s', percentage: false, needs: 'serve' },
} as const;
export type CriterionMetric = keyof typeof CRITERION_METRICS;
export const METRIC_NAMES = Object.keys(CRITERION_METRICS) as [CriterionMetric, ...CriterionMetric[]];

// Whether a metric is a serve load's figure (judged only by a gate with a "serve" block, and only those there).
export function isServeMetric(m: CriterionMetric): boolean {
  return CRITERION_METRICS[m].needs === 'serve';
}

// Superiority ("at least X better"), the form every criterion had before non-inferiority and equivalence:
// `claim` may be left out. The arm claimed about is the flag-on arm.
const Superiority = {
  metric: z.enum(METRIC_NAMES),
  claim: z.literal('superiority').optional().describe('at least X better (the default form)'),
  // Which arm the metric should be lower or higher in.
  expect: z.enum(['on-lower', 'on-higher']),
};

// Non-inferiority ("at most X worse") and equivalence ("within ±X"): the arm claimed about (default the
// flag-on arm; A or B names an arm outright, for arms of equal value) against the other arm.
const ClaimedArm = z.enum(['on', 'off', 'A', 'B']).default('on').describe('the arm the claim is about, against the other: on, off, A or B');
const NonInferiority = {
  metric: z.enum(METRIC_NAMES),
  claim: z.literal('non-inferiority').describe('at most X worse'),
  arm: ClaimedArm,
  // Which direction of the metric is a loss (higher for a time, lower for busy).
  worse: z.enum(['higher', 'lower']),
};
const Equivalence = {
  metric: z.enum(METRIC_NAMES),
  claim: z.literal('equivalence').describe('within ±X of the other arm'),
  arm: ClaimedArm,
};

// `ratio`: the claimed arm ÷ the other; bounds in percent. `points`: claimed − other, in percentage points.
const RatioCriterion = z.discriminatedUnion('claim', [
  // The smallest relative change that counts: on ÷ off ≤ 1 − N/100 (on-lower) or ≥ 1 + N/100 (on-higher).
  z.strictObject({ ...Superiority, form: z.literal('ratio'), atLeastPct: pct() }),
  // The largest loss allowed: arm ÷ other ≤ 1 + N/100 (worse higher) or ≥ 1 − N/100 (worse lower).
  z.strictObject({ ...NonInferiority, form: z.literal('ratio'), atMostPct: pct() }),
  // 1 − N/100 ≤ arm ÷ other ≤ 1 + N/100.
  z.strictObject({ ...Equivalence, form: z.literal('ratio'), withinPct: z.number().positive().lt(100, 'a ratio within ±100% or more bounds nothing below') }),
]);

const PointsCriterion = z.discriminatedUnion('claim', [
  // The smallest change that counts, in percentage points: on − off ≥ N (on-higher) or ≤ −N (on-lower).
  z.strictObject({ ...Superiority, form: z.literal('points'), atLeastPoints: points() }),
  z.strictObject({ ...NonInferiority, form: z.literal('points'), atMostPoints: points() }),
  z.strictObject({ ...Equivalence, form: z.literal('points'), withinPoints: points() }),
]);

export const CriterionSchema = z.discriminatedUnion('form', [RatioCriterion, PointsCriterion]);

// A ratio criterion whose bound lies below 1 (1 − N/100): the percentage and its field; null otherwise.
function lowerRatioPct(m: z.infer<typeof CriterionSchema>): { pct: number; field: string } | null {
  if (m.form !== 'ratio') return null;
  if (m.claim === 'non-inferiority') return m.worse === 'lower' ? { pct: m.atMostPct, field: 'atMostPct' } : null;
  if (m.claim === 'equivalence') return null;
  return m.expect === 'on-lower' ? { pct: m.atLeastPct, field: 'atLeastPct' } : null;
}

export const CriteriaSchema = z
  .strictObject({
    statement: z.string().min(1),
    // all: SUPPORTED only when every criterion is; REFUTED when any is. any: SUPPORTED when one is; REFUTED when all are.
    combine: z.enum(['all', 'any']),
    refutationFails: z.boolean().default(true).describe('whether REFUTED exits 1'),
    metrics: z.array(CriterionSchema).min(1),
  })
  .superRefine((c, ctx) => {
    c.metrics.forEach((m, i) => {
      if (m.form === 'points' && !CRITERION_METRICS[m.metric].percentage) {
        ctx.addIssue({ code: 'custom', path: ['metrics', i, 'form'], message: `a points criterion needs a percentage metric; '${m.metric}' is in ${CRITERION_METRICS[m.metric].unit} — use form 'ratio', or a metric in % (busyFraction, smUtil, smOccupancy, dramBwUtil)` });
      }
      // A ratio bound at or below 0 can never be met (a time cannot fall by 100%).
      const low = lowerRatioPct(m);
      if (low !== null && low.pct >= 100) ctx.addIssue({ code: 'custom', path: ['metrics', i, low.field], message: `${low.pct}% lower leaves no ratio above 0 to test — give a percentage below 100` });
    });
  });

export type Criterion = z.infer<typeof CriterionSchema>;
export type Criteria = z.infer<typeof CriteriaSchema>;
