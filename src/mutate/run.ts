import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Mutation, MutationTable } from '../config/mutations.js';
import type { Recipe } from '../config/recipe.js';
import type { ExitClass } from '../errors.js';
import { acquireLock } from '../exec/lock.js';
import { monoNs } from '../exec/clock.js';
import { fileSha, syncTree, treeSha } from './files.js';
import { buildBaselines, gpuFor, judgeBaselines, pool } from './baseline.js';
import { rejudgeCandidates, rejudgeWithSanitizer, sanitizesArch, withRejudge } from './sanitize.js';
import { cacheable, cacheKey, readCached, writeCached } from './cache.js';
import type { GeneratedMutant, GeneratedOrigin, GenerationSummary } from './generate/generate.js';
import { shardRows, type Shard } from './shard.js';
import { Journal, recoverJournal, type Recovery } from './journal.js';
import { onlyIds, planMutants, selectMutants } from './plan.js';
import { gpuSkipped, noGpuArch, offArch } from './device.js';
import { suiteKey, targetBuildArgv, treeLayout, type StepOptions, type SuiteRunner } from './steps.js';
import { buildVars } from '../build/build.js';
import type { MutantResult, SourceSpan, TreeBaseline, VoidReason } from './types.js';
import { generatedClass, judgeMutant, matchesExpectation, rowClass, runClass, type Judgement, type MutantMeasure } from './verdict.js';
import { runMutant, type RebuildMode, type Worker } from './worker.js';

// Everything `nh-gate mutate` needs, already parsed: the pipeline never reads argv or the recipe file.
export interface MutateOptions {
  root: string;
  recipe: Recipe;
  table: MutationTable;
  jobs: number;
  only?: string | undefined;
  changedFiles?: ReadonlySet<string> | undefined;
  arch?: string | undefined;
  rebuild?: RebuildMode | undefined;
  workspace?: string | undefined;
  signal?: AbortSignal | undefined;
  log?: ((line: string) => void) | undefined;
  onRow?: ((rows: MutantResult[]) => void) | undefined;
  // --in-diff: rows generated from the change's lines, run through the same path as the table's.
  generated?: GeneratedMutant[] | undefined;
  generation?: (GenerationSummary & { rev: string }) | undefined;
  shard?: Shard | undefined;
  // Where proven results of generated rows are kept between runs (null: no cache).
  cacheDir?: string | null | undefined;
  // Where suite processes run (absent: here); builds always run here.
  suiteRunner?: SuiteRunner | undefined;
  // Build the recipe's whole build for every mutant instead of its suite's targets (the bench's control).
  wholeBuild?: boolean | undefined;
  // false: leave survivors as they are even when the recipe declares a sanitizer build (--no-sanitizer).
  sanitize?: boolean | undefined;
}

// The run as data: rows in table order (self-tests first), the baselines, and the user-tree proof.
export interface MutateReport {
  recipe: string;
  sourceDir: string;
  workspace: string;
  rebuild: RebuildMode;
  wholeBuild: boolean;
  jobs: number;
  rows: MutantResult[];
  baselines: TreeBaseline[];
  baselineFailure: string | null;
  userTree: { before: string; after: string; files: number; unchanged: boolean };
  recovery: Recovery | null;
  interrupted: boolean;
  exitClass: ExitClass;
  wallS: number;
  generation: (GenerationSummary & { rev: string }) | null;
  shard: Shard | null;
  cacheHits: number;
}

// Paths never copied into (or hashed from) the source tree: VCS, deps, build dirs, our own output.
export function sourceExclude(rel: string): boolean {
  const top = rel.split('/')[0]!;
  return top === '.git' || top === 'node_modules' || top === '.nh-gate' || top.startsWith('build') || top.startsWith('cmake-build');
}

