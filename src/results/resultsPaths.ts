import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { NhGateError } from '../errors.js';

// The results base's own paths checked for their type before anything is written: `--results-dir` naming a
// file, a `runs` that is a file, a `ledger.jsonl` that is a directory each used to end as an internal error
// with a stack trace (the ledger one after result.json said "complete"). Now each is refused up front, by
// path, with exit 2, and nothing is written.

export type PathType = 'dir' | 'file' | 'other' | 'missing';

export interface PathProblem {
  path: string;
  message: string;
  fix: string;
}

// What is at a path (following links, as a write would).
export function pathType(path: string): PathType {
  let st;
  try {
    st = statSync(path);
  } catch {
    // ENOENT, or ENOTDIR (a file on the way, found by the walk up) or EACCES (left for the write to name).
    return 'missing';
  }
  return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
}

const A: Record<PathType, string> = { dir: 'a directory', file: 'a file', other: 'a special file (a socket, a device or a FIFO)', missing: 'missing' };
const AWAY = (p: string): string => `move ${p} out of the way, or pass --results-dir DIR`;

// Pure over `typeOf`: the first path of the results base that has the wrong type, or null.
export function resultsPathProblem(base: string, typeOf: (p: string) => PathType): PathProblem | null {
  const root = resolve(base);
  let at = root;
  while (typeOf(at) === 'missing' && dirname(at) !== at) at = dirname(at);
  if (typeOf(at) !== 'dir') {
    const what = at === root ? `the results directory ${root} is ${A[typeOf(at)]}, not a directory` : `${at} is ${A[typeOf(at)]}, not a directory, so the results directory ${root} cannot be made under it`;
    return { path: at, message: `${what}: runs/ and ledger.jsonl go under it`, fix: 'pass --results-dir DIR naming a directory (one that does not exist yet is made)' };
  }
  const runs = join(root, 'runs');
  if (!['dir', 'missing'].includes(typeOf(runs))) return { path: runs, message: `${runs} is ${A[typeOf(runs)]}, not a directory: every run directory goes under it`, fix: AWAY(runs) };
  const ledger = join(root, 'ledger.jsonl');
  if (!['file', 'missing'].includes(typeOf(ledger))) return { path: ledger, message: `${ledger} is ${A[typeOf(ledger)]}, not a file: each run appends its ledger line to it`, fix: AWAY(ledger) };
  return null;
}

// The check a run makes before it creates anything under the results base.
export function checkResultsBase(base: string): void {
  const p = resultsPathProblem(base, pathType);
  if (p) throw new NhGateError('WRONG_PATH_TYPE', `${p.message}; nothing was run or written`, p.fix);
}
