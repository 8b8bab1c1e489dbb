import type { Command } from 'commander';
import { runAction } from '../run.js';
import { printJson } from '../output.js';
import { NhGateError } from '../../errors.js';
import { executorOptions, parseExecutor, withExecutor, type ExecutorCliOptions } from '../executor.js';
import { outputOptions, runOutput, type OutputCliOptions } from '../report.js';
import { positiveInt, positiveSeconds } from './a3.js';
import { crossCommitRequested, runAbForm } from './abForms.js';
import { withWarmup } from '../../plan/warmup.js';
import { parseFlagSpec } from '../../plan/flagArms.js';

interface AbCliOptions extends ExecutorCliOptions, OutputCliOptions {
  flag?: string;
  gate?: string;
  recipe?: string;
  golden?: string;
  repeats?: string;
  order?: string;
  seed: string;
  arch?: string;
  mode: string;
  jobs: string;
  checkpoint?: string;
  timeout?: string;
  resultsDir: string;
  resume?: string;
  dryRun?: boolean;
  sequential?: boolean;
  aa?: boolean;
  budget?: string;
  base?: string;
  head?: string;
}

// Registers `nh-gate ab`: a same-binary A/B of one recipe flag, legs interleaved and token-gated.
export function register(program: Command): void {
  outputOptions(executorOptions(program
    .command('ab')))
    .description('same-binary A/B of one flag: interleaved token-gated legs, ratio with a bootstrap interval, verdict against a pre-registered gate')
    .option('--flag <name[=A,B]>', "the recipe flag to compare: NAME (A = off, B = on unless the gate's arms say otherwise) or NAME=A_VALUE,B_VALUE (on, off, default or a declared value)")
    .option('--gate <file>', 'a pre-registered gate of kind ab (its sha256 goes into the result)')
    .option('--recipe <name|file>', 'recipe (default: the gate\'s, else nh-ref)')
    .option('--golden <name|dir|file>', "golden (default: the gate's, else the recipe's)")
    .option('--repeats <n>', 'legs per arm (default: the gate\'s, else 4)')
    .option('--order <order>', 'abba | random (seeded, drawn per pair)')
    .option('--seed <n>', 'seed of the random order and of the bootstrap', '1')
    .option('--arch <arch>', 'the target silicon claim (checked against this host)')
    .option('--mode <mode>', 'decode | fresh-prefill', 'decode')
    .option('--jobs <n>', 'build parallelism', '2')
    .option('--checkpoint <file>', 'value of {checkpoint} in the recipe')
    .option('--timeout <seconds>', 'per-leg timeout')
    .option('--results-dir <dir>', 'where runs/ and ledger.jsonl go', '.nh-gate')
    .option('--dry-run', 'print the plan (legs and their order) and exit')
    .option('--resume <run-dir>', 'run only the legs that run directory lacks (lost jobs, cancelled legs), keeping its finished ones')
    .option('--sequential', "ABBA blocks judged after each by an anytime-valid test; stops when decided (the gate's \"sequential\" block)")
    .option('--aa', "A/A calibration: the gate's A arm on both sides, false-alarm rate into the ledger for this silicon")
    .option('--base <rev>', 'cross-commit A/B: the base commit (arm A), built in its own git worktree')
    .option('--head <rev>', 'cross-commit A/B: the head commit (arm B); the result says "two binaries"')
    .option('--budget <legs>', 'sequential leg budget (default: the gate\'s sequential.maxLegs)')
    .option('--json', 'print result.json on stdout')
    .action((opts: AbCliOptions) =>
      runAction(async () => {
        if (opts.order !== undefined && opts.order !== 'abba' && opts.order !== 'random') throw new NhGateError('USAGE', `--order ${opts.order} is not abba or random`, 'pass --order abba|random');
        if (opts.mode !== 'decode' && opts.mode !== 'fresh-prefill') throw new NhGateError('USAGE', `--mode ${opts.mode} is not decode or fresh-prefill`, 'pass --mode decode|fresh-prefill');
        const seed = Number(opts.seed);
        if (!Number.isInteger(seed)) throw new NhGateError('USAGE', `--seed ${opts.seed} is not an integer`, 'pass --seed N');
        const repeats = opts.repeats === undefined ? undefined : positiveInt('--repeats', opts.repeats);
        const jobs = positiveInt('--jobs', opts.jobs);
        parseExecutor(opts, 'ab', true);
        const timeoutS = positiveSeconds('--timeout', opts.timeout);
        const [{ loadInputs }, { runAb }, { realDeps }, { planAb, describePlan }] = await Promise.all([
          import('../../gates/setup.js'), import('../../gates/ab/ab.js'), import('../../gates/deps.js'), import('../../plan/plan.js'),
        ]);
        const output = await runOutput(opts);
        const cross = crossCommitRequested(opts);
        const spec = opts.flag === undefined ? null : parseFlagSpec(opts.flag);
        const inputs = loadInputs({ command: 'ab', recipe: opts.recipe, golden: opts.golden, gate: opts.gate, flag: spec?.name, flagOptional: cross });
        const order = (opts.order ?? inputs.gate?.gate.order ?? 'abba') as 'abba' | 'random';
        const form = await runAbForm(opts, inputs, { argv: process.argv.slice(2), arch: opts.arch, repeats, order, seed, mode: opts.mode as 'decode', jobs, resultsBase: opts.resultsDir, checkpoint: opts.checkpoint, timeoutS, json: Boolean(opts.json), output });
        if (form !== null) return form;
        const g = inputs.gate?.gate ?? null;
        const arms = spec?.arms ?? g?.arms ?? { A: 'off', B: 'on' };
        // Planned here too, so an undeclared arm value is refused (exit 2) before anything is built or written.
        const plan = planAb({ recipe: inputs.recipe, gate: g, flag: inputs.flag!, repeats: repeats ?? g?.repeats ?? 4, order, seed, mode: opts.mode as 'decode', armValues: arms });
        if (opts.dryRun) {
          const shown = withWarmup(plan, g?.warmupLegs ?? 0);
          if (opts.json) printJson({ dryRun: true, plan: { order: plan.order, seed: plan.seed, text: describePlan(shown), legs: shown.legs } });
          else process.stdout.write(describePlan(shown) + '\n');
          return 'passed';
        }
        const out = await runAb({ argv: process.argv.slice(2), inputs, arch: opts.arch, repeats, order, seed, mode: opts.mode as 'decode', jobs, resultsBase: opts.resultsDir, checkpoint: opts.checkpoint, timeoutS, arms, resume: opts.resume }, output.attach(await withExecutor(await realDeps(), opts)));
        output.finish(out.result);
        return out.exitClass;
      }),
    );
}
