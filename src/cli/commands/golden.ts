import type { Command } from 'commander';
import { notYet, runAction } from '../run.js';

// Registers `nh-gate golden` (placeholder until issue #3 lands).
export function register(program: Command): void {
  program
    .command('golden')
    .description('not built yet (issue #3)')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => runAction(notYet('golden', 3)));
}
