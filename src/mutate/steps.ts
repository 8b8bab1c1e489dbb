import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Recipe, RecipeSuite } from '../config/recipe.js';
import { buildVars } from '../build/build.js';
import { firstCompileError, readBuildLog } from '../build/log.js';
import { expandArgv, type TemplateVars } from '../build/template.js';
import { spanS } from '../exec/clock.js';
import { runProcess } from '../exec/spawn.js';
import { lastLines, type ProcessRun, type ProcessSpec, type RunHooks } from '../exec/types.js';
import type { SlurmLegInfo } from '../results/types.js';
import { NhGateError } from '../errors.js';
import { fileSha, sha256 } from './files.js';
import { filterArgvOf, suiteCall } from './suite/invoke.js';
import { readSuite } from './suite/read.js';
import { sanitizerFinding } from './suite/sanitizer.js';
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

// The recipe's build argv narrowed to CMake targets: any --target/-t it names is replaced by these, the
// rest (--parallel {jobs}, --config …) kept; no targets builds everything (CMake's all). Only a
// `cmake --build` build can be narrowed.
export function targetBuildArgv(build: readonly string[], targets: readonly string[]): string[] {
  const at = build.indexOf('--build');
  if (at === -1 || !/(?:^|\/)cmake$/.test(build[0]!)) throw new NhGateError('BAD_CONFIG', `recipe.build: suite targets (and --whole-build) need a 'cmake --build' build, not: ${build.join(' ')}`, "write the recipe's build as [\"cmake\", \"--build\", \"{buildDir}\", …], or drop the suites' targets");
  const rest: string[] = [];
  for (let i = at + 2; i < build.length; i++) {
    const a = build[i]!;
    if (a === '--target' || a === '-t') { while (i + 1 < build.length && !build[i + 1]!.startsWith('-')) i++; continue; }
    if (a.startsWith('--target=')) continue;
    rest.push(a);
  }
  return [...build.slice(0, at + 2), ...(targets.length ? ['--target', ...targets] : []), ...rest];
}

// The CMake targets a build needs for these suites: the union of theirs, or null (the recipe's whole
// build) when any of them names none.
export function suiteTargets(recipe: Recipe, suites: readonly string[]): string[] | null {
  const lists = suites.map((n) => recipe.suites.find((s) => s.name === n)?.targets);
  if (lists.length === 0 || lists.some((l) => l === undefined)) return null;
  return [...new Set(lists.flatMap((l) => l!))];
}

// Configures when the build dir has no cache yet (always, after wiping it, with full=true), then builds
// the suites' targets (null: the recipe's build as written; []: everything). Incremental by default: only
// what the changed file touches recompiles.
export async function buildTree(recipe: Recipe, t: TreeLayout, o: StepOptions, full = false, targets: readonly string[] | null = null): Promise<BuildRun> {
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
  const build = expandArgv(recipe.build, v, 'recipe.build');
  runs.push(await runProcess({ argv: targets ? targetBuildArgv(build, targets) : build, cwd: t.root, timeoutS: 3600 }, hooks));
  return asBuild(runs);
}

function suiteOf(recipe: Recipe, suiteName: string): RecipeSuite {
  const suite = recipe.suites.find((s) => s.name === suiteName);
  if (!suite) throw new Error(`no suite ${suiteName}`);
  return suite;
}

// The absolute paths of the files a suite's verdict rests on: its binaries, or its argv[0].
export function suiteBinaries(recipe: Recipe, suiteName: string, t: TreeLayout, o: StepOptions): string[] {
  const suite = suiteOf(recipe, suiteName);
  const files = suite.binaries ? expandArgv(suite.binaries, vars(recipe, t, o), `suite ${suiteName}.binaries`) : [expandArgv(suite.argv, vars(recipe, t, o), `suite ${suiteName}`)[0]!];
  return files.map((f) => (isAbsolute(f) ? f : resolve(t.root, f)));
}

// The absolute path of a suite's first binary in a tree.
export function suiteBinary(recipe: Recipe, suiteName: string, t: TreeLayout, o: StepOptions): string {
  return suiteBinaries(recipe, suiteName, t, o)[0]!;
}

// The sha256 a mutant's proofs compare (changed binary, restored baseline): the one binary's own, or over
// several a sha of their tree-relative paths and shas; null when any is missing.
export function suiteSha(recipe: Recipe, suiteName: string, t: TreeLayout, o: StepOptions): string | null {
  const files = suiteBinaries(recipe, suiteName, t, o);
  const shas = files.map((f) => fileSha(f));
  if (shas.some((x) => x === null)) return null;
  if (shas.length === 1) return shas[0]!;
  return sha256(files.map((f, i) => `${relative(t.root, f)}\0${shas[i]}\n`).join(''));
}

// Runs a suite (with the row's filter) under a time-out; a crash or time-out is data, not an error. A
// suite with a reportArgv writes its report to a fresh path (an earlier run's report is never read).
export async function runSuite(recipe: Recipe, suiteName: string, filter: string | undefined, t: TreeLayout, o: StepOptions, timeoutS?: number, name = `suite-t${t.index}`): Promise<SuiteRun> {
  const suite = suiteOf(recipe, suiteName);
  const v = vars(recipe, t, o);
  const argv = expandArgv(suite.argv, v, `suite ${suiteName}`);
  if (!suite.binaries) argv[0] = suiteBinary(recipe, suiteName, t, o);
  if (filter !== undefined) argv.push(...expandArgv([...filterArgvOf(suite)], { ...v, filter }, `suite ${suiteName}.filterArgv`));
  // Under the tree's own .nh-gate/: outside the copied sources, on the shared path a Slurm node sees.
  const report = suite.reportArgv ? join(t.root, '.nh-gate', 'reports', `${name}.report`) : null;
  if (report) {
    mkdirSync(join(t.root, '.nh-gate', 'reports'), { recursive: true });
    rmSync(report, { force: true });
    argv.push(...expandArgv(suite.reportArgv!, { ...v, report }, `suite ${suiteName}.reportArgv`));
  }
  const { run, slurm, fault } = await (o.suiteRunner ?? localSuiteRunner).run({ argv, cwd: t.root, env: recipe.driver.env, ...(timeoutS === undefined ? {} : { timeoutS }) }, o.signal ? { signal: o.signal } : {}, { name, tree: t.index });
  const lines = run.lines.map((l) => l.text);
  const read = readSuite({ lines, ...(report ? { report: { text: existsSync(report) ? readFileSync(report, 'utf8') : null } } : {}) }, { format: suite.kind, skipMessage: suite.skipMessage });
  return {
    ...(slurm ? { slurm } : {}),
    ...(fault ? { fault } : {}),
    exitCode: run.spawnError ? 127 : run.exitCode,
    signal: run.signal,
    timedOut: run.timedOut,
    interrupted: run.interrupted,
    durationS: spanS(run.startNs, run.endNs),
    counts: read.counts,
    readWhy: read.why,
    sanitizer: sanitizerFinding(lines),
    tail: lastLines(run, 20),
  };
}

// A key per (suite, filter), in the words of the suite's call: each gets its own GREEN baseline, so a
// filter that selects nothing is caught.
export function suiteKey(recipe: Recipe, suite: string, filter: string | undefined): string {
  return suiteCall(suiteOf(recipe, suite), filter);
}
