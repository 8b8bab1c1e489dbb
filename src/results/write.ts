import { accessSync, constants, existsSync, mkdirSync, rmSync, appendFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { rethrowDiskFault } from '../io/diskFaults.js';


// "20261130T041700Z": sortable, filesystem-safe, UTC.
export function utcStamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

// Creates .nh-gate/runs/<UTC stamp>-<gate>/ (a suffix when two runs share a second).
export function createRunDir(base: string, gateName: string, now: Date): string {
  const safe = gateName.replace(/[^A-Za-z0-9._-]+/g, '-');
  const root = resolve(base, 'runs');
  for (let i = 0; i < 100; i++) {
    const dir = join(root, `${utcStamp(now)}-${safe}${i === 0 ? '' : `-${i}`}`);
    try {
      mkdirSync(dir, { recursive: false });
      return dir;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        try {
          mkdirSync(root, { recursive: true });
        } catch (e) {
          // A recursive mkdir on a read-only filesystem can answer ENOENT: ask the nearest existing folder why.
          rethrowDiskFault(whyNotWritable(root) ?? e, root);
        }
      } else if ((err as NodeJS.ErrnoException).code !== 'EEXIST') rethrowDiskFault(err, dir);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') i -= 1;
    }
  }
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
