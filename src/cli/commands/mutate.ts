import type { Command } from 'commander';
import { runAction } from '../run.js';
import { printJson } from '../output.js';
import { exitCodeFor } from '../exit.js';
import { NhGateError, type ExitClass } from '../../errors.js';
import { executorOptions, nodeTasks, parseExecutor, type ExecutorCliOptions } from '../executor.js';

// Options exactly as commander parses them (exported for parser tests).
export interface MutateCliOptions extends ExecutorCliOptions {
  table: string;
  recipe?: string;
  jobs: string;
  only?: string;
  inDiff?: string;
  arch: string;
  out?: string;
  workspace?: string;
  fullRebuild?: boolean;
  wholeBuild?: boolean;
  sanitizer?: boolean;
  json?: boolean;
  map?: string;
  shard?: string;
  cache?: boolean;
  format?: string;
}

// Registers `nh-gate mutate`: the mutation gate over a table of planted defects (issue #6).
export function register(program: Command): void {
  executorOptions(program
    .command('mutate'))
    .description('mutation gate: plant each defect of a table in a scratch copy, rebuild, require the suite to go RED (build-proven, restore-proven)')
    .option('--table <file>', 'mutation table', 'gates/nh-ref/mutations.json')
    .option('--recipe <name|path>', 'recipe to build with (default: the table\'s recipe)')
    .option('--jobs <n>', 'scratch trees mutated in parallel, each with its own build dir', '1')
    .option('--only <ids>', 'run these rows only, ids separated by commas (their suites\' self-tests still run first)')
    .option('--in-diff <rev>', 'generate mutants from the lines changed since <rev> (git diff), plus the table rows whose file changed')
    .option('--map <file>', 'in-diff config: caps and file → suite routes (default: in-diff.json beside the table)')
    .option('--shard <K/N>', 'run every N-th row starting at K (self-tests always run), to split CI jobs')
    .option('--no-cache', 'judge every generated row again instead of reusing proven results')
    .option('--format <text|github>', 'text (default) or GitHub workflow annotations for survivors', 'text')
    .option('--arch <arch>', 'recipe arch to configure for', 'cpu')
    .option('--out <dir>', 'run directory for the reports (default .nh-gate/runs/<UTC stamp>-mutate-<recipe>)')
    .option('--workspace <dir>', 'where the scratch trees live (default .nh-gate/mutate/<recipe>)')
    .option('--full-rebuild', 'wipe and reconfigure the build dir for every build (the benchmark\'s control)')
    .option('--whole-build', 'build every target for every mutant, not its suite\'s targets (the benchmark\'s control)')
    .option('--no-sanitizer', 'do not re-judge survivors in the recipe\'s sanitizer build')
    .option('--json', 'print one JSON document on stdout')
    .action((opts: MutateCliOptions) => runAction(() => mutateCommand(opts)));
}

