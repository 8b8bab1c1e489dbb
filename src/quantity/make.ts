import type { Measured, Provenance, Quantity, Refused, RefusalCode, Term, Withheld } from './types.js';
import type { Silicon } from '../silicon/types.js';

// Constructors keep the three shapes uniform so no caller hand-builds a half-filled quantity.
export function measured(
  name: string,
  kind: string,
  value: number,
  unit: string,
  terms: Record<string, Term>,
  extra: { silicon?: Silicon | null; provenance?: Provenance } = {},
): Measured {
  const q: Measured = { status: 'measured', name, kind, value, unit, terms };
  if (extra.silicon !== undefined) q.silicon = extra.silicon;
  if (extra.provenance !== undefined) q.provenance = extra.provenance;
  return q;
}

// A number declined by name: the reason is a stable code, the message says which term failed.
export function refused(name: string, reason: RefusalCode, message: string): Refused {
  return { status: 'refused', name, reason, message };
}

// A comparison declined because its sides are not comparable; the quantities themselves still stand.
export function withheld(name: string, reason: RefusalCode, message: string): Withheld {
  return { status: 'withheld', name, reason, message };
}

// True only for a real, finite number: null, undefined, NaN and ±Infinity are all "not a term".
export function isFiniteNumber(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

// Narrowing helper used by comparisons and reports.
export function isMeasured(q: Quantity): q is Measured {
  return q.status === 'measured';
}
