import { createDriverReader } from '../profiles/reader.js';
import type { Profile } from '../profiles/types.js';
import type { DoctestCounts } from './types.js';

// Doctest's failure report names the case in a `TEST CASE:  <name>` line before each failed check;
// the summary lines themselves are read by CORE's profile reader, not here.
const CASE_LINE = /^TEST CASE:\s+(.*?)\s*$/;

// The last doctest summary of a suite's output (through the recipe's profile), with the names of the
// cases that failed; null when no summary was printed (a crash, or a binary that is not a doctest suite).
export function readDoctest(lines: string[], profile: Profile): DoctestCounts | null {
  const reader = createDriverReader(profile);
  const failing = new Set<string>();
  for (const line of lines) {
    reader.push(line);
    const t = CASE_LINE.exec(line);
    if (t) failing.add(t[1]!);
  }
  const last = reader.report().doctest.at(-1);
  if (!last || last.cases === null) return null;
  return {
    cases: last.cases,
    assertions: last.assertions ?? { total: 0, passed: 0, failed: 0 },
    success: last.status === null ? null : last.status === 'SUCCESS',
    failingCases: [...failing],
  };
}
