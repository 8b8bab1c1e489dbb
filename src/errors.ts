// Typed harness errors: a stable code, a message that names the file/field and the fix, and the exit class.
export type ErrorCode =
  | 'USAGE'
  | 'BAD_INPUT'
  | 'BAD_CONFIG'
  | 'UNKNOWN_PROFILE'
  | 'UNKNOWN_RECIPE'
  | 'UNKNOWN_GOLDEN'
  | 'UNKNOWN_FLAG'
  | 'UNREADABLE_FILE'
  | 'NOT_IMPLEMENTED'
  | 'LOCKED'
  | 'AMBIGUOUS_DEVICE'
  | 'NO_SUCH_DEVICE'
  | 'SAMPLER_UNAVAILABLE'
  | 'SAMPLER_STATE'
  | 'SLURM_UNAVAILABLE'
  | 'SLURM_REJECTED'
  | 'NO_CALIBRATION'
  | 'MISSING_PREREQUISITE'
  | 'DISK_FULL'
  | 'UNWRITABLE'
  | 'WRONG_PATH_TYPE'
  | 'INTERNAL';

import type { ExitClass } from './verdict/words.js';
export type { ExitClass };

const CLASS_OF: Record<ErrorCode, ExitClass> = {
  USAGE: 'usage',
  BAD_INPUT: 'usage',
  BAD_CONFIG: 'usage',
  UNKNOWN_PROFILE: 'usage',
  UNKNOWN_RECIPE: 'usage',
  UNKNOWN_GOLDEN: 'usage',
  UNKNOWN_FLAG: 'usage',
  UNREADABLE_FILE: 'usage',
  NOT_IMPLEMENTED: 'usage',
  LOCKED: 'usage',
  AMBIGUOUS_DEVICE: 'usage',
  NO_SUCH_DEVICE: 'usage',
  MISSING_PREREQUISITE: 'usage',
  SAMPLER_UNAVAILABLE: 'void',
  SAMPLER_STATE: 'internal',
  NO_CALIBRATION: 'void',
  // The results directory's own faults: nothing valid could be recorded (3), or a path the user must fix (2).
  DISK_FULL: 'void',
  UNWRITABLE: 'usage',
  // A results path of the wrong type (a file where a directory goes, or the other way): the user moves it.
  WRONG_PATH_TYPE: 'usage',
  SLURM_UNAVAILABLE: 'usage',
  SLURM_REJECTED: 'usage',
  INTERNAL: 'internal',
};

// The one error type the CLI prints without a stack trace.
export class NhGateError extends Error {
  readonly code: ErrorCode;
  readonly exitClass: ExitClass;
  readonly hint: string | undefined;
  constructor(code: ErrorCode, message: string, hint?: string) {
    super(message);
    this.name = 'NhGateError';
    this.code = code;
    this.exitClass = CLASS_OF[code];
    this.hint = hint;
  }
}

// Formats an NhGateError for stderr: reason, then what to do.
export function formatError(err: NhGateError): string {
  return `nh-gate: ${err.code}: ${err.message}${err.hint ? `\n  fix: ${err.hint}` : ''}`;
}
