import { describe, expect, it } from 'vitest';
import { MutationSchema } from '../../../src/config/mutations.js';
import { RecipeSchema } from '../../../src/config/recipe.js';
import { readSuite } from '../../../src/mutate/suite/read.js';
import type { SuiteRun } from '../../../src/mutate/types.js';
import { judgeBaseline, judgeMutant, matchesExpectation, type MutantMeasure } from '../../../src/mutate/verdict.js';
import { gpuFor } from '../../../src/mutate/baseline.js';
import { CAPTURES, captured } from './captured.js';

// The gate's verdicts over real captured suite output: a case is credited as failing only when its suite
// reports a failure for it, zero cases is never a baseline, and a GPU case's skip path is not a GPU result.
function run(id: string, o: { exitCode?: number; skipMessage?: string } = {}): SuiteRun {
  const c = CAPTURES.find((x) => x.id === id)!;
  const r = readSuite(captured(id), { format: c.format, skipMessage: o.skipMessage });
  const red = (r.counts?.cases.failed ?? 0) > 0;
  return { exitCode: o.exitCode ?? (red ? 1 : 0), signal: null, timedOut: false, interrupted: false, durationS: 0.1, counts: r.counts, readWhy: r.why, tail: [] };
}
const base = 'b'.repeat(64);
const measure = (suite: SuiteRun): MutantMeasure => ({ compileExit: 0, errorCount: 0, binarySha: 'c'.repeat(64), baselineSha: base, suite, restoreSha: base, interrupted: false });
const row = (mustFailCase: string) => MutationSchema.parse({ id: 'm', file: 'f.cpp', anchor: 'a', replacement: 'b', why: 'w', suite: 's', expect: 'caught', mustFailCase });

describe('a required failing case is credited only by a reported failure', () => {
  for (const [fmt, messageCase, thrown] of [['doctest', 'cuda kernel matches host', 'throws'], ['catch2', 'cuda kernel matches host', 'throws'], ['gtest', 'Cuda.KernelMatchesHost', 'Throws.Planted'], ['ctest', 'cuda_kernel', 'throws']] as const) {
    it(`${fmt}: a RED run by another case never credits the case that printed a skip notice and passed`, () => {
      const id = fmt === 'gtest' ? 'gtest-json-red-throw' : `${fmt}-red-throw`;
      const notCredited = judgeMutant(measure(run(id)), row(messageCase));
      expect(notCredited).toMatchObject({ verdict: 'CAUGHT', mustFailCaseFailed: false });
      expect(notCredited.detail).toMatch(/NOT '/);
      expect(matchesExpectation('caught', notCredited)).toBe(false);
      expect(judgeMutant(measure(run(id)), row(thrown))).toMatchObject({ verdict: 'CAUGHT', mustFailCaseFailed: true });
    });
  }

  it('doctest GREEN with a MESSAGE case is a survivor with no failing case (was: 1 failing case per TEST CASE heading)', () => {
    const green = run('doctest-green');
    expect(green.counts!.failingCases).toEqual([]);
    expect(judgeMutant(measure(green), row('sum adds')).verdict).toBe('SURVIVED');
  });
});

describe('anti-vacuity', () => {
  it('zero selected cases is never a baseline (each format), and never a survivor', () => {
    for (const f of ['doctest', 'gtest', 'catch2', 'ctest']) {
      const none = run(`${f}-none`);
      expect(none.exitCode).toBe(0);
      expect(judgeBaseline(none), f).toMatchObject({ ok: false, reason: 'NO_CASES' });
      expect(judgeMutant(measure(none), row('x')), f).toMatchObject({ verdict: 'VOID', reason: 'NO_CASES' });
    }
  });

  it('a run whose every selected case was skipped ran nothing', () => {
    const onlySkips = readSuite({ lines: ['Test project /b', '1/1 Test #4: device_skip ......***Skipped   0.02 sec', '100% tests passed, 0 tests failed out of 1'] }, { format: 'ctest' });
    expect(judgeBaseline({ ...run('ctest-green'), counts: onlySkips.counts })).toMatchObject({ ok: false, reason: 'NO_CASES' });
  });

  it('an unreadable run is no baseline, and says why', () => {
    const r: SuiteRun = { ...run('doctest-green'), counts: null, readWhy: 'output matches doctest and ctest: set the suite\'s kind' };
    expect(judgeBaseline(r)).toMatchObject({ ok: false, reason: 'NO_SUITE' });
    expect(judgeBaseline(r).ok === false && judgeBaseline(r)).toMatchObject({ detail: /set the suite's kind/ });
  });
});

describe('a skipped GPU case is not a GPU result', () => {
  const recipe = RecipeSchema.parse({
    schemaVersion: 1, name: 'r', profile: 'nh-ref', sourceDir: 'e', buildDir: 'b', configure: ['cmake'], build: ['cmake'],
    driver: { argv: ['x'], binary: 'x' },
    suites: [{ name: 's', argv: ['t'], gpuCases: ['cuda kernel matches host'], cpuOnlyAssertions: 4 }],
  });
  it('on a GPU arch, a GPU case read as skipped (its skip message) voids the baseline as GPU_SKIPPED', () => {
    const skipped = run('doctest-green', { skipMessage: 'skipping$' });
    expect(judgeBaseline(skipped, gpuFor(recipe, '90', 's', 'cuda*'))).toMatchObject({ ok: false, reason: 'GPU_SKIPPED' });
    expect(judgeMutant(measure(skipped), row('sum adds'), gpuFor(recipe, '90', 's', 'cuda*'))).toMatchObject({ verdict: 'VOID', reason: 'GPU_SKIPPED' });
    // The same run on the cpu arch is a fine CPU baseline: the GPU cases are expected to skip there.
    expect(judgeBaseline(skipped, gpuFor(recipe, 'cpu', 's', undefined))).toEqual({ ok: true });
  });
  it('unfiltered, an assertion count equal to the CPU-only count is the skip path too', () => {
    const green = run('doctest-green');
    expect(green.counts!.assertions!.total).toBe(4);
    expect(judgeBaseline(green, gpuFor(recipe, '90', 's', undefined))).toMatchObject({ ok: false, reason: 'GPU_SKIPPED' });
    // With a filter the CPU-only count of the whole suite says nothing.
    expect(judgeBaseline(green, gpuFor(recipe, '90', 's', 'sum*'))).toEqual({ ok: true });
  });
  it('a RED GPU-arch run is still judged by its failing cases', () => {
    expect(judgeMutant(measure(run('doctest-red-sum', { skipMessage: 'skipping$' })), row('sum adds'), gpuFor(recipe, '90', 's', undefined))).toMatchObject({ verdict: 'CAUGHT', mustFailCaseFailed: true });
  });
});
