import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { count } from './bounds.js';
import { NhGateError } from '../errors.js';
import { parseConfigText } from './load.js';

// C, C++ and CUDA sources and headers: the files `mutate --in-diff` generates mutants in.
export const DEFAULT_SOURCE_EXTENSIONS = ['.c', '.cc', '.cpp', '.cxx', '.h', '.hh', '.hpp', '.hxx', '.cu', '.cuh', '.inl'];

// Which suite (and doctest filter) is expected to kill a mutant of the files a glob matches.
export const InDiffRouteSchema = z.strictObject({
  files: z.string().min(1).describe("glob relative to the repository root: '*' within a path segment, '**' across segments"),
  suite: z.string().min(1).describe('name of a suite in the recipe'),
  filter: z.string().min(1).optional().describe('doctest test-case filter naming the cases expected to kill it'),
  device: z.boolean().default(false).describe("device code: its generated rows are device rows (judged on a GPU arch only; see the table's 'device')"),
  why: z.string().optional(),
});

// gates/<recipe>/in-diff.json: the caps and the file → suite routes of generated mutants.
export const InDiffConfigSchema = z.strictObject({
  schemaVersion: z.literal(1),
  recipe: z.string().min(1),
  description: z.string().optional(),
  perLineCap: count(1, 50).default(4).describe('most mutants generated per changed line'),
  perChangeCap: count(1, 5000).default(40).describe('most mutants generated per change (the whole diff)'),
  extensions: z.array(z.string().regex(/^\.[A-Za-z0-9]+$/)).min(1).default(DEFAULT_SOURCE_EXTENSIONS),
  routes: z.array(InDiffRouteSchema).default([]).describe('first match wins; a file no route matches is judged by every suite of the recipe'),
});

export type InDiffRoute = z.infer<typeof InDiffRouteSchema>;
export type InDiffConfig = z.infer<typeof InDiffConfigSchema>;

// The config used when a table has no in-diff.json beside it: default caps, every suite.
export function defaultInDiffConfig(recipe: string): InDiffConfig {
  return InDiffConfigSchema.parse({ schemaVersion: 1, recipe });
}

// Parses in-diff.json; a bad file is BAD_CONFIG naming the file, the field and the fix.
export function parseInDiffConfig(text: string, file: string): InDiffConfig {
  return parseConfigText(text, file, InDiffConfigSchema, 'in-diff config', 'src/config/in-diff.ts');
}

// Reads and parses an in-diff config file.
export function loadInDiffConfig(path: string): InDiffConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `${path}: cannot read the in-diff config (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'pass an existing file with --map');
  }
  return parseInDiffConfig(text, path);
}

// A glob as a regular expression over '/'-separated paths.
export function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}
