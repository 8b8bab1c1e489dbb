import { sha256 } from '../io/hash.js';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { readJsonlFile, type GarbageLine } from '../io/jsonl.js';
import { join, resolve } from 'node:path';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { locate } from './locate.js';
import { recipeRoot } from './recipeRoot.js';
import type { z } from 'zod';
import { NhGateError } from '../errors.js';
import { didYouMean, knownKeysAt } from './nearest.js';
import { formatProblem, lineColumn, readJson, spotOfPath, type Spot } from './json.js';
import { RecipeSchema, type Recipe } from './recipe.js';
import { GateSchema, type Gate } from './gate.js';
import { GoldenSchema, type Golden } from './golden.js';
import { SampleLineSchema, SamplesHeaderSchema, type SampleLine } from './samples.js';

// zod issues as `file: path.to.field: message`, one per line: the user's fix starts at the field. An
// unknown key names the known key nearest to it (the schema is passed for that); with the text's tree, each
// issue ends with the field's line and column.
export function formatZodIssues(file: string, error: z.ZodError, schema?: z.ZodType, spotOf?: (path: readonly PropertyKey[]) => Spot): string[] {
  const at = (path: readonly PropertyKey[]): string => (path.length ? path.map(String).join('.') : '(root)');
  const where = (path: readonly PropertyKey[]): string => (spotOf ? ` (${lineColumn(spotOf(path))})` : '');
  return error.issues.flatMap((i) => {
    if (i.code !== 'unrecognized_keys') return [`${file}: ${at(i.path)}: ${i.message}${where(i.path)}`];
    const known = schema ? knownKeysAt(schema, i.path) : [];
    return i.keys.map((k) => `${file}: ${at([...i.path, k])}: unknown key${didYouMean(k, known)}${known.length ? ` (known here: ${known.join(', ')})` : ''}${where([...i.path, k])}`);
  });
}

// One config's text judged: its data, or every issue (each `file: field: message (line, column)`) and the fix.
export type ConfigCheck<T> = { ok: true; data: T } | { ok: false; issues: string[]; fix: string | null };

// The one reader of config text (recipes, gates, goldens, profiles, tables, Slurm configs; validate and the
// run alike): JSON with positions and duplicate keys (json.ts), then the schema.
export function checkConfig<S extends z.ZodType>(text: string, file: string, schema: S): ConfigCheck<z.infer<S>> {
  const read = readJson(text);
  if (!read.ok) return { ok: false, issues: [formatProblem(file, read.problem, false)], fix: read.problem.fix };
  const issues = read.problems.map((p) => formatProblem(file, p));
  const parsed = schema.safeParse(read.value);
  if (!parsed.success) issues.push(...formatZodIssues(file, parsed.error, schema, (path) => spotOfPath(text, read.tree, path)));
  if (issues.length > 0) return { ok: false, issues, fix: null };
  return { ok: true, data: parsed.data as z.infer<S> };
}

// A config's JSON text, parsed and validated: a syntax error or a bad field is a BAD_CONFIG naming the file,
// the field and the fix. (Tables read as text by their own loaders: mutation tables, in-diff configs.)
export function parseConfigText<S extends z.ZodTypeAny>(text: string, file: string, schema: S, what: string, schemaFile: string): z.infer<S> {
  const r = checkConfig(text, file, schema);
  if (!r.ok) throw new NhGateError('BAD_CONFIG', `${what} is invalid:\n${r.issues.join('\n')}`, r.fix ?? `fix the named fields (see ${schemaFile} for the schema)`);
  return r.data;
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new NhGateError('UNREADABLE_FILE', `${file}: cannot read ${what} (${code})`, code === 'EISDIR' ? `${file} is a directory: pass the ${what} file` : 'check the path and permissions');
  }
}

// Parses JSON and validates it; every failure is a BAD_CONFIG naming the file and field, never a stack trace.
export function parseJsonFile<S extends z.ZodTypeAny>(file: string, schema: S, what: string): { data: z.infer<S>; text: string } {
  const text = readText(file, what);
  const r = checkConfig(text, file, schema);
  if (!r.ok) throw new NhGateError('BAD_CONFIG', r.issues.join('\n'), r.fix ?? `fix the fields named above (schema: schemas/${what}.json)`);
  return { data: r.data, text };
}

function looksLikePath(s: string): boolean {
  return s.includes('/') || s.endsWith('.json');
}

function jsonNames(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  } catch {
    return [];
  }
}

