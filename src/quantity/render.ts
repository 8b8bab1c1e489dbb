import type { Measured, Quantity, Term } from './types.js';

// One place decides how many digits a unit gets, so the same figure never prints two ways (the tables
// print the bare number under a header that names the unit).
export function formatBare(value: number, unit: string): string {
  if (!Number.isFinite(value)) return String(value);
  switch (unit) {
    case 's':
      return value.toFixed(6);
    case '%':
      return value.toFixed(2);
    case 'x':
      return value.toFixed(3);
    case 'fraction':
      return (100 * value).toFixed(1);
    case 'tokens/s':
      return value >= 10 ? value.toFixed(1) : value.toPrecision(3);
    default:
      return String(Number(value.toPrecision(6)));
  }
}

// A value with its unit, in the digits formatBare gives it.
export function formatValue(value: number, unit: string): string {
  const bare = formatBare(value, unit);
  if (!Number.isFinite(value)) return bare;
  return unit === '%' || unit === 'fraction' ? `${bare}%` : unit === 'x' ? `${bare}x` : `${bare} ${unit}`;
}

function num(t: Term | undefined): number | null {
  return t && typeof t.value === 'number' ? t.value : null;
}

function fixed(t: Term | undefined, digits: number): string {
  const v = num(t);
  return v === null ? 'unknown' : v.toFixed(digits);
}

function signed(v: number, text: string): string {
  return v >= 0 ? `+${text}` : text;
}

type Renderer = (q: Measured) => string;

// Text shapes per kind of quantity; each prints the terms it divided beside the value.
const RENDERERS: Record<string, Renderer> = {
  perOutputToken: (q) => {
    const load = num(q.terms.loadS);
    const loadText = load === null ? 'engine load not reported' : `engine load ${load.toFixed(1)} s excluded`;
    // The clock is named when it is not the harness's arrival stamps (the documented default).
    const why = q.terms.clockWhy ? `; on the ${String(q.terms.clock?.value)}: ${String(q.terms.clockWhy.value)}` : '';
    return `${q.name} ${q.value.toFixed(6)} s (decode window ${fixed(q.terms.decodeWindowS, 3)} s / ${fixed(q.terms.tokensCompared, 0)} tokens compared; ${loadText}${why})`;
  },
  tokensPerSecond: (q) =>
    `${q.name} ${formatValue(q.value, 'tokens/s')} (${fixed(q.terms.tokensCompared, 0)} tokens compared / decode window ${fixed(q.terms.decodeWindowS, 3)} s)`,
  busyTimeWeighted: (q) =>
    `${q.name} ${q.value.toFixed(2)}% (time-weighted mean of ${fixed(q.terms.samples, 0)} driver samples over a ${fixed(q.terms.windowS, 3)} s window; coverage ${formatValue(num(q.terms.coverage) ?? NaN, 'fraction')}, median sample period ${fixed(q.terms.samplePeriodS, 3)} s${q.terms.resolution?.value === 'coarse' ? '; window shorter than two sample periods — the figure includes activity outside it' : ''})`,
  busyNonzeroShare: (q) =>
    `${q.name} ${fixed(q.terms.nonzero, 0)} of ${fixed(q.terms.samples, 0)} samples = ${q.value.toFixed(2)}% — an upper bound (a sample > 0 is not a busy period)`,
  baselineRatio: (q) =>
    `${q.name} ${q.value.toFixed(3)}x (${formatValue(num(q.terms.numerator) ?? NaN, q.terms.numerator?.unit ?? '')} / ${formatValue(num(q.terms.denominator) ?? NaN, q.terms.denominator?.unit ?? '')}; both on ${String(q.terms.arch?.value ?? 'unknown')})`,
  ratio: (q) =>
    `${q.name} ${formatValue(q.value, q.unit)} (${formatValue(num(q.terms.numerator) ?? NaN, q.terms.numerator?.unit ?? '')} / ${formatValue(num(q.terms.denominator) ?? NaN, q.terms.denominator?.unit ?? '')})`,
  delta: (q) => {
    const rel = num(q.terms.relPct);
    const relText = rel === null ? 'relative change undefined: b is 0' : signed(rel, `${rel.toFixed(2)}%`);
    return `${q.name} ${signed(q.value, formatValue(q.value, q.unit))} (${relText}; ${formatValue(num(q.terms.a) ?? NaN, q.unit)} − ${formatValue(num(q.terms.b) ?? NaN, q.unit)})`;
  },
};

function genericTerms(q: Measured): string {
  return Object.entries(q.terms)
    .map(([k, t]) => `${t.label ?? k} ${typeof t.value === 'number' && t.unit ? formatValue(t.value, t.unit) : String(t.value)}`)
    .join('; ');
}

// Every printed number goes through here: one text line, measured with its terms or refused/withheld by name.
export function renderQuantity(q: Quantity): string {
  if (q.status === 'refused') return `${q.name} REFUSED (${q.reason}): ${q.message}`;
  if (q.status === 'withheld') return `${q.name} WITHHELD (${q.reason}): ${q.message}`;
  const r = q.kind ? RENDERERS[q.kind] : undefined;
  if (r) return r(q);
  const terms = genericTerms(q);
  return `${q.name} ${formatValue(q.value, q.unit)}${terms ? ` (${terms})` : ''}`;
}

// The JSON shape of SPEC §3; plain data, safe for JSON.stringify (non-finite numbers become null).
export function quantityJson(q: Quantity): Record<string, unknown> {
  if (q.status !== 'measured') return { status: q.status, name: q.name, reason: q.reason, message: q.message };
  const out: Record<string, unknown> = { status: 'measured', name: q.name, value: q.value, unit: q.unit, terms: q.terms };
  if (q.kind) out.kind = q.kind;
  if (q.silicon !== undefined) out.silicon = q.silicon;
  if (q.provenance !== undefined) out.provenance = q.provenance;
  return out;
}
