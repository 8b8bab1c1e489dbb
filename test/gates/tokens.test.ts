import { describe, expect, it } from 'vitest';
import { judgeFromEvents, judgeFromRows } from '../../src/gates/leg/tokens.js';
import type { PromptRow } from '../../src/profiles/types.js';
import { golden } from './fixtures.js';

const counts = new Map([[0, 3], [1, 2]]);
const got = (a: number[], b: number[]): Map<number, number[]> => new Map([[0, a], [1, b]]);

describe('harness token judgement (events)', () => {
  it('STRICT PASS when every position matches', () => {
    const j = judgeFromEvents(golden(), 'decode', got([10, 11, 12, 13], [20, 21, 22, 23]), counts);
    expect(j.word).toBe('STRICT PASS');
    expect([j.compared, j.matched, j.fullRows, j.shortRows]).toEqual([8, 8, 2, 0]);
  });

  it('DIVERGENCE names the first mismatch as got/exp', () => {
    const j = judgeFromEvents(golden(), 'decode', got([10, 99, 12, 13], [20, 21, 22, 23]), counts);
    expect(j.word).toBe('DIVERGENCE');
    expect(j.prompts[0]!.firstMismatch).toEqual({ position: 1, got: 99, exp: 11, marginNats: 1 });
    expect(j.matched).toBe(7);
  });

  it('NEAR-TIE PASS only where the golden licenses it and the margin is within the licence', () => {
    const flip = got([10, 11, 12, 13], [20, 21, 77, 78]);
    expect(judgeFromEvents(golden(), 'decode', flip, counts).word).toBe('NEAR-TIE PASS');
    expect(judgeFromEvents(golden({ licensed: false, maxMarginNats: 0.01 }), 'decode', flip, counts).word).toBe('DIVERGENCE');
    expect(judgeFromEvents(golden({ licensed: true, maxMarginNats: 0.001 }), 'decode', flip, counts).word).toBe('DIVERGENCE');
  });

  it('SHORT when a row generated fewer tokens than the golden width', () => {
    const j = judgeFromEvents(golden(), 'decode', got([10, 11], [20, 21, 22, 23]), counts);
    expect(j.word).toBe('SHORT');
    expect(j.shortRows).toBe(1);
  });

  it('VOID when the golden\'s prompts differ from what the engine ran', () => {
    const j = judgeFromEvents(golden(), 'decode', got([10, 11, 12, 13], [20, 21, 22, 23]), new Map([[0, 3], [1, 9]]));
    expect(j.word).toBe('VOID');
    expect(j.reasons[0]).toEqual({ code: 'GOLDEN_MISMATCH', message: expect.stringMatching(/prompt 1: the engine ran 9 prompt tokens, golden g-test has 2/) });
  });

  it('VOID when nothing was compared', () => {
    const j = judgeFromEvents(golden(), 'decode', new Map(), new Map());
    expect(j.word).toBe('VOID');
    expect(j.compared).toBe(0);
  });
});

describe('harness token judgement (printed rows)', () => {
  const row = (prompt: number, compared: number, matched: number, gotText: string | null): PromptRow => ({
    line: 1, tS: 1, block: 0, prompt, promptTokens: prompt === 0 ? 3 : 2, generated: compared, goldenWidth: 4, compared, matched, wallS: 1, short: compared < 4, got: gotText, exp: null,
  });
  it('judges from counts and got/exp when there is no events file', () => {
    expect(judgeFromRows(golden(), 'decode', [row(0, 4, 4, null), row(1, 4, 4, null)]).word).toBe('STRICT PASS');
    const j = judgeFromRows(golden(), 'decode', [row(0, 4, 4, null), row(1, 4, 3, '20 21 22 99')]);
    expect(j.word).toBe('DIVERGENCE');
    expect(j.prompts[1]!.firstMismatch?.position).toBe(3);
  });
});
