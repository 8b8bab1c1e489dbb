import { NhGateError } from '../../errors.js';
import type { RunResult } from '../../results/types.js';
import type { Reserve } from '../../results/space.js';
import { reason } from '../../verdict/reasons.js';

// Whether an error is the results disk's own fault (DISK_FULL / UNWRITABLE), which a series records, not throws.
export function isDiskFault(err: unknown): err is NhGateError {
  return err instanceof NhGateError && (err.code === 'DISK_FULL' || err.code === 'UNWRITABLE');
}

// Turns a series into a failed run by name: the reserve is freed so the record fits, the finished legs stay
// in the result (and their logs on disk). Returns the status to finish with.
export function diskFailure(r: RunResult, err: NhGateError, reserve: Reserve): 'failed' {
  reserve.release();
  const code = err.code === 'DISK_FULL' ? 'DISK_FULL' : 'UNWRITABLE';
  r.verdict = {
    word: 'VOID',
    exitClass: err.exitClass,
    reasons: [reason(code, `${err.message}; ${r.legs.length} finished leg(s) kept in ${r.runDir}${err.hint ? `; fix: ${err.hint}` : ''}`)],
  };
  return 'failed';
}
