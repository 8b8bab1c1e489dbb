// A test-only NHREFCK1 writer, written from MODEL.md alone, so the oracle's reader and math can be
// tested before (and independently of) the engine's nh-ref-ckpt.
import { expectedTensors } from '../../src/oracle/config.js';
import type { ModelConfig } from '../../src/oracle/config.js';
import { seededRandom } from '../../src/stats/bootstrap.js';

// Small dims with n_groups 2 and heads-per-group 4, chunk 3 so prompts span several chunks.
export const SMALL_CONFIG: ModelConfig = {
  vocab: 256, dModel: 16, layers: 'MAME', normEps: 1e-5,
  mamba: { nHeads: 8, headDim: 2, nGroups: 2, dState: 4, convKernel: 4, chunkSize: 3 },
  attn: { nHeads: 8, nKvHeads: 2, headDim: 2 },
  moe: { nExperts: 4, topK: 2, dFf: 8 },
};

// A seeded generator so fixtures are reproducible (the stats module's mulberry32).
export const rng = seededRandom;

function fill(name: string, count: number, rand: () => number): number[] {
  const u = () => rand() * 2 - 1;
  if (name.endsWith('norm.weight')) return Array.from({ length: count }, () => 1 + 0.1 * u());
  if (name.endsWith('A_log')) return Array.from({ length: count }, () => Math.log(1 + 3 * rand()));
  if (name.endsWith('dt_bias')) return Array.from({ length: count }, () => -1 + u());
  if (name.endsWith('.D')) return Array.from({ length: count }, () => 1 + 0.5 * u());
  return Array.from({ length: count }, () => 0.5 * u());
}

export interface FixtureOptions {
  config?: ModelConfig;
  seed?: number;
  preset?: string;
  // Mutations for bad-input tests.
  magic?: string;
  dropTensor?: string;
  extraShapeFor?: string;
  offsetShiftFor?: string;
}

// Writes a checkpoint image: magic, u32 header length, header JSON, zero pad to 64, float32 data.
export function writeFixture(opts: FixtureOptions = {}): Buffer {
  const config = opts.config ?? SMALL_CONFIG;
  const rand = rng(opts.seed ?? 1234);
  const tensors: { name: string; shape: number[]; offset: number }[] = [];
  const chunks: Float32Array[] = [];
  let offset = 0;
  for (const [name, shape] of expectedTensors(config)) {
    const count = shape.reduce((a, b) => a * b, 1);
    const data = Float32Array.from(fill(name, count, rand));
    if (name === opts.dropTensor) continue;
    const listedShape = name === opts.extraShapeFor ? shape.map((d, i) => (i === 0 ? d + 1 : d)) : shape;
    const listedOffset = name === opts.offsetShiftFor ? offset + 1_000_000 : offset;
    tensors.push({ name, shape: listedShape, offset: listedOffset });
    chunks.push(data);
    offset += count * 4;
  }
  const header = Buffer.from(JSON.stringify({ preset: opts.preset ?? 'fixture', seed: opts.seed ?? 1234, config, tensors }), 'utf8');
  const dataStart = Math.ceil((12 + header.length) / 64) * 64;
  const out = Buffer.alloc(dataStart + offset);
  out.write(opts.magic ?? 'NHREFCK1', 0, 'latin1');
  out.writeUInt32LE(header.length, 8);
  header.copy(out, 12);
  let at = dataStart;
  for (const c of chunks) {
    Buffer.from(c.buffer, c.byteOffset, c.byteLength).copy(out, at);
    at += c.byteLength;
  }
  return out;
}
