import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { z } from 'zod';
import { RecipeSchema } from './recipe.js';
import { GateSchema } from './gate.js';
import { GoldenSchema } from './golden.js';
import { SampleLineSchema } from './samples.js';
import { parseJsonl } from '../io/jsonl.js';
import { MutationTableSchema } from './mutations.js';
import { InDiffConfigSchema } from './in-diff.js';
import { ProfileSchema } from './profile.js';
import { formatZodIssues } from './load.js';
import { sha256 } from '../io/hash.js';
import { OracleDocSchema } from './vllmCppOracle.js';
import { listProfiles, resolveProfile } from './profiles.js';
import { recipeRoot } from './recipeRoot.js';
import { locate } from './locate.js';
import { NhGateError } from '../errors.js';

export type FileKind = 'recipe' | 'gate' | 'golden' | 'samples' | 'mutations' | 'in-diff' | 'profile' | 'oracle';

export interface FileResult {
  file: string;
  kind: FileKind | null;
  issues: string[]; // `file: path.to.field: message`
}

const SCHEMAS: Record<Exclude<FileKind, 'samples'>, z.ZodTypeAny> = {
  recipe: RecipeSchema,
  gate: GateSchema,
  golden: GoldenSchema,
  mutations: MutationTableSchema,
  'in-diff': InDiffConfigSchema,
  profile: ProfileSchema,
  // An imported golden's original, goldens/<name>/oracle.json, in the vllm.cpp engine's own format.
  oracle: OracleDocSchema,
};

// Which schema a file answers to: by where it lives first, then by what it holds.
export function classify(file: string, json: unknown): FileKind | null {
  const parts = file.split(sep);
  const o = (json ?? {}) as Record<string, unknown>;
  if (file.endsWith('.jsonl')) return 'samples';
  if (basename(file) === 'mutations.json' || 'mutants' in o) return 'mutations';
  if (basename(file) === 'oracle.json' && 'golden' in o) return 'oracle';
  if (basename(file) === 'in-diff.json' || ('routes' in o && 'perLineCap' in o)) return 'in-diff';
  if ('patterns' in o && 'prefix' in o) return 'profile';
  if (parts.includes('goldens') || ('prompts' in o && 'oracle' in o)) return 'golden';
  if (parts.includes('recipes') || 'configure' in o) return 'recipe';
  if (parts.includes('gates') || ('kind' in o && 'recipe' in o)) return 'gate';
  return null;
}

function validateSamples(file: string, text: string): string[] {
  return parseJsonl(text, SampleLineSchema).garbage.map((g) => `${file}: line ${g.lineNo}: ${g.reason}`);
}

// Cross-references a schema cannot see: a recipe's profile must resolve, a gate's recipe must exist.
function crossCheck(file: string, kind: FileKind, data: Record<string, unknown>, root: string, base?: string, at: string = file, pkg?: string): string[] {
  const out: string[] = [];
  if (kind === 'recipe' && typeof data.profile === 'string') {
    try {
      resolveProfile(data.profile, recipeRoot(resolve(base ?? process.cwd(), file)));
    } catch (err) {
      out.push(`${file}: profile: ${err instanceof NhGateError ? err.message : String(err)} (built-in: ${listProfiles().join(', ')})`);
    }
  }
  const source = kind === 'golden' ? (data.source as { file: string; sha256: string } | undefined) : undefined;
  if (source) {
    const original = join(dirname(at), source.file);
    if (!existsSync(original)) out.push(`${file}: source.file: ${original} is missing`);
    else if (sha256(readFileSync(original)) !== source.sha256) out.push(`${file}: source.sha256: ${original} is not the file this golden was imported from (re-import and accept it)`);
  }
  if ((kind === 'gate' || kind === 'mutations' || kind === 'in-diff') && typeof data.recipe === 'string') {
    // The one path rule (config/locate.ts): beside the gate, then this project, then nh-gate's built-ins.
    try {
      locate('recipes', data.recipe, { namedIn: dirname(resolve(at)), roots: [root], pkg: pkg ?? root });
    } catch (err) {
      out.push(`${file}: recipe: ${err instanceof NhGateError ? err.message : String(err)}`);
    }
  }
  return out;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

// Validates one file against the schema its place or content names.
export function validateFile(file: string, root: string, base?: string, pkg?: string): FileResult {
  let text: string;
  try {
    text = readFileSync(base ? join(base, file) : file, 'utf8');
  } catch (err) {
    return { file, kind: null, issues: [`${file}: (root): cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`] };
  }
  if (file.endsWith('.jsonl')) return { file, kind: 'samples', issues: validateSamples(file, text) };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { file, kind: null, issues: [`${file}: (root): not valid JSON (${(err as Error).message})`] };
  }
  const kind = classify(file, json);
  if (kind === null || kind === 'samples') return { file, kind: null, issues: [`${file}: (root): cannot tell which schema applies — put it under recipes/, gates/ or goldens/`] };
  const r = SCHEMAS[kind].safeParse(json);
  if (!r.success) return { file, kind, issues: formatZodIssues(file, r.error, SCHEMAS[kind]) };
  return { file, kind, issues: crossCheck(file, kind, r.data as Record<string, unknown>, root, base, base ? join(base, file) : file, pkg) };
}

function walk(path: string, out: string[]): void {
  let st;
  try {
    st = statSync(path);
  } catch {
    out.push(path); // reported as unreadable by validateFile
    return;
  }
  if (st.isDirectory()) {
    for (const e of safeList(path).sort()) {
      if (e.startsWith('.') || e === 'node_modules') continue;
      walk(join(path, e), out);
    }
  } else if (path.endsWith('.json') || path.endsWith('.jsonl')) out.push(path);
}

// The files `nh-gate validate` checks: the given paths, or recipes/, gates/ and goldens/ under root.
export function collectFiles(paths: readonly string[], root: string): string[] {
  const out: string[] = [];
  const starts = paths.length > 0 ? [...paths] : ['recipes', 'gates', 'goldens'].map((d) => join(root, d)).filter((d) => safeList(d).length > 0);
  for (const p of starts) {
    const before = out.length;
    walk(p, out);
    // An explicitly named file that is not .json is still checked (and classified or refused by name).
    if (out.length === before && paths.includes(p)) out.push(p);
  }
  // The default sweep prints paths relative to the package root (recipes/x.json), given paths as given.
  return paths.length > 0 ? out : out.map((f) => relative(root, f) || f);
}
