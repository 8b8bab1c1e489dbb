import type { ProcessRun, ProcessSpec } from '../../exec/types.js';
import { runFromWire, runToWire, type WireRun } from './wireRun.js';
import type { TaskContext } from './context.js';

// The node side of a plain command (mutate's suite runs through Slurm): the process spawned on the node,
// its whole process tree killed on the job's interrupt, every line kept and stamped. The harness parses it.

export interface CommandTaskBody {
  // argv, cwd, env and time-out exactly as the harness would have spawned it (the paths are on the shared path).
  spec: ProcessSpec;
}

// The command part of the node record.
export interface CommandTaskRecord {
  run: WireRun;
}

// Runs the command on this node.
export async function handle(body: unknown, ctx: TaskContext): Promise<CommandTaskRecord> {
  const { spec } = body as CommandTaskBody;
  const { runProcess } = await import('../../exec/spawn.js');
  return { run: runToWire(await runProcess(spec, { signal: ctx.signal })) };
}

// The process as the harness reads it back from the record; null when the record holds none.
export function commandRunFromRecord(body: unknown): ProcessRun | null {
  const r = (body as CommandTaskRecord | null)?.run;
  return r ? runFromWire(r) : null;
}
