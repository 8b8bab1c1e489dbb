import type { Command } from 'commander';
import { runAction } from '../run.js';
import { printJson } from '../output.js';
import { positiveInt } from './a3.js';

interface BuildCliOptions {
  recipe?: string;
  arch?: string;
  jobs: string;
  flag?: string[];
  json?: boolean;
}

// Registers `nh-gate build`: configure + build a recipe for an arch, refusing a degraded build by name.
export function register(program: Command): void {
  program
    .command('build')
    .description('configure and build a recipe for an arch: probes, feature cells (DEGRADED_BUILD names the missing ones), compile errors, ENOSPC, output sha256')
    .option('--recipe <name|file>', 'recipe (default: nh-ref)')
    .option('--arch <arch>', 'the target silicon claim: cpu, 90, 90a, 121a, 110 … (checked against this host)')
    .option('--jobs <n>', 'build parallelism', '2')
    .option('--flag <name...>', 'also require the feature cells these flags need (the arm you will run)')
    .option('--json', 'print the build record as JSON on stdout')
    .action((opts: BuildCliOptions) =>
      runAction(async () => {
        const jobs = positiveInt('--jobs', opts.jobs);
        const [{ runBuild }, { realDeps }] = await Promise.all([import('../../gates/build.js'), import('../../gates/deps.js')]);
        const out = await runBuild({ recipe: opts.recipe, arch: opts.arch, jobs, flags: opts.flag }, await realDeps());
        if (opts.json) printJson({ record: out.record, lines: out.lines, exitClass: out.exitClass });
        else process.stdout.write(out.lines.join('\n') + '\n');
        return out.exitClass;
      }),
    );
}
