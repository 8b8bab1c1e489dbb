import { describe, expect, it } from 'vitest';
import { parseMutationTable, type MutationTable } from '../../src/config/mutations.js';
import { applyMutation, countOccurrences, planMutants, selectMutants, spanOf } from '../../src/mutate/plan.js';

const row = (id: string, over: Record<string, unknown> = {}) => ({ id, file: 'e/a.cpp', anchor: `A_${id}`, replacement: `B_${id}`, why: 'w', suite: 's', expect: 'caught', ...over });
const table = (mutants: object[]): MutationTable => parseMutationTable(JSON.stringify({ schemaVersion: 1, recipe: 'r', mutants }), 'gates/t.json');

describe('preflight plan (pure)', () => {
  it('counts overlapping and repeated anchors', () => {
    expect(countOccurrences('aaa', 'aa')).toBe(2);
    expect(countOccurrences('x + y; x + y;', 'x + y')).toBe(2);
    expect(countOccurrences('abc', 'z')).toBe(0);
  });

  it('locates an anchor 1-based, line and column', () => {
    const text = 'line1\n  int h = g / hpg;\n';
    const at = text.indexOf('g / hpg');
    expect(spanOf(text, at, 'g / hpg'.length)).toEqual({ start: { line: 2, column: 11 }, end: { line: 2, column: 18 }, offset: at });
  });

  it('voids STALE (0 hits, or a missing file) and AMBIGUOUS (2+ hits) before any build, runs exactly-once anchors', () => {
    const files: Record<string, string> = { 'e/a.cpp': 'A_one\nA_two A_two\n' };
    const plan = planMutants(
      [row('one'), row('two'), row('three'), row('gone', { file: 'e/missing.cpp' })].map((r) => table([{ ...row('self', { selfTest: true }) }, r]).mutants[1]!),
      (f) => files[f] ?? null,
    );
    expect(plan.map((p) => (p.kind === 'void' ? `${p.mutation.id}:${p.reason}:${p.count}` : `${p.mutation.id}:run:${p.span.start.line}`))).toEqual([
      'one:run:1', 'two:AMBIGUOUS:2', 'three:STALE:0', 'gone:STALE:0',
    ]);
  });

  it('applies the replacement at the single anchor and refuses a text where it is no longer unique', () => {
    const m = table([row('self', { selfTest: true }), row('x')]).mutants[1]!;
    expect(applyMutation('pre A_x post', m)).toBe('pre B_x post');
    expect(() => applyMutation('A_x A_x', m)).toThrow(/no longer matches exactly once/);
  });

  it('puts self-tests first, narrows by --only and --in-diff, and keeps the self-test of a selected suite', () => {
    const t = table([
      row('a'), row('self-s', { selfTest: true }), row('b', { file: 'e/b.cpp' }),
      row('c', { suite: 'u' }), row('self-u', { selfTest: true, suite: 'u' }),
    ]);
    expect(selectMutants(t, {}).map((m) => m.id)).toEqual(['self-s', 'self-u', 'a', 'b', 'c']);
    expect(selectMutants(t, { only: 'b' }).map((m) => m.id)).toEqual(['self-s', 'b']);
    expect(selectMutants(t, { changedFiles: new Set(['e/b.cpp']) }).map((m) => m.id)).toEqual(['self-s', 'b']);
    expect(selectMutants(t, { changedFiles: new Set(['elsewhere.cpp']) }).map((m) => m.id)).toEqual([]);
    expect(() => selectMutants(t, { only: 'nope' })).toThrow(/--only nope: no row with that id/);
  });
});
