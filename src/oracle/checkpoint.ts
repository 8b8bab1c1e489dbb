import { sha256 } from '../io/hash.js';
import { readFile } from 'node:fs/promises';
import { NhGateError } from '../errors.js';
import { CheckpointHeaderSchema, configProblem, expectedTensors } from './config.js';
import type { ModelConfig } from './config.js';

// The magic of MODEL.md's checkpoint format; anything else is not an nh-ref checkpoint.
export const CHECKPOINT_MAGIC = 'NHREFCK1';

// A validated checkpoint: config from the header, every tensor widened to float64, and the file's content sha256.
export interface Checkpoint {
  source: string;
  preset: string;
  seed: number;
  config: ModelConfig;
  sha256: string;
  tensors: Map<string, { shape: number[]; data: Float64Array }>;
}

function bad(source: string, what: string, fix = 'regenerate it with nh-ref-ckpt --preset <name> --out FILE'): NhGateError {
  return new NhGateError('BAD_INPUT', `checkpoint ${source}: ${what}`, fix);
}

// Data starts at the first multiple of 64 after magic + u32 length + header (MODEL.md, clarification 2).
export function dataStartOf(headerBytes: number): number {
  return Math.ceil((12 + headerBytes) / 64) * 64;
}

// Parses and validates an NHREFCK1 image: magic, header JSON, tensor names/shapes/bounds, optional pinned sha256.
export function parseCheckpoint(bytes: Uint8Array, source: string, expectedSha256?: string): Checkpoint {
  const sha = sha256(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (expectedSha256 !== undefined && expectedSha256.toLowerCase() !== sha) {
    throw bad(source, `content sha256 ${sha} does not match the pinned ${expectedSha256}`, 'use the checkpoint the pin names, or regenerate it and review the new revision');
  }
  if (bytes.length < 12) throw bad(source, `file is ${bytes.length} bytes, shorter than magic + header length`);
  const magic = Buffer.from(bytes.subarray(0, 8)).toString('latin1');
  if (magic !== CHECKPOINT_MAGIC) throw bad(source, `magic is ${JSON.stringify(magic)}, expected "${CHECKPOINT_MAGIC}"`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = view.getUint32(8, true);
  if (12 + headerLen > bytes.length) throw bad(source, `header length ${headerLen} runs past the end of the file (${bytes.length} bytes)`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(12, 12 + headerLen)));
  } catch (err) {
    throw bad(source, `header is not UTF-8 JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = CheckpointHeaderSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw bad(source, `header field ${issue ? issue.path.join('.') || '(root)' : '?'}: ${issue?.message ?? 'invalid'}`);
  }
  const header = parsed.data;
  const problem = configProblem(header.config);
  if (problem) throw bad(source, `header ${problem}`);
  const dataStart = dataStartOf(headerLen);
  const dataBytes = bytes.length - dataStart;
  if (dataBytes < 0) throw bad(source, `data region starts at byte ${dataStart}, past the end of the file`);
  const expected = expectedTensors(header.config);
  const tensors = new Map<string, { shape: number[]; data: Float64Array }>();
  for (const t of header.tensors) {
    const want = expected.get(t.name);
    if (!want) throw bad(source, `tensor ${t.name} is not part of the model for layers "${header.config.layers}"`);
    if (tensors.has(t.name)) throw bad(source, `tensor ${t.name} is listed twice`);
    if (want.length !== t.shape.length || want.some((d, i) => d !== t.shape[i])) {
      throw bad(source, `tensor ${t.name} has shape [${t.shape.join(', ')}], the config needs [${want.join(', ')}]`);
    }
    const count = want.reduce((a, b) => a * b, 1);
    if (t.offset % 4 !== 0) throw bad(source, `tensor ${t.name} offset ${t.offset} is not a multiple of 4`);
    if (t.offset + 4 * count > dataBytes) {
      throw bad(source, `tensor ${t.name} bytes [${t.offset}, ${t.offset + 4 * count}) run past the data region (${dataBytes} bytes)`);
    }
    const data = new Float64Array(count);
    const base = dataStart + t.offset;
    for (let i = 0; i < count; i++) data[i] = view.getFloat32(base + 4 * i, true);
    tensors.set(t.name, { shape: t.shape, data });
  }
  for (const name of expected.keys()) if (!tensors.has(name)) throw bad(source, `tensor ${name} is missing`);
  return { source, preset: header.preset, seed: header.seed, config: header.config, sha256: sha, tensors };
}

// Thin file adapter around parseCheckpoint: an unreadable path is a named error, not a stack trace.
export async function readCheckpoint(path: string, expectedSha256?: string): Promise<Checkpoint> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new NhGateError('UNREADABLE_FILE', `checkpoint ${path} cannot be read (${code})`, 'pass --checkpoint with a file written by nh-ref-ckpt');
  }
  return parseCheckpoint(bytes, path, expectedSha256);
}
