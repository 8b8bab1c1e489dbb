import type { ReadCase, ReadCases } from './types.js';

// GoogleTest names a case Suite.Case, its --gtest_filter syntax. It counts failed assertions only.

// The console: `[ RUN      ] X`, its output, then `[       OK ] X (N ms)`, `[  FAILED  ] X (N ms)` or
// `[  SKIPPED ] X (N ms)` (the closing summary repeats FAILED/SKIPPED names without the time, and is
// not read as cases). `[==========] N tests from M test suites ran.` closes a finished run.
const RUN = /^\[ RUN {6}\] (\S+)/;
const RESULT = /^\[\s+(OK|FAILED|SKIPPED)\s+\] (\S+?)(?:, where .*)? \(\d+ ms\)\s*$/;
const FAILURE = /(?:^|:\d+:|^unknown file:) Failure\s*$/;
const FINISHED = /^\[==========\] \d+ tests? from \d+ test (?:suites?|cases?) ran\./;

export function readGtestConsole(lines: readonly string[]): ReadCases | null {
  const cases: ReadCase[] = [];
  let current: { name: string; failed: number; messages: string[]; note?: string } | null = null;
  let finished = false;
  for (const line of lines) {
    if (FINISHED.test(line)) { finished = true; continue; }
    const run = RUN.exec(line);
    if (run) { current = { name: run[1]!, failed: 0, messages: [] }; continue; }
    const res = RESULT.exec(line);
    if (res) {
      const [, word, name] = res as unknown as [string, string, string];
      const own = current?.name === name ? current : null;
      const failed = own?.failed ?? 0;
      const status = word === 'OK' ? 'passed' : word === 'FAILED' ? 'failed' : 'skipped';
      cases.push({
        name, status, assertions: status === 'skipped' ? null : { passed: null, failed }, messages: own?.messages ?? [],
        ...(own?.note ? { note: own.note } : {}),
      });
      current = null;
      continue;
    }
    if (!current) continue;
    if (FAILURE.test(line)) { current.failed++; continue; }
    if (line.startsWith('C++ exception with description')) current.note ??= line.slice(0, 200);
    current.messages.push(line);
  }
  // A run cut short (a crash mid-case) never printed its closing line: no summary, no counts.
  if (!finished) return null;
  return { cases, complete: true, totals: null, assertions: null, success: null };
}

interface GtestJsonCase {
  name?: string;
  status?: string;
  result?: string;
  failures?: { failure?: string }[];
}

// --gtest_output=json:F: testsuites[].testsuite[] with status RUN/NOTRUN, result COMPLETED/SKIPPED/
// SUPPRESSED, and a failures list per failed case. Null when the text is not such a document.
export function readGtestJson(textIn: string): ReadCases | null {
  let doc: { testsuites?: { name?: string; testsuite?: GtestJsonCase[] }[] };
  try {
    doc = JSON.parse(textIn) as typeof doc;
  } catch {
    return null;
  }
  if (!doc || !Array.isArray(doc.testsuites)) return null;
  const cases: ReadCase[] = [];
  for (const s of doc.testsuites) {
    for (const c of s.testsuite ?? []) {
      const name = `${s.name ?? ''}.${c.name ?? ''}`;
      const failures = c.failures ?? [];
      const notRun = c.status === 'NOTRUN' || c.result === 'SKIPPED' || c.result === 'SUPPRESSED';
      const note = failures[0]?.failure?.split('\n').find((l) => l.trim() !== '' && l !== 'unknown file')?.slice(0, 200);
      if (failures.length > 0) cases.push({ name, status: 'failed', assertions: { passed: null, failed: failures.length }, messages: [], ...(note ? { note } : {}) });
      else if (notRun) cases.push({ name, status: 'skipped', assertions: null, messages: [], note: (c.result ?? c.status ?? '').toLowerCase() });
      else cases.push({ name, status: 'passed', assertions: { passed: null, failed: 0 }, messages: [] });
    }
  }
  return { cases, complete: true, totals: null, assertions: null, success: null };
}
