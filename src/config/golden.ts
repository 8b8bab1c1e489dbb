import { z } from 'zod';

// One prompt's oracle tokens; margins are null where the oracle had no logits.
export const GoldenPromptSchema = z.object({
  id: z.number().int().nonnegative(),
  text: z.string().optional(),
  promptTokens: z.array(z.number().int().nonnegative()),
  tokens: z.array(z.number().int().nonnegative()),
  top2MarginNats: z.array(z.number().nonnegative()).nullable().default(null),
  // The oracle's second choice per position (added by the oracle): lets a reader tell "took the runner-up at a near-tie" from a bug.
  runnerUp: z.array(z.number().int().nonnegative()).optional(),
});

// goldens/<name>/golden.json: the oracle's tokens with provenance (SPEC §2).
export const GoldenSchema = z.object({
  schemaVersion: z.literal(1),
  name: z.string(),
  oracle: z.object({ name: z.string(), version: z.string() }),
  checkpoint: z.object({ name: z.string(), revision: z.string().describe('content sha256 or upstream revision') }),
  sampling: z.object({ kind: z.literal('greedy'), maxNewTokens: z.number().int().positive() }),
  capturedAt: z.string(),
  capturedHost: z.string(),
  engineConfigRecorded: z.enum(['yes', 'no', 'unknown']),
  engineConfig: z.record(z.string(), z.unknown()).optional(),
  // A NEAR-TIE PASS is only possible where the golden licenses it, with its margin threshold.
  nearTie: z.object({ licensed: z.boolean(), maxMarginNats: z.number().nonnegative() }),
  determinism: z.object({ runs: z.number().int().positive(), multiValuedCells: z.number().int().nonnegative() }).nullable(),
  prompts: z.array(GoldenPromptSchema).min(1),
  // independent: an oracle outside the engine; regression: the engine under test was its own oracle, so a
  // pass only says "unchanged since capture", never "correct". Absent in goldens written before this field.
  origin: z.enum(['independent', 'regression']).optional(),
});

export type Golden = z.infer<typeof GoldenSchema>;
export type GoldenPrompt = z.infer<typeof GoldenPromptSchema>;
