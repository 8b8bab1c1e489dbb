import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync, appendFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { rethrowDiskFault } from '../io/diskFaults.js';
import { checkResultsBase } from './resultsPaths.js';
import { HARNESS_FILE, NEW_PREFIX, thisHarness } from './deadRuns.js';


// "20261130T041700Z": sortable, filesystem-safe, UTC.
export function utcStamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

let made = 0;

// Creates .nh-gate/runs/<UTC stamp>-<gate>/ (a suffix when two runs share a second), with the harness's
// identity inside it from the first instant: the directory is made under a hidden name, the identity
// written, then renamed into place, so a later run never meets a run directory it cannot attribute
// (deadRuns.ts marks or removes the ones whose harness died before result.json).
export function createRunDir(base: string, gateName: string, now: Date): string {
  checkResultsBase(base);
  const safe = gateName.replace(/[^A-Za-z0-9._-]+/g, '-');
  const root = resolve(base, 'runs');
  try {
    mkdirSync(root, { recursive: true });
  } catch (e) {
    // A recursive mkdir on a read-only filesystem can answer ENOENT: ask the nearest existing folder why.
    rethrowDiskFault(whyNotWritable(root) ?? e, root);
  }
  const fresh = join(root, `${NEW_PREFIX}${process.pid}-${Date.now()}-${made++}`);
  try {
    mkdirSync(fresh);
    writeFileSync(join(fresh, HARNESS_FILE), JSON.stringify({ schemaVersion: 1, harness: thisHarness(), createdAt: now.toISOString() }) + '\n');
  } catch (err) {
    rmSync(fresh, { recursive: true, force: true });
    rethrowDiskFault(err, fresh);
  }
  for (let i = 0; i < 100; i++) {
    const dir = join(root, `${utcStamp(now)}-${safe}${i === 0 ? '' : `-${i}`}`);
    // rename() would replace an empty directory of that name: a name that exists is taken, whatever it holds.
    if (existsSync(dir)) continue;
    try {
      renameSync(fresh, dir);
      return dir;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') {
        rmSync(fresh, { recursive: true, force: true });
        rethrowDiskFault(err, dir);
      }
    }
  }
  rmSync(fresh, { recursive: true, force: true });
  throw new Error(`could not create a run directory under ${root}`);
}

// Appends one line to an append-only JSONL file (O_APPEND: concurrent appends do not interleave within a line).
export function appendLine(path: string, obj: unknown): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    appendFileSync(path, JSON.stringify(obj) + '\n');
  } catch (err) {
    rethrowDiskFault(err, path);
  }
}

// The error access(W_OK) gives for the nearest existing ancestor of path (EROFS, EACCES), or null if writable.
function whyNotWritable(path: string): unknown {
  let dir = path;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
    return null;
  } catch (err) {
    return err;
  }
}