function row(m: Mutation, span: SourceSpan | null, tree: number | null, meas: MutantMeasure | null, j: Judgement, buildS: number | null, origin?: GeneratedOrigin): MutantResult {
  const gen = origin ? generatedClass(j) : null;
  const off = offArch(j);
  return {
    id: m.id, mutation: m, span: origin?.span ?? span, tree,
    compileExit: meas?.compileExit ?? null, errorCount: meas?.errorCount ?? null, binarySha: meas?.binarySha ?? null,
    suite: meas?.suite ?? null, mustFailCaseFailed: j.mustFailCaseFailed, restoreSha: meas?.restoreSha ?? null,
    verdict: j.verdict, reason: j.reason, detail: j.detail, expected: m.expect,
    matchesExpectation: matchesExpectation(m.expect, j), exitClass: off ? 'passed' : gen ? gen.exitClass : rowClass(m.expect, j), buildS,
    ...(origin && gen ? { origin, excluded: gen.excluded || off } : off ? { excluded: true } : {}),
  };
}

const voidJ = (reason: VoidReason, detail: string): Judgement => ({ verdict: 'VOID', reason, detail, mustFailCaseFailed: null });

// The mutation gate: preflight → scratch trees → baseline → self-tests → mutants → sanitizer re-judge of
// the survivors it applies to → user-tree proof.
export async function runMutate(o: MutateOptions): Promise<MutateReport> {
  const t0 = monoNs();
  const log = o.log ?? (() => {});
  const rebuild = o.rebuild ?? 'incremental';
  const arch = o.arch ?? 'cpu';
  const userSrc = buildVars(o.recipe, o.root, arch, 1).sourceDir!;
  const srcRel = relative(o.root, userSrc).split('\\').join('/');
  const ws = resolve(o.root, o.workspace ?? join('.nh-gate', 'mutate', o.recipe.name));
  // A recipe whose suites name targets must build with cmake --build: refused before any tree exists.
  if (o.wholeBuild || o.recipe.suites.some((s) => s.targets)) targetBuildArgv(o.recipe.build, []);
  const lock = acquireLock(join(ws, 'lock'), `nh-gate mutate ${o.recipe.name}`);
  try {
    const recovery = await recoverJournal(join(ws, 'journal.json'), ws);
    if (recovery) log(`recovered leftover journal of pid ${recovery.leftoverPid}: restored ${recovery.restored.length}, already original ${recovery.alreadyOriginal.length}`);
    const before = treeSha(userSrc, sourceExclude);

    const origins = new Map((o.generated ?? []).map((g) => [g.mutation.id, g.origin]));
    const mk = (m: Mutation, span: SourceSpan | null, tree: number | null, meas: MutantMeasure | null, j: Judgement, buildS: number | null): MutantResult =>
      row(m, span, tree, meas, j, buildS, origins.get(m.id));
    const planned = planMutants(selectRows(o), (f) => {
      try { return readFileSync(resolve(o.root, f), 'utf8'); } catch { return null; }
    });
    const results = new Map<string, MutantResult>();
    const emit = (r: MutantResult): void => {
      results.set(r.id, r);
      log(`${r.id}: ${r.verdict}${r.reason ? ` ${r.reason}` : ''} — ${r.detail}`);
      o.onRow?.(planned.map((p) => results.get(p.mutation.id)).filter((x): x is MutantResult => x !== undefined));
    };
    for (const p of planned) if (p.kind === 'void') emit(mk(p.mutation, null, null, null, voidJ(p.reason, `anchor found ${p.count}x in ${p.mutation.file}: preflight needs exactly 1`), null));
    for (const p of planned) {
      const off = p.kind === 'run' ? noGpuArch(p.mutation, arch) : null;
      if (p.kind === 'run' && off) emit(mk(p.mutation, p.span, null, null, off, null));
    }
    const runnable = planned.flatMap((p) => (p.kind === 'run' && !results.has(p.mutation.id) ? [p] : []));

    const jobs = Math.max(1, Math.min(o.jobs, runnable.length));
    const journal = new Journal(join(ws, 'journal.json'));
    const step: StepOptions = { arch, buildJobs: Math.max(1, Math.floor(availableParallelism() / jobs)), signal: o.signal, suiteRunner: o.suiteRunner };
    const workers: Worker[] = [];
    for (let k = 0; k < (runnable.length ? jobs : 0); k++) {
      const layout = treeLayout(o.recipe, ws, k, step);
      syncTree(userSrc, layout.sourceDir, sourceExclude);
      workers.push({ layout, recipe: o.recipe, step, journal, rebuild, wholeBuild: o.wholeBuild, baseline: null, broken: false });
    }

    // Baseline: every tree builds; tree 0 runs each (suite, filter) once and must be GREEN with cases.
    const suites = [...new Set(runnable.map((p) => p.mutation.suite))];
    const baselineFailure = workers.length ? await buildBaselines(workers, suites) : null;
    const { keyVoid, timeoutS } = baselineFailure === null && workers[0]
      ? await judgeBaselines(workers[0], runnable.map((p) => p.mutation), { table: o.table, arch, signal: o.signal })
      : { keyVoid: new Map<string, Judgement>(), timeoutS: new Map<string, number>() };
    const keyOfRow = (m: Mutation): string => suiteKey(o.recipe, m.suite, m.filter);

    // Mutants: self-tests first (all of them, across trees), then the rest; each worker pulls the next row.
    type Runnable = (typeof runnable)[number];
    const runOne = async (w: Worker, p: Runnable): Promise<void> => {
      const r = await runMutant(w, p.mutation, timeoutS.get(keyOfRow(p.mutation)) ?? o.table.timeoutFloorS);
      emit(mk(p.mutation, p.span, w.layout.index, r.measure, gpuSkipped(judgeMutant(r.measure, p.mutation, gpuFor(o.recipe, arch, p.mutation.suite, p.mutation.filter)), p.mutation, r.measure.suite, o.recipe), r.buildS));
    };
    const gated = (p: Runnable): Judgement | null => {
      if (o.signal?.aborted) return voidJ('INTERRUPTED', 'not run: interrupted during the baseline');
      if (baselineFailure !== null) return voidJ('BASELINE_RED', baselineFailure);
      return keyVoid.get(keyOfRow(p.mutation)) ?? null;
    };
    for (const p of runnable) { const j = gated(p); if (j) emit(mk(p.mutation, p.span, null, null, j, null)); }
    const live = runnable.filter((p) => !results.has(p.mutation.id));
    await pool(workers, live.filter((p) => p.mutation.selfTest), runOne, o.signal);
    const failedSuites = new Set(live.filter((p) => p.mutation.selfTest && !results.get(p.mutation.id)?.matchesExpectation).map((p) => p.mutation.suite));
    for (const p of live) {
      if (!p.mutation.selfTest && failedSuites.has(p.mutation.suite)) emit(mk(p.mutation, p.span, null, null, voidJ('SELF_TEST_FAILED', `the armed self-test of suite '${p.mutation.suite}' was not CAUGHT: this suite cannot prove a catch`), null));
    }
    const cache = o.cacheDir ? resultCache(o.cacheDir, o.root, workers) : null;
    let cacheHits = 0;
    for (const p of cache ? live : []) {
      if (results.has(p.mutation.id) || !origins.has(p.mutation.id)) continue;
      const hit = cache!.read(p.mutation);
      if (hit) { cacheHits++; emit({ ...hit, mutation: p.mutation, origin: origins.get(p.mutation.id), cached: true }); }
    }
    await pool(workers, live.filter((p) => !results.has(p.mutation.id)), runOne, o.signal);

    // The cache keeps the suites' own judgement; a sanitizer's re-judge is made again each run.
    for (const p of cache ? live : []) {
      const r = results.get(p.mutation.id);
      if (r && !r.cached && origins.has(r.id) && cacheable(r)) cache!.write(p.mutation, r);
    }

    // Survivors of the relational/bounds/index operators, re-run in the recipe's sanitizer build.
    const candidates = o.sanitize === false || o.signal?.aborted || !sanitizesArch(o.recipe, arch) ? [] : rejudgeCandidates([...results.values()]);
    if (candidates.length) {
      log(`sanitizer: re-judging ${candidates.length} survivor(s) in ${o.recipe.sanitizer!.buildDir}`);
      const verdicts = await rejudgeWithSanitizer(candidates, { recipe: o.recipe, workers, workspace: ws, table: o.table, arch, signal: o.signal });
      for (const r of candidates) emit(withRejudge(r, verdicts.get(r.id)!));
    }
    const interrupted = o.signal?.aborted ?? false;
    for (const p of runnable) {
      if (!results.has(p.mutation.id)) emit(mk(p.mutation, p.span, null, null, interrupted ? voidJ('INTERRUPTED', 'not run: interrupted') : voidJ('TREE_BROKEN', 'not run: every scratch tree failed its restore check'), null));
    }

    const after = treeSha(userSrc, sourceExclude);
    const rows = planned.map((p) => results.get(p.mutation.id)!);
    // Generated rows of which none was judged (all excluded or void) measured nothing: NOT MEASURED.
    const genRows = rows.filter((r) => r.origin);
    const genMeasured = genRows.some((r) => r.verdict === 'CAUGHT' || r.verdict === 'CAUGHT BY SANITIZER' || r.verdict === 'SURVIVED' || r.verdict === 'TIMEOUT');
    // Likewise a run whose every asked-for row was left out of the score (device rows on arch cpu).
    const asked = rows.filter((r) => !r.mutation.selfTest);
    const extra: ExitClass[] = (genRows.length > 0 && !genMeasured) || (asked.length > 0 && asked.every((r) => r.excluded)) ? ['void'] : [];
    return {
      recipe: o.recipe.name, sourceDir: srcRel, workspace: ws, rebuild, wholeBuild: o.wholeBuild === true, jobs,
      rows, baselines: workers.map((w) => w.baseline!).filter(Boolean), baselineFailure,
      userTree: { before: before.sha, after: after.sha, files: before.files, unchanged: before.sha === after.sha },
      recovery, interrupted,
      exitClass: runClass([...rows.map((r) => r.exitClass), ...extra], interrupted || before.sha !== after.sha),
      wallS: Number(monoNs() - t0) / 1e9,
      generation: o.generation ?? null, shard: o.shard ?? null, cacheHits,
    };
  } finally {
    lock.release();
  }
}

