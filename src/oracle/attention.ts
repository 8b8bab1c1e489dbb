import { matvec } from './math.js';

// Dims of one GQA block (MODEL.md "GQA attention", no RoPE).
export interface AttnDims { D: number; Hq: number; Hkv: number; Dh: number }

// One layer's projections, float64.
export interface AttnWeights { q: Float64Array; k: Float64Array; v: Float64Array; o: Float64Array }

// The per-layer KV cache: one k and one v row (Hkv*Dh) per position seen.
export interface KvCache { k: Float64Array[]; v: Float64Array[] }

// An empty cache for a new prompt.
export function newKvCache(): KvCache {
  return { k: [], v: [] };
}

// The GQA head mapping, named so a test can pin it: q head h reads kv head h / (Hq/Hkv).
export function kvHeadFor(h: number, Hq: number, Hkv: number): number {
  return Math.floor(h / (Hq / Hkv));
}

// One position: append k, v to the cache, attend over every cached position (itself included).
export function attnStep(d: AttnDims, w: AttnWeights, cache: KvCache, u: Float64Array): Float64Array {
  const { D, Hq, Hkv, Dh } = d;
  const q = matvec(w.q, Hq * Dh, D, u);
  cache.k.push(matvec(w.k, Hkv * Dh, D, u));
  cache.v.push(matvec(w.v, Hkv * Dh, D, u));
  const T = cache.k.length;
  const scale = 1 / Math.sqrt(Dh);
  const o = new Float64Array(Hq * Dh);
  const scores = new Float64Array(T);
  for (let h = 0; h < Hq; h++) {
    const kv = kvHeadFor(h, Hq, Hkv);
    let max = -Infinity;
    for (let s = 0; s < T; s++) {
      let dot = 0;
      const ks = cache.k[s]!;
      for (let i = 0; i < Dh; i++) dot += q[h * Dh + i]! * ks[kv * Dh + i]!;
      scores[s] = dot * scale;
      if (scores[s]! > max) max = scores[s]!;
    }
    let sum = 0;
    for (let s = 0; s < T; s++) { scores[s] = Math.exp(scores[s]! - max); sum += scores[s]!; }
    for (let s = 0; s < T; s++) {
      const p = scores[s]! / sum;
      const vs = cache.v[s]!;
      for (let i = 0; i < Dh; i++) o[h * Dh + i] = o[h * Dh + i]! + p * vs[kv * Dh + i]!;
    }
  }
  return matvec(w.o, D, Hq * Dh, o);
}
