import { describe, expect, it } from 'vitest';
import { MutationSchema } from '../../../src/config/mutations.js';
import { loadRecipe } from '../../../src/config/load.js';
import { RecipeSchema } from '../../../src/config/recipe.js';
import { rejudgeCandidates, judgeSanitized, sanitizedRecipe, sanitizesArch, SANITIZER_OPERATORS, withRejudge } from '../../../src/mutate/sanitize.js';
import { suiteTargets, targetBuildArgv } from '../../../src/mutate/steps.js';
import { filterArgvOf, suiteCall } from '../../../src/mutate/suite/invoke.js';
import { sanitizerFinding } from '../../../src/mutate/suite/sanitizer.js';
import type { MutantResult, SuiteRun } from '../../../src/mutate/types.js';
import type { MutantMeasure } from '../../../src/mutate/verdict.js';
import { REPO } from '../helpers.js';

describe('suite-target builds', () => {
  it('narrows a cmake --build to the suite targets, keeping the rest and replacing any target the recipe named', () => {
    expect(targetBuildArgv(['cmake', '--build', 'b', '--parallel', '2'], ['t1', 't2'])).toEqual(['cmake', '--build', 'b', '--target', 't1', 't2', '--parallel', '2']);
    expect(targetBuildArgv(['cmake', '--build', 'b', '--target', 'llama-server', '--parallel', '2'], ['test-sampling'])).toEqual(['cmake', '--build', 'b', '--target', 'test-sampling', '--parallel', '2']);
    expect(targetBuildArgv(['/usr/bin/cmake', '--build', 'b', '-t', 'a', 'c', '--target=d', '-j', '2'], ['x'])).toEqual(['/usr/bin/cmake', '--build', 'b', '--target', 'x', '-j', '2']);
    // No targets: everything (the --whole-build control), even where the recipe built one target.
    expect(targetBuildArgv(['cmake', '--build', 'b', '--target', 'llama-server', '--parallel', '2'], [])).toEqual(['cmake', '--build', 'b', '--parallel', '2']);
    expect(() => targetBuildArgv(['ninja', '-C', 'b'], ['x'])).toThrow(/recipe.build: suite targets .* need a 'cmake --build' build/);
  });

  it('builds the union of the suites\' targets, or the recipe build when any suite names none', () => {
    const r = RecipeSchema.parse({
      schemaVersion: 1, name: 'r', profile: 'nh-ref', sourceDir: 'e', buildDir: 'b', configure: ['cmake'], build: ['cmake', '--build', 'b'],
      driver: { argv: ['x'], binary: 'x' },
      suites: [{ name: 'a', argv: ['t'], targets: ['ta', 'common'] }, { name: 'b', argv: ['t'], targets: ['tb', 'common'] }, { name: 'c', argv: ['t'] }],
    });
    expect(suiteTargets(r, ['a', 'b'])).toEqual(['ta', 'common', 'tb']);
    expect(suiteTargets(r, ['a', 'c'])).toBeNull();
    expect(suiteTargets(r, [])).toBeNull();
  });

  it('the llama-cpp recipe names test-sampling as its suite target, its binary and its CTest JUnit report', () => {
    const { recipe } = loadRecipe('llama-cpp', REPO);
    const s = recipe.suites.find((x) => x.name === 'llama-sampling')!;
    expect(s).toMatchObject({ kind: 'ctest', targets: ['test-sampling'], binaries: ['{buildDir}/bin/test-sampling'], reportArgv: ['--output-junit', '{report}'] });
    expect(recipe.suiteConfigureArgv).toEqual(['-DLLAMA_BUILD_TESTS=ON']);
  });
});

