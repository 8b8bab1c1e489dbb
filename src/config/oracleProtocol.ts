import * as z from 'zod';
import { count, MAX_NEW_TOKENS, nats, tokenId } from './bounds.js';

// The oracle protocol's messages (docs/engines.md): prompt ids in, per-prompt ids and top-2 margins out.
// Schemas only, validated at the boundary; the protocol's logic is src/oracle/protocol.ts.

export const PromptIdsSchema = z.array(z.union([
  z.array(tokenId()).min(1),
  z.object({ id: tokenId().optional(), text: z.string().optional(), promptTokens: z.array(tokenId()).min(1) }).strict(),
])).min(1);

export const OracleRequestSchema = z.object({
  schemaVersion: z.literal(1),
  prompts: z.array(z.object({ id: tokenId(), promptTokens: z.array(tokenId()).min(1) }).strict()).min(1),
  sampling: z.object({ kind: z.literal('greedy'), maxNewTokens: count(1, MAX_NEW_TOKENS) }).strict(),
}).strict();
export type OracleRequest = z.infer<typeof OracleRequestSchema>;

export const OracleAnswerSchema = z.object({
  schemaVersion: z.literal(1),
  oracle: z.object({ name: z.string().min(1), version: z.string().min(1) }).strict(),
  checkpoint: z.object({ name: z.string().min(1), revision: z.string().min(1) }).strict(),
  engineConfigRecorded: z.enum(['yes', 'no', 'unknown']),
  engineConfig: z.record(z.string(), z.unknown()).optional(),
  prompts: z.array(z.object({
    id: tokenId(),
    tokens: z.array(tokenId()),
    top2MarginNats: z.array(nats()).nullable().optional(),
    runnerUp: z.array(tokenId()).optional(),
  }).strict()),
}).strict();
export type OracleAnswer = z.infer<typeof OracleAnswerSchema>;
