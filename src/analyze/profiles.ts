import { NhGateError } from '../errors.js';
import { listProfiles, resolveProfile } from '../config/profiles.js';
import { BUILTIN_PROFILES } from '../profiles/builtin.js';
import { analyzeProfileNames, PACKAGE_ROOT, shippedProfileFiles as shippedFiles } from './profileNames.js';
import type { Profile } from '../profiles/types.js';

// The output profiles `analyze` knows by name: the built-in ones and the profile files nh-gate ships in
// profiles/ (llama-server). A raw log of a shipped engine is then read by its own profile, found by its
// line prefix, and `--help` lists every name that works (it once listed two and left llama-server out).
// The names alone live in profileNames.ts, which the CLI loads at start-up without the schemas.

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
