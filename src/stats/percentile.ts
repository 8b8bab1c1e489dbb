// Nearest-rank percentiles: the value at rank ⌈p/100 · n⌉ of the sorted values, so every percentile printed is
// a value that was actually observed (no interpolation between two requests that both happened).

// The 1-based rank of the p-th percentile (p in 0..100) among n values; 1 for p = 0.
export function nearestRankPosition(p: number, n: number): number {
  return Math.min(n, Math.max(1, Math.ceil((p / 100) * n)));
}

// Nearest-rank percentile of a sorted, non-empty list.
export function nearestRank(sorted: readonly number[], p: number): number {
  return sorted[nearestRankPosition(p, sorted.length) - 1]!;
}
