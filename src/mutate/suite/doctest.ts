import { parseDoctestSummary } from '../../profiles/doctest.js';
import type { ReadCase, ReadCases } from './types.js';
import { attr, descendants, kids, text, type XmlNode } from './xml.js';

// doctest's console reporter prints a block per case that had something to say, between '=====' rules:
// `TEST CASE:  <name>`, then its failures (`file:line: ERROR: …`, `FATAL ERROR: …`) and its messages
// (`file:line: MESSAGE: …`, `WARNING: …`). A block is not a failure: a case that only printed a MESSAGE
// passed (vllm.cpp's CUDA cases print "no CUDA backend registered; skipping" and pass).
const RULE = /^={20,}\s*$/;
const CASE_LINE = /^TEST CASE:\s+(.*?)\s*$/;
// `file:line: KIND: text` (or `file(line): KIND: text`): the first location decides, so a MESSAGE whose
// text says "ERROR: …" stays a message.
const REPORT = /^(?:\S.*?(?::\d+:|\(\d+\):) )?(FATAL ERROR|ERROR|MESSAGE|WARNING): (.*)$/;
const THREW = /^test case (?:THREW exception|CRASHED)/;
const TIME_LIMIT = /^Test case exceeded time limit/;

// The cases doctest's console named, with their failures and messages; totals from its summary lines
// (the one summary reader, src/profiles/doctest.ts). Null without a summary: the suite did not finish.
export function readDoctestConsole(lines: readonly string[]): ReadCases | null {
  const summary = parseDoctestSummary(lines);
  if (!summary || !summary.cases) return null;
  const byName = new Map<string, ReadCase>();
  let current: ReadCase | null = null;
  for (const line of lines) {
    if (RULE.test(line)) { current = null; continue; }
    const c = CASE_LINE.exec(line);
    if (c) {
      const name = c[1]!;
      current = byName.get(name) ?? { name, status: 'passed', assertions: { passed: null, failed: 0 }, messages: [] };
      byName.set(name, current);
      continue;
    }
    if (!current) continue;
    if (TIME_LIMIT.test(line)) { current.status = 'failed'; current.note ??= line.trim(); continue; }
    const r = REPORT.exec(line);
    if (!r) continue;
    const [, kind, said] = r as unknown as [string, string, string];
    if (kind === 'MESSAGE' || kind === 'WARNING') { current.messages.push(said); continue; }
    current.status = 'failed';
    if (THREW.test(said)) current.note ??= said.slice(0, 200);
    else current.assertions!.failed++;
  }
  const { cases, assertions, status } = summary;
  return {
    cases: [...byName.values()],
    complete: false,
    // doctest's "skipped" also counts the cases a filter left out: it is not a count of selected cases.
    totals: { passed: cases.passed, failed: cases.failed, skipped: 0 },
    assertions,
    success: status === null ? null : status === 'SUCCESS',
  };
}

// doctest's XML reporter (-r=xml): every case with its assertion counts. skipped="true" marks both a
// filtered-out and a skip-decorated case, so neither is read as selected.
export function readDoctestXml(root: XmlNode): ReadCases | null {
  const doc = kids(root, 'doctest')[0];
  if (!doc) return null;
  const cases: ReadCase[] = [];
  for (const tc of descendants(doc, 'TestCase')) {
    if (attr(tc, 'skipped') === 'true') continue;
    const res = kids(tc, 'OverallResultsAsserts')[0];
    const failed = Number(attr(res, 'failures') ?? 0);
    const thrown = kids(tc, 'Exception')[0];
    const ok = attr(res, 'test_case_success') === 'true';
    const messages = descendants(tc, 'Message').map((m) => text(kids(m, 'Text')[0]));
    cases.push({
      name: attr(tc, 'name') ?? '', status: ok ? 'passed' : 'failed',
      assertions: { passed: Number(attr(res, 'successes') ?? 0), failed }, messages,
      ...(thrown ? { note: text(thrown).split('\n')[0]!.slice(0, 200) } : {}),
    });
  }
  const total = kids(doc, 'OverallResultsAsserts')[0];
  const passed = Number(attr(total, 'successes') ?? 0);
  const failed = Number(attr(total, 'failures') ?? 0);
  return { cases, complete: true, totals: null, assertions: total ? { total: passed + failed, passed, failed } : null, success: null };
}
