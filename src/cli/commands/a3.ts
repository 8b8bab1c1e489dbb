import type { Command } from 'commander';
import { runAction } from '../run.js';
import { NhGateError } from '../../errors.js';
import { executorOptions, parseExecutor, withExecutor, type ExecutorCliOptions } from '../executor.js';
import { outputOptions, runOutput, type OutputCliOptions } from '../report.js';

export interface A3CliOptions extends ExecutorCliOptions, OutputCliOptions {
  recipe?: string;
  golden?: string;
  gate?: string;
  arch?: string;
  mode?: string;
  jobs: string;
  resultsDir: string;
  checkpoint?: string;
  timeout?: string;
  resume?: string;
}

// A positive integer option, or a usage error naming the option.
export function positiveInt(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new NhGateError('USAGE', `${name} ${v} is not a positive integer`, `pass ${name} N with N ≥ 1`);
  return n;
}

// A positive number of seconds, or a usage error naming the option.
export function positiveSeconds(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new NhGateError('USAGE', `${name} ${v} is not a positive number of seconds`, `pass ${name} S with S > 0`);
  return n;
}

// Registers `nh-gate a3`: the token gate against the golden, with per-token and busy over the decode window.
export function register(program: Command): void {
  outputOptions(executorOptions(program
    .command('a3')))
    .description('build the engine, run it against the golden, judge every token in the harness; per-token over the decode window, busy on a GPU')
    .option('--recipe <name|file>', 'recipe (default: nh-ref, the embedded reference engine)')
    .option('--golden <name|dir|file>', "golden (default: the recipe's defaultGolden)")
    .option('--gate <file>', 'a pre-registered gate of kind a3')
    .option('--arch <arch>', "the target silicon claim: cpu, 90, 90a, 121a, 110 … (checked against this host; default: this host's)")
    .option('--mode <mode>', "decode | fresh-prefill | both (default: the gate's, else decode)")
    .option('--jobs <n>', 'build parallelism', '2')
    .option('--checkpoint <file>', 'value of {checkpoint} in the recipe (engines whose checkpoint is not built by the recipe)')
    .option('--timeout <seconds>', "per-leg timeout (default: the recipe's driver.timeoutS)")
    .option('--results-dir <dir>', 'where runs/ and ledger.jsonl go', '.nh-gate')
    .option('--resume <run-dir>', 'run only the legs that run directory lacks (lost jobs, cancelled legs), keeping its finished ones')
    .option('--json', 'print result.json on stdout')
    .action((opts: A3CliOptions) =>
      runAction(async () => {
        if (opts.mode !== undefined && !['decode', 'fresh-prefill', 'both'].includes(opts.mode)) throw new NhGateError('USAGE', `--mode ${opts.mode} is not one of decode, fresh-prefill, both`, 'pass --mode decode|fresh-prefill|both');
        const jobs = positiveInt('--jobs', opts.jobs);
        parseExecutor(opts, 'a3', true);
        const timeoutS = positiveSeconds('--timeout', opts.timeout);
        const [{ loadInputs }, { runA3 }, { realDeps }] = await Promise.all([
          import('../../gates/setup.js'), import('../../gates/a3.js'), import('../../gates/deps.js'),
        ]);
        const output = await runOutput(opts);
        const inputs = loadInputs({ command: 'a3', recipe: opts.recipe, golden: opts.golden, gate: opts.gate });
        const out = await runA3({ argv: process.argv.slice(2), inputs, arch: opts.arch, mode: (opts.mode ?? inputs.gate?.gate.mode ?? 'decode') as 'decode', jobs, resultsBase: opts.resultsDir, checkpoint: opts.checkpoint, timeoutS, resume: opts.resume }, output.attach(await withExecutor(await realDeps(), opts)));
        output.finish(out.result);
        return out.exitClass;
      }),
    );
}
