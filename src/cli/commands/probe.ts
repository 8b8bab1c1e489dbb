import type { Command } from 'commander';
import { notYet, runAction } from '../run.js';

// Registers `nh-gate probe` (placeholder until issue #5 lands).
export function register(program: Command): void {
  program
    .command('probe')
    .description('not built yet (issue #5)')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => runAction(notYet('probe', 5)));
}
