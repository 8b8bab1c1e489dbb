import type { Silicon } from '../silicon/types.js';

// Stable refusal codes (SPEC §3): used in --json output and mapped to exit codes; never renamed.
export const REFUSAL_CODES = [
  'MISSING_TERM',
  'ZERO_DENOMINATOR',
  'NON_POSITIVE_WINDOW',
  'NON_FINITE',
  'WINDOW_UNKNOWN',
  'NO_SAMPLES',
  'CROSS_SILICON',
  'CONTENDED',
  'DEGRADED_BUILD',
  'REFERENCE_TIER',
  'WRONG_TOKENS',
  'NOT_REBUILT',
  'UNVIABLE',
  'NOT_RESTORED',
  'STALE',
  'AMBIGUOUS',
  'NO_CASES',
  'GPU_SKIPPED',
  'NO_SUCH_SILICON',
  'TIMEOUT',
  'CRASHED',
  'PARTIAL',
  'PROBE_FAILED',
  'BUILD_FAILED',
  'GPM_UNSUPPORTED',
  'FEW_GPM_INTERVALS',
  'THROTTLED',
  // Clocks (issue 21): stamps that run backwards, and tokens that share one arrival stamp.
  'CLOCK_BACKWARDS',
  'ARRIVALS_COLLAPSED',
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

// A term a quantity was divided from: a number with its unit, or a labelled fact.
export interface Term {
  value: number | string | null;
  unit?: string;
  label?: string;
}

export interface Provenance {
  binarySha256?: string;
  sources?: string[];
  window?: { startS: number; endS: number };
}

// A number nh-gate may print: value, unit and the terms it came from.
export interface Measured {
  status: 'measured';
  name: string;
  // Which renderer shapes the text line (perOutputToken, busyTimeWeighted, ratio …); absent → generic.
  kind?: string;
  value: number;
  unit: string;
  terms: Record<string, Term>;
  silicon?: Silicon | null;
  provenance?: Provenance;
}

// A number nh-gate declined to compute, by name.
export interface Refused {
  status: 'refused';
  name: string;
  reason: RefusalCode;
  message: string;
}

// A comparison declined because its sides are not comparable (e.g. different silicon).
export interface Withheld {
  status: 'withheld';
  name: string;
  reason: RefusalCode;
  message: string;
}

export type Quantity = Measured | Refused | Withheld;