// Built-in recipes live in <root>/recipes/<name>.json; a path (relative to the cwd) loads that file. Unknown names list the known ones.
export function loadRecipe(nameOrPath: string, root: string = process.cwd()): { recipe: Recipe; path: string; sha256: string } {
  let file: string;
  if (looksLikePath(nameOrPath)) file = resolve(nameOrPath); // a path is relative to the working directory
  else {
    const known = jsonNames(join(root, 'recipes'));
    if (!known.includes(nameOrPath)) {
      throw new NhGateError('UNKNOWN_RECIPE', `no recipe named '${nameOrPath}' in ${join(root, 'recipes')}${didYouMean(nameOrPath, known)}; known: ${known.join(', ') || '(none)'}`, 'pass --recipe with one of those, or a path to a recipe JSON file');
    }
    file = join(root, 'recipes', `${nameOrPath}.json`);
  }
  const { data, text } = parseJsonFile(file, RecipeSchema, 'recipe');
  return { recipe: data, path: file, sha256: sha256(text) };
}

// The package root (where recipes/, goldens/, gates/ and native/ ship): two levels above this file, the same from
// src/config (tests) and dist/config (the CLI).
export function packageRoot(): string {
  return fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
}

// A recipe reference resolved by the one path rule (config/locate.ts): beside the gate that names it (namedIn), in
// the working directory's recipes/, then among the built-ins; a path against the working directory. Its root is
// the recipe's real place (a symlinked recipes/ must not give one build dir two paths: CMake refuses that).
// Every command that takes --recipe finds it here (a3, ab, serve, build, golden capture).
export function findRecipe(ref: string, cwd: string, namedIn: string | null = null): { recipe: Recipe; path: string; sha256: string; root: string } {
  const loaded = loadRecipe(locate('recipes', ref, { namedIn, roots: [cwd], pkg: packageRoot() }), cwd);
  return { ...loaded, root: recipeRoot(realpathSync(loaded.path)) };
}

// A gate file with its sha256, which every result computed under it records (pre-registration evidence).
export function loadGate(path: string): { gate: Gate; path: string; sha256: string } {
  const { data, text } = parseJsonFile(path, GateSchema, 'gate');
  return { gate: data, path, sha256: sha256(text) };
}

// goldens/<name>/golden.json by name, or a path to a golden.json (or its directory).
export function loadGolden(nameOrPath: string, root: string = process.cwd()): { golden: Golden; path: string; sha256: string } {
  let file: string;
  if (looksLikePath(nameOrPath)) {
    file = resolve(nameOrPath);
    try {
      if (statSync(file).isDirectory()) file = join(file, 'golden.json');
    } catch {
      /* unreadable: reported by parseJsonFile */
    }
  } else {
    const dir = join(root, 'goldens');
    let known: string[] = [];
    try {
      known = readdirSync(dir).filter((d) => statSync(join(dir, d, 'golden.json'), { throwIfNoEntry: false })?.isFile()).sort();
    } catch {
      known = [];
    }
    if (!known.includes(nameOrPath)) {
      throw new NhGateError('UNKNOWN_GOLDEN', `no golden named '${nameOrPath}' in ${dir}${didYouMean(nameOrPath, known)}; known: ${known.join(', ') || '(none)'}`, 'pass a known golden name or a path to golden.json');
    }
    file = join(dir, nameOrPath, 'golden.json');
  }
  const { data, text } = parseJsonFile(file, GoldenSchema, 'golden');
  return { golden: data, path: file, sha256: sha256(text) };
}


// A line of a samples file that was not a valid sample: named and counted, never silently dropped.
export type { GarbageLine } from '../io/jsonl.js';

export interface SamplesFile {
  header: z.infer<typeof SamplesHeaderSchema> | null;
  samples: Exclude<SampleLine, { kind: 'header' }>[];
  garbage: GarbageLine[];
}

// Streams a samples JSONL file: valid lines are kept, every other line is reported with its number and why.
export async function readSamplesFile(path: string): Promise<SamplesFile> {
  const out: SamplesFile = { header: null, samples: [], garbage: [] };
  const extraHeaders: GarbageLine[] = [];
  try {
    out.garbage = await readJsonlFile(path, SampleLineSchema, (s, lineNo) => {
      if (s.kind !== 'header') out.samples.push(s);
      else if (out.header) extraHeaders.push({ lineNo, reason: 'a second header line' });
      else out.header = s;
    });
    out.garbage.push(...extraHeaders);
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `${path}: cannot read samples file (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'check the --samples path');
  }
  out.garbage.sort((x, y) => x.lineNo - y.lineNo);
  return out;
}
