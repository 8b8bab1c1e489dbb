import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Mutation, MutationTable } from '../config/mutations.js';
import type { Recipe } from '../config/recipe.js';
import type { ExitClass } from '../errors.js';
import { acquireLock } from '../exec/lock.js';
import { monoNs } from '../exec/clock.js';
import { fileSha, syncTree, treeSha } from './files.js';
import { cacheable, cacheKey, readCached, writeCached } from './cache.js';
import type { GeneratedMutant, GeneratedOrigin, GenerationSummary } from './generate/generate.js';
import { shardRows, type Shard } from './shard.js';
import { Journal, recoverJournal, type Recovery } from './journal.js';
import { onlyIds, planMutants, selectMutants } from './plan.js';
import { suiteKey, treeLayout, type StepOptions, type SuiteRunner } from './steps.js';
import { buildVars } from '../build/build.js';
import { diagnoseFailure } from '../build/diagnose.js';
import { NhGateError } from '../errors.js';
import { resolveProfile } from '../config/profiles.js';
import type { MutantResult, SourceSpan, SuiteRun, TreeBaseline, VoidReason } from './types.js';
import { generatedClass, judgeBaseline, judgeMutant, matchesExpectation, rowClass, runClass, type Judgement, type MutantMeasure } from './verdict.js';
import { baselineSuite, buildBaseline, runMutant, type RebuildMode, type Worker } from './worker.js';
import { gpuSkipped, noGpuArch, offArch } from './device.js';

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
}

