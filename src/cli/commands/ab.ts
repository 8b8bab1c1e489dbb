import type { Command } from 'commander';
import { notYet, runAction } from '../run.js';

// Registers `nh-gate ab` (placeholder until issue #4 lands).
export function register(program: Command): void {
  program
    .command('ab')
    .description('not built yet (issue #4)')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => runAction(notYet('ab', 4)));
}
