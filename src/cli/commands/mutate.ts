import type { Command } from 'commander';
import { runAction } from '../run.js';
import { printJson } from '../output.js';
import { exitCodeFor } from '../exit.js';
import { NhGateError, type ExitClass } from '../../errors.js';

// Options exactly as commander parses them (exported for parser tests).
export interface MutateCliOptions {
  table: string;
  recipe?: string;
  jobs: string;
  only?: string;
  inDiff?: string;
  arch: string;
  out?: string;
  workspace?: string;
  fullRebuild?: boolean;
  json?: boolean;
}

// Registers `nh-gate mutate`: the mutation gate over a table of planted defects (issue #6).
export function register(program: Command): void {
  program
    .command('mutate')
    .description('mutation gate: plant each defect of a table in a scratch copy, rebuild, require the suite to go RED (build-proven, restore-proven)')
    .option('--table <file>', 'mutation table', 'gates/nh-ref/mutations.json')
    .option('--recipe <name|path>', 'recipe to build with (default: the table\'s recipe)')
    .option('--jobs <n>', 'scratch trees mutated in parallel, each with its own build dir', '1')
    .option('--only <id>', 'run one row (its suite\'s self-test still runs first)')
    .option('--in-diff <ref>', 'only rows whose file differs from <ref> (git diff)')
    .option('--arch <arch>', 'recipe arch to configure for', 'cpu')
    .option('--out <dir>', 'run directory for the reports (default .nh-gate/runs/<UTC stamp>-mutate-<recipe>)')
    .option('--workspace <dir>', 'where the scratch trees live (default .nh-gate/mutate/<recipe>)')
    .option('--full-rebuild', 'wipe and reconfigure the build dir for every build (the benchmark\'s control)')
    .option('--json', 'print one JSON document on stdout')
    .action((opts: MutateCliOptions) => runAction(() => mutateCommand(opts)));
}

// The command body: normalize options, lazily import the pipeline, print, return the exit class.
export async function mutateCommand(opts: MutateCliOptions): Promise<ExitClass> {
  const jobs = Number(opts.jobs);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 64) throw new NhGateError('USAGE', `--jobs ${opts.jobs}: not a whole number from 1 to 64`, 'pass e.g. --jobs 2');
  const [{ createRunDir, appendLine }, { ledgerPath }, { writeAtomic }, { renderMutateSummary, mutateLedgerEntry }] = await Promise.all([
    import('../../results/write.js'), import('../../results/ledger.js'), import('../../io/atomic.js'), import('../../mutate/report/summary.js'),
  ]);
  const [{ loadMutationTable, checkTableAgainstRecipe }, { loadRecipe }, { buildVars }, { runMutate }, { changedFilesSince }, { writeReports, resultDoc }, { renderTable }, { onInterrupt }, path] = await Promise.all([
    import('../../config/mutations.js'), import('../../config/load.js'), import('../../build/build.js'), import('../../mutate/run.js'),
    import('../../mutate/diff.js'), import('../../mutate/report/write.js'), import('../../mutate/report/table.js'), import('../../exec/interrupt.js'), import('node:path'),
  ]);
  const root = process.cwd();
  const table = loadMutationTable(path.resolve(root, opts.table));
  const { recipe } = loadRecipe(opts.recipe ?? table.recipe, root);
  const srcRel = path.relative(root, buildVars(recipe, root, opts.arch, 1).sourceDir!).split(path.sep).join('/');
  checkTableAgainstRecipe(table, opts.table, recipe, srcRel);
  const changedFiles = opts.inDiff !== undefined ? changedFilesSince(opts.inDiff, root) : undefined;
  const workspace = path.resolve(root, opts.workspace ?? path.join('.nh-gate', 'mutate', recipe.name));
  const resultsBase = path.resolve(root, '.nh-gate');
  const outDir = opts.out ? path.resolve(root, opts.out) : createRunDir(resultsBase, `mutate-${recipe.name}`, new Date());
  const tty = process.stderr.isTTY === true;
  const interrupt = onInterrupt((sig) => process.stderr.write(`nh-gate mutate: ${sig}: stopping; the scratch file in flight is restored, finished rows are kept\n`));
  let rep;
  try {
    rep = await runMutate({
      root, recipe, table, jobs, only: opts.only, workspace, changedFiles, arch: opts.arch,
      rebuild: opts.fullRebuild ? 'full' : 'incremental', signal: interrupt.signal,
      log: tty ? (l) => process.stderr.write(`${l}\n`) : undefined,
      onRow: (rows) => writeReports(outDir, root, rows, null, null),
    });
  } finally {
    interrupt.dispose();
  }
  const code = exitCodeFor(rep.exitClass);
  writeReports(outDir, root, rep.rows, rep, code);
  // Like every gate: a summary beside the reports and one ledger line.
  writeAtomic(path.join(outDir, 'summary.md'), renderMutateSummary(rep));
  appendLine(ledgerPath(resultsBase), mutateLedgerEntry(rep, opts.arch, outDir, opts.table));
  if (opts.json) {
    printJson({ ...(resultDoc(rep, code, outDir) as Record<string, unknown>) });
    return rep.exitClass;
  }
  if (rep.rows.length === 0) {
    process.stdout.write(`0 rows selected${opts.inDiff !== undefined ? ` by --in-diff ${opts.inDiff} (no table file changed)` : ''}: nothing was mutated, nothing is claimed\n`);
    return rep.exitClass;
  }
  const caught = rep.rows.filter((r) => r.verdict === 'CAUGHT').length;
  const kept = rep.rows.filter((r) => r.matchesExpectation).length;
  process.stdout.write(`${renderTable(rep.rows)}\n`);
  process.stdout.write(`${rep.rows.length} mutant(s): ${caught} caught, ${kept} as the table expects; ${rep.jobs} tree(s), ${rep.rebuild} rebuilds, ${rep.wallS.toFixed(1)} s\n`);
  process.stdout.write(`user tree ${rep.sourceDir}: sha256 ${rep.userTree.before.slice(0, 16)} before, ${rep.userTree.after.slice(0, 16)} after — ${rep.userTree.unchanged ? 'byte-identical' : 'CHANGED DURING THE RUN'}\n`);
  if (rep.recovery) process.stdout.write(`recovered a leftover journal of pid ${rep.recovery.leftoverPid}: restored ${rep.recovery.restored.length} scratch file(s)\n`);
  if (rep.baselineFailure) process.stdout.write(`baseline: ${rep.baselineFailure}\n`);
  if (rep.interrupted) process.stdout.write('interrupted: unfinished rows are VOID INTERRUPTED\n');
  process.stdout.write(`reports: ${outDir}\n`);
  return rep.exitClass;
}
