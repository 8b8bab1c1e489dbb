import { z } from 'zod';
import { legs, pct, repeats } from './bounds.js';
import { CriteriaSchema } from './criteria.js';

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

// Sequential A/B (issue 12, docs/statistics.md): an anytime-valid test after every ABBA block of 4 legs.
export const SequentialSchema = z.strictObject({
  always: z.boolean().default(false).describe('run sequentially even without --sequential'),
  alpha: z.number().gt(0).lt(0.5).default(0.05).describe('the chance of any wrong verdict, over every look'),
  sigmaLogRatio: z.number().positive().max(10).describe('registered sub-Gaussian scale of one block log ratio (measure it with ab --aa)'),
  tauLogRatio: z.number().positive().max(10).optional().describe('mixing sd over effects, log units (default: the criterion distance |log bound|)'),
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
  sequential: SequentialSchema.optional(),
  warmupLegs: legs(0).optional().describe('legs run first and discarded (never judged)'),
  table: z.string().optional().describe('mutation table, for kind mutate'),
  voidIfCpuContended: z.boolean().optional().describe('a CPU leg whose host was busy with other processes (more than half its CPU) is VOID (CPU_CONTENDED), not only flagged'),
  voidIfThrottled: z.boolean().optional().describe('a leg whose SM clock was held down (power, thermal, hardware slowdown) in its window is VOID (THROTTLED)'),
  witness: z.literal('harness').optional().describe('a pass must rest on ids the harness read (events or ids lines); a pass from the engine\'s counters alone is VOID (NOT_WITNESSED)'),
  // "only": the gate reports figures and judges nothing; any other A/B must pre-register what it claims.
  report: z.enum(['judge', 'only']).default('judge'),
}).superRefine((g, ctx) => {
  const registered = g.hypothesis !== undefined || g.criteria !== undefined;
  if (g.kind === 'ab' && !registered && g.report !== 'only') {
    ctx.addIssue({ code: 'custom', path: ['hypothesis'], message: 'an ab gate pre-registers its hypothesis (statement, metric, expect, refutedIfLessThanPct) or its criteria before the measurement — add one, or say "report": "only" to report figures without a verdict' });
  }
  if (g.report === 'only' && registered) ctx.addIssue({ code: 'custom', path: ['report'], message: '"only" judges nothing, but the gate registers a hypothesis or criteria — drop one of the two' });
  if (g.hypothesis && g.criteria) ctx.addIssue({ code: 'custom', path: ['criteria'], message: "a gate registers either 'hypothesis' or 'criteria', not both — move the hypothesis into criteria.metrics" });
});

export type Gate = z.infer<typeof GateSchema>;
export type Hypothesis = z.infer<typeof HypothesisSchema>;
export type SequentialConfig = z.infer<typeof SequentialSchema>;
