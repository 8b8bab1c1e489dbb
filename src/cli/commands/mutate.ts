import type { Command } from 'commander';
import { notYet, runAction } from '../run.js';

// Registers `nh-gate mutate` (placeholder until issue #6 lands).
export function register(program: Command): void {
  program
    .command('mutate')
    .description('not built yet (issue #6)')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => runAction(notYet('mutate', 6)));
}