describe('filters in each framework\'s own syntax', () => {
  it('defaults per kind, the suite\'s own filterArgv first', () => {
    expect(filterArgvOf({ name: 's' })).toEqual(['--test-case={filter}']);
    expect(filterArgvOf({ name: 's', kind: 'gtest' })).toEqual(['--gtest_filter={filter}']);
    expect(filterArgvOf({ name: 's', kind: 'catch2' })).toEqual(['{filter}']);
    expect(filterArgvOf({ name: 's', kind: 'ctest' })).toEqual(['-R', '{filter}']);
    expect(filterArgvOf({ name: 's', kind: 'ctest', filterArgv: ['-L', '{filter}'] })).toEqual(['-L', '{filter}']);
    expect(suiteCall({ name: 'llama', kind: 'ctest' }, '^test-sampling$')).toBe('llama -R ^test-sampling$');
    expect(suiteCall({ name: 'nh-ref-tests' }, 'MoE*')).toBe('nh-ref-tests --test-case=MoE*');
    expect(suiteCall({ name: 'nh-ref-tests' }, undefined)).toBe('nh-ref-tests');
  });
});

describe('the sanitizer re-judge (pure parts)', () => {
  it('reads the first AddressSanitizer / UBSan report with its summary line, and nothing from clean output', () => {
    const asan = ['[doctest] doctest version is "2.4.9"', '=================================================================', '==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602 at pc 0x55 bp 0x7ff sp 0x7ff', 'WRITE of size 4 at 0x602 thread T0', '    #0 0x55 in gate native/engine/src/mamba.cpp:147', 'SUMMARY: AddressSanitizer: heap-buffer-overflow native/engine/src/mamba.cpp:147 in gate'];
    expect(sanitizerFinding(asan)).toBe('ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602 at pc 0x55 bp 0x7ff sp 0x7ff (heap-buffer-overflow native/engine/src/mamba.cpp:147 in gate)');
    expect(sanitizerFinding(['src/a.cpp:12:5: runtime error: index 5 out of bounds for type \'int [4]\''])).toBe('src/a.cpp:12:5: runtime error: index 5 out of bounds for type \'int [4]\'');
    expect(sanitizerFinding(['[doctest] Status: FAILURE!', 'ERROR: CHECK( x ) is NOT correct!'])).toBeNull();
  });

  it('the sanitizer build is the recipe with its own build dir, the sanitizer flags after the suites\', and its env', () => {
    const { recipe } = loadRecipe('nh-ref', REPO);
    const s = sanitizedRecipe(recipe)!;
    expect(s.buildDir).toBe('.nh-gate/build/nh-ref-asan-{arch}');
    expect(s.buildDir).not.toBe(recipe.buildDir);
    expect(s.suiteConfigureArgv.slice(0, recipe.suiteConfigureArgv.length)).toEqual(recipe.suiteConfigureArgv);
    expect(s.suiteConfigureArgv.join(' ')).toMatch(/-fsanitize=address,undefined/);
    expect(s.driver.env).toMatchObject({ ...recipe.driver.env, ASAN_OPTIONS: expect.any(String) });
    expect(sanitizedRecipe({ ...recipe, sanitizer: undefined })).toBeNull();
    expect(sanitizesArch(recipe, 'cpu')).toBe(true);
    expect(sanitizesArch(recipe, '90')).toBe(false);
    expect(sanitizesArch({ ...recipe, sanitizer: undefined }, 'cpu')).toBe(false);
  });

  const mutation = MutationSchema.parse({ id: 'g', file: 'f.cpp', anchor: 'a', replacement: 'b', why: 'w', suite: 's', expect: 'caught' });
  const gen = (operator: string, verdict: MutantResult['verdict']): MutantResult => ({
    id: `${operator}-${verdict}`, mutation, span: null, tree: 0, compileExit: 0, errorCount: 0, binarySha: 'c', suite: null, mustFailCaseFailed: null, restoreSha: 'b',
    verdict, reason: null, detail: '', expected: 'caught', matchesExpectation: false, exitClass: 'failed', buildS: 1,
    origin: { operator: operator as never, what: '', line: 3, span: { start: { line: 3, column: 1 }, end: { line: 3, column: 2 }, offset: 0 }, before: '', after: '', edit: '', contextLines: 0 },
  });
  it('re-judges survivors of the relational, off-by-one and min-max operators only', () => {
    expect(SANITIZER_OPERATORS).toEqual(['relational', 'off-by-one', 'min-max']);
    const rows = [gen('relational', 'SURVIVED'), gen('off-by-one', 'SURVIVED'), gen('min-max', 'SURVIVED'), gen('arithmetic', 'SURVIVED'), gen('relational', 'CAUGHT')];
    expect(rejudgeCandidates(rows).map((r) => r.id)).toEqual(['relational-SURVIVED', 'off-by-one-SURVIVED', 'min-max-SURVIVED']);
    expect(rejudgeCandidates([{ ...gen('relational', 'SURVIVED'), sanitizer: {} as never }])).toEqual([]);
    expect(rejudgeCandidates([{ ...gen('relational', 'SURVIVED'), origin: undefined }])).toEqual([]);
  });

  const suite = (o: Partial<SuiteRun>): SuiteRun => ({ exitCode: 1, signal: null, timedOut: false, interrupted: false, durationS: 1, counts: null, tail: [], ...o });
  const m = (o: Partial<MutantMeasure>): MutantMeasure => ({ compileExit: 0, errorCount: 0, binarySha: 'c', baselineSha: 'b', suite: suite({}), restoreSha: 'b', interrupted: false, ...o });
  it('credits only a RED sanitized run with a sanitizer report, and only with the proofs', () => {
    const r = gen('relational', 'SURVIVED');
    expect(judgeSanitized(m({ suite: suite({ sanitizer: 'ERROR: AddressSanitizer: heap-buffer-overflow' }) }), r, null, 2)).toMatchObject({ credited: true, verdict: 'CAUGHT', finding: 'ERROR: AddressSanitizer: heap-buffer-overflow' });
    // RED without a sanitizer report: another build's behaviour, not the sanitizer's catch.
    expect(judgeSanitized(m({ suite: suite({ sanitizer: null }) }), r, null, 2)).toMatchObject({ credited: false, detail: expect.stringMatching(/no sanitizer report/) });
    // The same binary as the sanitizer baseline, or a restore that does not come back: nothing credited.
    expect(judgeSanitized(m({ binarySha: 'b', suite: suite({ sanitizer: 'ERROR: AddressSanitizer: x' }) }), r, null, 2)).toMatchObject({ credited: false, reason: 'NOT_REBUILT' });
    expect(judgeSanitized(m({ restoreSha: 'd', suite: suite({ sanitizer: 'ERROR: AddressSanitizer: x' }) }), r, null, 2)).toMatchObject({ credited: false, reason: 'NOT_RESTORED' });
    const credited = judgeSanitized(m({ suite: suite({ sanitizer: 'ERROR: AddressSanitizer: heap-buffer-overflow' }) }), r, null, 2);
    expect(withRejudge({ ...r, detail: 'GREEN 1/1 cases' }, credited)).toMatchObject({ verdict: 'CAUGHT BY SANITIZER', exitClass: 'passed', detail: 'GREEN 1/1 cases; the sanitizer build caught it: ERROR: AddressSanitizer: heap-buffer-overflow' });
    const notCredited = judgeSanitized(m({ suite: suite({ sanitizer: null }) }), r, null, 2);
    expect(withRejudge(r, notCredited)).toMatchObject({ verdict: 'SURVIVED', exitClass: 'failed', sanitizer: { credited: false } });
    expect(judgeSanitized(m({ suite: suite({ exitCode: 0, counts: { format: 'doctest', source: 'console', cases: { total: 1, passed: 1, failed: 0, skipped: 0 }, assertions: null, success: true, failingCases: [], skippedCases: [], caseResults: [], complete: false } }) }), r, null, 2)).toMatchObject({ credited: false, verdict: 'SURVIVED' });
  });
});
