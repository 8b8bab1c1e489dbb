import type { ReadCase, ReadCases } from './types.js';
import { attr, descendants, kids, text, type XmlNode } from './xml.js';

// Catch2's console prints a block per case (and section path) that had something to say:
//   -----…  <case name> [<section> …]  -----…  file:line  ……  then `file:line: FAILED:` per failed
// assertion (an unexpected exception prints as one too) and `file:line: warning:` with the text on the
// next line. A block with only warnings is a passing case. The summary closes the run:
//   `test cases: 4 | 3 passed | 1 failed` + `assertions: 4 | 2 passed | 2 failed`,
//   `All tests passed (4 assertions in 4 test cases)`, or `No tests ran`.
const DASHES = /^-{20,}\s*$/;
const DOTS = /^\.{20,}\s*$/;
const RULE = /^={20,}\s*$/;
const FAILED = /:\d+: FAILED:\s*$|^\S.*\(\d+\): FAILED:\s*$/;
const WARNING = /:\d+: warning:\s*$/;
const CASES = /^test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed/;
const ASSERTIONS = /^assertions:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed/;
const ALL_PASSED = /^All tests passed \((\d+) assertions? in (\d+) test cases?\)/;
const NONE_RAN = /^No tests ran\s*$/;

export function readCatch2Console(lines: readonly string[]): ReadCases | null {
  const byName = new Map<string, ReadCase>();
  let current: ReadCase | null = null;
  let header: string[] | null = null;
  let totals: ReadCases['totals'] = null;
  let assertions: ReadCases['assertions'] = null;
  let warningNext = false;
  let exceptionNext = false;
  for (const line of lines) {
    if (header !== null) {
      // Inside a block's header: the case name, then indented section names, up to the closing dashes.
      if (DASHES.test(line)) {
        // The case name (Catch2 wraps a long one over lines at word breaks), then indented sections.
        const firstSection = header.findIndex((l) => l.startsWith('  '));
        const name = header.slice(0, firstSection === -1 ? header.length : firstSection).map((l) => l.trim()).join(' ');
        current = byName.get(name) ?? { name, status: 'passed', assertions: { passed: null, failed: 0 }, messages: [] };
        byName.set(name, current);
        header = null;
      } else header.push(line);
      continue;
    }
    if (DASHES.test(line)) { header = []; current = null; continue; }
    if (RULE.test(line)) { current = null; continue; }
    const c = CASES.exec(line);
    if (c) { totals = { passed: Number(c[2]), failed: Number(c[3]), skipped: 0 }; continue; }
    const a = ASSERTIONS.exec(line);
    if (a) { assertions = { total: Number(a[1]), passed: Number(a[2]), failed: Number(a[3]) }; continue; }
    const all = ALL_PASSED.exec(line);
    if (all) {
      totals = { passed: Number(all[2]), failed: 0, skipped: 0 };
      assertions = { total: Number(all[1]), passed: Number(all[1]), failed: 0 };
      continue;
    }
    if (NONE_RAN.test(line)) { totals = { passed: 0, failed: 0, skipped: 0 }; continue; }
    if (!current || DOTS.test(line)) continue;
    if (warningNext && line.trim() !== '') { current.messages.push(line.trim()); warningNext = false; continue; }
    if (FAILED.test(line)) { current.status = 'failed'; current.assertions!.failed++; continue; }
    if (WARNING.test(line)) { warningNext = true; continue; }
    if (exceptionNext && line.trim() !== '') { current.note ??= `unexpected exception: ${line.trim()}`.slice(0, 200); exceptionNext = false; continue; }
    if (/^due to unexpected exception with message:/.test(line)) exceptionNext = true;
  }
  if (totals === null) return null;
  return { cases: [...byName.values()], complete: false, totals, assertions, success: totals.failed === 0 };
}

// Catch2's XML reporter (-r xml): every case with <OverallResult success=…>; failed assertions are the
// <Expression success="false"> inside it (sections nest), an unexpected exception an <Exception>.
export function readCatch2Xml(root: XmlNode): ReadCases | null {
  const doc = kids(root, 'Catch')[0];
  if (!doc) return null;
  const cases: ReadCase[] = descendants(doc, 'TestCase').map((tc) => {
    const failed = descendants(tc, 'Expression').filter((e) => attr(e, 'success') === 'false').length;
    const passed = descendants(tc, 'Expression').filter((e) => attr(e, 'success') === 'true').length;
    const ok = attr(kids(tc, 'OverallResult')[0], 'success') === 'true';
    const thrown = descendants(tc, 'Exception')[0];
    const messages = [...descendants(tc, 'Warning'), ...descendants(tc, 'Info')].map((w) => text(w));
    return {
      name: attr(tc, 'name') ?? '', status: ok ? 'passed' : 'failed',
      // Passing expressions are only written with -s; without it Catch2 counts failures alone.
      assertions: { passed: passed > 0 ? passed : null, failed: failed + (thrown ? 1 : 0) }, messages,
      ...(thrown ? { note: text(thrown).split('\n')[0]!.slice(0, 200) } : {}),
    };
  });
  const res = kids(doc, 'OverallResults')[0];
  const p = Number(attr(res, 'successes') ?? 0);
  const f = Number(attr(res, 'failures') ?? 0);
  return { cases, complete: true, totals: null, assertions: res ? { total: p + f, passed: p, failed: f } : null, success: null };
}
