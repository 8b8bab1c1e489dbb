import type { Command } from 'commander';
import { runAction } from '../run.js';
import type { HistoryOptions } from '../../history/command.js';

// Registers `nh-gate history`: the ledger's figures per silicon key over time, change points, a plot, and
// exit 1 for CI when the newest point sits in a worse segment.
export function register(program: Command): void {
  program
    .command('history')
    .description('ledger figures per silicon key over time: change points (weighted step fit), SVG plots, exit 1 when the newest point is a regression')
    .option('--gate <name>', 'only this gate (by its name in the ledger)')
    .option('--metric <name>', 'only this figure (e.g. ratio, sequentialRatio, leg1.perOutputToken); default: every run-level figure')
    .option('--better <dir>', 'lower | higher: which way is better for the figures shown', 'lower')
    .option('--results-dir <dir>', 'where ledger.jsonl lives (plots go to <dir>/history/)', '.nh-gate')
    .option('--ledger <file>', 'read this ledger file instead')
    .option('--plots <dir>', 'write the SVG plots here')
    .option('--no-plot', 'write no plots')
    .option('--json', 'print one JSON document on stdout')
    .action((opts: HistoryOptions & { plot?: boolean }) =>
      runAction(async () => {
        const { runHistory } = await import('../../history/command.js');
        return (await runHistory({ ...opts, noPlot: opts.plot === false })).exitClass;
      }),
    );
}
