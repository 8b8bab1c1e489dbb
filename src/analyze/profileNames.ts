import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listProfiles } from '../profiles/builtin.js';

// The profile names `analyze --help` lists, apart from the profiles themselves: this file is imported when the
// CLI registers its commands, so it must not reach the zod schemas (config/) that reading a profile needs —
// `--help` and `--version` once paid for loading them (3.2× `node -e 0`; test/cli/coldStart.test.ts guards it).

// Where built-in recipes and profiles live: the package root, two levels above this module in src/ and in dist/.
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

// name → file of each profile JSON under <root>/profiles/.
export function shippedProfileFiles(root: string): Map<string, string> {
  const dir = join(root, 'profiles');
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).sort()) if (f.endsWith('.json')) out.set(f.slice(0, -'.json'.length), join(dir, f));
  return out;
}

// Every name `--profile` accepts, built-ins first.
export function analyzeProfileNames(root: string = PACKAGE_ROOT): string[] {
  return [...new Set([...listProfiles(), ...shippedProfileFiles(root).keys()])];
}
