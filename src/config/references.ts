import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { NhGateError } from '../errors.js';
import { sha256 } from '../io/hash.js';
import { loadInputs } from '../gates/setup.js';
import { resolveArmValue } from '../plan/flagArms.js';
import { buildVars } from '../build/build.js';
import { checkRoutes } from '../mutate/generate/prepare.js';
import { loadGolden, loadRecipe } from './load.js';
import { resolveProfile } from './profiles.js';
import { recipeRoot } from './recipeRoot.js';
import { locate } from './locate.js';
import { checkTableAgainstRecipe, loadMutationTable, type MutationTable } from './mutations.js';
import type { Gate } from './gate.js';
import type { Recipe } from './recipe.js';
import type { InDiffConfig } from './in-diff.js';

// `validate` resolves what a config names the way a run resolves it, with the run's own functions (a
// gate through loadInputs and resolveArmValue, a mutation table through loadRecipe and
// checkTableAgainstRecipe), so a reference that validates is one a run finds, and it says what it found.

export interface Place {
  // The file's path as given (issues start with it) and as read.
  file: string;
  at: string;
  // The project folder (recipes/, gates/, goldens/) and nh-gate's own package root.
  root: string;
  pkg: string;
}

export interface Resolution {
  // What each reference resolved to: `recipe: recipes/nh-ref.json`, `flag: MAMBA_DECODE_STEP → NH_REF_…`.
  resolved: Record<string, string>;
  issues: string[];
}

type Kind = 'recipe' | 'gate' | 'golden' | 'mutations' | 'in-diff';

// A refused reference as an issue: `file: field: message`, then the fix the run would give.
function issueOf(file: string, field: string, err: unknown): string {
  if (!(err instanceof NhGateError)) throw err;
  return `${file}: ${field}: ${err.message}${err.hint ? `\n  fix: ${err.hint}` : ''}`;
}

// The field a run's refusal is about, by its code.
const FIELD_OF: Partial<Record<string, string>> = { UNKNOWN_RECIPE: 'recipe', UNKNOWN_GOLDEN: 'golden', UNKNOWN_FLAG: 'flag', UNKNOWN_PROFILE: 'profile' };

function shown(p: Place, path: string): string {
  const rel = relative(p.root, path);
  return rel.startsWith('..') ? path : rel.split(sep).join('/');
}

// A gate of kind a3 or ab: exactly what `nh-gate a3|ab --gate FILE` loads, then both arms' flag values.
function gateRefs(p: Place, gate: Gate, out: Resolution): void {
  if (gate.kind !== 'a3' && gate.kind !== 'ab') {
    const recipe = locate('recipes', gate.recipe, { namedIn: dirname(resolve(p.at)), roots: [p.root], pkg: p.pkg });
    out.resolved.recipe = shown(p, recipe);
    const loaded = loadRecipe(recipe, p.root);
    out.resolved.profile = resolveProfile(loaded.recipe.profile, recipeRoot(recipe)).name;
    return;
  }
  const inputs = loadInputs({ command: gate.kind, gate: resolve(p.at), flagOptional: true }, p.root);
  out.resolved.recipe = shown(p, inputs.recipePath);
  out.resolved.profile = inputs.profile.name;
  out.resolved.golden = shown(p, inputs.goldenPath);
  if (gate.kind !== 'ab' || inputs.flag === null) return;
  const spec = inputs.recipe.flags[inputs.flag]!;
  if (gate.sweep) {
    // A sweep's every value resolves (an undeclared one is named here, as the plan would refuse it).
    const values = gate.sweep.values.map((t) => {
      const v = resolveArmValue(inputs.recipe, inputs.flag!, spec, t);
      return v.env === null ? `${v.label} (unset)` : `${v.label} (${spec.env}=${v.env})`;
    });
    out.resolved.flag = `${inputs.flag} → ${spec.env}: sweep ${values.join(', ')}; baseline ${gate.sweep.baseline ?? gate.sweep.values[0]}`;
    return;
  }
  const arms = gate.arms ?? { A: 'off', B: 'on' };
  const value = (a: 'A' | 'B'): string => {
    const v = resolveArmValue(inputs.recipe, inputs.flag!, spec, arms[a]);
    return v.env === null ? `${a}=${v.label} (unset)` : `${a}=${v.label} (${spec.env}=${v.env})`;
  };
  out.resolved.flag = `${inputs.flag} → ${spec.env}: ${value('A')}, ${value('B')}`;
}

