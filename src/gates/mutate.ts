import { join, relative, resolve, sep } from 'node:path';
import { rmSync } from 'node:fs';
import { NhGateError, type ExitClass } from '../errors.js';
import { exitCodeFor } from '../cli/exit.js';
import type { SlurmTasks } from '../slurm/task.js';
import type { MutateReport } from '../mutate/run.js';

// nh-gate mutate as a gate: table → in-diff generation → the mutation run → reports, summary.md and the
// ledger line; NOT MEASURED by name when --in-diff leaves nothing to mutate. The CLI parses options and prints
// what this returns; it decides no verdict and writes no ledger.

export interface MutateGateOptions {
  root: string;
  table: string;
  recipe?: string | undefined;
  jobs: number;
  only?: string | undefined;
  inDiff?: string | undefined;
  map?: string | undefined;
  shard?: string | undefined;
  cache: boolean;
  arch: string;
  out?: string | undefined;
  workspace?: string | undefined;
  fullRebuild: boolean;
  // --whole-build: every target for every mutant; sanitize false: --no-sanitizer.
  wholeBuild: boolean;
  sanitize: boolean;
  // --executor slurm: every suite run is a node task (made once the table and the diff have been read).
  makeTasks: (() => Promise<SlurmTasks>) | null;
  log?: ((line: string) => void) | undefined;
}

// The gate's outcome: nothing measured (with why), or the run's report and where it was written.
export type MutateOutcome =
  | { kind: 'not-measured'; reason: string; message: string; generation: object; exitClass: ExitClass }
  | { kind: 'ran'; rep: MutateReport; outDir: string; code: number; exitClass: ExitClass };

// --in-diff with nothing to judge: NOT MEASURED (exit 3), before any scratch tree exists.
function notMeasured(nm: { reason: string; message: string }, generation: object): MutateOutcome {
  return { kind: 'not-measured', ...nm, generation, exitClass: 'void' };
}

export async function runMutateGate(o: MutateGateOptions): Promise<MutateOutcome> {
  const [{ createRunDir, appendLine }, { ledgerPath }, { writeAtomic }, { renderMutateSummary, mutateLedgerEntry }] = await Promise.all([
    import('../results/write.js'), import('../results/ledger.js'), import('../io/atomic.js'), import('../mutate/report/summary.js'),
  ]);
  const [{ loadMutationTable, checkTableAgainstRecipe }, { loadRecipe }, { buildVars }, { runMutate }, { changedFilesSince }, { writeReports }, { onInterrupt }, { prepareInDiff }, { parseShard }] = await Promise.all([
    import('../config/mutations.js'), import('../config/load.js'), import('../build/build.js'), import('../mutate/run.js'),
    import('../mutate/diff.js'), import('../mutate/report/write.js'), import('../exec/interrupt.js'),
    import('../mutate/generate/prepare.js'), import('../mutate/shard.js'),
  ]);
  const shard = o.shard !== undefined ? parseShard(o.shard) : undefined;
  const root = o.root;
  const table = loadMutationTable(resolve(root, o.table));
  const { recipe } = loadRecipe(o.recipe ?? table.recipe, root);
  const srcRel = relative(root, buildVars(recipe, root, o.arch, 1).sourceDir!).split(sep).join('/');
  checkTableAgainstRecipe(table, o.table, recipe, srcRel);
  const inDiff = o.inDiff !== undefined ? prepareInDiff({ rev: o.inDiff, root, tableFile: o.table, mapFile: o.map, table, recipe, sourceDirRel: srcRel }) : undefined;
  if (inDiff?.notMeasured) return notMeasured(inDiff.notMeasured, inDiff.summary);
  const changedFiles = o.inDiff !== undefined ? changedFilesSince(o.inDiff, root) : undefined;
  const workspace = resolve(root, o.workspace ?? join('.nh-gate', 'mutate', recipe.name));
  const resultsBase = resolve(root, '.nh-gate');
  // --out skips createRunDir's check of the results paths, but the ledger line still goes under resultsBase.
  (await import('../results/resultsPaths.js')).checkResultsBase(resultsBase);
  const outDir = o.out ? resolve(root, o.out) : createRunDir(resultsBase, `mutate-${recipe.name}`, new Date());
  const tasks = o.makeTasks ? await o.makeTasks() : null;
  if (tasks) {
    try {
      await tasks.preflight(outDir, o.arch, { arm: 'single', timeoutS: 3600, scopeTasks: 1 });
    } catch (err) {
      // A refused submission leaves no half-made run directory behind (exit 2, nothing mutated).
      if (!o.out) rmSync(outDir, { recursive: true, force: true });
      throw err;
    }
  }
  const suiteRunner = tasks ? (await import('../slurm/suiteRunner.js')).slurmSuiteRunner(tasks, outDir, o.arch) : undefined;
  const interrupt = onInterrupt((sig) => process.stderr.write(`nh-gate mutate: ${sig}: stopping; the scratch file in flight is restored, finished rows are kept\n`));
  let rep;
  try {
    rep = await runMutate({
      root, recipe, table, jobs: o.jobs, only: o.only, workspace, changedFiles, arch: o.arch,
      rebuild: o.fullRebuild ? 'full' : 'incremental', wholeBuild: o.wholeBuild, sanitize: o.sanitize, signal: interrupt.signal, log: o.log,
      onRow: (rows) => writeReports(outDir, root, rows, null, null),
      generated: inDiff?.mutants, generation: inDiff?.summary, shard,
      cacheDir: inDiff && o.cache ? join(workspace, 'cache') : null, suiteRunner,
    });
  } finally {
    interrupt.dispose();
    await tasks?.release();
  }
  if (inDiff && rep.rows.length === 0) {
    return notMeasured({ reason: 'NO_MUTANTS', message: `--in-diff ${o.inDiff}: the changed lines of ${srcRel} gave no mutant${shard ? ` in shard ${shard.k}/${shard.n}` : ''} and no table row's file changed` }, inDiff.summary);
  }
  const code = exitCodeFor(rep.exitClass);
  writeReports(outDir, root, rep.rows, rep, code);
  // Like every gate: a summary beside the reports and one ledger line.
  writeAtomic(join(outDir, 'summary.md'), renderMutateSummary(rep));
  appendLine(ledgerPath(resultsBase), mutateLedgerEntry(rep, o.arch, outDir, o.table));
  return { kind: 'ran', rep, outDir, code, exitClass: rep.exitClass };
}

// --jobs for mutate: 1 to 64 scratch trees.
export function mutateJobs(v: string): number {
  const jobs = Number(v);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 64) throw new NhGateError('USAGE', `--jobs ${v}: not a whole number from 1 to 64`, 'pass e.g. --jobs 2');
  return jobs;
}
