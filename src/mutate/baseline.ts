import type { Mutation, MutationTable } from '../config/mutations.js';
import type { Recipe } from '../config/recipe.js';
import { diagnoseFailure } from '../build/diagnose.js';
import { NhGateError } from '../errors.js';
import { suiteKey } from './steps.js';
import type { SuiteRun } from './types.js';
import { judgeBaseline, type GpuExpectation, type Judgement } from './verdict.js';
import { baselineSuite, buildBaseline, type Worker } from './worker.js';

// What the baselines decided for the rows: a VOID per (suite, filter) key that is not GREEN with cases,
// and each key's time-out (max(floor, factor × its baseline duration)).
export interface BaselineJudgement {
  failure: string | null;
  keyVoid: Map<string, Judgement>;
  timeoutS: Map<string, number>;
}

// On a GPU arch, the suite's GPU cases must run (not take their skip path); the CPU-only assertion count
// is only comparable when no filter narrows the suite.
export function gpuFor(recipe: Recipe, arch: string, suite: string, filter: string | undefined): GpuExpectation | null {
  const s = recipe.suites.find((x) => x.name === suite);
  if (arch === 'cpu' || !s || s.gpuCases.length === 0) return null;
  return { gpuCases: s.gpuCases, cpuOnlyAssertions: filter === undefined ? s.cpuOnlyAssertions : undefined };
}

// Builds every tree's baseline; a missing prerequisite (doctest not found …) stops the run with its fix.
// Returns the first tree's failure (a build that failed, or a suite binary that is not there), or null.
export async function buildBaselines(workers: Worker[], suites: string[]): Promise<string | null> {
  const builds = await Promise.all(workers.map((w) => buildBaseline(w, suites)));
  let failure: string | null = null;
  builds.forEach((b, k) => {
    const w = workers[k]!;
    const d = b.build.exitCode !== 0 ? diagnoseFailure(w.recipe, b.build.tail) : null;
    if (d?.prerequisite) {
      throw new NhGateError('MISSING_PREREQUISITE', `the suites of recipe '${w.recipe.name}' need ${d.prerequisite.name}, which the configure did not find: ${d.cause.join(' | ')}`, d.prerequisite.fix);
    }
    const missing = suites.filter((s) => b.binarySha[s] === null);
    if (b.build.exitCode !== 0 || missing.length) failure ??= `tree ${k}: baseline build exit ${b.build.exitCode}${missing.length ? `, no binary for ${missing.join(', ')}` : ''}: ${b.build.tail.slice(-3).join(' | ')}`;
    w.baseline = { tree: k, buildS: b.build.durationS, binarySha: b.binarySha as Record<string, string>, suites: {} };
  });
  return failure;
}

// Runs each (suite, filter) key of the rows once on the first tree: it must be GREEN with real cases (and,
// on a GPU arch, a GPU result) before any mutant of that key can be judged.
export async function judgeBaselines(w: Worker, rows: readonly Mutation[], o: { table: MutationTable; arch: string; signal?: AbortSignal | undefined }): Promise<Pick<BaselineJudgement, 'keyVoid' | 'timeoutS'>> {
  const keyVoid = new Map<string, Judgement>();
  const timeoutS = new Map<string, number>();
  for (const m of rows) {
    const key = suiteKey(w.recipe, m.suite, m.filter);
    if (w.baseline!.suites[key] || o.signal?.aborted) continue;
    const run: SuiteRun = await baselineSuite(w, m.suite, m.filter, Object.keys(w.baseline!.suites).length);
    w.baseline!.suites[key] = run;
    const ok = judgeBaseline(run, gpuFor(w.recipe, o.arch, m.suite, m.filter));
    if (!ok.ok) keyVoid.set(key, { verdict: 'VOID', reason: ok.reason, detail: `${key}: ${ok.detail}`, mustFailCaseFailed: null });
    timeoutS.set(key, Math.max(o.table.timeoutFloorS, o.table.timeoutFactor * run.durationS));
  }
  return { keyVoid, timeoutS };
}

// Runs items over the workers, each pulling the next one as it finishes; a broken tree stops pulling.
export async function pool<T>(workers: readonly Worker[], items: readonly T[], one: (w: Worker, item: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  await Promise.all(workers.map(async (w) => {
    for (;;) {
      if (signal?.aborted || w.broken) return;
      const item = items[next++];
      if (item === undefined) return;
      await one(w, item);
    }
  }));
}
