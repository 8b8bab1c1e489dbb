import { z } from 'zod';

// The oracle protocol's messages (docs/engines.md): prompt ids in, per-prompt ids and top-2 margins out.
// Schemas only, validated at the boundary; the protocol's logic is src/oracle/protocol.ts.

export const PromptIdsSchema = z.array(z.union([
  z.array(z.number().int().nonnegative()).min(1),
  z.object({ id: z.number().int().nonnegative().optional(), text: z.string().optional(), promptTokens: z.array(z.number().int().nonnegative()).min(1) }).strict(),
])).min(1);

export const OracleRequestSchema = z.object({
  schemaVersion: z.literal(1),
  prompts: z.array(z.object({ id: z.number().int().nonnegative(), promptTokens: z.array(z.number().int().nonnegative()).min(1) }).strict()).min(1),
  sampling: z.object({ kind: z.literal('greedy'), maxNewTokens: z.number().int().positive() }).strict(),
}).strict();
export type OracleRequest = z.infer<typeof OracleRequestSchema>;

export const OracleAnswerSchema = z.object({
  schemaVersion: z.literal(1),
  oracle: z.object({ name: z.string().min(1), version: z.string().min(1) }).strict(),
  checkpoint: z.object({ name: z.string().min(1), revision: z.string().min(1) }).strict(),
  engineConfigRecorded: z.enum(['yes', 'no', 'unknown']),
  engineConfig: z.record(z.string(), z.unknown()).optional(),
  prompts: z.array(z.object({
    id: z.number().int().nonnegative(),
    tokens: z.array(z.number().int().nonnegative()),
    top2MarginNats: z.array(z.number().nonnegative()).nullable().optional(),
    runnerUp: z.array(z.number().int().nonnegative()).optional(),
  }).strict()),
}).strict();
export type OracleAnswer = z.infer<typeof OracleAnswerSchema>;
