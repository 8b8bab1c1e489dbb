import { NhGateError, formatError } from '../errors.js';
import type { ExitClass } from '../errors.js';
import { exitCodeFor } from './exit.js';

// Wraps a command action: the action returns its exit class; user mistakes print without a stack trace.
export async function runAction(action: () => Promise<ExitClass>): Promise<void> {
  let cls: ExitClass;
  try {
    cls = await action();
  } catch (err) {
    if (err instanceof NhGateError) {
      process.stderr.write(formatError(err) + '\n');
      cls = err.exitClass;
    } else {
      process.stderr.write(`nh-gate: INTERNAL: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      cls = 'internal';
    }
  }
  process.exitCode = exitCodeFor(cls);
}

// Commands not built yet say which issue brings them, and exit 2 (never 0).
export function notYet(command: string, issue: number): () => Promise<ExitClass> {
  return async () => {
    throw new NhGateError('NOT_IMPLEMENTED', `'nh-gate ${command}' is not built yet; issue #${issue} brings it`, 'use a released version that has it, or run the steps by hand');
  };
}
