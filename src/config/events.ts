import * as z from 'zod';

// The engine events JSONL stream (nh-ref's --events, and any driver's: docs/engines.md). One object per line.
// tNs: CLOCK_MONOTONIC nanoseconds as a decimal string (exceeds 2^53); the harness's clock is the same one.
const T = z.string().regex(/^\d+$/);

export const EngineEventSchema = z.discriminatedUnion('event', [
  z.object({ event: z.literal('load_start'), tNs: T }),
  z.object({ event: z.literal('load_end'), tNs: T, loadS: z.number() }),
  z.object({ event: z.literal('prompt_start'), tNs: T, prompt: z.number().int(), promptTokens: z.number().int(), mode: z.string() }),
  z.object({ event: z.literal('token'), tNs: T, prompt: z.number().int(), index: z.number().int(), token: z.number().int(), mode: z.string() }),
  z.object({ event: z.literal('prompt_done'), tNs: T, prompt: z.number().int(), generated: z.number().int(), mode: z.string() }),
  z.object({ event: z.literal('counters'), tNs: T, step: z.number().int(), fields: z.record(z.string(), z.number()) }),
  z.object({ event: z.literal('done'), tNs: T, exitCode: z.number().int() }),
]);

export type EngineEvent = z.infer<typeof EngineEventSchema>;
