import type { Slo } from './types.js';

// Service-level objectives as written on the command line or in a gate: `ttft=200ms,tpot=50ms,e2e=2s`. Each
// a figure name and a duration with its unit (ms or s); nothing else is accepted, so a typo is an error, not
// an SLO silently dropped.

const KEYS = { ttft: 'ttftS', tpot: 'tpotS', e2e: 'e2eS' } as const;
type SloName = keyof typeof KEYS;

// The parse of one SLO text: the objectives, or what is wrong with it (the caller names the option or field).
export type SloParse = { ok: true; slo: Slo } | { ok: false; why: string };

// A duration such as "200ms", "0.2s" or "2 s" in seconds; null when it is not one.
export function parseDurationS(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s)\s*$/.exec(text);
  if (!m) return null;
  const v = Number(m[1]);
  return m[2] === 'ms' ? v / 1e3 : v;
}

export function parseSlo(text: string): SloParse {
  const slo: Slo = {};
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p.length > 0);
  if (parts.length === 0) return { ok: false, why: 'no objective given' };
  for (const part of parts) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim();
    if (!(name in KEYS)) return { ok: false, why: `'${name}' is not an SLO figure: use ttft, tpot or e2e` };
    const key = KEYS[name as SloName];
    if (slo[key] !== undefined) return { ok: false, why: `${name} is given twice` };
    const s = eq < 0 ? null : parseDurationS(part.slice(eq + 1));
    if (s === null || s <= 0) return { ok: false, why: `${name} needs a positive duration with its unit, e.g. ${name}=200ms or ${name}=0.2s` };
    slo[key] = s;
  }
  return { ok: true, slo };
}

// The SLO in words, the way it is written: "ttft ≤ 200 ms, tpot ≤ 50 ms".
export function describeSlo(slo: Slo): string {
  const parts: string[] = [];
  for (const [name, key] of Object.entries(KEYS) as Array<[SloName, keyof Slo]>) {
    const v = slo[key];
    if (v !== undefined) parts.push(`${name} ≤ ${Number((v * 1e3).toPrecision(6))} ms`);
  }
  return parts.join(', ');
}
