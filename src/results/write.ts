import { mkdirSync, appendFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';


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
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') mkdirSync(root, { recursive: true });
      else if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') i -= 1;
    }
  }
  throw new Error(`could not create a run directory under ${root}`);
}

// Appends one line to an append-only JSONL file (O_APPEND: concurrent appends do not interleave within a line).
export function appendLine(path: string, obj: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, JSON.stringify(obj) + '\n');
}
