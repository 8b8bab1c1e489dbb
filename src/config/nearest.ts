import type { z } from 'zod';

// Edit distance between two short keys (Levenshtein), for "did you mean" on an unknown config key.
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

// The known key (or name) closest to an unknown one, when it is close enough to be a typo (or a case slip).
export function nearestKey(unknown: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const k of known) {
    // Case is no distance: `--flag mamba_decode_stp` is one letter from MAMBA_DECODE_STEP.
    const d = editDistance(unknown.toLowerCase(), k.toLowerCase());
    if (d < bestD) { best = k; bestD = d; }
  }
  // Never a name that shares nothing with the unknown one ('3' is not a typo of '1').
  return best !== null && bestD <= Math.max(2, Math.floor(unknown.length / 3)) && bestD < unknown.length ? best : null;
}

// The hint an unknown name gets, for config keys and for names (recipes, profiles, goldens, flags, flag
// values) alike: " — did you mean 'x'?", or nothing when no known name is near.
export function didYouMean(unknown: string, known: readonly string[]): string {
  const near = nearestKey(unknown, known);
  return near === null ? '' : ` — did you mean '${near}'?`;
}

type AnySchema = z.ZodType & { def?: Record<string, unknown>; shape?: Record<string, unknown> };

// The object keys a schema accepts at a path (through optional, default, array, record and union
// wrappers); empty when the path does not lead to an object.
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let cur: AnySchema[] = [schema as AnySchema];
  const unwrap = (s: AnySchema): AnySchema[] => {
    const def = (s.def ?? {}) as Record<string, unknown>;
    const t = def.type as string | undefined;
    if (t === 'optional' || t === 'default' || t === 'nullable' || t === 'prefault' || t === 'readonly' || t === 'catch') return unwrap(def.innerType as AnySchema);
    if (t === 'pipe') return unwrap(def.in as AnySchema);
    if (t === 'union') return (def.options as AnySchema[]).flatMap(unwrap);
    return [s];
  };
  cur = cur.flatMap(unwrap);
  for (const seg of path) {
    const next: AnySchema[] = [];
    for (const s of cur) {
      const def = (s.def ?? {}) as Record<string, unknown>;
      if (def.type === 'object' && typeof seg === 'string' && s.shape && seg in s.shape) next.push(s.shape[seg] as AnySchema);
      else if (def.type === 'array' && typeof seg === 'number') next.push(def.element as AnySchema);
      else if (def.type === 'record') next.push(def.valueType as AnySchema);
    }
    cur = next.flatMap(unwrap);
  }
  return [...new Set(cur.flatMap((s) => (s.def?.type === 'object' && s.shape ? Object.keys(s.shape) : [])))];
}
