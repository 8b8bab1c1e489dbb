import { describe, expect, it } from 'vitest';
import { readCatch2Console } from '../../../src/mutate/suite/catch2.js';
import { readCtestConsole } from '../../../src/mutate/suite/ctest.js';
import { readDoctestConsole } from '../../../src/mutate/suite/doctest.js';
import { readGtestConsole, readGtestJson } from '../../../src/mutate/suite/gtest.js';
import { readJunit } from '../../../src/mutate/suite/junit.js';
import { readSuite } from '../../../src/mutate/suite/read.js';
import { sanitizerFinding } from '../../../src/mutate/suite/sanitizer.js';
import { parseXml } from '../../../src/mutate/suite/xml.js';

// The readers' edges, in the shapes the captures show (captured/) but cut to the one line that matters:
// what a note says, which printed text a case keeps, and the forms no capture happened to hold.
const junit = (body: string) => readJunit('ctest', parseXml(`<testsuite>${body}</testsuite>`)!).cases;
const gjunit = (body: string) => readJunit('gtest', parseXml(`<testsuites><testsuite name="S">${body}</testsuite></testsuites>`)!).cases;

describe('JUnit', () => {
  it('a <skipped> child alone skips; its note is the message, else its text, else the status', () => {
    expect(junit('<testcase name="a"><skipped message="no device"/></testcase>')[0]).toMatchObject({ status: 'skipped', note: 'no device', assertions: null });
    expect(junit('<testcase name="a"><skipped>\n\n  why not\n</skipped></testcase>')[0]!.note).toBe('why not');
    expect(junit('<testcase name="a" status="DISABLED"/>')[0]).toMatchObject({ status: 'skipped', note: 'disabled' });
    expect(gjunit('<testcase name="a" classname="S" status="run" result="SUPPRESSED"/>')[0]).toMatchObject({ name: 'S.a', status: 'skipped', note: 'suppressed' });
  });
  it('a <failure> or <error> fails; the note skips a bare file:line; CTest counts no assertions, the others failures', () => {
    const [c] = junit('<testcase name="t" status="fail"><failure message=""/><error message="x"/></testcase>');
    expect(c).toMatchObject({ status: 'failed', assertions: null, note: 'x' });
    const [g] = gjunit('<testcase name="a" classname="S"><failure message="f.cpp:7&#x0A;Expected equality&#x0A;"/><failure message="second"/></testcase>');
    expect(g).toMatchObject({ name: 'S.a', status: 'failed', assertions: { passed: null, failed: 2 }, note: 'Expected equality' });
    expect(gjunit('<testcase name="a" classname="S"><failure>body line</failure></testcase>')[0]!.note).toBe('body line');
    expect(gjunit('<testcase name="a" classname="S"/>')[0]).toEqual({ name: 'S.a', status: 'passed', assertions: { passed: null, failed: 0 }, messages: [] });
    expect(junit(`<testcase name="t"><failure message="${'x'.repeat(300)}"/></testcase>`)[0]!.note).toHaveLength(200);
  });
  it('a case keeps its own <system-out> lines (CTest), blank lines dropped; other formats name cases without the class', () => {
    expect(junit('<testcase name="t"><system-out>one\n\n two \n</system-out></testcase>')[0]).toEqual({ name: 't', status: 'passed', assertions: null, messages: ['one', ' two'] });
    expect(readJunit('doctest', parseXml('<testsuites><testsuite><testcase classname="f.cpp" name="sum adds"/></testsuite></testsuites>')!)).toEqual({
      cases: [{ name: 'sum adds', status: 'passed', assertions: { passed: null, failed: 0 }, messages: [] }], complete: true, totals: null, assertions: null, success: null,
    });
  });
});

describe('CTest console', () => {
  const run = (...results: string[]) => readCtestConsole(['Test project /b', ...results, '100% tests passed, 0 tests failed out of 1']);
  it('reads each ending word: Passed, Skipped, Not Run (Disabled), and every other word as a failure with its words', () => {
    expect(run('1/4 Test #1: a ....   Passed    0.02 sec')!.cases).toEqual([{ name: 'a', status: 'passed', assertions: null, messages: [] }]);
    expect(run('1/1 Test #2: b ....***Skipped   0.02 sec')!.cases[0]).toEqual({ name: 'b', status: 'skipped', assertions: null, messages: [], note: 'Skipped' });
    expect(run('1/1 Test #3: c ....***Not Run (Disabled)   0.00 sec')!.cases[0]).toMatchObject({ status: 'skipped', note: 'Not Run (Disabled)' });
    expect(run('1/1 Test #4: d ....Subprocess aborted***Exception:   0.05 sec')!.cases[0]).toEqual({ name: 'd', status: 'failed', assertions: null, messages: [], note: 'Subprocess aborted Exception:' });
    expect(run('1/1 Test #5: e ....***Timeout  30.01 sec')!.cases[0]).toMatchObject({ status: 'failed', note: 'Timeout' });
  });
  it('without its closing line the run did not finish; "No tests were found" closes one with no case', () => {
    expect(readCtestConsole(['Test project /b', '1/2 Test #1: a ....   Passed    0.02 sec'])).toBeNull();
    expect(readCtestConsole(['Test project /b', 'No tests were found!!!'])).toEqual({ cases: [], complete: true, totals: null, assertions: null, success: null });
  });
});

