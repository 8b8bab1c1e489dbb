import { describe, expect, it } from 'vitest';
import { detectFormats, readSuite } from '../../../src/mutate/suite/read.js';
import type { SuiteCounts } from '../../../src/mutate/suite/types.js';
import { CAPTURES, captured } from './captured.js';

// The readers over output captured here from real suites (project/, captured by capture.mjs): doctest,
// GoogleTest, Catch2 and CTest, each GREEN, RED by a failed check, RED by a throw, and with nothing
// selected. Every expectation below is written by hand from the suites' source, not from the readers.
function read(id: string, skipMessage?: string): SuiteCounts {
  const c = CAPTURES.find((x) => x.id === id)!;
  const r = readSuite(captured(id), { format: c.format, skipMessage });
  if (!r.counts) throw new Error(`${id}: ${r.why}`);
  return r.counts;
}

const byStatus = (k: SuiteCounts): Record<string, string[]> => ({
  failed: k.caseResults.filter((c) => c.status === 'failed').map((c) => c.name).sort(),
  skipped: k.caseResults.filter((c) => c.status === 'skipped').map((c) => c.name).sort(),
  passed: k.caseResults.filter((c) => c.status === 'passed').map((c) => c.name).sort(),
});

describe('doctest: a case fails only when it reports a failure', () => {
  it('GREEN with a MESSAGE case: no failing case (vllm.cpp CUDA cases print MESSAGE and pass)', () => {
    const k = read('doctest-green');
    expect(k.failingCases).toEqual([]);
    expect(k.cases).toEqual({ total: 4, passed: 4, failed: 0, skipped: 0 });
    expect(k.caseResults).toEqual([{ name: 'cuda kernel matches host', status: 'passed', assertions: { passed: null, failed: 0 } }]);
    expect(k.success).toBe(true);
  });
  it('RED by a failed CHECK: only that case fails, with its two failed assertions', () => {
    const k = read('doctest-red-sum');
    expect(k.failingCases).toEqual(['sum adds']);
    expect(k.caseResults.find((c) => c.name === 'sum adds')!.assertions).toEqual({ passed: null, failed: 2 });
    expect(k.assertions).toEqual({ total: 4, passed: 2, failed: 2 });
  });
  it('RED by a throw: the thrown case fails with no failed assertion, the MESSAGE case passes', () => {
    const k = read('doctest-red-throw');
    expect(byStatus(k)).toEqual({ failed: ['throws'], skipped: [], passed: ['cuda kernel matches host'] });
    expect(k.caseResults.find((c) => c.name === 'throws')!.note).toBe('test case THREW exception: planted throw');
    expect(k.assertions).toEqual({ total: 3, passed: 3, failed: 0 });
  });
  it('the skip message reads the MESSAGE case as skipped and moves it out of the passed total', () => {
    const k = read('doctest-green', 'skipping$');
    expect(k.skippedCases).toEqual(['cuda kernel matches host']);
    expect(k.cases).toEqual({ total: 4, passed: 3, failed: 0, skipped: 1 });
  });
  it('the XML report lists every case with its assertion counts; skip-decorated cases are not selected', () => {
    const k = read('doctest-xml-red-throw');
    expect(k.source).toBe('doctest-xml');
    expect(byStatus(k)).toEqual({ failed: ['throws'], skipped: [], passed: ['cuda kernel matches host', 'sum adds', 'sum of empty'] });
    expect(k.caseResults.find((c) => c.name === 'sum adds')!.assertions).toEqual({ passed: 2, failed: 0 });
    expect(k.complete).toBe(true);
  });
  it('the JUnit report (the suite declares its kind: JUnit does not name its framework)', () => {
    expect(read('doctest-junit-red-sum').failingCases).toEqual(['sum adds']);
    expect(readSuite(captured('doctest-junit-red-sum')).why).toMatch(/set the suite's kind/);
  });
  it('a filter that selects nothing: zero cases, not a pass (doctest counts the filtered-out as skipped)', () => {
    expect(read('doctest-none').cases).toEqual({ total: 0, passed: 0, failed: 0, skipped: 0 });
  });
});

describe('GoogleTest: console, JSON and XML', () => {
  it('GREEN: every case read, GTEST_SKIP as skipped, the printed skip notice as a pass', () => {
    const k = read('gtest-green');
    expect(byStatus(k)).toEqual({ failed: [], skipped: ['Device.Skip'], passed: ['Cuda.KernelMatchesHost', 'Sum.Adds', 'Sum.OfEmpty', 'Throws.Planted'] });
    expect(k.complete).toBe(true);
  });
  it('RED console: Sum.Adds fails with 2 failed assertions; the closing FAILED list is not read twice', () => {
    const k = read('gtest-red-sum');
    expect(k.failingCases).toEqual(['Sum.Adds']);
    expect(k.cases).toEqual({ total: 5, passed: 3, failed: 1, skipped: 1 });
    expect(k.caseResults.find((c) => c.name === 'Sum.Adds')!.assertions).toEqual({ passed: null, failed: 2 });
  });
  it('JSON: the throw fails Throws.Planted with its description', () => {
    const k = read('gtest-json-red-throw');
    expect(k.source).toBe('gtest-json');
    expect(byStatus(k).failed).toEqual(['Throws.Planted']);
    expect(k.caseResults.find((c) => c.name === 'Throws.Planted')!.note).toMatch(/planted throw/);
    expect(k.skippedCases).toEqual(['Device.Skip']);
  });
  it('XML (JUnit): Suite.Case names, two <failure>s, the skipped case', () => {
    const k = read('gtest-xml-red-sum');
    expect(k.source).toBe('junit');
    expect(k.failingCases).toEqual(['Sum.Adds']);
    expect(k.caseResults.find((c) => c.name === 'Sum.Adds')!.assertions).toEqual({ passed: null, failed: 2 });
    expect(k.skippedCases).toEqual(['Device.Skip']);
  });
  it('a filter that selects nothing', () => expect(read('gtest-none').cases.total).toBe(0));
});

describe('Catch2: console, XML and JUnit', () => {
  it('GREEN with a WARN case: no failing case', () => {
    const k = read('catch2-green');
    expect(k.failingCases).toEqual([]);
    expect(k.cases).toEqual({ total: 4, passed: 4, failed: 0, skipped: 0 });
    expect(k.assertions).toEqual({ total: 4, passed: 4, failed: 0 });
  });
  it('RED console by a failed CHECK and by a throw', () => {
    expect(read('catch2-red-sum').failingCases).toEqual(['sum adds']);
    const t = read('catch2-red-throw');
    expect(byStatus(t)).toEqual({ failed: ['throws'], skipped: [], passed: ['cuda kernel matches host'] });
    expect(t.caseResults.find((c) => c.name === 'throws')!.note).toBe('unexpected exception: planted throw');
  });
  it('XML and JUnit reports', () => {
    expect(byStatus(read('catch2-xml-red-throw')).failed).toEqual(['throws']);
    expect(read('catch2-xml-red-throw').cases.total).toBe(4);
    expect(read('catch2-junit-red-sum').failingCases).toEqual(['sum adds']);
  });
  it('nothing matched: "No tests ran" is zero cases', () => expect(read('catch2-none').cases.total).toBe(0));
});

describe('CTest: one case per test', () => {
  it('GREEN console: SKIP_RETURN_CODE is a skip, the printed skip notice a pass', () => {
    const k = read('ctest-green');
    expect(byStatus(k)).toEqual({ failed: [], skipped: ['device_skip'], passed: ['cuda_kernel', 'sum_adds', 'sum_of_empty', 'throws'] });
    expect(k.caseResults[0]!.assertions).toBeNull();
  });
  it('RED JUnit: the failed test, the skipped one, each test\'s output as its messages', () => {
    const k = read('ctest-red-sum');
    expect(k.source).toBe('junit');
    expect(k.cases).toEqual({ total: 5, passed: 3, failed: 1, skipped: 1 });
    expect(k.failingCases).toEqual(['sum_adds']);
    // CTest's <system-out> carries "no CUDA backend registered; skipping": the skip message reads it.
    expect(readSuite(captured('ctest-red-sum'), { format: 'ctest', skipMessage: 'no CUDA backend' }).counts!.skippedCases).toEqual(['cuda_kernel', 'device_skip']);
  });
  it('an aborted test is a failure; No tests were found is zero cases', () => {
    expect(byStatus(read('ctest-red-throw'))).toEqual({ failed: ['throws'], skipped: [], passed: ['cuda_kernel'] });
    expect(read('ctest-none').cases.total).toBe(0);
  });
});

describe('format detection', () => {
  it('tells each console apart, and names no format for output that shows none', () => {
    for (const c of CAPTURES.filter((x) => !x.report)) expect(detectFormats(captured(c.id).lines), c.id).toEqual([c.format]);
    expect(readSuite({ lines: ['hello'] }).why).toMatch(/no test framework output/);
  });
  it('refuses to guess when two frameworks print (ctest --output-on-failure over a doctest binary)', () => {
    const both = [...captured('ctest-red-throw').lines, ...captured('doctest-red-throw').lines];
    expect(readSuite({ lines: both }).why).toMatch(/matches doctest and ctest: set the suite's kind/);
  });
  it('a declared report that was never written is no counts (the run did not finish)', () => {
    expect(readSuite({ lines: [], report: { text: null } }, { format: 'gtest' }).why).toMatch(/no gtest report was written/);
    expect(readSuite({ lines: [], report: { text: '<testsuites><testcase' } }, { format: 'ctest' }).why).toMatch(/not a readable report/);
  });
});
