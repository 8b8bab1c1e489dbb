// Pure summaries over plain arrays of numbers. Empty input gives NaN (callers refuse it by name), never 0.

export function mean(xs: readonly number[] | Float64Array): number {
  if (xs.length === 0) return Number.NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

// Median: the middle value, or the mean of the two middle values.
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

// Sample standard deviation (n − 1); NaN below two values, since one leg has no spread to speak of.
export function stdev(xs: readonly number[]): number {
  if (xs.length < 2) return Number.NaN;
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) * (x - m);
  return Math.sqrt(ss / (xs.length - 1));
}

export function min(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : Math.min(...xs);
}

export function max(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : Math.max(...xs);
}

// (max − min) / min: "engine loads 654.7 s and 778.2 s are 18.9% apart" — the spread a delta must beat.
export function relativeSpread(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const lo = min(xs);
  return lo === 0 ? Number.NaN : (max(xs) - lo) / Math.abs(lo);
}

export interface Summary {
  n: number;
  mean: number;
  median: number;
  stdev: number;
  min: number;
  max: number;
  relativeSpread: number;
}

// Everything a report prints about one group of legs.
export function summarize(xs: readonly number[]): Summary {
  return { n: xs.length, mean: mean(xs), median: median(xs), stdev: stdev(xs), min: min(xs), max: max(xs), relativeSpread: relativeSpread(xs) };
}