describe('GoogleTest', () => {
  it('a case\'s printed lines are its messages; a thrown exception is its note; a crash mid-case is no summary', () => {
    const lines = ['[ RUN      ] S.a', 'said this', 'unknown file: Failure', 'C++ exception with description "boom" thrown in the test body.', '[  FAILED  ] S.a (0 ms)', '[ RUN      ] S.b', 'skipping', '[       OK ] S.b (1 ms)', '[==========] 2 tests from 1 test suite ran. (1 ms total)', '[  FAILED  ] S.a'];
    const r = readGtestConsole(lines)!;
    expect(r.cases).toEqual([
      { name: 'S.a', status: 'failed', assertions: { passed: null, failed: 1 }, messages: ['said this', 'C++ exception with description "boom" thrown in the test body.'], note: 'C++ exception with description "boom" thrown in the test body.' },
      { name: 'S.b', status: 'passed', assertions: { passed: null, failed: 0 }, messages: ['skipping'] },
    ]);
    expect(readGtestConsole(lines.slice(0, 6))).toBeNull();
    // A parameterised case's result line carries its parameter.
    expect(readGtestConsole(['[ RUN      ] I/S.a/0', '[       OK ] I/S.a/0, where GetParam() = 3 (0 ms)', '[==========] 1 test from 1 test suite ran. (0 ms total)'])!.cases[0]!.name).toBe('I/S.a/0');
  });
  it('JSON: NOTRUN and SKIPPED are skips; not a gtest document is no result', () => {
    const doc = JSON.stringify({ testsuites: [{ name: 'S', testsuite: [{ name: 'a', status: 'NOTRUN', result: 'SUPPRESSED' }, { name: 'b', status: 'RUN', result: 'SKIPPED' }, { name: 'c', status: 'RUN', result: 'COMPLETED', failures: [{ failure: 'unknown file\nC++ exception "x"' }] }] }] });
    expect(readGtestJson(doc)!.cases).toEqual([
      { name: 'S.a', status: 'skipped', assertions: null, messages: [], note: 'suppressed' },
      { name: 'S.b', status: 'skipped', assertions: null, messages: [], note: 'skipped' },
      { name: 'S.c', status: 'failed', assertions: { passed: null, failed: 1 }, messages: [], note: 'C++ exception "x"' },
    ]);
    expect(readGtestJson('{"a":1}')).toBeNull();
    expect(readGtestJson('{ not json')).toBeNull();
  });
});

describe('doctest and Catch2 consoles', () => {
  it('doctest: a MESSAGE whose text says ERROR: stays a message; a time limit fails the case', () => {
    const r = readDoctestConsole(['====', '===============================================================================', 'f.cpp:3:', 'TEST CASE:  a', '', 'f.cpp:4: MESSAGE: ERROR: not really', '', '===============================================================================', 'f.cpp:9:', 'TEST CASE:  b', 'Test case exceeded time limit of 0.100000!', '[doctest] test cases: 2 | 1 passed | 1 failed | 0 skipped', '[doctest] assertions: 0 | 0 passed | 0 failed |', '[doctest] Status: FAILURE!'])!;
    expect(r.cases).toEqual([
      { name: 'a', status: 'passed', assertions: { passed: null, failed: 0 }, messages: ['ERROR: not really'] },
      { name: 'b', status: 'failed', assertions: { passed: null, failed: 0 }, messages: [], note: 'Test case exceeded time limit of 0.100000!' },
    ]);
    expect(r.success).toBe(false);
    expect(readDoctestConsole(['TEST CASE:  a', 'f.cpp:4: ERROR: CHECK( x ) is NOT correct!'])).toBeNull();
  });
  it('Catch2: a wrapped case name joins its lines; sections are not names; a warning\'s text is its message', () => {
    const r = readCatch2Console(['-'.repeat(79), 'a case whose name is', 'long', '  the section', '-'.repeat(79), 'f.cpp:3', '.'.repeat(79), '', 'f.cpp:4: warning:', '  no CUDA backend registered; skipping', '', '='.repeat(79), 'test cases: 1 | 1 passed | 0 failed', 'assertions: - none -'])!;
    expect(r.cases).toEqual([{ name: 'a case whose name is long', status: 'passed', assertions: { passed: null, failed: 0 }, messages: ['no CUDA backend registered; skipping'] }]);
    expect(r.totals).toEqual({ passed: 1, failed: 0, skipped: 0 });
    expect(readCatch2Console(['-'.repeat(79), 'a', '-'.repeat(79), 'f.cpp:1: FAILED:'])).toBeNull();
  });
});

