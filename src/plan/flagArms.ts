import type { Recipe, RecipeFlag } from '../config/recipe.js';
import { NhGateError } from '../errors.js';
import { didYouMean } from '../config/nearest.js';

// `--flag NAME`, `--flag NAME=V1,V2` (an A/B: the values of arms A and B) or `--flag NAME=V1,V2,V3…` (a
// sweep: three or more values, each an arm; src/plan/sweep.ts).
export interface FlagSpec {
  name: string;
  arms: { A: string; B: string } | null;
  // A sweep's values, in the order given (null: not a sweep).
  sweep: string[] | null;
}

// Parses the --flag text; a malformed value list is a usage error that shows the shape.
export function parseFlagSpec(text: string): FlagSpec {
  const eq = text.indexOf('=');
  if (eq < 0) return { name: text, arms: null, sweep: null };
  const name = text.slice(0, eq);
  const values = text.slice(eq + 1).split(',').map((v) => v.trim());
  if (values.length < 2 || values.some((v) => v.length === 0)) {
    throw new NhGateError('USAGE', `--flag ${text}: an A/B takes two values and a sweep three or more, none empty`, `pass --flag ${name}=A_VALUE,B_VALUE (e.g. --flag ${name}=1,2) or --flag ${name}=1,2,4,8`);
  }
  if (values.length > 2) return { name, arms: null, sweep: values };
  return { name, arms: { A: values[0]!, B: values[1]! }, sweep: null };
}

// One arm's value as the environment sees it: a string, or null for "leave the variable unset".
export interface ArmValue {
  label: string;
  env: string | null;
}

// on / off / default / a declared value → the env value; anything else is refused with the declared ones listed.
export function resolveArmValue(recipe: Recipe, name: string, flag: RecipeFlag, token: string): ArmValue {
  const t = token === 'default' ? flag.default : token;
  if (t === 'on') return { label: token === 'default' ? 'default (on)' : 'on', env: flag.on };
  if (t === 'off') return { label: token === 'default' ? 'default (off)' : 'off', env: flag.off };
  if ((flag.values ?? []).includes(t)) return { label: token === 'default' ? `default (${t})` : t, env: t };
  const known = ['on', 'off', 'default', ...(flag.values ?? [])];
  throw new NhGateError('UNKNOWN_FLAG', `flag ${name} of recipe '${recipe.name}' does not declare the value '${token}'${didYouMean(token, known)}`, `use one of: ${known.join(', ')} (or declare it in the recipe's flags.${name}.values)`);
}

// A leg's environment for one arm value: the variable set, or removed (undefined) when the arm unsets it.
export function applyArm(base: Record<string, string>, envName: string, v: ArmValue): { env: Record<string, string>; unset: string[] } {
  const env = { ...base };
  if (v.env === null) {
    delete env[envName];
    return { env, unset: [envName] };
  }
  env[envName] = v.env;
  return { env, unset: [] };
}
