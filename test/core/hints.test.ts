import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyHintOf, compileProfile, matchesOf } from '../../src/profiles/compile.js';
import { BUILTIN_PROFILES } from '../../src/profiles/builtin.js';
import { A3_PASS, ARM_DECODE, ARM_PREFILL, DOCTEST_GREEN, DOCTEST_RED, FEATURES_121A } from './fixtures.js';

fc.configureGlobal({ seed: Number(process.env.NHG_FC_SEED ?? 20261202) });
const RUNS = Number(process.env.NHG_PROPERTY_RUNS ?? 0) || undefined;

// The combined hint (compile.ts anyHintOf) lets the reader skip every hinted pattern of a line that holds
// no hint at all, with one scan (issue 25: most of a long log's unread lines). It may only ever skip what
// each pattern's own hints would skip: with or without it, every line matches the same patterns, the same
// captures.
const FIXTURE_LINES = [...A3_PASS, ...FEATURES_121A, ...DOCTEST_RED, ...DOCTEST_GREEN, ARM_DECODE, ARM_PREFILL, '[nemotron-h] reference tier op=ssm device=cpu', 'prompt 3: got: 1 2 3', 'exp: 4 5 6', 'TEST CASE: x  test case THREW exception: boom'];

describe('the combined hint of a profile', () => {
  for (const profile of BUILTIN_PROFILES) {
    const compiled = compileProfile(profile);
    const anyHint = anyHintOf(compiled);
    const hints = compiled.flatMap((p) => p.hints ?? []);
    const line = fc.oneof(
      fc.constantFrom(...FIXTURE_LINES, ...FIXTURE_LINES.map((l) => l.replaceAll('[nemotron-h]', profile.prefix))),
      fc.tuple(fc.string({ maxLength: 12 }), fc.constantFrom(...hints), fc.string({ maxLength: 40 })).map(([a, h, b]) => `${a}${h}${b}`),
      fc.string({ maxLength: 60 }),
    );

    it(`${profile.name}: every line matches as it does without it`, () => {
      fc.assert(
        fc.property(line, (text) => {
          expect(matchesOf(compiled, text, anyHint)).toEqual(matchesOf(compiled, text));
        }),
        { numRuns: RUNS ?? 3000 },
      );
    });

    it(`${profile.name}: it holds every hint, and a line with none is told so`, () => {
      for (const h of hints) expect(anyHint!.test(`x ${h} y`)).toBe(true);
      expect(anyHint!.test('[trace] layer 8 |conv|=310.374 |ssm|=3985.8 step 5')).toBe(false);
      // Every line of the fixtures that some pattern reads still matches through it.
      expect(FIXTURE_LINES.filter((l) => matchesOf(compiled, l, anyHint).length > 0).length).toBeGreaterThan(10);
    });
  }
});
