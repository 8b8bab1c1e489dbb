import { matvec, sigmoid } from './math.js';

// Dims of one MoE block (MODEL.md "MoE").
export interface MoeDims { D: number; E: number; k: number; F: number }

// Router, its correction bias, and each expert's up/down projections, float64.
export interface MoeWeights { router: Float64Array; bias: Float64Array; up: Float64Array[]; down: Float64Array[] }

// Top-k by s_e + bias_e, ties to the lower index; the weights use s_e alone (the bias only steers the choice).
export function route(scores: Float64Array, bias: Float64Array, k: number): { chosen: number[]; weights: number[] } {
  const order = Array.from(scores, (_, e) => e).sort((a, b) => {
    const d = scores[b]! + bias[b]! - (scores[a]! + bias[a]!);
    return d !== 0 ? d : a - b;
  });
  const chosen = order.slice(0, k);
  const total = chosen.reduce((acc, e) => acc + scores[e]!, 0);
  return { chosen, weights: chosen.map((e) => scores[e]! / total) };
}

// out = sum_{e in chosen} w_e * down_e · relu(up_e · u)^2.
export function moeStep(d: MoeDims, w: MoeWeights, u: Float64Array): Float64Array {
  const logits = matvec(w.router, d.E, d.D, u);
  const scores = logits.map(sigmoid);
  const { chosen, weights } = route(scores, w.bias, d.k);
  const out = new Float64Array(d.D);
  chosen.forEach((e, j) => {
    const hidden = matvec(w.up[e]!, d.F, d.D, u).map((x) => (x > 0 ? x * x : 0));
    const y = matvec(w.down[e]!, d.D, d.F, hidden);
    for (let i = 0; i < d.D; i++) out[i] = out[i]! + weights[j]! * y[i]!;
  });
  return out;
}
