import type { Command } from 'commander';
import { notYet, runAction } from '../run.js';

// Registers `nh-gate a3` (placeholder until issue #4 lands).
export function register(program: Command): void {
  program
    .command('a3')
    .description('not built yet (issue #4)')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => runAction(notYet('a3', 4)));
}
