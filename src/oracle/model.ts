import type { Checkpoint } from './checkpoint.js';
import type { ModelConfig } from './config.js';
import { addInto, rmsnorm } from './math.js';
import { mambaChunked, mambaStep, newMambaState } from './mamba.js';
import type { MambaCounters, MambaDims, MambaState, MambaWeights } from './mamba.js';
import { attnStep, newKvCache } from './attention.js';
import type { AttnDims, AttnWeights, KvCache } from './attention.js';
import { moeStep } from './moe.js';
import type { MoeDims, MoeWeights } from './moe.js';

// One block of the layer pattern with its pre-norm and mixer weights.
export type Layer =
  | { kind: 'M'; norm: Float64Array; dims: MambaDims; w: MambaWeights }
  | { kind: 'A'; norm: Float64Array; dims: AttnDims; w: AttnWeights }
  | { kind: 'E'; norm: Float64Array; dims: MoeDims; w: MoeWeights };

// The whole model in float64, built once from a validated checkpoint.
export interface Model {
  config: ModelConfig;
  embed: Float64Array;
  layers: Layer[];
  normF: Float64Array;
  lmHead: Float64Array;
}

// Per-prompt state: one entry per layer (Mamba state, KV cache, or nothing for MoE).
export type ModelState = (MambaState | KvCache | null)[];

// How a prefill runs its Mamba layers: the chunked scan (MODEL.md) or the plain recurrence (self-check).
export type PrefillScan = 'chunked' | 'recurrent';

// Builds the model from a checkpoint whose tensor set parseCheckpoint already checked.
export function buildModel(ck: Checkpoint): Model {
  const c = ck.config;
  const t = (name: string): Float64Array => {
    const found = ck.tensors.get(name);
    if (!found) throw new Error(`buildModel: tensor ${name} missing after validation`);
    return found.data;
  };
  const layers: Layer[] = [...c.layers].map((kind, i): Layer => {
    const p = `layers.${i}.mixer.`;
    const norm = t(`layers.${i}.norm.weight`);
    if (kind === 'M') {
      const m = c.mamba!;
      return {
        kind, norm,
        dims: { D: c.dModel, H: m.nHeads, P: m.headDim, G: m.nGroups, N: m.dState, K: m.convKernel, L: m.chunkSize, eps: c.normEps },
        w: {
          inProj: t(`${p}in_proj.weight`), convW: t(`${p}conv1d.weight`), convB: t(`${p}conv1d.bias`),
          dtBias: t(`${p}dt_bias`), ALog: t(`${p}A_log`), Dskip: t(`${p}D`),
          normW: t(`${p}norm.weight`), outProj: t(`${p}out_proj.weight`),
        },
      };
    }
    if (kind === 'A') {
      const a = c.attn!;
      return {
        kind, norm,
        dims: { D: c.dModel, Hq: a.nHeads, Hkv: a.nKvHeads, Dh: a.headDim },
        w: { q: t(`${p}q_proj.weight`), k: t(`${p}k_proj.weight`), v: t(`${p}v_proj.weight`), o: t(`${p}o_proj.weight`) },
      };
    }
    const e = c.moe!;
    return {
      kind: 'E', norm,
      dims: { D: c.dModel, E: e.nExperts, k: e.topK, F: e.dFf },
      w: {
        router: t(`${p}router.weight`), bias: t(`${p}router.e_score_correction_bias`),
        up: Array.from({ length: e.nExperts }, (_, x) => t(`${p}experts.${x}.up_proj.weight`)),
        down: Array.from({ length: e.nExperts }, (_, x) => t(`${p}experts.${x}.down_proj.weight`)),
      },
    };
  });
  return { config: c, embed: t('embed.weight'), layers, normF: t('norm_f.weight'), lmHead: t('lm_head.weight') };
}

// A fresh per-prompt state (zero conv windows, zero S, empty KV caches).
export function newState(m: Model): ModelState {
  return m.layers.map((l) => (l.kind === 'M' ? newMambaState(l.dims) : l.kind === 'A' ? newKvCache() : null));
}

function embedRow(m: Model, token: number): Float64Array {
  const D = m.config.dModel;
  if (!Number.isInteger(token) || token < 0 || token >= m.config.vocab) throw new Error(`token ${token} is outside the vocab [0, ${m.config.vocab})`);
  return Float64Array.from(m.embed.subarray(token * D, (token + 1) * D));
}

function logitsOf(m: Model, h: Float64Array): Float64Array {
  const D = m.config.dModel;
  const x = rmsnorm(h, m.normF, m.config.normEps);
  const out = new Float64Array(m.config.vocab);
  for (let v = 0; v < m.config.vocab; v++) {
    let acc = 0;
    for (let i = 0; i < D; i++) acc += m.lmHead[v * D + i]! * x[i]!;
    out[v] = acc;
  }
  return out;
}

// Runs the prompt through every layer (sequence form) and returns the last position's logits.
export function prefill(m: Model, st: ModelState, tokens: number[], scan: PrefillScan = 'chunked', ctr?: MambaCounters): Float64Array {
  if (tokens.length === 0) throw new Error('prefill: a prompt needs at least one token');
  const hs = tokens.map((tok) => embedRow(m, tok));
  m.layers.forEach((l, i) => {
    const us = hs.map((h) => rmsnorm(h, l.norm, m.config.normEps));
    let outs: Float64Array[];
    if (l.kind === 'M') {
      const s = st[i] as MambaState;
      outs = scan === 'chunked' ? mambaChunked(l.dims, l.w, s, us, ctr) : us.map((u) => mambaStep(l.dims, l.w, s, u, ctr));
    } else if (l.kind === 'A') {
      outs = us.map((u) => attnStep(l.dims, l.w, st[i] as KvCache, u));
    } else {
      outs = us.map((u) => moeStep(l.dims, l.w, u));
    }
    hs.forEach((h, t) => addInto(h, outs[t]!));
  });
  return logitsOf(m, hs[hs.length - 1]!);
}

// One decode step: the single-step recurrent update for Mamba layers, one cache append for attention.
export function decodeStep(m: Model, st: ModelState, token: number, ctr?: MambaCounters): Float64Array {
  const h = embedRow(m, token);
  m.layers.forEach((l, i) => {
    const u = rmsnorm(h, l.norm, m.config.normEps);
    const out = l.kind === 'M' ? mambaStep(l.dims, l.w, st[i] as MambaState, u, ctr)
      : l.kind === 'A' ? attnStep(l.dims, l.w, st[i] as KvCache, u)
        : moeStep(l.dims, l.w, u);
    addInto(h, out);
  });
  return logitsOf(m, h);
}
