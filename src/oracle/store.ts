import { diffGolden } from './diff.js';
import { access, readFile, rm } from 'node:fs/promises';
import { writeAtomic } from '../io/atomic.js';
import { dirname, join } from 'node:path';
import { GoldenSchema } from '../config/golden.js';
import type { Golden } from '../config/golden.js';
import { NhGateError } from '../errors.js';
import { parseJsonFile } from '../config/load.js';
import { sha256 } from '../io/hash.js';

// Where a capture waits for review; never read by a gate.
export function stagedPath(root: string, name: string): string {
  return join(root, '.nh-gate', 'golden-staging', name, 'golden.json');
}

// The committed golden a gate compares against.
export function committedPath(root: string, name: string): string {
  return join(root, 'goldens', name, 'golden.json');
}

// Golden names become directory names: no separators, no dot-dot.
export function checkGoldenName(name: string): string {
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name) || name.includes('..')) {
    throw new NhGateError('USAGE', `golden name ${JSON.stringify(name)} is not a plain name`, 'use lower-case letters, digits, ".", "_" or "-", e.g. nh-ref-tiny');
  }
  return name;
}

// Reads and validates a golden file through the shared loader; absent → null (a first capture).
export async function readGoldenFile(path: string): Promise<Golden | null> {
  try {
    await access(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
  }
  return parseJsonFile(path, GoldenSchema, 'golden').data;
}

// Serializes a golden the same way every time so a diff in git shows only real changes.
export function serializeGolden(g: Golden): string {
  return JSON.stringify(g, null, 2) + '\n';
}


// The only way a committed golden changes: the staged one (validated again) replaces it, and staging is cleared.
export async function acceptStaged(root: string, name: string): Promise<{ previous: Golden | null; accepted: Golden; unchanged: boolean }> {
  checkGoldenName(name);
  const staged = await readGoldenFile(stagedPath(root, name));
  if (!staged) {
    throw new NhGateError('UNKNOWN_GOLDEN', `nothing staged for golden ${name} (${stagedPath(root, name)} does not exist)`, `run nh-gate golden capture first, review its diff, then accept`);
  }
  if (staged.name !== name) {
    throw new NhGateError('BAD_INPUT', `staged golden ${stagedPath(root, name)} is named ${JSON.stringify(staged.name)}, not ${JSON.stringify(name)}`, 'recapture it');
  }
  const previous = await readGoldenFile(committedPath(root, name));
  // An unchanged golden keeps its committed bytes (capture time and host included): accepting it rewrites nothing.
  const unchanged = previous !== null && !diffGolden(previous, staged).changed;
  // An imported golden brings its original: it lands first (checked against the sha256 the import
  // recorded), so a committed golden.json never names an original that is not there.
  const originalOf = (dir: string): string => join(dirname(dir), 'oracle.json');
  if (staged.source) {
    const bytes = await readFile(originalOf(stagedPath(root, name))).catch(() => null);
    if (!bytes || sha256(bytes) !== staged.source.sha256) {
      throw new NhGateError('BAD_INPUT', `staged golden ${name}: its original ${originalOf(stagedPath(root, name))} is missing or not the file it was imported from`, 're-run nh-gate golden import, then accept');
    }
    writeAtomic(originalOf(committedPath(root, name)), bytes);
  }
  if (!unchanged) writeAtomic(committedPath(root, name), serializeGolden(staged));
  if (!staged.source) await rm(originalOf(committedPath(root, name)), { force: true });
  await rm(dirname(stagedPath(root, name)), { recursive: true, force: true });
  return { previous, accepted: unchanged ? previous : staged, unchanged };
}