// The rows of this run in order: the table's selection (or the --only generated row), every suite's
// self-test, then the generated rows; a shard keeps its share plus every self-test.
function selectRows(o: MutateOptions): Mutation[] {
  // --only names table rows or generated ones; either way their suites' self-tests still run first.
  const ids = o.only === undefined ? null : onlyIds(o.only);
  const generated = ids === null ? (o.generated ?? []) : (o.generated ?? []).filter((g) => ids.has(g.mutation.id));
  const tableIds = ids === null ? undefined : [...ids].filter((id) => !generated.some((g) => g.mutation.id === id));
  let selected = tableIds?.length === 0 ? [] : selectMutants(o.table, { only: tableIds?.join(','), changedFiles: o.changedFiles });
  if (generated.length) {
    // Every suite a generated row names must prove itself armed first, like the table's own rows.
    const have = new Set(selected.filter((m) => m.selfTest).map((m) => m.suite));
    const need = new Set(generated.map((g) => g.mutation.suite));
    const extraSelf = o.table.mutants.filter((m) => m.selfTest && need.has(m.suite) && !have.has(m.suite));
    selected = [...extraSelf, ...selected, ...generated.map((g) => g.mutation)];
  }
  return shardRows(selected, o.shard, (m) => m.selfTest);
}

// Proven results of generated rows kept between runs, keyed by the mutant, its file's sha and the
// baseline binary sha of a tree (any tree's: they are built from the same sources).
function resultCache(dir: string, root: string, workers: readonly Worker[]): { read: (m: Mutation) => MutantResult | null; write: (m: Mutation, r: MutantResult) => void } {
  const keys = (m: Mutation): string[] => {
    const src = fileSha(resolve(root, m.file));
    return workers.flatMap((w) => {
      const base = w.baseline?.binarySha[m.suite];
      return src && base ? [cacheKey(m, src, base)] : [];
    });
  };
  return {
    read: (m) => {
      for (const k of keys(m)) { const hit = readCached(dir, k, m.id); if (hit) return hit; }
      return null;
    },
    write: (m, r) => {
      const w = r.tree === null ? undefined : workers[r.tree];
      const src = fileSha(resolve(root, m.file));
      const base = w?.baseline?.binarySha[m.suite];
      if (src && base) writeCached(dir, cacheKey(m, src, base), r);
    },
  };
}
