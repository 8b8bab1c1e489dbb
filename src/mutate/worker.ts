import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mutation } from '../config/mutations.js';
import type { Recipe } from '../config/recipe.js';
import { sha256, writeFresh } from './files.js';
import type { Journal } from './journal.js';
import { applyMutation } from './plan.js';
import { buildTree, runSuite, suiteSha, suiteTargets, type StepOptions, type TreeLayout } from './steps.js';
import type { BuildRun, SuiteRun, TreeBaseline } from './types.js';
import type { MutantMeasure } from './verdict.js';

// How a tree rebuilds after each edit: incremental (the gate) or a wiped build dir (the bench's control).
export type RebuildMode = 'incremental' | 'full';

// One scratch tree and what it needs to mutate, rebuild and restore its files.
export interface Worker {
  layout: TreeLayout;
  recipe: Recipe;
  step: StepOptions;
  journal: Journal;
  rebuild: RebuildMode;
  // Build every target for every mutant, not its suite's targets (the bench's control).
  wholeBuild?: boolean | undefined;
  baseline: TreeBaseline | null;
  broken: boolean;
}

// The targets a build of these suites needs: theirs ([]: everything, when the worker builds it all).
function targetsOf(w: Worker, suites: readonly string[]): string[] | null {
  return w.wholeBuild ? [] : suiteTargets(w.recipe, suites);
}

// Builds the unmutated tree (the rows' suite targets, or everything) and hashes each suite's binaries.
export async function buildBaseline(w: Worker, suites: string[]): Promise<{ build: BuildRun; binarySha: Record<string, string | null> }> {
  const build = await buildTree(w.recipe, w.layout, w.step, w.rebuild === 'full', targetsOf(w, suites));
  const binarySha: Record<string, string | null> = {};
  for (const s of suites) binarySha[s] = suiteSha(w.recipe, s, w.layout, w.step);
  return { build, binarySha };
}

// Everything one mutant measured, plus the build time it cost.
export interface MutantRun {
  measure: MutantMeasure;
  buildS: number;
  build: BuildRun;
}

// Apply → rebuild the suite's targets → (run the suite) → restore with a fresh mtime → rebuild → hash again.
// The journal entry is on disk before the mutant is, and the restore runs however the middle ends.
export async function runMutant(w: Worker, m: Mutation, timeoutS: number): Promise<MutantRun> {
  const base = w.baseline!;
  const baselineSha = base.binarySha[m.suite]!;
  const path = join(w.layout.root, m.file);
  const original = readFileSync(path, 'utf8');
  const mutated = applyMutation(original, m);
  w.journal.begin({ tree: w.layout.index, mutantId: m.id, path, originalSha: sha256(original), mutantSha: sha256(mutated), original });
  writeFresh(path, mutated);
  let build: BuildRun;
  let binarySha: string | null = null;
  let suite: SuiteRun | null = null;
  const targets = targetsOf(w, [m.suite]);
  try {
    build = await buildTree(w.recipe, w.layout, w.step, w.rebuild === 'full', targets);
    binarySha = suiteSha(w.recipe, m.suite, w.layout, w.step);
    if (build.exitCode === 0 && !build.interrupted && binarySha !== baselineSha) {
      suite = await runSuite(w.recipe, m.suite, m.filter, w.layout, w.step, timeoutS, `mutant-${m.id}`);
    }
  } finally {
    writeFresh(path, original);
    w.journal.end(w.layout.index);
  }
  const interrupted = build.interrupted || (suite?.interrupted ?? false) || (w.step.signal?.aborted ?? false);
  let restoreSha: string | null = null;
  let rebuiltSha: string | null = null;
  let buildS = build.durationS;
  if (!interrupted) {
    const back = await buildTree(w.recipe, w.layout, w.step, w.rebuild === 'full', targets);
    buildS += back.durationS;
    restoreSha = back.exitCode === 0 ? suiteSha(w.recipe, m.suite, w.layout, w.step) : null;
    if (restoreSha !== baselineSha && !back.interrupted) {
      w.broken = true;
      // Tell a restore that went wrong from a build that is not reproducible: the same bytes once more.
      if (restoreSha !== null) ({ sha: rebuiltSha, buildS } = await rebuildUnchanged(w, path, original, m.suite, targets, buildS));
    }
  }
  return {
    build,
    buildS,
    measure: { compileExit: build.exitCode, errorCount: build.errorCount, firstError: build.firstError, binarySha, baselineSha, suite, restoreSha, rebuiltSha, interrupted },
  };
}

// Rewrites a file with its own bytes (a fresh mtime), rebuilds, and hashes the suite binary again: a sha that
// moves with no change to the source is a build that is not reproducible (nvcc's per-compile temp names).
async function rebuildUnchanged(w: Worker, path: string, original: string, suite: string, targets: string[] | null, buildS: number): Promise<{ sha: string | null; buildS: number }> {
  writeFresh(path, original);
  const again = await buildTree(w.recipe, w.layout, w.step, w.rebuild === 'full', targets);
  const sha = again.exitCode === 0 && !again.interrupted ? suiteSha(w.recipe, suite, w.layout, w.step) : null;
  return { sha, buildS: buildS + again.durationS };
}

// Runs one suite key on the unmutated tree (for the baseline).
export function baselineSuite(w: Worker, suite: string, filter: string | undefined, n = 0): Promise<SuiteRun> {
  return runSuite(w.recipe, suite, filter, w.layout, w.step, undefined, `baseline-t${w.layout.index}-${n + 1}`);
}
