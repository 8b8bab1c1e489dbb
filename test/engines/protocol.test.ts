import { describe, expect, it } from 'vitest';
import { checkAnswer, goldenFromAnswers, multiValuedCells, promptsFromIds, type OracleAnswer, type OracleRequest } from '../../src/oracle/protocol.js';
import { GoldenSchema } from '../../src/config/golden.js';

const req: OracleRequest = { schemaVersion: 1, prompts: [{ id: 0, promptTokens: [5, 6] }, { id: 1, promptTokens: [7] }], sampling: { kind: 'greedy', maxNewTokens: 3 } };
const answer = (t0: number[], t1: number[], margins: boolean): unknown => ({
  schemaVersion: 1, oracle: { name: 'toy', version: '1' }, checkpoint: { name: 'ck', revision: 'r1' }, engineConfigRecorded: 'unknown',
  prompts: [{ id: 0, tokens: t0, top2MarginNats: margins ? [0.5, 0.0001, 2] : null }, { id: 1, tokens: t1, top2MarginNats: margins ? [1, 1, 1] : null }],
});

describe('the oracle protocol', () => {
  it('reads prompt ids as arrays or objects; ids default to positions', () => {
    expect(promptsFromIds([[1, 2], { id: 7, promptTokens: [3] }], 'p.json')).toEqual([{ id: 0, promptTokens: [1, 2] }, { id: 7, promptTokens: [3] }]);
    expect(() => promptsFromIds([[1, 2.5]], 'p.json')).toThrow(/p\.json/);
    expect(() => promptsFromIds([[1], { id: 0, promptTokens: [2] }], 'p.json')).toThrow(/share an id/);
  });

  it('refuses an answer with fewer prompts, non-integer ids, the wrong width or unknown keys, naming the field', () => {
    const few = { ...(answer([1, 2, 3], [4, 5, 6], true) as object), prompts: [{ id: 0, tokens: [1, 2, 3] }] };
    expect(() => checkAnswer(few, req, 'toy')).toThrow(/prompt 1 answered 0 times/);
    expect(() => checkAnswer(answer([1, 2.5, 3], [4, 5, 6], true), req, 'toy')).toThrow(/prompts\.0\.tokens\.1/);
    expect(() => checkAnswer(answer([1, 2], [4, 5, 6], true), req, 'toy')).toThrow(/prompts\[0\]\.tokens: 2 tokens, the request asked for 3/);
    expect(() => checkAnswer({ ...(answer([1, 2, 3], [4, 5, 6], true) as object), extra: 1 }, req, 'toy')).toThrow(/extra/);
  });

  it('K answers → a golden with determinism cells, margins, and a near-tie licence only with margins from an independent oracle', () => {
    const a = checkAnswer(answer([1, 2, 3], [4, 5, 6], true), req, 'toy');
    const b = checkAnswer(answer([1, 9, 3], [4, 5, 6], true), req, 'toy');
    expect(multiValuedCells([a, b])).toBe(1);
    const base = { name: 'g', request: req, texts: new Map<number, string>(), nearTieNats: 0.001, capturedAt: 't', capturedHost: 'h', oracleArgv: ['toy'] };
    const g = goldenFromAnswers({ ...base, answers: [a, b], origin: 'independent' });
    expect(GoldenSchema.safeParse(g).error?.issues ?? []).toEqual([]); // the written golden is a valid golden.json
    expect(g.determinism).toEqual({ runs: 2, multiValuedCells: 1 });
    expect(g.nearTie.licensed).toBe(true);
    expect(g.prompts[0]!.top2MarginNats).toEqual([0.5, 0.0001, 2]);
    const noLogits: OracleAnswer = checkAnswer(answer([1, 2, 3], [4, 5, 6], false), req, 'toy');
    expect(goldenFromAnswers({ ...base, answers: [noLogits], origin: 'independent' }).nearTie.licensed).toBe(false);
    const reg = goldenFromAnswers({ ...base, answers: [a], origin: 'regression' });
    expect([reg.origin, reg.nearTie.licensed]).toEqual(['regression', false]);
  });
});
