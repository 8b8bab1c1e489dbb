// The verdict words of SPEC §2 as one union, each mapped to its exit class, and how verdicts combine.
// Every command judges into these values; nothing parses a verdict back out of a sentence.

// Exit classes of SPEC §8; their numbers live only in cli/exit.ts.
export type ExitClass = 'passed' | 'failed' | 'usage' | 'void' | 'short' | 'internal';

// Token-gate words (a3, each leg of an A/B).
export const TOKEN_WORDS = ['STRICT PASS', 'NEAR-TIE PASS', 'SHORT', 'VOID', 'DIVERGENCE'] as const;
export type TokenWord = (typeof TOKEN_WORDS)[number];

// Hypothesis words of an A/B against its pre-registered criterion.
export const HYPOTHESIS_WORDS = ['SUPPORTED', 'REFUTED', 'UNRESOLVED'] as const;
export type HypothesisWord = (typeof HYPOTHESIS_WORDS)[number];

// Every word a run's verdict may carry.
export const VERDICT_WORDS = [
  ...TOKEN_WORDS, ...HYPOTHESIS_WORDS,
  'MEASURED', 'NOT MEASURED', 'REFUSED', 'BUILT', 'FAILED', 'CAUGHT', 'CAUGHT BY SANITIZER', 'SURVIVED', 'TIMEOUT', 'GREEN', 'RED',
  // A serve run under load (LoadGen's words): every request's tokens right and its limits met, or not.
  'VALID', 'INVALID',
  // `nh-gate history`: the newest point of a series in a worse segment than before, or none.
  'REGRESSION', 'NO REGRESSION',
] as const;
export type VerdictWord = (typeof VERDICT_WORDS)[number];

// Each verdict word's exit class (a REFUTED's class also depends on the gate: see hypothesisClass).
export const VERDICT_CLASS: Record<VerdictWord, ExitClass> = {
  'STRICT PASS': 'passed',
  'NEAR-TIE PASS': 'passed',
  SUPPORTED: 'passed',
  MEASURED: 'passed',
  BUILT: 'passed',
  CAUGHT: 'passed',
  // A mutation survivor that the recipe's sanitizer build of its suites catches (mutate's re-judge).
  'CAUGHT BY SANITIZER': 'passed',
  GREEN: 'passed',
  VALID: 'passed',
  'NO REGRESSION': 'passed',
  REGRESSION: 'failed',
  DIVERGENCE: 'failed',
  SURVIVED: 'failed',
  RED: 'failed',
  REFUTED: 'failed',
  FAILED: 'failed',
  UNRESOLVED: 'void',
  VOID: 'void',
  REFUSED: 'void',
  TIMEOUT: 'void',
  'NOT MEASURED': 'void',
  INVALID: 'void',
  SHORT: 'short',
};

// A pass word: the only words a leg's speed may be taken under.
export function isPass(w: VerdictWord): boolean {
  return w === 'STRICT PASS' || w === 'NEAR-TIE PASS';
}

const SEVERITY: readonly ExitClass[] = ['passed', 'short', 'void', 'failed', 'usage', 'internal'];

// Combines the classes of several verdicts: a failure outranks a void, a void outranks a short.
export function worstClass(classes: readonly ExitClass[]): ExitClass {
  let worst: ExitClass = 'passed';
  for (const c of classes) if (SEVERITY.indexOf(c) > SEVERITY.indexOf(worst)) worst = c;
  return worst;
}

// The worse of token words: a divergence outranks a void, a void a short, a short a pass.
export function worstTokenWord(words: readonly TokenWord[]): TokenWord {
  let worst: TokenWord = 'STRICT PASS';
  for (const w of words) if (TOKEN_WORDS.indexOf(w) > TOKEN_WORDS.indexOf(worst)) worst = w;
  return worst;
}

// A REFUTED fails the run only where the gate says a refutation fails (SPEC §8).
export function hypothesisClass(w: HypothesisWord, refutationFails: boolean): ExitClass {
  if (w === 'REFUTED') return refutationFails ? 'failed' : 'passed';
  return VERDICT_CLASS[w];
}
