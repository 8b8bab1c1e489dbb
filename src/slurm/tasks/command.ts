import type { ProcessRun, ProcessSpec } from '../../exec/types.js';
import { runFromWire, runToWire } from '../wire.js';
import type { TaskHandler } from './types.js';

// The node side of a plain command (mutate's suite runs through Slurm): the process spawned on the node,
// its whole process tree killed on the job's interrupt, every line kept and stamped. The harness parses it.
// The body is the ProcessSpec the harness would have spawned (argv, cwd and env on the shared path).

type CommandWire = { run: ReturnType<typeof runToWire> };

// Runs the command on this node; it writes no files of its own.
export const handleCommand: TaskHandler = async (body, ctx) => {
  const { runProcess } = await import('../../exec/spawn.js');
  const wire: CommandWire = { run: runToWire(await runProcess(body as ProcessSpec, { signal: ctx.signal })) };
  return { body: wire, files: [] };
};

// The process as the harness reads it back from the record's body; null when it holds none.
export function commandRunFromRecord(body: unknown): ProcessRun | null {
  const r = (body as CommandWire | null)?.run;
  return r && typeof r.startNs === 'string' && Array.isArray(r.lines) ? runFromWire(r) : null;
}
