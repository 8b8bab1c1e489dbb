import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mutation } from '../config/mutations.js';
import { sha256, writeAtomic } from './files.js';
import type { MutantResult } from './types.js';

// Results that a re-run may reuse: only verdicts that were fully proven (built, hashed, restored).
export function cacheable(r: MutantResult): boolean {
  if (r.verdict === 'CAUGHT' || r.verdict === 'CAUGHT BY SANITIZER' || r.verdict === 'SURVIVED' || r.verdict === 'TIMEOUT') return true;
  return r.verdict === 'VOID' && (r.reason === 'UNVIABLE' || r.reason === 'NOT_REBUILT');
}

// The key of one result: the mutant (file, anchor, replacement, suite, filter), the sha of the file it
// mutates as it is now, and the baseline binary sha it was judged against. Any change to the source, the
// build or the mutant makes a new key, so a cached row is never judged against other code.
export function cacheKey(m: Mutation, fileSha: string, baselineSha: string): string {
  return sha256(JSON.stringify([m.file, m.anchor, m.replacement, m.suite, m.filter ?? null, m.mustFailCase ?? null, m.device ?? false, fileSha, baselineSha]));
}

// Reads a cached result, or null (missing, unreadable, or written for another mutant id).
export function readCached(dir: string, key: string, id: string): MutantResult | null {
  try {
    const r = JSON.parse(readFileSync(join(dir, `${key}.json`), 'utf8')) as MutantResult;
    return r && r.id === id && typeof r.verdict === 'string' ? r : null;
  } catch {
    return null;
  }
}

// Stores a proven result atomically under its key.
export function writeCached(dir: string, key: string, r: MutantResult): void {
  writeAtomic(join(dir, `${key}.json`), JSON.stringify(r) + '\n');
}
