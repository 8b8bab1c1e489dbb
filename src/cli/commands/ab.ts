import { Option, type Command } from 'commander';
import { runAction } from '../run.js';
import { printJson } from '../output.js';
import { executorOptions, parseExecutor, withExecutor, type ExecutorCliOptions } from '../executor.js';
import { outputOptions, runOutput, type OutputCliOptions } from '../report.js';
import { positiveSeconds } from './a3.js';
import { cliArms, crossCommitRequested, intAtLeast, stopOf, wholeNumber, type AbCliOptions } from './abRequest.js';
import { NhGateError, type ExitClass } from '../../errors.js';
import { parseFlagSpec } from '../../plan/flagArms.js';

type Options = AbCliOptions & ExecutorCliOptions & OutputCliOptions & { baseline?: string };

// Registers `nh-gate ab`: every A/B form (fixed, sequential, A/A, cross-commit) through one plan, series and judge.
export function register(program: Command): void {
  outputOptions(executorOptions(program
    .command('ab')))
    .description('A/B of one flag in one binary (or of two commits): interleaved token-gated legs, each criterion with its interval, the verdict against the pre-registered gate')
    .option('--flag <name[=A,B]>', "the recipe flag to compare: NAME (A = off, B = on unless the gate's arms say otherwise), NAME=A_VALUE,B_VALUE (on, off, default or a declared value), or NAME=V1,V2,V3… (a sweep: every value an arm, each against --baseline)")
    .option('--baseline <value>', 'a sweep\'s baseline value, every other arm compared with it (default: the first value listed)')
    .option('--gate <file>', 'a pre-registered gate of kind ab (its sha256 goes into the result)')
    .option('--recipe <name|file>', 'recipe (default: the gate\'s, else nh-ref)')
    .option('--golden <name|dir|file>', "golden (default: the gate's, else the recipe's)")
    .addOption(new Option('--repeats <n>', 'legs per arm (default: the gate\'s, else 4)').argParser(intAtLeast(1)))
    .addOption(new Option('--order <order>', 'leg order (random: seeded, drawn per pair)').choices(['abba', 'random']))
    .addOption(new Option('--seed <n>', "seed of the random order and of the bootstrap (default: the gate's, else 1)").argParser(wholeNumber))
    .addOption(new Option('--warmup <n>', "warm-up legs run first and discarded (default: the gate's warmupLegs, else 0)").argParser(intAtLeast(0)))
    .option('--arch <arch>', 'the target silicon claim (checked against this host)')
    .addOption(new Option('--mode <mode>', "decode mode (default: the gate's, else decode)").choices(['decode', 'fresh-prefill']))
    .addOption(new Option('--jobs <n>', 'build parallelism').argParser(intAtLeast(1)).default(2))
    .option('--checkpoint <file>', 'value of {checkpoint} in the recipe')
    .option('--timeout <seconds>', 'per-leg timeout')
    .option('--results-dir <dir>', 'where runs/ and ledger.jsonl go', '.nh-gate')
    .option('--dry-run', 'print the plan (form, claim, stop rule, deviations, legs) and exit')
    .option('--resume <run-dir>', 'run only the legs that run directory lacks (lost jobs, cancelled legs), keeping its finished ones')
    .option('--sequential', "ABBA blocks judged after each by an anytime-valid test; stops when decided (the gate's \"sequential\" block)")
    .option('--aa', "A/A calibration: the gate's A arm on both sides, false-alarm rate into the ledger for this silicon")
    .option('--base <rev>', 'cross-commit A/B: the base commit (arm A), built in its own git worktree')
    .option('--head <rev>', 'cross-commit A/B: the head commit (arm B); the result says "two binaries"')
    .addOption(new Option('--budget <legs>', "sequential leg budget (default: the gate's sequential.maxLegs)").argParser(intAtLeast(1)))
    .option('--json', 'print result.json on stdout')
    .action((opts: Options) => runAction(() => abCommand(opts)));
}

// The command body: options → request → plan → dry run, or the series with the executor wrapped once.
export async function abCommand(opts: Options): Promise<ExitClass> {
  parseExecutor(opts, 'ab', true);
  const flag = opts.flag === undefined ? null : parseFlagSpec(opts.flag);
  if (flag?.sweep) return (await import('./abSweep.js')).sweepCommand(opts, flag.name, flag.sweep);
  const strayBaseline = (): NhGateError => new NhGateError('USAGE', '--baseline names the baseline arm of a sweep', 'list three or more values, e.g. --flag THREADS=1,2,4 --baseline 2, or pass a --gate with a "sweep" (an A/B\'s arms are A and B)');
  if (opts.baseline !== undefined && opts.gate === undefined) throw strayBaseline();
  const timeoutS = positiveSeconds('--timeout', opts.timeout);
  const cross = crossCommitRequested(opts);
  const [{ loadInputs }, { planAbForm }, { runAbPlan }, { realDeps }, { abPlanJson, abPlanText }, { resolveCommits }] = await Promise.all([
    import('../../gates/setup.js'), import('../../gates/ab/plan.js'), import('../../gates/ab/run.js'), import('../../gates/deps.js'), import('../../gates/ab/describe.js'), import('../../build/worktrees.js'),
  ]);
  const output = await runOutput(opts);
  const inputs = loadInputs({ command: 'ab', recipe: opts.recipe, golden: opts.golden, gate: opts.gate, flag: flag?.name, flagOptional: cross });
  // A gate that registers a sweep runs it, unless --flag names two values (an A/B of two of them).
  const gateSweep = flag?.arms ? undefined : inputs.gate?.gate.sweep;
  if (gateSweep) return (await import('./abSweep.js')).sweepCommand(opts, inputs.flag!, gateSweep.values, { inputs, output });
  if (opts.baseline !== undefined) throw strayBaseline();
  const stop = stopOf(opts, inputs);
  const deps = await realDeps();
  const commits = cross ? await resolveCommits(deps.exec, inputs.root, opts.base!, opts.head!) : null;
  // Planned before anything is built or written: an undeclared arm value or a locked gate is refused here (exit 2).
  const plan = planAbForm({
    stop, inputs, commits, resultsBase: opts.resultsDir,
    cli: { repeats: opts.repeats, order: opts.order, seed: opts.seed, arms: cliArms(opts), budgetLegs: opts.budget, warmupLegs: opts.warmup, mode: opts.mode, arch: opts.arch },
  });
  if (opts.dryRun) {
    if (opts.json) printJson({ dryRun: true, plan: abPlanJson(plan) });
    else process.stdout.write(abPlanText(plan) + '\n');
    return 'passed';
  }
  const out = await runAbPlan(plan, { argv: process.argv.slice(2), inputs, arch: opts.arch, jobs: opts.jobs, resultsBase: opts.resultsDir, checkpoint: opts.checkpoint, timeoutS, resume: opts.resume }, output.attach(await withExecutor(deps, opts)));
  output.finish(out.result);
  return out.exitClass;
}
