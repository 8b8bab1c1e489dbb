import { basename, dirname, isAbsolute, resolve } from 'node:path';
import type { Recipe } from '../config/recipe.js';
import { declaredFlag } from '../config/recipe.js';
import type { Gate } from '../config/gate.js';
import type { Golden } from '../config/golden.js';
import type { Profile } from '../profiles/types.js';
import { findRecipe, loadGate, loadGolden, packageRoot } from '../config/load.js';
import { resolveProfile } from '../config/profiles.js';
import { NhGateError } from '../errors.js';
import { driverGoldenFor, type DriverGolden } from './driverGolden.js';
import { recipeRoot } from '../config/recipeRoot.js';
import { locate } from '../config/locate.js';
import { claimSpecOf, type ClaimSpec } from './ab/claim.js';

// The package root (where recipes/, goldens/, gates/ and native/ ship), written once in config/load.ts.
export { packageRoot };

export interface InputRefs {
  command: 'a3' | 'ab' | 'serve';
  recipe?: string | undefined;
  golden?: string | undefined;
  gate?: string | undefined;
  flag?: string | undefined;
  // A cross-commit A/B compares two builds, not a flag: no flag is needed.
  flagOptional?: boolean | undefined;
}

export interface Inputs {
  recipe: Recipe;
  recipePath: string;
  // {root}: what the recipe's relative paths resolve against.
  root: string;
  profile: Profile;
  golden: Golden;
  goldenPath: string;
  // The file the driver reads for the golden, in the format its recipe declares.
  driverGolden: DriverGolden;
  // claim: the gate's hypothesis or criteria normalised once, as it loads (src/gates/ab/claim.ts).
  gate: { gate: Gate; path: string; sha256: string; claim: ClaimSpec | null } | null;
  flag: string | null;
}

// A recipe file's root (the rule lives in config/recipeRoot.ts, shared with validate).
export { recipeRoot };

// Loads gate → recipe → golden, checking that they fit together; every mismatch is a usage error that says which file and what to do.
export function loadInputs(refs: InputRefs, cwd = process.cwd()): Inputs {
  const pkg = packageRoot();
  let gate: Inputs['gate'] = null;
  if (refs.gate) {
    const loaded = loadGate(isAbsolute(refs.gate) ? refs.gate : resolve(cwd, refs.gate));
    gate = { ...loaded, claim: claimSpecOf(loaded.gate) };
    if (gate.gate.kind !== refs.command) {
      throw new NhGateError('BAD_INPUT', `${gate.path}: gate '${gate.gate.name}' is of kind '${gate.gate.kind}', but this is 'nh-gate ${refs.command}'`, `run it with 'nh-gate ${gate.gate.kind} --gate ${refs.gate}', or pass a gate of kind '${refs.command}'`);
    }
  }
  const recipeRef = refs.recipe ?? gate?.gate.recipe ?? 'nh-ref';
  if (refs.recipe && gate && gate.gate.recipe !== refs.recipe && basename(refs.recipe, '.json') !== gate.gate.recipe) {
    throw new NhGateError('BAD_INPUT', `${gate.path}: gate '${gate.gate.name}' was registered for recipe '${gate.gate.recipe}', not '${refs.recipe}'`, 'drop --recipe, or use a gate registered for that recipe');
  }
  // The one path rule (config/locate.ts): a gate's references resolve against the gate, a command line's against
  // the working directory; a name is found beside the gate, then in this project, then among the built-ins.
  const gateDir = refs.recipe === undefined && gate ? dirname(gate.path) : null;
  const { recipe, path: recipePath, root } = findRecipe(recipeRef, cwd, gateDir);
  const profile = resolveProfile(recipe.profile, root);
  const goldenRef = refs.golden ?? gate?.gate.golden ?? recipe.defaultGolden;
  if (!goldenRef) throw new NhGateError('USAGE', `recipe '${recipe.name}' names no default golden`, 'pass --golden NAME|PATH');
  // The golden by the same rule: a path against the file that named it (the command line → the working
  // directory, the gate, the recipe's root for its defaultGolden); a name beside the gate, then in the
  // recipe's project, the working directory's, nh-gate's.
  const goldenGate = refs.golden === undefined && gate?.gate.golden !== undefined ? dirname(gate.path) : null;
  const goldenBase = refs.golden !== undefined ? cwd : (goldenGate ?? root);
  const goldenFile = goldenRef.includes('/') || goldenRef.endsWith('.json')
    ? (isAbsolute(goldenRef) ? goldenRef : resolve(goldenBase, goldenRef))
    : locate('goldens', goldenRef, { namedIn: goldenGate, roots: [root, cwd], pkg });
  const { golden, path: goldenPath } = loadGolden(goldenFile, cwd);
  let flag: string | null = null;
  if (refs.command === 'ab') {
    if (refs.flag && gate?.gate.flag && refs.flag !== gate.gate.flag) {
      throw new NhGateError('BAD_INPUT', `${gate.path}: gate '${gate.gate.name}' registered flag '${gate.gate.flag}', but --flag ${refs.flag} was given`, `drop --flag, or pass --flag ${gate.gate.flag}`);
    }
    flag = refs.flag ?? gate?.gate.flag ?? null;
    if (!flag && !refs.flagOptional) {
      const known = Object.keys(recipe.flags);
      throw new NhGateError('USAGE', 'nh-gate ab needs a flag to compare', known.length ? `pass --flag with one of: ${known.join(', ')}` : `recipe '${recipe.name}' declares no flags`);
    }
    if (flag) declaredFlag(recipe, flag, recipePath);
  }
  const driverGolden = driverGoldenFor(recipe, golden, goldenPath);
  return { recipe, recipePath, root, profile, golden, goldenPath, driverGolden, gate, flag };
}
