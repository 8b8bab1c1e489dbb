import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { seconds } from './bounds.js';
import { NhGateError } from '../errors.js';
import { parseConfigText } from './load.js';

// What a mutant is expected to do: a table states it BEFORE the run, the run is compared to it.
export const EXPECTATIONS = ['caught', 'survived', 'unviable'] as const;
export type Expectation = (typeof EXPECTATIONS)[number];

// One planted defect: anchor text replaced once in one file, judged by one recipe suite.
export const MutationSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, dash, underscore'),
  file: z.string().min(1).describe('path relative to the repository root (as git diff prints it), inside the recipe sourceDir'),
  anchor: z.string().min(1).describe('exact text that must occur exactly once in the file'),
  replacement: z.string().describe('the text the anchor becomes'),
  why: z.string().min(1).describe('the defect this plants, and why the suite must see it'),
  suite: z.string().min(1).describe('name of a suite in the recipe'),
  filter: z.string().min(1).optional().describe('doctest test-case filter (the suite filterArgv receives it)'),
  expect: z.enum(EXPECTATIONS),
  mustFailCase: z.string().min(1).optional().describe('the test case that must be among the failing ones'),
  selfTest: z.boolean().default(false).describe('the armed self-test: run first, must be CAUGHT'),
  device: z.boolean().default(false).describe('a defect in device code that only the GPU cases can see: judged on a GPU arch only (on arch cpu it is VOID NO_GPU_ARCH, left out of the score), and a GREEN run whose GPU cases took their skip path is VOID GPU_SKIPPED, never SURVIVED'),
});

// A mutation table file (gates/<recipe>/mutations.json).
export const MutationTableSchema = z
  .strictObject({
    schemaVersion: z.literal(1),
    recipe: z.string().min(1).describe('recipe name or path the mutants build with'),
    description: z.string().optional(),
    timeoutFactor: z.number().positive().max(1000).default(5).describe('suite time-out = max(floor, factor x baseline duration)'),
    timeoutFloorS: seconds().default(10),
    mutants: z.array(MutationSchema).min(1),
  })
  .superRefine((t, ctx) => {
    const seen = new Set<string>();
    t.mutants.forEach((m, i) => {
      if (seen.has(m.id)) ctx.addIssue({ code: 'custom', path: ['mutants', i, 'id'], message: `duplicate id '${m.id}'` });
      seen.add(m.id);
      if (m.anchor === m.replacement) ctx.addIssue({ code: 'custom', path: ['mutants', i, 'replacement'], message: 'equals the anchor: this mutant changes nothing' });
      if (m.selfTest && m.expect !== 'caught') ctx.addIssue({ code: 'custom', path: ['mutants', i, 'expect'], message: "a selfTest row must expect 'caught'" });
      if (m.selfTest && m.device) ctx.addIssue({ code: 'custom', path: ['mutants', i, 'device'], message: 'a selfTest row must run on every arch: arm the suite with a host defect' });
    });
    for (const suite of new Set(t.mutants.map((m) => m.suite))) {
      if (!t.mutants.some((m) => m.selfTest && m.suite === suite)) {
        ctx.addIssue({ code: 'custom', path: ['mutants'], message: `suite '${suite}' has no selfTest row: add a known-bad mutant with "selfTest": true that proves the suite selects real cases` });
      }
    }
  });

export type Mutation = z.infer<typeof MutationSchema>;
export type MutationTable = z.infer<typeof MutationTableSchema>;

// Parses table text; a bad table is a BAD_CONFIG error naming the file, the field and the fix.
export function parseMutationTable(text: string, file: string): MutationTable {
  return parseConfigText(text, file, MutationTableSchema, 'mutation table', 'src/config/mutations.ts');
}

// Reads and parses a table file.
export function loadMutationTable(path: string): MutationTable {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `${path}: cannot read the mutation table (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'pass an existing file with --table');
  }
  return parseMutationTable(text, path);
}

// Cross-checks a table against the recipe it builds with: every suite must exist and every file must
// sit inside the recipe's sourceDir (only that tree is copied into scratch). A mismatch is a bad table.
export function checkTableAgainstRecipe(table: MutationTable, file: string, recipe: { name: string; suites: { name: string }[] }, sourceDirRel: string): void {
  const suites = recipe.suites.map((s) => s.name);
  const prefix = sourceDirRel === '' || sourceDirRel === '.' ? '' : `${sourceDirRel.replace(/\/+$/, '')}/`;
  const problems: string[] = [];
  table.mutants.forEach((m, i) => {
    if (!suites.includes(m.suite)) problems.push(`${file}: mutants.${i}.suite: no suite '${m.suite}' in recipe '${recipe.name}' (it has: ${suites.join(', ') || 'none'})`);
    if (!m.file.startsWith(prefix) || m.file.includes('..')) problems.push(`${file}: mutants.${i}.file: '${m.file}' is outside the recipe sourceDir '${sourceDirRel}'`);
  });
  if (problems.length) throw new NhGateError('BAD_CONFIG', `mutation table does not fit its recipe:\n${problems.join('\n')}`, 'name a suite of the recipe and a file under its sourceDir, relative to the repository root');
}
