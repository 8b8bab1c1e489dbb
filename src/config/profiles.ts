import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { NhGateError } from '../errors.js';
import { BUILTIN_PROFILES, listProfiles } from '../profiles/builtin.js';
import { ProfileSchema } from './profile.js';
import { compileProfile } from '../profiles/compile.js';
import type { Profile } from '../profiles/types.js';
import { checkConfig } from './load.js';
import { didYouMean } from './nearest.js';

export { listProfiles };

// A built-in profile by name; an unknown name is a usage error that lists the known ones.
export function getProfile(name: string): Profile {
  const p = BUILTIN_PROFILES.find((x) => x.name === name);
  if (!p) {
    throw new NhGateError('UNKNOWN_PROFILE', `no output profile named '${name}'${didYouMean(name, listProfiles())}; known: ${listProfiles().join(', ')}`, 'pass --profile with one of those, or a path to a profile JSON file');
  }
  return p;
}

function looksLikePath(s: string): boolean {
  return s.includes('/') || s.endsWith('.json');
}

// A recipe's `profile` field: a built-in name, or a JSON file (relative to root) validated by ProfileSchema.
export function resolveProfile(nameOrPath: string, root = process.cwd()): Profile {
  if (!looksLikePath(nameOrPath)) return getProfile(nameOrPath);
  const file = isAbsolute(nameOrPath) ? nameOrPath : resolve(root, nameOrPath);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `${file}: cannot read profile (${(err as NodeJS.ErrnoException).code ?? 'error'})`, `check the path, or use a built-in profile: ${listProfiles().join(', ')}`);
  }
  const parsed = checkConfig(text, file, ProfileSchema);
  if (!parsed.ok) throw new NhGateError('BAD_CONFIG', parsed.issues.join('\n'), parsed.fix ?? 'fix the fields named above');
  const profile: Profile = { name: parsed.data.name, prefix: parsed.data.prefix, patterns: parsed.data.patterns };
  if (parsed.data.description !== undefined) profile.description = parsed.data.description;
  try {
    compileProfile(profile);
  } catch (err) {
    throw new NhGateError('BAD_CONFIG', `${file}: patterns: a regex does not compile (${(err as Error).message})`, 'fix the regex source');
  }
  return profile;
}
