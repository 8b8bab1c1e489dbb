// Float64 primitives of MODEL.md "Forward"; written out by hand so the oracle shares nothing with the engine.

// `W x` for a row-major [rows, cols] weight: the one kernel every block uses.
export function matvec(w: Float64Array, rows: number, cols: number, x: Float64Array): Float64Array {
  if (w.length !== rows * cols || x.length !== cols) throw new Error(`matvec: weight ${w.length} vs [${rows}, ${cols}], input ${x.length}`);
  const out = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let acc = 0;
    const base = r * cols;
    for (let c = 0; c < cols; c++) acc += w[base + c]! * x[c]!;
    out[r] = acc;
  }
  return out;
}

// rmsnorm(x, w) = x / sqrt(mean(x^2) + eps) * w.
export function rmsnorm(x: Float64Array, w: Float64Array, eps: number): Float64Array {
  let ss = 0;
  for (let i = 0; i < x.length; i++) ss += x[i]! * x[i]!;
  const inv = 1 / Math.sqrt(ss / x.length + eps);
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i]! * inv * w[i]!;
  return out;
}

// silu(x) = x / (1 + exp(-x)).
export function silu(x: number): number {
  return x / (1 + Math.exp(-x));
}

// softplus with MODEL.md's cut-over at 20.
export function softplus(x: number): number {
  return x > 20 ? x : Math.log1p(Math.exp(x));
}

// The MoE router's score.
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

// Greedy pick with its top-2 margin in nats (MODEL.md clarification 6): ties go to the lowest id.
export function top2(logits: Float64Array): { token: number; runnerUp: number; marginNats: number } {
  if (logits.length < 2) throw new Error('top2: need at least two logits');
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i]! > logits[best]!) best = i;
  let second = best === 0 ? 1 : 0;
  for (let i = 0; i < logits.length; i++) if (i !== best && logits[i]! > logits[second]!) second = i;
  return { token: best, runnerUp: second, marginNats: logits[best]! - logits[second]! };
}

// Adds b into a in place (the residual stream).
export function addInto(a: Float64Array, b: Float64Array): void {
  for (let i = 0; i < a.length; i++) a[i] = a[i]! + b[i]!;
}
