import { z } from 'zod';
import { pct, points } from './bounds.js';

// Several pre-registered criteria in one ab gate (issue #11), each on its own metric and in its own form, and
// the rule that combines them. `ratio`: arm on ÷ arm off, the effect a relative change in percent. `points`:
// arm on − arm off in percentage points, only for metrics that are percentages (busy, GPM activity).

// Metrics an A/B can judge, with the leg quantity they read and whether they are percentages.
export const CRITERION_METRICS = {
  perOutputToken: { quantity: 'perOutputToken', unit: 's', percentage: false, needs: null },
  perOutputTokenEngine: { quantity: 'perOutputTokenEngine', unit: 's', percentage: false, needs: 'events' },
  busyFraction: { quantity: 'busy', unit: '%', percentage: true, needs: 'gpu' },
  smUtil: { quantity: 'smUtil', unit: '%', percentage: true, needs: 'gpu' },
  smOccupancy: { quantity: 'smOccupancy', unit: '%', percentage: true, needs: 'gpu' },
  dramBwUtil: { quantity: 'dramBwUtil', unit: '%', percentage: true, needs: 'gpu' },
} as const;
export type CriterionMetric = keyof typeof CRITERION_METRICS;
const METRIC_NAMES = Object.keys(CRITERION_METRICS) as [CriterionMetric, ...CriterionMetric[]];

const RatioCriterion = z.strictObject({
  metric: z.enum(METRIC_NAMES),
  form: z.literal('ratio'),
  // Which arm the metric should be lower or higher in.
  expect: z.enum(['on-lower', 'on-higher']),
  // The smallest relative change that counts: on ÷ off ≤ 1 − N/100 (on-lower) or ≥ 1 + N/100 (on-higher).
  atLeastPct: pct(),
});

const PointsCriterion = z.strictObject({
  metric: z.enum(METRIC_NAMES),
  form: z.literal('points'),
  expect: z.enum(['on-lower', 'on-higher']),
  // The smallest change that counts, in percentage points: on − off ≥ N (on-higher) or ≤ −N (on-lower).
  atLeastPoints: points(),
});

export const CriterionSchema = z.discriminatedUnion('form', [RatioCriterion, PointsCriterion]);

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
    });
  });

export type Criterion = z.infer<typeof CriterionSchema>;
export type Criteria = z.infer<typeof CriteriaSchema>;
