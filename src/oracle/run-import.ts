import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { GoldenSchema } from '../config/golden.js';
import { loadGolden } from '../config/load.js';
import { sha256 } from '../io/hash.js';
import { writeAtomic } from '../io/atomic.js';
import type { ExitClass } from '../errors.js';
import { NhGateError } from '../errors.js';
import { diffGolden } from './diff.js';
import { renderProvenance } from './render.js';
import { checkGoldenName, committedPath, readGoldenFile, serializeGolden, stagedPath } from './store.js';
import { oracleToGolden } from './vllmCpp/convert.js';
import { oracleHandoff } from './vllmCpp/handoff.js';
import { parseOracleText } from './vllmCpp/read.js';

// Formats `golden import | export --format` know.
export const GOLDEN_FORMATS = ['vllm-cpp-oracle'] as const;

const say = (s: string): void => { process.stdout.write(s + '\n'); };

// --format must name a format nh-gate reads; anything else is a usage error listing them.
export function checkFormat(format: string | undefined): 'vllm-cpp-oracle' {
  if (format === 'vllm-cpp-oracle') return format;
  throw new NhGateError('USAGE', `--format ${format ?? '(missing)'} is not a golden format nh-gate reads`, `pass --format ${GOLDEN_FORMATS.join(' | ')}`);
}

// tests/parity/goldens/<name>/oracle.json → <name>; any other file → its name without .json.
export function defaultGoldenName(file: string): string {
  const base = basename(file);
  return base === 'oracle.json' ? basename(dirname(resolve(file))) : base.replace(/\.json$/, '');
}

// Normalized options of `golden import`.
export interface ImportRequest { root: string; file: string; format: string | undefined; name: string | undefined; json: boolean }

// `golden import`: the engine's file → a STAGED golden (plus its original, byte for byte) and the review diff.
// Nothing is staged unless the whole file reads; goldens/ changes only through `golden accept`.
export async function runImport(req: ImportRequest): Promise<ExitClass> {
  checkFormat(req.format);
  const name = req.name ?? defaultGoldenName(req.file);
  if (!req.name && !/^[a-z0-9][a-z0-9._-]*$/.test(name)) {
    throw new NhGateError('USAGE', `the name ${JSON.stringify(name)} taken from ${req.file} is not a plain golden name`, 'pass --name NAME (lower-case letters, digits, ".", "_" or "-")');
  }
  checkGoldenName(name);
  let bytes: Buffer;
  try {
    bytes = await readFile(req.file);
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `${req.file}: cannot read the oracle file (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'check the path');
  }
  const doc = parseOracleText(bytes.toString('utf8'), req.file);
  const golden = GoldenSchema.parse(oracleToGolden(doc, { name, sha256: sha256(bytes), importedFrom: resolve(req.file) }));
  const staged = stagedPath(req.root, name);
  writeAtomic(resolve(dirname(staged), 'oracle.json'), bytes);
  writeAtomic(staged, serializeGolden(golden));
  const diff = diffGolden(await readGoldenFile(committedPath(req.root, name)), golden);
  if (req.json) {
    say(JSON.stringify({ schemaVersion: 1, staged, committed: committedPath(req.root, name), changed: diff.changed, diff: diff.lines, golden }));
    return 'passed';
  }
  say(`[golden] imported ${req.file} (vllm-cpp-oracle, sha256 ${golden.source!.sha256.slice(0, 16)}…): ${golden.prompts.length} prompt(s) x ${golden.sampling.maxNewTokens} tokens`);
  for (const l of renderProvenance(golden, staged)) say(l);
  say('  margins           none: the oracle file carries no logits, so this golden licenses no NEAR-TIE PASS');
  say('review against the committed golden:');
  for (const l of diff.lines) say(l);
  say(`STAGED, not accepted. After review: nh-gate golden accept ${name}`);
  return 'passed';
}

// Normalized options of `golden export`.
export interface ExportRequest { root: string; golden: string; format: string | undefined; out: string; json: boolean }

// `golden export`: the file a vllm.cpp driver would be handed for a golden (the original when imported).
export async function runExport(req: ExportRequest): Promise<ExitClass> {
  checkFormat(req.format);
  const looksPath = req.golden.includes('/') || req.golden.endsWith('.json');
  const { golden, path } = loadGolden(req.golden, looksPath ? process.cwd() : req.root);
  const h = oracleHandoff(golden, path);
  const bytes = h.origin === 'original' ? await readFile(h.path) : Buffer.from(h.text, 'utf8');
  writeAtomic(resolve(req.out), bytes);
  const what = h.origin === 'original' ? `the imported original ${h.path}` : `written in the vllm-cpp-oracle format from ${path}`;
  if (req.json) say(JSON.stringify({ schemaVersion: 1, out: resolve(req.out), origin: h.origin, sha256: h.sha256 }));
  else say(`[golden] ${resolve(req.out)}: ${what} (sha256 ${h.sha256})`);
  return 'passed';
}
