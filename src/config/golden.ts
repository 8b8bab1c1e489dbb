import * as z from 'zod';
import { count, MAX_INT32, MAX_NEW_TOKENS, nats, tokenId } from './bounds.js';

// One prompt's oracle tokens; margins are null where the oracle had no logits.
export const GoldenPromptSchema = z.strictObject({
  id: tokenId(),
  text: z.string().optional(),
  promptTokens: z.array(tokenId()).min(1, 'empty: a prompt with no tokens gives the engine nothing to continue'),
  tokens: z.array(tokenId()).min(1, 'empty: a prompt with no golden tokens compares nothing'),
  top2MarginNats: z.array(nats()).nullable().default(null),
  // The oracle's second choice per position (added by the oracle): lets a reader tell "took the runner-up at a near-tie" from a bug.
  runnerUp: z.array(tokenId()).optional(),
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
  sampling: z.strictObject({ kind: z.literal('greedy'), maxNewTokens: count(1, MAX_NEW_TOKENS) }),
  capturedAt: z.string(),
  capturedHost: z.string(),
  engineConfigRecorded: z.enum(['yes', 'no', 'unknown']),
  engineConfig: z.record(z.string(), z.unknown()).optional(),
  // A NEAR-TIE PASS is only possible where the golden licenses it, with its margin threshold.
  nearTie: z.strictObject({ licensed: z.boolean(), maxMarginNats: nats() }),
  determinism: z.strictObject({ runs: count(1, MAX_INT32), multiValuedCells: count(0, MAX_INT32) }).nullable(),
  prompts: z.array(GoldenPromptSchema).min(1),
  // Set when the golden was imported from an engine's own file (nh-gate golden import): the original is kept
  // beside golden.json so the engine can be handed exactly the bytes it was captured in.
  source: GoldenSourceSchema.optional(),
  // independent: an oracle outside the engine; regression: the engine under test was its own oracle, so a
  // pass only says "unchanged since capture", never "correct". Absent in goldens written before this field.
  origin: z.enum(['independent', 'regression']).optional(),
}).superRefine((g, ctx) => {
  // Rules across fields: each prompt id names one prompt, and a margin or runner-up exists per token.
  const firstAt = new Map<number, number>();
  g.prompts.forEach((p, i) => {
    const first = firstAt.get(p.id);
    if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['prompts', i, 'id'], message: `duplicate prompt id ${p.id} (prompts.${first}.id has it too): a row would be judged against the wrong prompt — give each prompt its own id` });
    else firstAt.set(p.id, i);
    for (const key of ['top2MarginNats', 'runnerUp'] as const) {
      const per = p[key];
      if (per && per.length !== p.tokens.length) ctx.addIssue({ code: 'custom', path: ['prompts', i, key], message: `${per.length} entries for ${p.tokens.length} tokens: one per generated position (null the whole field where the oracle had no logits)` });
    }
  });
});

export type Golden = z.infer<typeof GoldenSchema>;
export type GoldenPrompt = z.infer<typeof GoldenPromptSchema>;
