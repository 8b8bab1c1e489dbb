import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { NhGateError } from '../errors.js';
import { didYouMean } from './nearest.js';

// The one path rule (docs/engines.md): a relative path resolves against the file that names it (a gate's
// recipe and golden against the gate; a recipe's own paths against its root, config/recipeRoot.ts); a
// command-line path against the working directory. A NAME is looked up beside the file that names it,
// then in the project's folder (the working directory's recipes/ or goldens/), then in nh-gate's built-ins.
export interface LookupPlaces {
  // The directory of the file that names the reference (a gate), or null for a command-line reference.
  namedIn: string | null;
  // The project's folders, in order (the recipe's root for its goldens, the working directory).
  roots: string[];
  // nh-gate's own package root (the built-in recipes, gates and goldens).
  pkg: string;
}

function looksLikePath(s: string): boolean {
  return s.includes('/') || s.endsWith('.json');
}

// The places a NAME is looked for, in order, for a kind of file ('recipes' → <dir>/NAME.json, 'goldens' →
// <dir>/NAME/golden.json); beside the naming file means the file itself or its sibling recipes/ folder.
export function candidates(kind: 'recipes' | 'goldens', name: string, p: LookupPlaces): string[] {
  const file = (dir: string): string => (kind === 'recipes' ? join(dir, `${name}.json`) : join(dir, name, 'golden.json'));
  const dirs: string[] = [];
  if (p.namedIn) dirs.push(...(kind === 'recipes' ? [p.namedIn, join(p.namedIn, '..', 'recipes'), join(p.namedIn, '..', '..', 'recipes')] : [join(p.namedIn, '..', 'goldens'), join(p.namedIn, '..', '..', 'goldens')]));
  dirs.push(...p.roots.map((r) => join(r, kind)), join(p.pkg, kind));
  return [...new Set(dirs.map((d) => resolve(file(d))))];
}

// The names a reference could have used: the recipes (NAME.json) and goldens (NAME/golden.json) in the
// folders looked in, for the nearest-name hint.
export function knownNames(kind: 'recipes' | 'goldens', tried: readonly string[]): string[] {
  const names = new Set<string>();
  // Only folders named for the kind: a gate's own folder (looked in for a recipe beside it) holds gates too.
  for (const dir of new Set(tried.map((t) => dirname(kind === 'recipes' ? t : dirname(t))).filter((d) => basename(d) === kind))) {
    let entries: string[] = [];
    try {
      entries = readdirSync(dir);
    } catch {
      continue;
    }
    for (const e of entries) {
      if (kind === 'recipes' && e.endsWith('.json')) names.add(e.slice(0, -5));
      if (kind === 'goldens' && existsSync(join(dir, e, 'golden.json'))) names.add(e);
    }
  }
  return [...names].sort();
}

// Where a recipe or golden reference points, by the one rule; a name found nowhere lists where it looked.
export function locate(kind: 'recipes' | 'goldens', ref: string, p: LookupPlaces): string {
  if (looksLikePath(ref)) return isAbsolute(ref) ? ref : resolve(p.namedIn ?? p.roots[p.roots.length - 1] ?? '.', ref);
  const tried = candidates(kind, ref, p);
  const hit = tried.find((f) => existsSync(f));
  if (hit) return hit;
  const what = kind === 'recipes' ? 'recipe' : 'golden';
  const hint = didYouMean(ref, knownNames(kind, tried));
  throw new NhGateError(kind === 'recipes' ? 'UNKNOWN_RECIPE' : 'UNKNOWN_GOLDEN', `no ${what} named '${ref}'${p.namedIn ? ` (named in ${p.namedIn})` : ''}${hint}; looked in: ${tried.map((t) => dirname(kind === 'recipes' ? t : dirname(t))).join(', ')}`, `put ${kind === 'recipes' ? `${ref}.json` : `${ref}/golden.json`} in one of those folders, or pass a path`);
}
