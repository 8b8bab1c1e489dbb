import type { Command } from 'commander';
import { runAction } from '../run.js';
import { exitCodeFor } from '../exit.js';
import { analyzeProfileNames } from '../../analyze/profileNames.js';

// Registers `nh-gate analyze`: a driver log captured anywhere → every number that can honestly be derived.
export function register(program: Command): void {
  program
    .command('analyze')
    .description('read a captured driver log: token gate, per-prompt rows, reference tier, counters, per-token time, busy fraction, baselines — each measured, refused or withheld by name')
    .requiredOption('--log <file>', 'driver log (plain, or an nh-gate leg log with arrival times)')
    .option('--profile <name|file>', `output profile: ${analyzeProfileNames().join(', ')}, or a profile JSON file (default: the one a leg log's header names, else the one whose line prefix the log carries)`)
    .option('--recipe <name|file>', 'recipe (its profile and baselines); default: the recipe of the profile found in the log, nemotron-h when no line carries a known prefix')
    .option('--window <T0:T1>', 'decode window in monotonic seconds (the samples clock); overrides the derived one')
    .option('--samples <file>', 'samples JSONL (schemas/samples.json) for the busy fraction')
    .option('--arch <arch>', 'the arch the log was taken on (121a, 90, 110, cpu): baselines are quoted only on their own arch')
    .option('--label <text>', 'a label printed with the result')
    .option('--json', 'print one JSON document on stdout')
    .action((opts: { log: string }) =>
      runAction(async () => {
        const { runAnalyze } = await import('../../analyze/command.js');
        return runAnalyze(opts, exitCodeFor);
      }),
    );
}
