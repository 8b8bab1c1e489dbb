import { describe, expect, it } from 'vitest';
import { HYPOTHESIS_WORDS, TOKEN_WORDS, VERDICT_CLASS, VERDICT_WORDS, hypothesisClass, isPass, worstClass, worstTokenWord, type ExitClass, type VerdictWord } from '../../src/verdict/words.js';
import { VOID_CODES, formatReason, reason } from '../../src/verdict/reasons.js';

describe('the verdict module', () => {
  it('maps every verdict word of SPEC §2 to its exit class', () => {
    const expected: Record<VerdictWord, ExitClass> = {
      'STRICT PASS': 'passed', 'NEAR-TIE PASS': 'passed', SUPPORTED: 'passed', MEASURED: 'passed', BUILT: 'passed', CAUGHT: 'passed', 'CAUGHT BY SANITIZER': 'passed', GREEN: 'passed', VALID: 'passed', 'NO REGRESSION': 'passed',
      DIVERGENCE: 'failed', SURVIVED: 'failed', RED: 'failed', REFUTED: 'failed', FAILED: 'failed', REGRESSION: 'failed',
      UNRESOLVED: 'void', VOID: 'void', REFUSED: 'void', TIMEOUT: 'void', 'NOT MEASURED': 'void', INVALID: 'void',
      SHORT: 'short',
    };
    expect(VERDICT_CLASS).toEqual(expected);
    expect([...VERDICT_WORDS].sort()).toEqual(Object.keys(expected).sort());
    expect(TOKEN_WORDS).toEqual(['STRICT PASS', 'NEAR-TIE PASS', 'SHORT', 'VOID', 'DIVERGENCE']);
    expect(HYPOTHESIS_WORDS).toEqual(['SUPPORTED', 'REFUTED', 'UNRESOLVED']);
  });

  it('a NOT MEASURED or VOID is never a pass; only the two pass words are', () => {
    expect(VERDICT_WORDS.filter(isPass)).toEqual(['STRICT PASS', 'NEAR-TIE PASS']);
  });

  it('combines classes: internal > usage > failed > void > short > passed', () => {
    expect(worstClass([])).toBe('passed');
    expect(worstClass(['passed', 'short'])).toBe('short');
    expect(worstClass(['short', 'void'])).toBe('void');
    expect(worstClass(['void', 'failed', 'short'])).toBe('failed');
    expect(worstClass(['failed', 'usage'])).toBe('usage');
    expect(worstClass(['usage', 'internal', 'passed'])).toBe('internal');
    expect(worstClass(['void', 'passed'])).toBe('void');
  });

  it('combines token words: a divergence outranks a void, a void a short, a short a near-tie', () => {
    expect(worstTokenWord([])).toBe('STRICT PASS');
    expect(worstTokenWord(['STRICT PASS', 'NEAR-TIE PASS'])).toBe('NEAR-TIE PASS');
    expect(worstTokenWord(['NEAR-TIE PASS', 'SHORT'])).toBe('SHORT');
    expect(worstTokenWord(['SHORT', 'VOID', 'STRICT PASS'])).toBe('VOID');
    expect(worstTokenWord(['VOID', 'DIVERGENCE', 'SHORT'])).toBe('DIVERGENCE');
  });

  it('a REFUTED fails only where the gate says a refutation fails', () => {
    expect(hypothesisClass('REFUTED', true)).toBe('failed');
    expect(hypothesisClass('REFUTED', false)).toBe('passed');
    expect(hypothesisClass('SUPPORTED', false)).toBe('passed');
    expect(hypothesisClass('UNRESOLVED', true)).toBe('void');
  });

  it('reasons are data with a stable code, printed one way', () => {
    expect(reason('CONTENDED', 'pid 42')).toEqual({ code: 'CONTENDED', message: 'pid 42' });
    expect(formatReason(reason('TIMEOUT', 'killed'))).toBe('TIMEOUT: killed');
    expect(new Set(VOID_CODES).size).toBe(VOID_CODES.length);
    expect(VOID_CODES).toContain('ENGINE_REFUSED');
  });
});
