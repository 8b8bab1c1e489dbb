import * as z from 'zod';
import { MAX_LEGS, seconds } from './bounds.js';
import { parseSlo } from '../serve/slo.js';
import type { LoadShape, LoadStop, Slo, ValidityLimits } from '../serve/types.js';

// An ab gate's `serve` block (docs/serve.md, "A/B of a flag under load"): each leg of the A/B is one load
// against a server started with that arm's environment, instead of one driver process. The block says the
// load (a fixed concurrency, or open-loop arrivals at a rate), how many requests, and the SLO goodput is
// counted under; the same numbers `nh-gate serve` takes on its command line.

const count = (what: string) => z.number().int(`${what} is a whole number`).min(1).max(MAX_LEGS * 100);

// Stryker disable StringLiteral: the descriptions go to schemas/gate.json, which test/core/schemas.test.ts pins.
export const ServeLoadSchema = z
  .strictObject({
    concurrency: count('concurrency').optional().describe('keep this many requests in flight (closed loop)'),
    ratePerS: z.number().positive().max(10_000).optional().describe('open-loop Poisson arrivals at this many requests/s (seeded)'),
    seed: z.number().int().min(0).max(2 ** 31 - 1).default(1).describe('seed of the arrival schedule (ratePerS only)'),
    requests: count('requests').describe('minimum requests per leg (also its validity minimum)'),
    durationS: seconds({ zero: true }).default(0).describe('minimum seconds per leg: sending goes on until both minima are met'),
    maxRequests: count('maxRequests').optional().describe('cap on requests per leg (default: requests without durationS, else 10000)'),
    slo: z.string().optional().describe('goodput objectives, e.g. "ttft=200ms,tpot=50ms" (also e2e=…)'),
    requestTimeoutS: seconds().default(120).describe('per-request limit: past it the stream is closed and the request counted as timed out'),
    maxLateMs: z.number().positive().max(3_600_000).default(100).describe('open loop: a send later than this behind its schedule makes the leg INVALID (CLIENT_BEHIND)'),
    slots: count('slots').optional().describe("server parallel slots (default: the concurrency, else the recipe's serve.slots)"),
  })
  // Stryker restore StringLiteral
  .superRefine((s, ctx) => {
    if ((s.concurrency === undefined) === (s.ratePerS === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['concurrency'], message: 'a serve load is either "concurrency" or "ratePerS" — give exactly one' });
    }
    if (s.slo !== undefined) {
      const p = parseSlo(s.slo);
      if (!p.ok) ctx.addIssue({ code: 'custom', path: ['slo'], message: `${p.why} (e.g. "ttft=200ms,tpot=50ms")` });
    }
    if (s.maxRequests !== undefined && s.maxRequests < s.requests) ctx.addIssue({ code: 'custom', path: ['maxRequests'], message: `${s.maxRequests} is below requests ${s.requests}` });
  });

export type ServeLoadBlock = z.infer<typeof ServeLoadSchema>;

// What one serve leg runs: the load, when it stops, the limits it is held to, the SLO and the server's slots.
export interface ServeLoad {
  shape: LoadShape;
  stop: LoadStop;
  limits: ValidityLimits;
  slo: Slo | null;
  requestTimeoutS: number;
  slots: number;
}

// The block as a load, with the defaults `nh-gate serve` uses (recipeSlots: the recipe's serve.slots).
export function serveLoadOf(b: ServeLoadBlock, recipeSlots: number): ServeLoad {
  const shape: LoadShape = b.concurrency !== undefined ? { kind: 'concurrency', inFlight: b.concurrency } : { kind: 'rate', ratePerS: b.ratePerS!, seed: b.seed };
  const maxRequests = b.maxRequests ?? (b.durationS > 0 ? Math.max(10_000, b.requests) : b.requests);
  const slo = b.slo === undefined ? null : parseSlo(b.slo);
  return {
    shape,
    stop: { minRequests: b.requests, minDurationS: b.durationS, maxRequests },
    limits: { minRequests: b.requests, minDurationS: b.durationS, maxLateS: b.maxLateMs / 1e3 },
    slo: slo && slo.ok ? slo.slo : null,
    requestTimeoutS: b.requestTimeoutS,
    slots: b.slots ?? b.concurrency ?? recipeSlots,
  };
}
