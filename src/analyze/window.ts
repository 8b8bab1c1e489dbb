import { NhGateError } from '../errors.js';
import type { WindowS } from '../quantity/busy.js';

const NUM = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

// `--window T0:T1` in monotonic seconds. Not two numbers → usage error (exit 2); 5:3 parses, and is refused
// later as NON_POSITIVE_WINDOW by the quantity it would have produced — a bad window is a refusal, not a crash.
export function parseWindowArg(text: string): WindowS {
  const parts = text.split(':');
  if (parts.length !== 2 || !NUM.test(parts[0] ?? '') || !NUM.test(parts[1] ?? '')) {
    throw new NhGateError('USAGE', `--window '${text}': expected T0:T1, two numbers of seconds on the samples clock (e.g. 12.5:88.0)`, 'pass --window START:END');
  }
  return { startS: Number(parts[0]), endS: Number(parts[1]) };
}