// A recipe: its profile, and its default golden found as a run finds it (beside the recipe's project first).
function recipeRefs(p: Place, recipe: Recipe, out: Resolution): void {
  const root = recipeRoot(resolve(p.at));
  try {
    out.resolved.profile = resolveProfile(recipe.profile, root).name;
  } catch (err) {
    out.issues.push(issueOf(p.file, 'profile', err));
  }
  if (recipe.defaultGolden === undefined) return;
  const ref = recipe.defaultGolden;
  const file = ref.includes('/') || ref.endsWith('.json') ? resolve(root, ref) : locate('goldens', ref, { namedIn: null, roots: [root, p.root], pkg: p.pkg });
  out.resolved.defaultGolden = shown(p, loadGolden(file, p.root).path);
}

// A mutation table: the recipe as `nh-gate mutate` loads it, every row fitted to it, and the in-diff routes beside it.
function tableRefs(p: Place, table: MutationTable, out: Resolution): void {
  const { recipe, path } = loadRecipe(table.recipe, p.root);
  out.resolved.recipe = shown(p, path);
  const sourceDirRel = relative(p.root, buildVars(recipe, p.root, 'cpu', 1, p.root).sourceDir!).split(sep).join('/');
  checkTableAgainstRecipe(table, p.file, recipe, sourceDirRel);
  out.resolved.suites = [...new Set(table.mutants.map((m) => m.suite))].join(', ');
}

function inDiffRefs(p: Place, config: InDiffConfig, out: Resolution): void {
  const tableFile = join(dirname(p.at), 'mutations.json');
  const { recipe, path } = loadRecipe(config.recipe, p.root);
  out.resolved.recipe = shown(p, path);
  if (!existsSync(tableFile)) return;
  checkRoutes(config, p.file, recipe.suites.map((s) => s.name), loadMutationTable(tableFile), shown(p, tableFile));
  out.resolved.table = shown(p, tableFile);
}

// An imported golden's original, beside it, must be the very bytes it was imported from.
function goldenRefs(p: Place, data: { source?: { file: string; sha256: string } }, out: Resolution): void {
  if (!data.source) return;
  const original = join(dirname(p.at), data.source.file);
  if (!existsSync(original)) out.issues.push(`${p.file}: source.file: ${original} is missing`);
  else if (sha256(readFileSync(original)) !== data.source.sha256) out.issues.push(`${p.file}: source.sha256: ${original} is not the file this golden was imported from (re-import and accept it)`);
  else out.resolved.source = shown(p, original);
}

// Resolves the references of one valid config; a reference a run would refuse is an issue with the run's fix.
export function resolveReferences(kind: Kind, data: unknown, p: Place): Resolution {
  const out: Resolution = { resolved: {}, issues: [] };
  try {
    if (kind === 'gate') gateRefs(p, data as Gate, out);
    else if (kind === 'recipe') recipeRefs(p, data as Recipe, out);
    else if (kind === 'mutations') {
      tableRefs(p, data as MutationTable, out);
      const inDiff = join(dirname(p.at), 'in-diff.json');
      if (existsSync(inDiff)) out.resolved.inDiff = shown(p, inDiff);
    } else if (kind === 'in-diff') inDiffRefs(p, data as InDiffConfig, out);
    else goldenRefs(p, data as { source?: { file: string; sha256: string } }, out);
  } catch (err) {
    out.issues.push(issueOf(p.file, err instanceof NhGateError ? (FIELD_OF[err.code] ?? 'references') : 'references', err));
  }
  return out;
}
