import type { ExitClass } from '../verdict/words.js';

// SPEC §8 exit codes, defined here and nowhere else.
export const EXIT_CODES: Record<ExitClass, number> = {
  passed: 0,
  failed: 1,
  usage: 2,
  void: 3,
  short: 4,
  internal: 70,
};

// Every command ends through this, so an exit code is never chosen ad hoc.
export function exitCodeFor(cls: ExitClass): number {
  return EXIT_CODES[cls];
}
