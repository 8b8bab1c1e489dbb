// Device rows and the reproducibility diagnosis, as pure judgements: what a device row reads off a GPU, and
// how a restore that missed the baseline is told apart from a build that is not reproducible.
import { describe, expect, it } from 'vitest';
import { MutationSchema, parseMutationTable } from '../../src/config/mutations.js';
import { RecipeSchema } from '../../src/config/recipe.js';
import { gpuSkipped, noGpuArch, offArch } from '../../src/mutate/device.js';
import type { SuiteRun } from '../../src/mutate/types.js';
import { judgeMutant, rowClass, type Judgement, type MutantMeasure } from '../../src/mutate/verdict.js';

const row = (o: Record<string, unknown> = {}) => MutationSchema.parse({ id: 'd', file: 'k.cu', anchor: 'a', replacement: 'b', why: 'w', suite: 's', expect: 'caught', device: true, filter: 'device*', ...o });
const recipe = RecipeSchema.parse({
  schemaVersion: 1, name: 'r', profile: 'nh-ref', sourceDir: 'e', buildDir: 'b', configure: ['true'], build: ['true'],
  archs: { cpu: { configureArgv: [], requiredCells: [] } }, driver: { argv: ['x'], binary: 'x' },
  suites: [{ name: 'other', argv: ['o'] }, { name: 's', argv: ['t'], cpuOnlyAssertions: 4 }],
});
const green = (asserts: number): SuiteRun => ({
  exitCode: 0, signal: null, timedOut: false, interrupted: false, durationS: 1, tail: [],
  counts: { format: 'doctest', source: 'console', cases: { total: 4, passed: 4, failed: 0, skipped: 0 }, assertions: { total: asserts, passed: asserts, failed: 0 }, success: true, failingCases: [], skippedCases: [], caseResults: [], complete: true },
});
const survived: Judgement = { verdict: 'SURVIVED', reason: null, detail: 'GREEN 4/4 cases', mustFailCaseFailed: false };
const base = 'b'.repeat(64);
const measure = (o: Partial<MutantMeasure> = {}): MutantMeasure => ({
  compileExit: 0, errorCount: 0, binarySha: 'c'.repeat(64), baselineSha: base, suite: green(9), restoreSha: base, interrupted: false, ...o,
});

describe('device rows', () => {
  it('on arch cpu a device row is VOID NO_GPU_ARCH before any build, left out of the score; other rows and GPU archs run', () => {
    const j = noGpuArch(row(), 'cpu');
    expect(j).toMatchObject({ verdict: 'VOID', reason: 'NO_GPU_ARCH' });
    expect(j!.detail).toMatch(/judge it with a GPU arch/);
    expect(offArch(j!)).toBe(true);
    expect(noGpuArch(row(), '90')).toBeNull();
    expect(noGpuArch(row({ device: false }), 'cpu')).toBeNull();
    expect(offArch({ verdict: 'VOID', reason: 'NOT_REBUILT', detail: '', mustFailCaseFailed: null })).toBe(false);
    expect(offArch({ verdict: 'CAUGHT', reason: 'NO_GPU_ARCH', detail: '', mustFailCaseFailed: null })).toBe(false);
  });

  it('a GREEN device run with no device assertions is VOID GPU_SKIPPED, never SURVIVED; one that ran assertions stays SURVIVED', () => {
    const skipped = gpuSkipped(survived, row(), green(0), recipe);
    expect(skipped).toMatchObject({ verdict: 'VOID', reason: 'GPU_SKIPPED' });
    expect(skipped.detail).toBe('GREEN with 0 assertion(s): the GPU cases took their skip path, so this run says nothing about the device code');
    expect(rowClass('caught', skipped)).toBe('void');
    expect(gpuSkipped(survived, row(), green(120), recipe)).toBe(survived);
    // Unfiltered, the suite's CPU-only count is the skip path too; filtered, only zero is.
    expect(gpuSkipped(survived, row({ filter: undefined }), green(4), recipe)).toMatchObject({
      reason: 'GPU_SKIPPED', detail: "GREEN with 4 assertion(s), exactly the suite's CPU-only count: the GPU cases took their skip path, so this run says nothing about the device code",
    });
    // A suite the recipe does not declare has no CPU-only count: only zero assertions is the skip path.
    expect(gpuSkipped(survived, row({ filter: undefined, suite: 'gone' }), green(4), recipe)).toBe(survived);
    expect(gpuSkipped(survived, row(), null, recipe)).toBe(survived);
    expect(gpuSkipped(survived, row(), green(4), recipe)).toBe(survived);
    // Host rows and catches are left as they are.
    expect(gpuSkipped(survived, row({ device: false }), green(0), recipe)).toBe(survived);
    const caught: Judgement = { verdict: 'CAUGHT', reason: null, detail: 'RED', mustFailCaseFailed: true };
    expect(gpuSkipped(caught, row(), green(0), recipe)).toBe(caught);
  });

  it('a table refuses a device selfTest row (the suite must be armed on every arch), naming the field', () => {
    const table = (self: Record<string, unknown>) => JSON.stringify({ schemaVersion: 1, recipe: 'r', mutants: [{ ...row({ id: 's1', selfTest: true, device: false }), ...self }, row()] });
    expect(() => parseMutationTable(table({}), 't.json')).not.toThrow();
    expect(() => parseMutationTable(table({ device: true }), 't.json')).toThrow(/mutants\.0\.device: a selfTest row must run on every arch/);
  });
});

describe('restore proof: not restored vs not reproducible', () => {
  const m = row({ device: false });
  it('a restore that missed the baseline while one more build of the same bytes gives the same sha: NOT_RESTORED', () => {
    const d = 'd'.repeat(64);
    expect(judgeMutant(measure({ restoreSha: d, rebuiltSha: d }), m)).toMatchObject({ verdict: 'VOID', reason: 'NOT_RESTORED' });
    expect(judgeMutant(measure({ restoreSha: null, rebuiltSha: null }), m)).toMatchObject({ reason: 'NOT_RESTORED' });
  });

  it('the same bytes built twice giving two shas: NOT_REPRODUCIBLE, naming both shas and the nvcc fix', () => {
    const j = judgeMutant(measure({ restoreSha: 'd'.repeat(64), rebuiltSha: 'e'.repeat(64) }), m);
    expect(j).toMatchObject({ verdict: 'VOID', reason: 'NOT_REPRODUCIBLE' });
    expect(j.detail).toContain('dddddddddddddddd and eeeeeeeeeeeeeeee (baseline bbbbbbbbbbbbbbbb)');
    expect(j.detail).toContain('--objdir-as-tempdir');
    // A proven restore never needs the second build: its absence changes nothing.
    expect(judgeMutant(measure({ rebuiltSha: 'e'.repeat(64) }), m).verdict).toBe('SURVIVED');
  });
});
