import type { SuiteFormat } from '../../config/recipe.js';
import type { ReadCase, ReadCases } from './types.js';
import { attr, descendants, kids, text, type XmlNode } from './xml.js';

// JUnit XML as the four frameworks write it: GoogleTest (--gtest_output=xml:F), Catch2 (-r junit -o F),
// CTest (--output-junit F) and doctest (-r=junit). A <failure> or <error> child fails a case; a <skipped>
// child, CTest's notrun/disabled status or GoogleTest's skipped/suppressed result skips it; else it passed.

const SKIP_STATUS = new Set(['notrun', 'disabled']);
const SKIP_RESULT = new Set(['skipped', 'suppressed']);

// The first line that says something (GoogleTest starts a failure message with its bare file:line).
function firstLine(s: string | undefined): string | undefined {
  const l = s?.split('\n').map((x) => x.trim()).find((x) => x !== '' && !/^\S+:\d+$/.test(x));
  return l === undefined ? undefined : l.slice(0, 200);
}

// GoogleTest names a case Suite.Case (its filter syntax); the others by the case name alone.
function caseName(format: SuiteFormat, tc: XmlNode): string {
  const name = attr(tc, 'name') ?? '';
  const cls = attr(tc, 'classname');
  return format === 'gtest' && cls ? `${cls}.${name}` : name;
}

function readCase(format: SuiteFormat, tc: XmlNode): ReadCase {
  const failures = [...kids(tc, 'failure'), ...kids(tc, 'error')];
  const skipped = kids(tc, 'skipped');
  const name = caseName(format, tc);
  // CTest keeps each test's output here; the others print theirs to the console instead.
  const messages = kids(tc, 'system-out').flatMap((o) => text(o).split('\n')).filter((l) => l.trim() !== '');
  if (failures.length > 0) {
    const note = failures.map((f) => firstLine(attr(f, 'message')) ?? firstLine(text(f))).find((n) => n !== undefined);
    return { name, status: 'failed', assertions: format === 'ctest' ? null : { passed: null, failed: failures.length }, note, messages };
  }
  const status = attr(tc, 'status')?.toLowerCase() ?? '';
  const result = attr(tc, 'result')?.toLowerCase() ?? '';
  if (skipped.length > 0 || SKIP_STATUS.has(status) || SKIP_RESULT.has(result)) {
    const s = skipped[0];
    const word = SKIP_STATUS.has(status) ? status : SKIP_RESULT.has(result) ? result : 'skipped';
    return { name, status: 'skipped', assertions: null, note: firstLine(attr(s, 'message')) ?? firstLine(text(s)) ?? word, messages };
  }
  return { name, status: 'passed', assertions: format === 'ctest' ? null : { passed: null, failed: 0 }, messages };
}

// Every <testcase> of the document, whichever of <testsuites>/<testsuite> wraps it.
export function readJunit(format: SuiteFormat, root: XmlNode): ReadCases {
  const cases = descendants(root, 'testcase').map((tc) => readCase(format, tc));
  return { cases, complete: true, totals: null, assertions: null, success: null };
}
