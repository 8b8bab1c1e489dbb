import type { Command } from 'commander';
import { NhGateError } from '../../errors.js';
import { runAction } from '../run.js';
import { printJson } from '../output.js';

// Registers `nh-gate probe`: the silicon of this host and which busy sampler is available, and why not.
export function register(program: Command): void {
  program
    .command('probe')
    .description('print this host\'s silicon (GPU, compute capability, driver, CPU) and which busy sampler is available, and why not')
    .option('--json', 'print one JSON document on stdout')
    .option('--device <index>', 'GPU index (required when more than one GPU is visible)')
    .action((opts: { json?: boolean; device?: string }) =>
      runAction(async () => {
        let deviceIndex: number | undefined;
        if (opts.device !== undefined) {
          if (!/^\d+$/.test(opts.device)) throw new NhGateError('USAGE', `--device ${opts.device} is not a GPU index`, 'pass a non-negative integer, e.g. --device 0');
          deviceIndex = Number(opts.device);
        }
        const { gatherProbe, renderProbe } = await import('../../silicon/probeReport.js');
        const report = await gatherProbe(deviceIndex);
        if (opts.json) printJson({ ...report });
        else process.stdout.write(renderProbe(report));
        return 'passed';
      }),
    );
}