describe('readSuite', () => {
  it('a skip message moves only passing cases, and is their note (trimmed, 200 characters at most)', () => {
    const lines = ['Test project /b', '1/2 Test #1: a ....   Passed    0.02 sec', '2/2 Test #2: b ....***Failed    0.02 sec', '50% tests passed, 1 tests failed out of 2'];
    const report = { text: `<testsuite><testcase name="a"><system-out>  skipping ${'x'.repeat(300)}</system-out></testcase><testcase name="b" status="fail"><failure message=""/><system-out>skipping</system-out></testcase></testsuite>` };
    const k = readSuite({ lines, report }, { format: 'ctest', skipMessage: 'skipping' }).counts!;
    expect(k.caseResults.map((c) => [c.name, c.status])).toEqual([['a', 'skipped'], ['b', 'failed']]);
    expect(k.caseResults[0]!.note).toMatch(/^skipping x+$/);
    expect(k.caseResults[0]!.note).toHaveLength(200);
    expect(k.cases).toEqual({ total: 2, passed: 0, failed: 1, skipped: 1 });
    expect(k.success).toBe(false);
  });
  it('the suite\'s own success word stands where it prints one; otherwise success is no failed case', () => {
    const failure = ['[doctest] test cases: 1 | 1 passed | 0 failed | 0 skipped', '[doctest] assertions: 1 | 1 passed | 0 failed |', '[doctest] Status: FAILURE!'];
    expect(readSuite({ lines: failure }).counts!.success).toBe(false);
    expect(readSuite({ lines: ['Test project /b', '1/1 Test #1: a ....   Passed    0.02 sec', '100% tests passed, 0 tests failed out of 1'] }).counts!.success).toBe(true);
  });
  it('tells a report\'s framework by its shape, and refuses a report it cannot read', () => {
    const gtest = JSON.stringify({ testsuites: [{ name: 'S', testsuite: [{ name: 'a', status: 'RUN', result: 'COMPLETED' }] }] });
    expect(readSuite({ lines: [], report: { text: `  ${gtest}` } }).counts).toMatchObject({ format: 'gtest', source: 'gtest-json', failingCases: [] });
    expect(readSuite({ lines: [], report: { text: '<Catch><Group><TestCase name="a"><OverallResult success="false"/></TestCase></Group></Catch>' } }).counts).toMatchObject({ format: 'catch2', failingCases: ['a'] });
    expect(readSuite({ lines: [], report: { text: '<doctest><TestSuite><TestCase name="a"><OverallResultsAsserts successes="1" failures="0" test_case_success="true"/></TestCase></TestSuite></doctest>' } }).counts).toMatchObject({ format: 'doctest', failingCases: [] });
    expect(readSuite({ lines: [], report: { text: '<other/>' } }, { format: 'ctest' }).why).toMatch(/not a readable report/);
    expect(readSuite({ lines: [], report: { text: '{"a":1}' } }).why).toMatch(/the gtest report is not a readable report/);
    expect(readSuite({ lines: [], report: { text: '<other/>' } }).why).toMatch(/JUnit report does not name/);
    expect(readSuite({ lines: ['nothing here'] }, { format: 'gtest' }).why).toBe('no gtest summary: the suite did not finish');
  });
});

describe('sanitizer reports', () => {
  it('the first report counts (pid prefix and indentation dropped, 240 characters at most), with its summary', () => {
    expect(sanitizerFinding(['  ==77==ERROR: LeakSanitizer: detected memory leaks', '==77==ERROR: AddressSanitizer: second'])).toBe('ERROR: LeakSanitizer: detected memory leaks');
    expect(sanitizerFinding([`==1==ERROR: AddressSanitizer: ${'y'.repeat(300)}`])).toHaveLength(240);
    expect(sanitizerFinding(['SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior a.cpp:3:4 in'])).toBe('SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior a.cpp:3:4 in');
    expect(sanitizerFinding(['a.cpp:3:4: runtime error: x', 'SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior a.cpp:3:4 in  '])).toBe('a.cpp:3:4: runtime error: x (undefined-behavior a.cpp:3:4 in)');
  });
});
