import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { defaultInDiffConfig, loadInDiffConfig, type InDiffConfig } from '../../config/in-diff.js';
import type { MutationTable } from '../../config/mutations.js';
import { NhGateError } from '../../errors.js';
import type { SuiteCallable } from '../suite/invoke.js';
import { generateMutants, type GeneratedMutant, type GenerationSummary } from './generate.js';
import { changedLinesSince } from './git.js';

// What --in-diff prepared: the generated rows, the facts of their generation, and the config used.
export interface InDiffPlan {
  mutants: GeneratedMutant[];
  summary: GenerationSummary & { rev: string };
  configFile: string | null;
  // Set when the diff gives nothing to judge: the run stops as NOT MEASURED with this sentence.
  notMeasured: { reason: 'NO_SOURCE_IN_DIFF' | 'NO_MUTANTS'; message: string } | null;
}

// The config beside the table (gates/<recipe>/in-diff.json) unless --map names one; defaults otherwise.
export function resolveInDiffConfig(root: string, tableFile: string, mapFile: string | undefined, recipe: string): { config: InDiffConfig; file: string | null } {
  const file = mapFile !== undefined ? resolve(root, mapFile) : join(dirname(resolve(root, tableFile)), 'in-diff.json');
  if (mapFile === undefined && !existsSync(file)) return { config: defaultInDiffConfig(recipe), file: null };
  return { config: loadInDiffConfig(file), file };
}

// Every route names a suite of the recipe that has an armed self-test row in the table: a generated row
// judged by a suite nobody proved can go RED would prove nothing.
export function checkRoutes(config: InDiffConfig, file: string, suites: string[], table: MutationTable, tableFile: string): void {
  const problems: string[] = [];
  config.routes.forEach((r, i) => {
    if (!suites.includes(r.suite)) problems.push(`${file}: routes.${i}.suite: no suite '${r.suite}' in the recipe (it has: ${suites.join(', ')})`);
  });
  const used = new Set(config.routes.length ? config.routes.map((r) => r.suite) : suites);
  for (const s of used) {
    if (suites.includes(s) && !table.mutants.some((m) => m.selfTest && m.suite === s)) problems.push(`${tableFile}: suite '${s}' judges generated rows but has no selfTest row`);
  }
  if (problems.length) throw new NhGateError('BAD_CONFIG', `--in-diff cannot route its mutants:\n${problems.join('\n')}`, 'name suites of the recipe, and give each one a selfTest row in the table');
}

// git diff → changed lines → generated rows; stops early (NOT MEASURED) when the diff has nothing to mutate.
export function prepareInDiff(o: { rev: string; root: string; tableFile: string; mapFile?: string | undefined; table: MutationTable; recipe: { name: string; suites: SuiteCallable[] }; sourceDirRel: string }): InDiffPlan {
  const { config, file } = resolveInDiffConfig(o.root, o.tableFile, o.mapFile, o.recipe.name);
  const suites = o.recipe.suites.map((s) => s.name);
  checkRoutes(config, file ?? '(default in-diff config)', suites, o.table, o.tableFile);
  const diff = changedLinesSince(o.rev, o.root);
  const { mutants, summary } = generateMutants({
    changed: diff.files, allChangedFiles: diff.allFiles, sourceDirRel: o.sourceDirRel, config, suites: o.recipe.suites,
    readText: (f) => { try { return readFileSync(resolve(o.root, f), 'utf8'); } catch { return null; } },
  });
  let notMeasured: InDiffPlan['notMeasured'] = null;
  if (summary.files.length === 0) {
    const changed = diff.allFiles.length ? `it changes ${diff.allFiles.length} file(s): ${diff.allFiles.slice(0, 8).join(', ')}${diff.allFiles.length > 8 ? ', …' : ''}` : 'it changes nothing';
    notMeasured = { reason: 'NO_SOURCE_IN_DIFF', message: `--in-diff ${o.rev}: the diff touches no C/C++/CUDA source under ${o.sourceDirRel} (${changed})` };
  }
  return { mutants, summary: { ...summary, rev: o.rev }, configFile: file, notMeasured };
}
