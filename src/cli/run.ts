import { NhGateError, formatError } from '../errors.js';
import type { ExitClass } from '../errors.js';
import { exitCodeFor } from './exit.js';
import { cliMode, printErrorJson } from './output.js';

// Wraps a command action: the action returns its exit class; user mistakes print without a stack trace.
export async function runAction(action: () => Promise<ExitClass>): Promise<void> {
  let cls: ExitClass;
  try {
    cls = await action();
  } catch (err) {
    if (err instanceof NhGateError) {
      process.stderr.write(formatError(err) + '\n');
      cls = err.exitClass;
      if (cliMode.json) printErrorJson(err.code, err.message, err.hint ?? null, cls, exitCodeFor(cls));
    } else {
      process.stderr.write(`nh-gate: INTERNAL: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      cls = 'internal';
      if (cliMode.json) printErrorJson('INTERNAL', err instanceof Error ? err.message : String(err), 'this is a bug in nh-gate: report it with the stack trace from stderr', cls, exitCodeFor(cls));
    }
  }
  process.exitCode = exitCodeFor(cls);
}
