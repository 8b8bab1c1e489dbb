import type { SuiteFormat } from '../../config/recipe.js';
import { readCatch2Console, readCatch2Xml } from './catch2.js';
import { readCtestConsole } from './ctest.js';
import { readDoctestConsole, readDoctestXml } from './doctest.js';
import { readGtestConsole, readGtestJson } from './gtest.js';
import { readJunit } from './junit.js';
import type { CaseResult, ReadCases, SuiteCounts, SuiteSource } from './types.js';
import { kids, parseXml } from './xml.js';

// What a suite run left to read: its console lines and, when the recipe asks for a report (reportArgv),
// the report file's text (null: none was written, so the run did not finish).
export interface SuiteOutput {
  lines: readonly string[];
  report?: { text: string | null } | undefined;
}

// How the recipe describes the suite: its format (absent: detected) and its skip message.
export interface ReadOptions {
  format?: SuiteFormat | undefined;
  skipMessage?: string | undefined;
}

// Counts, or why there are none (the suite did not finish, or its format could not be told).
export type SuiteRead = { counts: SuiteCounts; why: null } | { counts: null; why: string };

// Each framework's console marks, for telling the format when the recipe does not say it.
const MARKS: Record<SuiteFormat, RegExp> = {
  doctest: /^\[doctest\] (?:doctest version|test cases:)/,
  gtest: /^\[==========\] Running \d+ tests?/,
  catch2: /(?:is a Catch v?\d|^All tests passed \(\d+ assertions?|^No tests ran\s*$|^test cases:\s*\d+\s*\|)/,
  ctest: /^(?:Test project |\s*\d+\/\d+ Test\s+#\d+: )/,
};

// The formats whose marks the console shows; the format is told only when exactly one does.
export function detectFormats(lines: readonly string[]): SuiteFormat[] {
  return (Object.keys(MARKS) as SuiteFormat[]).filter((f) => lines.some((l) => MARKS[f].test(l)));
}

function fromReport(format: SuiteFormat, report: string): { read: ReadCases | null; source: SuiteSource } | null {
  if (report.trimStart().startsWith('{')) return { read: readGtestJson(report), source: 'gtest-json' };
  const root = parseXml(report);
  if (!root) return null;
  if (kids(root, 'Catch').length) return { read: readCatch2Xml(root), source: 'catch2-xml' };
  if (kids(root, 'doctest').length) return { read: readDoctestXml(root), source: 'doctest-xml' };
  if (kids(root, 'testsuites').length || kids(root, 'testsuite').length) return { read: readJunit(format, root), source: 'junit' };
  return null;
}

// The framework a report names by its own shape (GoogleTest's JSON, Catch2's and doctest's XML); a JUnit
// file does not say which framework wrote it.
function reportFormat(text: string | null): SuiteFormat | null {
  if (text === null) return null;
  if (text.trimStart().startsWith('{')) return 'gtest';
  const root = parseXml(text);
  if (kids(root ?? undefined, 'Catch').length) return 'catch2';
  if (kids(root ?? undefined, 'doctest').length) return 'doctest';
  return null;
}

function fromConsole(format: SuiteFormat, lines: readonly string[]): ReadCases | null {
  if (format === 'doctest') return readDoctestConsole(lines);
  if (format === 'gtest') return readGtestConsole(lines);
  if (format === 'catch2') return readCatch2Console(lines);
  return readCtestConsole(lines);
}

// A passing case whose printed messages match the skip message took its skip path: it is read as
// skipped (never as a pass of the code it guards). Totals printed by the suite move with it.
function finish(format: SuiteFormat, source: SuiteSource, r: ReadCases, skip: RegExp | null): SuiteCounts {
  let moved = 0;
  const caseResults = r.cases.map(({ messages, ...c }): CaseResult => {
    const hit = skip && c.status === 'passed' ? messages.find((m) => skip.test(m)) : undefined;
    if (hit === undefined) return c;
    moved++;
    return { ...c, status: 'skipped', note: hit.trim().slice(0, 200) };
  });
  const count = (s: CaseResult['status']): number => caseResults.filter((c) => c.status === s).length;
  const t = r.totals
    ? { passed: r.totals.passed - moved, failed: r.totals.failed, skipped: r.totals.skipped + moved }
    : { passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
  return {
    format, source,
    cases: { total: t.passed + t.failed + t.skipped, ...t },
    assertions: r.assertions,
    success: r.success ?? t.failed === 0,
    failingCases: caseResults.filter((c) => c.status === 'failed').map((c) => c.name),
    skippedCases: caseResults.filter((c) => c.status === 'skipped').map((c) => c.name),
    caseResults,
    complete: r.complete,
  };
}

// Reads one suite run per case: the structured report when there is one, else the console.
export function readSuite(out: SuiteOutput, o: ReadOptions = {}): SuiteRead {
  const seen = detectFormats(out.lines);
  const format = o.format ?? (seen.length === 1 ? seen[0]! : reportFormat(out.report?.text ?? null));
  if (format === null) {
    if (seen.length > 1) return { counts: null, why: `output matches ${seen.join(' and ')}: set the suite's kind` };
    return { counts: null, why: out.report?.text ? 'a JUnit report does not name the framework that wrote it: set the suite\'s kind' : 'no test framework output recognised (doctest, gtest, catch2, ctest)' };
  }
  const skip = o.skipMessage === undefined ? null : new RegExp(o.skipMessage);
  if (out.report) {
    if (out.report.text === null) return { counts: null, why: `no ${format} report was written: the suite did not finish` };
    const rep = fromReport(format, out.report.text);
    if (!rep || !rep.read) return { counts: null, why: `the ${format} report is not a readable report (cut short, or another format)` };
    return { counts: finish(format, rep.source, rep.read, skip), why: null };
  }
  const read = fromConsole(format, out.lines);
  if (!read) return { counts: null, why: `no ${format} summary: the suite did not finish` };
  return { counts: finish(format, 'console', read, skip), why: null };
}
