import type { ReadCase, ReadCases } from './types.js';

// CTest's console: one line per test as it ends,
//   `1/5 Test #1: sum_adds .........................***Failed    0.02 sec`
//   `4/5 Test #4: device_skip ......................***Skipped   0.02 sec`
//   `2/5 Test #2: sum_of_empty .....................   Passed    0.03 sec`
// and a closing `80% tests passed, 1 tests failed out of 5` (or `No tests were found!!!`, which CTest
// exits 0 on). A test counts no assertions. Skipped (SKIP_RETURN_CODE) and Disabled are skips; every
// other word (Failed, Exception, Timeout, Not Run) is a failure, as CTest itself counts them.
const RESULT = /^\s*\d+\/\d+ Test\s+#\d+: (.+?) \.*\s*(?:\*\*\*)?(.+?)\s+[\d.]+ sec\s*$/;
const SUMMARY = /^\d+% tests passed, \d+ tests? failed out of \d+/;
const NONE = /^No tests were found!!!/;

export function readCtestConsole(lines: readonly string[]): ReadCases | null {
  const cases: ReadCase[] = [];
  let finished = false;
  for (const line of lines) {
    if (SUMMARY.test(line) || NONE.test(line)) { finished = true; continue; }
    const r = RESULT.exec(line);
    if (!r) continue;
    const [, name, word] = r as unknown as [string, string, string];
    const said = word.replace(/\*+/g, ' ').replace(/\s+/g, ' ').trim();
    if (said === 'Passed') cases.push({ name, status: 'passed', assertions: null, messages: [] });
    else if (/\b(?:Skipped|Disabled)\b/.test(said)) cases.push({ name, status: 'skipped', assertions: null, messages: [], note: said });
    else cases.push({ name, status: 'failed', assertions: null, messages: [], note: said });
  }
  if (!finished) return null;
  return { cases, complete: true, totals: null, assertions: null, success: null };
}
