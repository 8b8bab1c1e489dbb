import * as z from 'zod';

// The checkpoint header's model config (MODEL.md, clarification 1): the oracle's only source of dims.
export const ModelConfigSchema = z.object({
  vocab: z.number().int().positive(),
  dModel: z.number().int().positive(),
  layers: z.string().regex(/^[MAE]+$/, 'a non-empty string over {M, A, E}'),
  normEps: z.number().positive().default(1e-5),
  mamba: z.object({
    nHeads: z.number().int().positive(),
    headDim: z.number().int().positive(),
    nGroups: z.number().int().positive(),
    dState: z.number().int().positive(),
    convKernel: z.number().int().positive(),
    chunkSize: z.number().int().positive(),
  }).optional(),
  attn: z.object({
    nHeads: z.number().int().positive(),
    nKvHeads: z.number().int().positive(),
    headDim: z.number().int().positive(),
  }).optional(),
  moe: z.object({
    nExperts: z.number().int().positive(),
    topK: z.number().int().positive(),
    dFf: z.number().int().positive(),
  }).optional(),
});

export type ModelConfig = z.infer<typeof ModelConfigSchema>;

// The header JSON of an NHREFCK1 file (MODEL.md "Checkpoint file format").
export const CheckpointHeaderSchema = z.object({
  preset: z.string(),
  seed: z.number().int(),
  config: ModelConfigSchema,
  tensors: z.array(z.object({
    name: z.string(),
    shape: z.array(z.number().int().nonnegative()),
    offset: z.number().int().nonnegative(),
  })),
});

export type CheckpointHeader = z.infer<typeof CheckpointHeaderSchema>;

// Cross-field rules zod cannot say per field; returns the first broken rule as a sentence, or null.
export function configProblem(c: ModelConfig): string | null {
  const kinds = new Set(c.layers);
  if (kinds.has('M')) {
    const m = c.mamba;
    if (!m) return "layers has 'M' but config.mamba is missing";
    if (m.nHeads % m.nGroups !== 0) return `config.mamba.nHeads (${m.nHeads}) is not a multiple of nGroups (${m.nGroups})`;
    if (m.nHeads / m.nGroups < 2) return `config.mamba heads per group is ${m.nHeads / m.nGroups}; MODEL.md requires > 1`;
  }
  if (kinds.has('A')) {
    const a = c.attn;
    if (!a) return "layers has 'A' but config.attn is missing";
    if (a.nHeads % a.nKvHeads !== 0) return `config.attn.nHeads (${a.nHeads}) is not a multiple of nKvHeads (${a.nKvHeads})`;
  }
  if (kinds.has('E')) {
    const e = c.moe;
    if (!e) return "layers has 'E' but config.moe is missing";
    if (e.topK > e.nExperts) return `config.moe.topK (${e.topK}) exceeds nExperts (${e.nExperts})`;
  }
  return null;
}

// Every tensor MODEL.md requires for this config, with its shape: the reader checks the file against this list.
export function expectedTensors(c: ModelConfig): Map<string, number[]> {
  const D = c.dModel;
  const out = new Map<string, number[]>([['embed.weight', [c.vocab, D]]]);
  [...c.layers].forEach((kind, i) => {
    const p = `layers.${i}.`;
    out.set(`${p}norm.weight`, [D]);
    if (kind === 'M' && c.mamba) {
      const { nHeads: H, headDim: P, nGroups: G, dState: N, convKernel: K } = c.mamba;
      const dInner = H * P;
      const convCh = dInner + 2 * G * N;
      out.set(`${p}mixer.in_proj.weight`, [2 * dInner + 2 * G * N + H, D]);
      out.set(`${p}mixer.conv1d.weight`, [convCh, K]);
      out.set(`${p}mixer.conv1d.bias`, [convCh]);
      out.set(`${p}mixer.dt_bias`, [H]);
      out.set(`${p}mixer.A_log`, [H]);
      out.set(`${p}mixer.D`, [H]);
      out.set(`${p}mixer.norm.weight`, [dInner]);
      out.set(`${p}mixer.out_proj.weight`, [D, dInner]);
    } else if (kind === 'A' && c.attn) {
      const { nHeads: Hq, nKvHeads: Hkv, headDim: Dh } = c.attn;
      out.set(`${p}mixer.q_proj.weight`, [Hq * Dh, D]);
      out.set(`${p}mixer.k_proj.weight`, [Hkv * Dh, D]);
      out.set(`${p}mixer.v_proj.weight`, [Hkv * Dh, D]);
      out.set(`${p}mixer.o_proj.weight`, [D, Hq * Dh]);
    } else if (kind === 'E' && c.moe) {
      const { nExperts: E, dFf: F } = c.moe;
      out.set(`${p}mixer.router.weight`, [E, D]);
      out.set(`${p}mixer.router.e_score_correction_bias`, [E]);
      for (let e = 0; e < E; e++) {
        out.set(`${p}mixer.experts.${e}.up_proj.weight`, [F, D]);
        out.set(`${p}mixer.experts.${e}.down_proj.weight`, [D, F]);
      }
    }
  });
  out.set('norm_f.weight', [D]);
  out.set('lm_head.weight', [c.vocab, D]);
  return out;
}
