import type { ExitClass } from '../errors.js';

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

// Verdict words of SPEC §2 mapped onto exit classes (the worst verdict of a run decides).
export const VERDICT_CLASS: Record<string, ExitClass> = {
  'STRICT PASS': 'passed',
  'NEAR-TIE PASS': 'passed',
  SUPPORTED: 'passed',
  CAUGHT: 'passed',
  GREEN: 'passed',
  PASSED: 'passed',
  DIVERGENCE: 'failed',
  SURVIVED: 'failed',
  RED: 'failed',
  REFUTED: 'failed',
  UNRESOLVED: 'void',
  VOID: 'void',
  REFUSED: 'void',
  'NOT MEASURED': 'void',
  SHORT: 'short',
};

const SEVERITY: ExitClass[] = ['passed', 'short', 'void', 'failed', 'usage', 'internal'];

// Combines the classes of several verdicts: a failure outranks a void, a void outranks a short.
export function worstClass(classes: ExitClass[]): ExitClass {
  let worst: ExitClass = 'passed';
  for (const c of classes) if (SEVERITY.indexOf(c) > SEVERITY.indexOf(worst)) worst = c;
  return worst;
}
