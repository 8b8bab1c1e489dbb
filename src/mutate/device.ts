import type { Mutation } from '../config/mutations.js';
import type { Recipe } from '../config/recipe.js';
import type { SuiteRun } from './types.js';
import type { Judgement } from './verdict.js';

// Device rows: defects in device code that only a suite's GPU cases can see. Off a GPU they are judged by
// name, never CAUGHT and never SURVIVED: a build for arch cpu compiles no device code at all, and a GPU case
// on a host without a GPU takes its skip path and passes having run nothing.

// The judgement of a device row on arch cpu, before anything builds; null for every other row.
export function noGpuArch(m: Mutation, arch: string): Judgement | null {
  if (!m.device || arch !== 'cpu') return null;
  return {
    verdict: 'VOID', reason: 'NO_GPU_ARCH', mustFailCaseFailed: null,
    detail: 'not run: a device row, and arch cpu compiles no device code — judge it with a GPU arch (e.g. --arch 90) on a GPU host',
  };
}

// Whether a row is left out of the score: a device row not run on arch cpu (shown VOID, never a catch).
export function offArch(j: Judgement): boolean {
  return j.verdict === 'VOID' && j.reason === 'NO_GPU_ARCH';
}

// A device row's GREEN run is a GPU result only when device assertions ran: zero assertions (or, for an
// unfiltered suite, exactly the recipe's CPU-only count) means its GPU cases took their skip path.
export function gpuSkipped(j: Judgement, m: Mutation, run: SuiteRun | null, recipe: Recipe): Judgement {
  // A suite that prints no assertion totals is judged by its skipped GPU cases instead (verdict.ts gpuSkipped).
  if (!m.device || j.verdict !== 'SURVIVED' || !run?.counts?.assertions) return j;
  const ran = run.counts.assertions.total;
  const cpuOnly = m.filter === undefined ? recipe.suites.find((s) => s.name === m.suite)?.cpuOnlyAssertions : undefined;
  if (ran > 0 && ran !== cpuOnly) return j;
  return {
    verdict: 'VOID', reason: 'GPU_SKIPPED', mustFailCaseFailed: null,
    detail: `GREEN with ${ran} assertion(s)${ran === cpuOnly ? ", exactly the suite's CPU-only count" : ''}: the GPU cases took their skip path, so this run says nothing about the device code`,
  };
}
