import type { EngineEvent } from '../../config/events.js';

// The engine events schema (src/config/events.ts) checked by hand for the well-formed common case. zod's
// discriminated union costs ~10 µs a line on code that is cold at every leg (issue 25: several ms per leg on
// the critical path); this check takes a record only where the schema surely takes it too, and builds what
// zod would return (the schema's keys, in its order; unknown keys dropped). Anything unusual comes back
// undefined and goes to zod, whose answer and error messages stay the only word on a bad line.
// test/core/events-fast.test.ts holds the two to the same accept/reject decisions and the same output.

type Rec = Record<string, unknown>;

// The schema's tNs: a decimal string of digits only.
const DIGITS = /^\d+$/;
const tNs = (r: Rec): string | undefined => (typeof r.tNs === 'string' && DIGITS.test(r.tNs) ? r.tNs : undefined);
// z.number(): finite (Number.isFinite never coerces); .int(): a safe integer (beyond 2^53 zod refuses, so the check does too).
const num = (v: unknown): v is number => Number.isFinite(v);
const int = (v: unknown): v is number => Number.isSafeInteger(v);

// z.record(z.string(), z.number()) over a JSON object: a fresh object of the same keys. A "__proto__" key
// (which zod drops by assignment) goes to zod, as does anything not a plain object.
function numberRecord(v: unknown): Record<string, number> | undefined {
  if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype) return undefined;
  const out: Record<string, number> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === '__proto__' || !num(x)) return undefined;
    out[k] = x;
  }
  return out;
}

// One parsed JSON value as an engine event, or undefined: "ask zod" (never "invalid").
export function fastEngineEvent(json: unknown): EngineEvent | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const r = json as Rec;
  const t = tNs(r);
  if (t === undefined) return undefined;
  switch (r.event) {
    case 'load_start':
      return { event: 'load_start', tNs: t };
    case 'load_end':
      return num(r.loadS) ? { event: 'load_end', tNs: t, loadS: r.loadS } : undefined;
    case 'prompt_start':
      return int(r.prompt) && int(r.promptTokens) && typeof r.mode === 'string' ? { event: 'prompt_start', tNs: t, prompt: r.prompt, promptTokens: r.promptTokens, mode: r.mode } : undefined;
    case 'token':
      return int(r.prompt) && int(r.index) && int(r.token) && typeof r.mode === 'string' ? { event: 'token', tNs: t, prompt: r.prompt, index: r.index, token: r.token, mode: r.mode } : undefined;
    case 'prompt_done':
      return int(r.prompt) && int(r.generated) && typeof r.mode === 'string' ? { event: 'prompt_done', tNs: t, prompt: r.prompt, generated: r.generated, mode: r.mode } : undefined;
    case 'counters': {
      const fields = numberRecord(r.fields);
      return int(r.step) && fields ? { event: 'counters', tNs: t, step: r.step, fields } : undefined;
    }
    case 'done':
      return int(r.exitCode) ? { event: 'done', tNs: t, exitCode: r.exitCode } : undefined;
    default:
      return undefined;
  }
}
