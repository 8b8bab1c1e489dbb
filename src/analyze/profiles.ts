import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NhGateError } from '../errors.js';
import { listProfiles, resolveProfile } from '../config/profiles.js';
import { BUILTIN_PROFILES } from '../profiles/builtin.js';
import type { Profile } from '../profiles/types.js';

// The output profiles `analyze` knows by name: the built-in ones and the profile files nh-gate ships in
// profiles/ (llama-server). A raw log of a shipped engine is then read by its own profile, found by its
// line prefix, and `--help` lists every name that works (it once listed two and left llama-server out).

// Where built-in recipes and profiles live: the package root, two levels above this module in src/ and in dist/.
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

// name → file of each profile JSON under <root>/profiles/.
function shippedFiles(root: string): Map<string, string> {
  const dir = join(root, 'profiles');
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).sort()) if (f.endsWith('.json')) out.set(f.slice(0, -'.json'.length), join(dir, f));
  return out;
}

// Every name `--profile` accepts, built-ins first.
export function analyzeProfileNames(root: string = PACKAGE_ROOT): string[] {
  return [...new Set([...listProfiles(), ...shippedFiles(root).keys()])];
}

// A name (built-in or shipped) or a profile JSON path; an unknown name lists every known one.
export function resolveAnalyzeProfile(nameOrPath: string, root: string = PACKAGE_ROOT, cwd: string = process.cwd()): Profile {
  const shipped = shippedFiles(root).get(nameOrPath);
  if (shipped) return resolveProfile(shipped);
  if (nameOrPath.includes('/') || nameOrPath.endsWith('.json') || listProfiles().includes(nameOrPath)) return resolveProfile(nameOrPath, cwd);
  throw new NhGateError('UNKNOWN_PROFILE', `no output profile named '${nameOrPath}'; known: ${analyzeProfileNames(root).join(', ')}`, 'pass --profile with one of those, or a path to a profile JSON file');
}

// The profiles a log's line prefixes are matched against when neither --profile nor --recipe is given.
export function detectableProfiles(root: string = PACKAGE_ROOT): Profile[] {
  return [...BUILTIN_PROFILES, ...[...shippedFiles(root).values()].map((f) => resolveProfile(f))];
}
