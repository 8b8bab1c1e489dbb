import { z } from 'zod';

// One prompt's oracle tokens; margins are null where the oracle had no logits.
export const GoldenPromptSchema = z.strictObject({
  id: z.number().int().nonnegative(),
  text: z.string().optional(),
  promptTokens: z.array(z.number().int().nonnegative()),
  tokens: z.array(z.number().int().nonnegative()),
  top2MarginNats: z.array(z.number().nonnegative()).nullable().default(null),
  // The oracle's second choice per position (added by the oracle): lets a reader tell "took the runner-up at a near-tie" from a bug.
  runnerUp: z.array(z.number().int().nonnegative()).optional(),
});

// Where an imported golden came from: the engine's format, its original file (beside golden.json) and what
// nh-gate's fields have no slot for, kept verbatim so the format can be written back (src/oracle/vllmCpp/).
export const GoldenSourceSchema = z.strictObject({
  format: z.literal('vllm-cpp-oracle'),
  file: z.literal('oracle.json'),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  importedFrom: z.string(),
  extra: z.strictObject({
    top: z.record(z.string(), z.unknown()),
    entryText: z.array(z.string().nullable()),
  }).strict(),
}).strict();

// goldens/<name>/golden.json: the oracle's tokens with provenance (SPEC §2).
export const GoldenSchema = z.strictObject({
  schemaVersion: z.literal(1),
  name: z.string(),
  oracle: z.strictObject({ name: z.string(), version: z.string() }),
  checkpoint: z.strictObject({ name: z.string(), revision: z.string().describe('content sha256 or upstream revision') }),
  sampling: z.strictObject({ kind: z.literal('greedy'), maxNewTokens: z.number().int().positive() }),
  capturedAt: z.string(),
  capturedHost: z.string(),
  engineConfigRecorded: z.enum(['yes', 'no', 'unknown']),
  engineConfig: z.record(z.string(), z.unknown()).optional(),
  // A NEAR-TIE PASS is only possible where the golden licenses it, with its margin threshold.
  nearTie: z.strictObject({ licensed: z.boolean(), maxMarginNats: z.number().nonnegative() }),
  determinism: z.strictObject({ runs: z.number().int().positive(), multiValuedCells: z.number().int().nonnegative() }).nullable(),
  prompts: z.array(GoldenPromptSchema).min(1),
  // Set when the golden was imported from an engine's own file (nh-gate golden import): the original is kept
  // beside golden.json so the engine can be handed exactly the bytes it was captured in.
  source: GoldenSourceSchema.optional(),
  // independent: an oracle outside the engine; regression: the engine under test was its own oracle, so a
  // pass only says "unchanged since capture", never "correct". Absent in goldens written before this field.
  origin: z.enum(['independent', 'regression']).optional(),
});

export type Golden = z.infer<typeof GoldenSchema>;
export type GoldenPrompt = z.infer<typeof GoldenPromptSchema>;
