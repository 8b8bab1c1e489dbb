import type { Command } from 'commander';
import { notYet, runAction } from '../run.js';

// Registers `nh-gate analyze` (placeholder until issue #2 lands).
export function register(program: Command): void {
  program
    .command('analyze')
    .description('not built yet (issue #2)')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => runAction(notYet('analyze', 2)));
}
