import type { Command } from 'commander';
import type { GateDeps } from '../gates/deps.js';
import type { SlurmTasks } from '../slurm/task.js';
import { NhGateError } from '../errors.js';

// --executor local|slurm and --slurm-config, shared by the commands that run legs (docs/fleet.md).
export interface ExecutorCliOptions {
  executor?: string;
  slurmConfig?: string;
}

// Adds the two options to a command.
export function executorOptions(cmd: Command): Command {
  return cmd
    .option('--executor <local|slurm>', 'where legs run: here, or each as a Slurm job with one exclusive GPU (docs/fleet.md)', 'local')
    .option('--slurm-config <file>', 'the site\'s Slurm form (partition, gres, constraints, copy mode …); default ./nh-gate.slurm.json when present');
}

// The executor named, or a usage error; commands that cannot run through Slurm yet say so by name.
export function parseExecutor(opts: ExecutorCliOptions, command: string, slurmCapable: boolean): 'local' | 'slurm' {
  const e = opts.executor ?? 'local';
  if (e !== 'local' && e !== 'slurm') throw new NhGateError('USAGE', `--executor ${e} is not local or slurm`, 'pass --executor local (default) or --executor slurm');
  if (e === 'slurm' && !slurmCapable) throw new NhGateError('NOT_IMPLEMENTED', `'nh-gate ${command} --executor slurm' is not built yet: a3, ab, busy and mutate run through Slurm`, `run '${command}' with --executor local on the node itself (e.g. inside an salloc), or use a3/ab --executor slurm`);
  if (e === 'local' && opts.slurmConfig !== undefined) throw new NhGateError('USAGE', '--slurm-config was given without --executor slurm', 'add --executor slurm, or drop --slurm-config');
  return e;
}

// The gate's effects with legs sent to Slurm when asked (the config is read and checked first).
export async function withExecutor(deps: GateDeps, opts: ExecutorCliOptions): Promise<GateDeps> {
  if ((opts.executor ?? 'local') !== 'slurm') return deps;
  const [{ loadSlurmConfig }, { slurmClient }, { slurmLegRunner }, { watchJob, clearJob }] = await Promise.all([
    import('../slurm/config.js'), import('../slurm/client.js'), import('../slurm/legRunner.js'), import('../exec/reaper.js'),
  ]);
  const { config } = loadSlurmConfig(opts.slurmConfig);
  return { ...deps, legRunner: slurmLegRunner({ config, client: slurmClient(deps.exec), progress: deps.progress, watchJob, clearJob }) };
}

// busy and mutate --executor slurm: their node tasks (the command, each suite run) through Slurm.
export async function nodeTasks(opts: ExecutorCliOptions, deps: Pick<GateDeps, 'exec' | 'progress'>, command: 'busy' | 'mutate'): Promise<SlurmTasks> {
  const [{ loadSlurmConfig }, { slurmClient }, { slurmTasks }, { mutateSlurmConfig }] = await Promise.all([
    import('../slurm/config.js'), import('../slurm/client.js'), import('../slurm/task.js'), import('../slurm/suiteRunner.js'),
  ]);
  const { config } = loadSlurmConfig(opts.slurmConfig);
  return slurmTasks({ config: command === 'mutate' ? mutateSlurmConfig(config) : config, client: slurmClient(deps.exec), progress: deps.progress });
}