// The command body: normalize options, run the mutate gate, print what it returns.
export async function mutateCommand(opts: MutateCliOptions): Promise<ExitClass> {
  const executor = parseExecutor(opts, 'mutate', true);
  const [{ runMutateGate, mutateJobs }, { resultDoc }, { renderTable }, path, inDiffReport] = await Promise.all([
    import('../../gates/mutate.js'), import('../../mutate/report/write.js'), import('../../mutate/report/table.js'), import('node:path'), import('../../mutate/report/in-diff.js'),
  ]);
  const jobs = mutateJobs(opts.jobs);
  if (opts.format !== undefined && opts.format !== 'text' && opts.format !== 'github') throw new NhGateError('USAGE', `--format ${opts.format}: not text or github`, 'pass --format github in a GitHub Actions step, or leave it out');
  const tty = process.stderr.isTTY === true;
  const log = tty ? (l: string) => process.stderr.write(`${l}\n`) : undefined;
  // --executor slurm: every suite run is a node task; the submission is checked before anything builds.
  const makeTasks = executor === 'slurm' ? async () => nodeTasks(opts, { exec: (await import('../../exec/spawn.js')).realExecutor, progress: (l) => { if (tty) process.stderr.write(`${l}\n`); } }, 'mutate') : null;
  const out = await runMutateGate({
    root: process.cwd(), table: opts.table, recipe: opts.recipe, jobs, only: opts.only, inDiff: opts.inDiff, map: opts.map, shard: opts.shard,
    cache: opts.cache !== false, arch: opts.arch, out: opts.out, workspace: opts.workspace, fullRebuild: opts.fullRebuild === true, wholeBuild: opts.wholeBuild === true, sanitize: opts.sanitizer !== false, makeTasks, log,
  });
  if (out.kind === 'not-measured') return notMeasured(out, opts.json === true, out.generation);
  const { rep, outDir, code } = out;
  if (opts.format === 'github') {
    process.stdout.write(inDiffReport.toGithubAnnotations(rep.rows));
    return rep.exitClass;
  }
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
  if (rep.generation) {
    process.stdout.write(`${inDiffReport.renderGeneration(rep.generation, rep.sourceDir)}\n${inDiffReport.renderGeneratedCounts(rep.rows)}${rep.shard ? ` (shard ${rep.shard.k}/${rep.shard.n})` : ''}\n${inDiffReport.renderSurvivors(rep.rows)}\n`);
  }
  process.stdout.write(`${rep.rows.length} mutant(s): ${caught} caught, ${kept} as the table expects; ${rep.jobs} tree(s), ${rep.rebuild} rebuilds, ${rep.wallS.toFixed(1)} s\n`);
  const offArch = rep.rows.filter((r) => r.reason === 'NO_GPU_ARCH').length;
  if (offArch > 0) process.stdout.write(`${offArch} device row(s) not run on arch ${opts.arch} (VOID NO_GPU_ARCH, left out of the score): judge them with a GPU arch on a GPU host\n`);
  process.stdout.write(`user tree ${rep.sourceDir}: sha256 ${rep.userTree.before.slice(0, 16)} before, ${rep.userTree.after.slice(0, 16)} after — ${rep.userTree.unchanged ? 'byte-identical' : 'CHANGED DURING THE RUN'}\n`);
  if (executor === 'slurm') {
    const jobs = [...rep.rows.map((r) => r.suite), ...rep.baselines.flatMap((b) => Object.values(b.suites))].flatMap((s) => (s?.slurm ? [s.slurm] : []));
    process.stdout.write(`slurm: ${jobs.length} suite run(s) as jobs on ${[...new Set(jobs.map((j) => j.node ?? '?'))].sort().join(', ') || 'no node'} (requests and records: ${path.join(outDir, 'tasks')})\n`);
  }
  if (rep.recovery) process.stdout.write(`recovered a leftover journal of pid ${rep.recovery.leftoverPid}: restored ${rep.recovery.restored.length} scratch file(s)\n`);
  if (rep.baselineFailure) process.stdout.write(`baseline: ${rep.baselineFailure}\n`);
  if (rep.interrupted) process.stdout.write('interrupted: unfinished rows are VOID INTERRUPTED\n');
  process.stdout.write(`reports: ${outDir}\n`);
  return rep.exitClass;
}

// --in-diff with nothing to judge: NOT MEASURED (exit 3) with the reason, before any scratch tree exists.
function notMeasured(nm: { reason: string; message: string; exitClass: ExitClass }, json: boolean, generation: object): ExitClass {
  if (json) process.stdout.write(JSON.stringify({ schemaVersion: 1, kind: 'mutate', verdict: 'NOT MEASURED', reason: nm.reason, message: nm.message, exitClass: nm.exitClass, exitCode: exitCodeFor(nm.exitClass), generation, rows: [] }, null, 2) + '\n');
  else process.stdout.write(`NOT MEASURED (${nm.reason}): ${nm.message}: no mutant was generated or run, nothing is claimed\n`);
  return nm.exitClass;
}
