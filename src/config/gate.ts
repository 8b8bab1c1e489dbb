import { z } from 'zod';

// A hypothesis written BEFORE the measurement; the verdict is computed against it.
export const HypothesisSchema = z.object({
  statement: z.string().min(1),
  metric: z.enum(['perOutputToken', 'busyFraction']),
  // The arm expected to be better; the ratio is reported as treatment/control.
  expect: z.enum(['on-faster', 'off-faster', 'on-busier', 'off-busier']),
  // "refuted if per-token time moves less than N%": the minimum effect, in percent.
  refutedIfLessThanPct: z.number().positive(),
  refutationFails: z.boolean().default(true).describe('whether REFUTED exits 1'),
});

export const GateSchema = z.object({
  schemaVersion: z.literal(1),
  kind: z.enum(['a3', 'ab', 'busy', 'mutate', 'suite']),
  name: z.string(),
  recipe: z.string(),
  golden: z.string().optional(),
  flag: z.string().optional(),
  arch: z.string().optional(),
  mode: z.enum(['decode', 'fresh-prefill', 'both']).default('decode'),
  hypothesis: HypothesisSchema.optional(),
  repeats: z.number().int().positive().default(4),
  order: z.enum(['abba', 'random']).default('abba'),
  // Flag value per arm of an A/B; default A=off (control), B=on (treatment). Equal values make a null A/B.
  // Arm values: on, off, default or one of the flag's declared values.
  arms: z.object({ A: z.string().min(1), B: z.string().min(1) }).optional(),
  env: z.record(z.string(), z.string()).default({}).describe('environment held constant across every leg'),
  table: z.string().optional().describe('mutation table, for kind mutate'),
});

export type Gate = z.infer<typeof GateSchema>;
export type Hypothesis = z.infer<typeof HypothesisSchema>;
