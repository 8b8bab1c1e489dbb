// Change points of a series of figures, each with its own standard error: a weighted Potts step fit.
// The fit minimises  Σ_segments Σ_i w_i (x_i − mean_w(segment))²  +  β · (number of segments),
// with w_i = 1 / se_i² (a point's interval gives its se; see docs/statistics.md). β = 2·ln(n)·penaltyScale,
// the Schwarz (BIC) charge for a new mean and a new boundary in chi-square units. The minimum is sought by
// binary segmentation (Scott & Knott 1974; Fryzlewicz 2014): the best single split of a segment is kept
// when it lowers the cost by more than β, and both halves are searched again. O(n log n) with prefix sums,
// so 100,000 points fit in milliseconds; exact optimal partitioning is O(n²) with few changes.

export interface StepPoint {
  value: number;
  se: number; // > 0
}

export interface Segment {
  start: number; // inclusive index
  end: number; // exclusive index
  mean: number; // weighted mean
  se: number; // standard error of the weighted mean
}

export interface StepFit {
  segments: Segment[];
  changePoints: number[]; // index of the first point of each new segment
  penalty: number;
  // Dispersion: variances were multiplied by this when the points scatter more than their intervals say.
  dispersion: number;
}

interface Prefix { w: Float64Array; wx: Float64Array; wxx: Float64Array }

function prefixes(xs: readonly StepPoint[], dispersion: number): Prefix {
  const n = xs.length;
  const w = new Float64Array(n + 1);
  const wx = new Float64Array(n + 1);
  const wxx = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    const wi = 1 / (xs[i]!.se * xs[i]!.se * dispersion);
    w[i + 1] = w[i]! + wi;
    wx[i + 1] = wx[i]! + wi * xs[i]!.value;
    wxx[i + 1] = wxx[i]! + wi * xs[i]!.value * xs[i]!.value;
  }
  return { w, wx, wxx };
}

function cost(p: Prefix, s: number, e: number): number {
  const w = p.w[e]! - p.w[s]!;
  const wx = p.wx[e]! - p.wx[s]!;
  return Math.max(0, p.wxx[e]! - p.wxx[s]! - (wx * wx) / w);
}

// Over-dispersion from successive differences: the squared robust scale (MAD/0.6745) of the standardised
// differences, floored at 1, so intervals that are too narrow for the run-to-run scatter do not make every
// wobble a step. Successive differences ignore the steps themselves (only one difference spans a step).
export function dispersionOf(xs: readonly StepPoint[]): number {
  if (xs.length < 3) return 1;
  const z: number[] = [];
  for (let i = 1; i < xs.length; i++) z.push((xs[i]!.value - xs[i - 1]!.value) / Math.sqrt(xs[i]!.se ** 2 + xs[i - 1]!.se ** 2));
  const abs = z.map(Math.abs).sort((a, b) => a - b);
  const mad = abs[abs.length >> 1]!;
  const scale = mad / 0.6745;
  return Math.max(1, scale * scale);
}

// The weighted step fit of a series, in its order (oldest first).
export function fitSteps(xs: readonly StepPoint[], penaltyScale = 1): StepFit {
  const n = xs.length;
  if (n === 0) return { segments: [], changePoints: [], penalty: 0, dispersion: 1 };
  const dispersion = dispersionOf(xs);
  const p = prefixes(xs, dispersion);
  const penalty = 2 * Math.log(Math.max(n, 2)) * penaltyScale;
  const cps: number[] = [];
  const stack: Array<[number, number]> = [[0, n]];
  while (stack.length) {
    const [s, e] = stack.pop()!;
    if (e - s < 2) continue;
    const whole = cost(p, s, e);
    let best = -1;
    let bestCost = Number.POSITIVE_INFINITY;
    for (let k = s + 1; k < e; k++) {
      const c = cost(p, s, k) + cost(p, k, e);
      if (c < bestCost) { bestCost = c; best = k; }
    }
    if (best > 0 && whole - bestCost > penalty) {
      cps.push(best);
      stack.push([s, best], [best, e]);
    }
  }
  cps.sort((a, b) => a - b);
  const bounds = [0, ...cps, n];
  const segments: Segment[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const s = bounds[i]!;
    const e = bounds[i + 1]!;
    const w = p.w[e]! - p.w[s]!;
    segments.push({ start: s, end: e, mean: (p.wx[e]! - p.wx[s]!) / w, se: Math.sqrt(1 / w) });
  }
  return { segments, changePoints: cps, penalty, dispersion };
}
