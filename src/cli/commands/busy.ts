import type { Command } from 'commander';
import { runAction } from '../run.js';
import { NhGateError } from '../../errors.js';
import { positiveSeconds } from './a3.js';
import { executorOptions, nodeTasks, parseExecutor, type ExecutorCliOptions } from '../executor.js';

interface BusyCliOptions extends ExecutorCliOptions {
  startMarker?: string;
  endMarker?: string;
  device?: string;
  periodMs?: string;
  timeout?: string;
  resultsDir: string;
  json?: boolean;
}

// Registers `nh-gate busy [--start-marker REGEX] -- CMD …`: GPU busy over any command's window.
export function register(program: Command): void {
  executorOptions(program
    .command('busy'))
    .description('sample GPU busy over a command (here, or on a Slurm node with --executor slurm): the window opens at the --start-marker line (else at start) and closes at the --end-marker line (else at the last output line)')
    .argument('<command...>', 'the command and its arguments, after --')
    .option('--start-marker <regex>', "open the window at the first output line matching this (e.g. 'engine loaded in')")
    .option('--end-marker <regex>', "close the window at the first line matching this after the start; never matched → WINDOW_UNKNOWN")
    .option('--device <index>', 'GPU index (required when several are visible)')
    .option('--period-ms <ms>', 'sampling period', '100')
    .option('--timeout <seconds>', 'kill the command (its whole process tree) after this long')
    .option('--results-dir <dir>', 'where runs/ and ledger.jsonl go', '.nh-gate')
    .option('--json', 'print result.json on stdout')
    .action((command: string[], opts: BusyCliOptions) =>
      runAction(async () => {
        const executor = parseExecutor(opts, 'busy', true);
        if (executor === 'slurm' && opts.device !== undefined) throw new NhGateError('USAGE', '--device with --executor slurm: the GPU is the one Slurm gives the job', 'drop --device (the Slurm config\'s gres says which GPU to ask for)');
        const deviceIndex = opts.device === undefined ? undefined : Number(opts.device);
        if (deviceIndex !== undefined && (!Number.isInteger(deviceIndex) || deviceIndex < 0)) throw new NhGateError('USAGE', `--device ${opts.device} is not a GPU index`, 'pass --device 0, 1, …');
        const periodMs = Number(opts.periodMs ?? '100');
        if (!Number.isFinite(periodMs) || periodMs <= 0) throw new NhGateError('USAGE', `--period-ms ${opts.periodMs} is not a positive number`, 'pass --period-ms 100');
        const [{ runBusy }, { realDeps }, { runOutput }] = await Promise.all([import('../../gates/busy/busy.js'), import('../../gates/deps.js'), import('../report.js')]);
        const deps = await realDeps();
        const slurm = executor === 'slurm' ? (await import('../../slurm/busyExecutor.js')).slurmBusyExecutor(await nodeTasks(opts, deps, 'busy')) : undefined;
        const out = await runBusy({ argv: process.argv.slice(2), command, startMarker: opts.startMarker, endMarker: opts.endMarker, deviceIndex, periodMs, timeoutS: positiveSeconds('--timeout', opts.timeout), resultsBase: opts.resultsDir, executor: slurm }, deps);
        (await runOutput({ json: opts.json })).finish(out.result);
        return out.exitClass;
      }),
    );
}
