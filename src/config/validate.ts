import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import type { z } from 'zod';
import { RecipeSchema } from './recipe.js';
import { GateSchema } from './gate.js';
import { GoldenSchema } from './golden.js';
import { SampleLineSchema } from './samples.js';
import { parseJsonl } from '../io/jsonl.js';
import { MutationTableSchema } from './mutations.js';
import { InDiffConfigSchema } from './in-diff.js';
import { ProfileSchema } from './profile.js';
import { checkConfig } from './load.js';
import { formatProblem, readJson } from './json.js';
import { OracleDocSchema } from './vllmCppOracle.js';
import { resolveReferences } from './references.js';
import { crossKeyProblem, DEFAULT_CONFIG_NAME, SlurmConfigSchema, type SlurmConfig } from '../slurm/config.js';

export type FileKind = 'recipe' | 'gate' | 'golden' | 'samples' | 'mutations' | 'in-diff' | 'profile' | 'oracle' | 'slurm';

export interface FileResult {
  file: string;
  kind: FileKind | null;
  issues: string[]; // `file: path.to.field: message (line L, column C)`
  // What the file's references resolved to, as a run resolves them (recipe, profile, golden, flag …).
  resolved?: Record<string, string>;
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
  // How a site's Slurm is asked for a leg (--slurm-config, ./nh-gate.slurm.json).
  slurm: SlurmConfigSchema,
};

// Which schema a file answers to: by where it lives first, then by what it holds.
export function classify(file: string, json: unknown): FileKind | null {
  const parts = file.split(sep);
  // Only an object has keys to tell by (`'k' in 5` throws: a document of a number or a string is still classified by place).
  const o = (json !== null && typeof json === 'object' ? json : {}) as Record<string, unknown>;
  if (file.endsWith('.jsonl')) return 'samples';
  if (basename(file) === DEFAULT_CONFIG_NAME || ('gres' in o && 'schemaVersion' in o) || 'jobPer' in o) return 'slurm';
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

// Validates one file against the schema its place or content names, then resolves what it references the
// way a run would (config/references.ts) and says what that resolved to.
export function validateFile(file: string, root: string, base?: string, pkg?: string): FileResult {
  const at = base ? join(base, file) : file;
  let text: string;
  try {
    text = readFileSync(at, 'utf8');
  } catch (err) {
    return { file, kind: null, issues: [`${file}: (root): cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`] };
  }
  if (file.endsWith('.jsonl')) return { file, kind: 'samples', issues: validateSamples(file, text) };
  const read = readJson(text);
  // Which schema applies is told from the place, else from what a readable document holds.
  const kind = classify(file, read.ok ? read.value : null);
  if (kind === null || kind === 'samples') {
    if (!read.ok) return { file, kind: null, issues: [formatProblem(file, read.problem)] };
    return { file, kind: null, issues: [`${file}: (root): cannot tell which schema applies — put it under recipes/, gates/ or goldens/`] };
  }
  const r = checkConfig(text, file, SCHEMAS[kind]);
  if (!r.ok) return { file, kind, issues: r.fix === null ? r.issues : r.issues.map((i) => `${i}\n  fix: ${r.fix}`) };
  if (kind === 'profile' || kind === 'oracle') return { file, kind, issues: [] };
  if (kind === 'slurm') {
    const problem = crossKeyProblem(r.data as SlurmConfig);
    return { file, kind, issues: problem ? [`${file}: jobPer: ${problem}`] : [] };
  }
  const refs = resolveReferences(kind, r.data, { file, at, root, pkg: pkg ?? root });
  return { file, kind, issues: refs.issues, resolved: refs.resolved };
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
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
  if (paths.length === 0 && safeList(root).includes(DEFAULT_CONFIG_NAME)) starts.push(join(root, DEFAULT_CONFIG_NAME));
  for (const p of starts) {
    const before = out.length;
    walk(p, out);
    // An explicitly named file that is not .json is still checked (and classified or refused by name).
    if (out.length === before && paths.includes(p)) out.push(p);
  }
  // The default sweep prints paths relative to the package root (recipes/x.json), given paths as given.
  return paths.length > 0 ? out : out.map((f) => relative(root, f) || f);
}
