import { NhGateError } from '../../errors.js';
import type { ExitClass } from '../../errors.js';
import { printJson } from '../output.js';
import { withExecutor, type ExecutorCliOptions } from '../executor.js';
import { runOutput, type OutputCliOptions, type RunOutput } from '../report.js';
import type { Inputs } from '../../gates/setup.js';
import { positiveSeconds } from './a3.js';
import { stopOf, type AbCliOptions } from './abRequest.js';

// `nh-gate ab --flag NAME=V1,V2,V3…`: a sweep, through the A/B pipeline's series and judge. The options a
// sweep cannot honour are refused here, before anything is loaded, built or written (exit 2).

export type SweepCliOptions = AbCliOptions & ExecutorCliOptions & OutputCliOptions & { baseline?: string };

// The A/B options that have no meaning for a sweep, each with what to do instead.
export function refuseSweepOptions(o: AbCliOptions): void {
  const no = (opt: string, fix: string): never => { throw new NhGateError('USAGE', `${opt} cannot be combined with a sweep (--flag ${o.flag})`, fix); };
  if (o.sequential) no('--sequential', 'a sweep runs a fixed number of blocks (--repeats); compare two values (--flag NAME=A,B) to stop sequentially');
  if (o.aa) no('--aa', 'an A/A runs one arm on both sides: run it with --flag NAME=V,V');
  if (o.base !== undefined || o.head !== undefined) no(o.base !== undefined ? '--base' : '--head', 'a sweep compares values of one flag in one binary; for two commits drop the sweep');
  if (o.budget !== undefined) no('--budget', 'use --repeats for the number of blocks');
  if (o.order !== undefined) no('--order', "a sweep's order is its Williams design (printed by --dry-run)");
}

// The sweep from the command line (values from --flag), or from a gate's "sweep" (inputs and output already made).
export async function sweepCommand(opts: SweepCliOptions, flagName: string, values: string[], pre?: { inputs: Inputs; output: RunOutput }): Promise<ExitClass> {
  refuseSweepOptions(opts);
  const timeoutS = positiveSeconds('--timeout', opts.timeout);
  const [{ loadInputs }, { planSweepForm, runSweepPlan, sweepPlanJson, sweepPlanText }, { realDeps }] = await Promise.all([
    import('../../gates/setup.js'), import('../../gates/ab/sweep.js'), import('../../gates/deps.js'),
  ]);
  const output = pre?.output ?? await runOutput(opts);
  const inputs = pre?.inputs ?? loadInputs({ command: 'ab', recipe: opts.recipe, golden: opts.golden, gate: opts.gate, flag: flagName, flagOptional: false });
  // Planned before anything is built or written: an undeclared value, a duplicate or a stray --baseline is refused here (exit 2).
  const plan = planSweepForm({
    stop: stopOf(opts, inputs), inputs, resultsBase: opts.resultsDir, values, baseline: opts.baseline,
    cli: { repeats: opts.repeats, seed: opts.seed, warmupLegs: opts.warmup, mode: opts.mode, arch: opts.arch },
  });
  if (opts.dryRun) {
    if (opts.json) printJson({ dryRun: true, plan: sweepPlanJson(plan) });
    else process.stdout.write(sweepPlanText(plan) + '\n');
    return 'passed';
  }
  const deps = await realDeps();
  const out = await runSweepPlan(plan, { argv: process.argv.slice(2), inputs, arch: opts.arch, jobs: opts.jobs, resultsBase: opts.resultsDir, checkpoint: opts.checkpoint, timeoutS, resume: opts.resume }, output.attach(await withExecutor(deps, opts)));
  output.finish(out.result);
  return out.exitClass;
}