// The run as data: rows in table order (self-tests first), the baselines, and the user-tree proof.
export interface MutateReport {
  recipe: string;
  sourceDir: string;
  workspace: string;
  rebuild: RebuildMode;
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

// The mutation gate: preflight → scratch trees → baseline → self-tests → mutants → user-tree proof.
export async function runMutate(o: MutateOptions): Promise<MutateReport> {
  const t0 = monoNs();
  const log = o.log ?? (() => {});
  const rebuild = o.rebuild ?? 'incremental';
  const arch = o.arch ?? 'cpu';
  const userSrc = buildVars(o.recipe, o.root, arch, 1).sourceDir!;
  const srcRel = relative(o.root, userSrc).split('\\').join('/');
  const ws = resolve(o.root, o.workspace ?? join('.nh-gate', 'mutate', o.recipe.name));
  const lock = acquireLock(join(ws, 'lock'), `nh-gate mutate ${o.recipe.name}`);
  try {
    const recovery = await recoverJournal(join(ws, 'journal.json'), ws);
    if (recovery) log(`recovered leftover journal of pid ${recovery.leftoverPid}: restored ${recovery.restored.length}, already original ${recovery.alreadyOriginal.length}`);
    const before = treeSha(userSrc, sourceExclude);

    const origins = new Map((o.generated ?? []).map((g) => [g.mutation.id, g.origin]));
    const mk = (m: Mutation, span: SourceSpan | null, tree: number | null, meas: MutantMeasure | null, j: Judgement, buildS: number | null): MutantResult =>
      row(m, span, tree, meas, j, buildS, origins.get(m.id));
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
    selected = shardRows(selected, o.shard, (m) => m.selfTest);
    const planned = planMutants(selected, (f) => {
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
    const step: StepOptions = { arch, buildJobs: Math.max(1, Math.floor(availableParallelism() / jobs)), profile: resolveProfile(o.recipe.profile, o.root), signal: o.signal, suiteRunner: o.suiteRunner };
    const workers: Worker[] = [];
    for (let k = 0; k < (runnable.length ? jobs : 0); k++) {
      const layout = treeLayout(o.recipe, ws, k, step);
      syncTree(userSrc, layout.sourceDir, sourceExclude);
      workers.push({ layout, recipe: o.recipe, step, journal, rebuild, baseline: null, broken: false });
    }

    // Baseline: every tree builds; tree 0 runs each (suite, filter) once and must be GREEN with cases.
    const suites = [...new Set(runnable.map((p) => p.mutation.suite))];
    let baselineFailure: string | null = null;
    const builds = await Promise.all(workers.map((w) => buildBaseline(w, suites)));
    for (const b of builds) {
      const d = b.build.exitCode !== 0 ? diagnoseFailure(o.recipe, b.build.tail) : null;
      if (d?.prerequisite) {
        throw new NhGateError('MISSING_PREREQUISITE', `the suites of recipe '${o.recipe.name}' need ${d.prerequisite.name}, which the configure did not find: ${d.cause.join(' | ')}`, d.prerequisite.fix);
      }
    }
    builds.forEach((b, k) => {
      const w = workers[k]!;
      const missing = suites.filter((s) => b.binarySha[s] === null);
      if (b.build.exitCode !== 0 || missing.length) baselineFailure ??= `tree ${k}: baseline build exit ${b.build.exitCode}${missing.length ? `, no binary for ${missing.join(', ')}` : ''}: ${b.build.tail.slice(-3).join(' | ')}`;
      w.baseline = { tree: k, buildS: b.build.durationS, binarySha: b.binarySha as Record<string, string>, suites: {} };
    });
    const keyVoid = new Map<string, Judgement>();
    const timeoutS = new Map<string, number>();
    if (baselineFailure === null && workers[0]) {
      for (const p of runnable) {
        const key = suiteKey(p.mutation.suite, p.mutation.filter);
        if (workers[0].baseline!.suites[key] || o.signal?.aborted) continue;
        const run: SuiteRun = await baselineSuite(workers[0], p.mutation.suite, p.mutation.filter, Object.keys(workers[0].baseline!.suites).length);
        workers[0].baseline!.suites[key] = run;
        const ok = judgeBaseline(run);
        if (!ok.ok) keyVoid.set(key, voidJ(ok.reason, `${key}: ${ok.detail}`));
        timeoutS.set(key, Math.max(o.table.timeoutFloorS, o.table.timeoutFactor * run.durationS));
      }
    }

    // Mutants: self-tests first (all of them, across trees), then the rest; each worker pulls the next row.
    const runOne = async (w: Worker, p: (typeof runnable)[number]): Promise<void> => {
      const key = suiteKey(p.mutation.suite, p.mutation.filter);
      const r = await runMutant(w, p.mutation, timeoutS.get(key) ?? o.table.timeoutFloorS);
      emit(mk(p.mutation, p.span, w.layout.index, r.measure, gpuSkipped(judgeMutant(r.measure, p.mutation), p.mutation, r.measure.suite, o.recipe), r.buildS));
    };
    const pool = async (items: typeof runnable): Promise<void> => {
      let next = 0;
      await Promise.all(workers.map(async (w) => {
        for (;;) {
          if (o.signal?.aborted || w.broken) return;
          const p = items[next++];
          if (!p) return;
          await runOne(w, p);
        }
      }));
    };
    const gated = (p: (typeof runnable)[number]): Judgement | null => {
      if (o.signal?.aborted) return voidJ('INTERRUPTED', 'not run: interrupted during the baseline');
      if (baselineFailure !== null) return voidJ('BASELINE_RED', baselineFailure);
      return keyVoid.get(suiteKey(p.mutation.suite, p.mutation.filter)) ?? null;
    };
    for (const p of runnable) { const j = gated(p); if (j) emit(mk(p.mutation, p.span, null, null, j, null)); }
    const live = runnable.filter((p) => !results.has(p.mutation.id));
    await pool(live.filter((p) => p.mutation.selfTest));
    const failedSuites = new Set(live.filter((p) => p.mutation.selfTest && !results.get(p.mutation.id)?.matchesExpectation).map((p) => p.mutation.suite));
    for (const p of live) {
      if (!p.mutation.selfTest && failedSuites.has(p.mutation.suite)) emit(mk(p.mutation, p.span, null, null, voidJ('SELF_TEST_FAILED', `the armed self-test of suite '${p.mutation.suite}' was not CAUGHT: this suite cannot prove a catch`), null));
    }
    let cacheHits = 0;
    const keyOf = (w: Worker, m: Mutation): string | null => {
      const src = fileSha(resolve(o.root, m.file));
      const base = w.baseline?.binarySha[m.suite];
      return src && base ? cacheKey(m, src, base) : null;
    };
    if (o.cacheDir) {
      for (const p of live) {
        if (results.has(p.mutation.id) || !origins.has(p.mutation.id)) continue;
        for (const w of workers) {
          const key = keyOf(w, p.mutation);
          const hit = key ? readCached(o.cacheDir, key, p.mutation.id) : null;
          if (hit) { cacheHits++; emit({ ...hit, mutation: p.mutation, origin: origins.get(p.mutation.id), cached: true }); break; }
        }
      }
    }
    await pool(live.filter((p) => !results.has(p.mutation.id)));
    if (o.cacheDir) {
      for (const p of live) {
        const r = results.get(p.mutation.id);
        const w = r?.tree === null || r?.tree === undefined ? undefined : workers[r.tree];
        const key = w ? keyOf(w, p.mutation) : null;
        if (r && !r.cached && origins.has(r.id) && cacheable(r) && key) writeCached(o.cacheDir, key, r);
      }
    }
    const interrupted = o.signal?.aborted ?? false;
    for (const p of runnable) {
      if (!results.has(p.mutation.id)) emit(mk(p.mutation, p.span, null, null, interrupted ? voidJ('INTERRUPTED', 'not run: interrupted') : voidJ('TREE_BROKEN', 'not run: every scratch tree failed its restore check'), null));
    }

    const after = treeSha(userSrc, sourceExclude);
    const rows = planned.map((p) => results.get(p.mutation.id)!);
    // Generated rows of which none was judged (all excluded or void) measured nothing: NOT MEASURED.
    const genRows = rows.filter((r) => r.origin);
    const genMeasured = genRows.some((r) => r.verdict === 'CAUGHT' || r.verdict === 'SURVIVED' || r.verdict === 'TIMEOUT');
    // Likewise a run whose every asked-for row was left out of the score (device rows on arch cpu).
    const asked = rows.filter((r) => !r.mutation.selfTest);
    const extra: ExitClass[] = (genRows.length > 0 && !genMeasured) || (asked.length > 0 && asked.every((r) => r.excluded)) ? ['void'] : [];
    return {
      recipe: o.recipe.name, sourceDir: srcRel, workspace: ws, rebuild, jobs,
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
