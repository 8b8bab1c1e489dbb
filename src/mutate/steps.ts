import { existsSync, rmSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { Recipe } from '../config/recipe.js';
import { buildVars } from '../build/build.js';
import { firstCompileError, readBuildLog } from '../build/log.js';
import { expandArgv, type TemplateVars } from '../build/template.js';
import { spanS } from '../exec/clock.js';
import { runProcess } from '../exec/spawn.js';
import { lastLines, type ProcessRun, type ProcessSpec, type RunHooks } from '../exec/types.js';
import type { SlurmLegInfo } from '../results/types.js';
import type { Profile } from '../profiles/types.js';
import { readDoctest } from './doctest.js';
import type { BuildRun, ExecutorFault, SuiteRun } from './types.js';

// Where one scratch tree lives: its root stands in for the repository root, so the recipe's sourceDir
// and buildDir resolve inside it (never inside the user's tree).
export interface TreeLayout {
  index: number;
  root: string;
  sourceDir: string;
  buildDir: string;
}

// How the steps run: arch for the recipe's per-arch configure argv, build parallelism per tree.
export interface StepOptions {
  arch: string;
  buildJobs: number;
  profile: Profile;
  signal?: AbortSignal | undefined;
  // Where suite processes run: absent → here (runProcess); set → e.g. as Slurm node tasks (--executor slurm).
  suiteRunner?: SuiteRunner | undefined;
}

// The one seam between a suite run and where its process runs. Builds stay on this host (scratch trees on
// the shared path); only the suite's process moves, so a GPU suite runs where the GPU is.
export interface SuiteRunner {
  // at.name: unique per suite run within the mutate run (a node task's file names); at.tree: whose run it is.
  run(spec: ProcessSpec, hooks: RunHooks, at: { name: string; tree: number }): Promise<SuiteProcess>;
}

// A suite's process as data, with the Slurm job it ran in and the executor's fault (a lost job: VOID by name).
export interface SuiteProcess {
  run: ProcessRun;
  slurm: SlurmLegInfo | null;
  fault: ExecutorFault | null;
}

// The local runner: the suite's process spawned here, as it always was.
export const localSuiteRunner: SuiteRunner = {
  run: async (spec, hooks) => ({ run: await runProcess(spec, hooks), slurm: null, fault: null }),
};

// The layout of tree k under a workspace, from the recipe's own path rules.
export function treeLayout(recipe: Recipe, workspace: string, k: number, o: StepOptions): TreeLayout {
  const root = join(workspace, `tree-${k}`);
  // {cwd} is the scratch tree's root too: a scratch build must never reach back into the user's tree.
  const v = buildVars(recipe, root, o.arch, o.buildJobs, root);
  return { index: k, root, sourceDir: v.sourceDir!, buildDir: v.buildDir! };
}

function vars(recipe: Recipe, t: TreeLayout, o: StepOptions): TemplateVars {
  return buildVars(recipe, t.root, o.arch, o.buildJobs, t.root);
}

function asBuild(runs: ProcessRun[]): BuildRun {
  const failed = runs.find((r) => r.exitCode !== 0) ?? runs[runs.length - 1]!;
  return {
    exitCode: failed.spawnError ? 127 : failed.exitCode,
    errorCount: readBuildLog(runs.flatMap((r) => r.lines.map((l) => l.text))).compileErrors,
    firstError: firstCompileError(runs.flatMap((r) => r.lines.map((l) => l.text))),
    durationS: runs.reduce((s, r) => s + spanS(r.startNs, r.endNs), 0),
    interrupted: runs.some((r) => r.interrupted),
    tail: lastLines(failed, 20),
  };
}

// Configures when the build dir has no cache yet (always, after wiping it, with full=true), then builds.
// Incremental by default: only what the changed file touches recompiles.
export async function buildTree(recipe: Recipe, t: TreeLayout, o: StepOptions, full = false): Promise<BuildRun> {
  const runs: ProcessRun[] = [];
  const v = vars(recipe, t, o);
  const hooks = o.signal ? { signal: o.signal } : {};
  if (full) rmSync(t.buildDir, { recursive: true, force: true });
  if (!existsSync(join(t.buildDir, 'CMakeCache.txt'))) {
    const argv = [...expandArgv(recipe.configure, v, 'recipe.configure'), ...expandArgv(recipe.archs[o.arch]?.configureArgv ?? [], v, `recipe.archs.${o.arch}.configureArgv`), ...expandArgv(recipe.suiteConfigureArgv, v, 'recipe.suiteConfigureArgv')];
    const cfg = await runProcess({ argv, cwd: t.root, timeoutS: 600 }, hooks);
    runs.push(cfg);
    if (cfg.exitCode !== 0) return asBuild(runs);
  }
  runs.push(await runProcess({ argv: expandArgv(recipe.build, v, 'recipe.build'), cwd: t.root, timeoutS: 3600 }, hooks));
  return asBuild(runs);
}

// The absolute path of a suite's binary in a tree (its argv[0] after expansion).
export function suiteBinary(recipe: Recipe, suiteName: string, t: TreeLayout, o: StepOptions): string {
  const suite = recipe.suites.find((s) => s.name === suiteName);
  if (!suite) throw new Error(`no suite ${suiteName}`);
  const bin = expandArgv(suite.argv, vars(recipe, t, o), `suite ${suiteName}`)[0]!;
  return isAbsolute(bin) ? bin : resolve(t.root, bin);
}

// Runs a suite (with the row's filter) under a time-out; a crash or time-out is data, not an error.
export async function runSuite(recipe: Recipe, suiteName: string, filter: string | undefined, t: TreeLayout, o: StepOptions, timeoutS?: number, name = `suite-t${t.index}`): Promise<SuiteRun> {
  const suite = recipe.suites.find((s) => s.name === suiteName);
  if (!suite) throw new Error(`no suite ${suiteName}`);
  const v = vars(recipe, t, o);
  const argv = expandArgv(suite.argv, v, `suite ${suiteName}`);
  argv[0] = suiteBinary(recipe, suiteName, t, o);
  if (filter !== undefined) argv.push(...expandArgv(suite.filterArgv ?? ['--test-case={filter}'], { ...v, filter }, `suite ${suiteName}.filterArgv`));
  const { run, slurm, fault } = await (o.suiteRunner ?? localSuiteRunner).run({ argv, cwd: t.root, env: recipe.driver.env, ...(timeoutS === undefined ? {} : { timeoutS }) }, o.signal ? { signal: o.signal } : {}, { name, tree: t.index });
  return {
    ...(slurm ? { slurm } : {}),
    ...(fault ? { fault } : {}),
    exitCode: run.spawnError ? 127 : run.exitCode,
    signal: run.signal,
    timedOut: run.timedOut,
    interrupted: run.interrupted,
    durationS: spanS(run.startNs, run.endNs),
    counts: readDoctest(run.lines.map((l) => l.text), o.profile),
    tail: lastLines(run, 20),
  };
}

// A key per (suite, filter): each gets its own GREEN baseline, so a filter that selects nothing is caught.
export function suiteKey(suite: string, filter: string | undefined): string {
  return filter === undefined ? suite : `${suite} --test-case=${filter}`;
}
