import * as z from 'zod';

// The ranges every number in a config is held to, written once and shared by every schema (issue 21).
// A number outside them used to validate and then break the run: `timeoutS: 3000000` became Node's
// 1 ms timer (every leg VOID TIMEOUT), `repeats: 1e12` ran the heap out (exit 134). A JSON Infinity
// (`1e999`) or NaN never gets this far: zod 4's z.number() refuses non-finite values.

// Node's timers hold at most 2^31 − 1 ms; a longer delay is clamped to 1 ms with only a warning.
export const MAX_TIMER_MS = 2 ** 31 - 1;
// The longest timeout a config may ask for: 2147483 s (24.8 days), the timer limit in whole seconds.
export const MAX_TIMEOUT_S = Math.floor(MAX_TIMER_MS / 1000);
// Legs one series may plan: every leg is a process run, and the plan is built in memory first.
export const MAX_LEGS = 10_000;
// Repeats per arm of an A/B (two arms: at most MAX_LEGS legs).
export const MAX_REPEATS = MAX_LEGS / 2;
// Token ids, prompt ids and counts are read as int32 by the engines (the vllm.cpp driver's int32_t).
export const MAX_INT32 = 2 ** 31 - 1;
// A top-2 margin in nats: e^-10000 is no probability anything computes; past it the file is wrong.
export const MAX_NATS = 10_000;
// A relative change in percent a criterion may name (10× faster is +900%).
export const MAX_PCT = 1_000;
// Tokens one prompt may generate (and an oracle may be asked for).
export const MAX_NEW_TOKENS = 1_000_000;

// A timeout or wait in seconds: above zero (or from zero when `zero` allows it), at most MAX_TIMEOUT_S.
export function seconds(o: { zero?: boolean; min?: number } = {}): z.ZodNumber {
  const base = o.min !== undefined ? z.number().min(o.min) : o.zero ? z.number().nonnegative() : z.number().positive();
  return base.max(MAX_TIMEOUT_S, `at most ${MAX_TIMEOUT_S} s (Node's timers hold 2^31 − 1 ms; a longer one fires at once)`);
}

// A whole count from min to max.
export function count(min: number, max: number): z.ZodNumber {
  return z.number().int().min(min).max(max);
}

// A number of legs (a budget, warm-up legs) from min: every leg is a process run, planned in memory.
export function legs(min: number, tooFew?: string): z.ZodNumber {
  return z.number().int().min(min, tooFew).max(MAX_LEGS, `at most ${MAX_LEGS} legs (each leg is one run of the engine)`);
}

// Repeats per arm of an A/B.
export function repeats(): z.ZodNumber {
  return z.number().int().min(1).max(MAX_REPEATS, `at most ${MAX_REPEATS} repeats per arm (${MAX_LEGS} legs; each leg is one run of the engine)`);
}

// A token id or a prompt id: an int32 the engine can read back.
export function tokenId(): z.ZodNumber {
  return count(0, MAX_INT32);
}

// A top-2 margin (or a margin threshold) in nats.
export function nats(): z.ZodNumber {
  return z.number().nonnegative().max(MAX_NATS);
}

// A relative effect in percent, above zero.
export function pct(): z.ZodNumber {
  return z.number().positive().max(MAX_PCT);
}

// A change in percentage points between two percentages, above zero.
export function points(): z.ZodNumber {
  return z.number().positive().max(100);
}
