import { describe, expect, it } from 'vitest';
import type { Golden } from '../../src/config/golden.js';
import { diffGolden, showToken } from '../../src/oracle/diff.js';
import { countMultiValued, smallestMargins } from '../../src/oracle/capture.js';
import { parsePrompts, positiveInt, nonNegativeNumber } from '../../src/oracle/io.js';

function golden(over: Partial<Golden> = {}): Golden {
  return {
    schemaVersion: 1, name: 'g', oracle: { name: 'o', version: '1' }, checkpoint: { name: 'c', revision: 'aa' },
    sampling: { kind: 'greedy', maxNewTokens: 4 }, capturedAt: 't0', capturedHost: 'h0', engineConfigRecorded: 'yes',
    engineConfig: { seed: 1, config: { dModel: 8 } }, nearTie: { licensed: true, maxMarginNats: 0.001 }, determinism: { runs: 3, multiValuedCells: 0 },
    prompts: [{ id: 0, text: 'ab', promptTokens: [97, 98], tokens: [1, 2, 3, 4], top2MarginNats: [0.5, 0.25, 1, 2] }],
    ...over,
  };
}

describe('golden review diff', () => {
  it('a first capture says NEW', () => {
    const d = diffGolden(null, golden());
    expect(d.changed).toBe(true);
    expect(d.lines[0]).toMatch(/^NEW golden g: .*1 prompt\(s\) x 4 tokens/);
  });

  it('capture time and host alone are not a change', () => {
    const d = diffGolden(golden(), golden({ capturedAt: 't1', capturedHost: 'h1' }));
    expect(d.changed).toBe(false);
    expect(d.lines).toHaveLength(1);
    expect(d.lines[0]).toMatch(/^UNCHANGED/);
  });

  it('names a moved token with its position, old and new values, and the new margin', () => {
    const after = golden({ prompts: [{ id: 0, text: 'ab', promptTokens: [97, 98], tokens: [1, 2, 65, 4], top2MarginNats: [0.5, 0.25, 0.0005, 2] }] });
    const d = diffGolden(golden(), after);
    expect(d.changed).toBe(true);
    expect(d.lines[0]).toMatch(/^CHANGED golden g: prompts\/tokens\/margins changed/);
    expect(d.lines).toContain('  prompt 0: 1 of 4 tokens differ, first at position 2 (was 3 (0x03), now 65 "A"; new oracle margin there 0.000500 nats)');
    expect(d.lines).toContain('  prompt 0: smallest margin 0.250000 -> 0.000500 nats');
  });

  it('names the deepest changed provenance keys, and added/removed prompts', () => {
    const after = golden({
      checkpoint: { name: 'c', revision: 'bb' }, engineConfig: { seed: 2, config: { dModel: 8 } },
      prompts: [{ id: 1, text: 'x', promptTokens: [120], tokens: [5], top2MarginNats: [1] }],
    });
    const d = diffGolden(golden(), after);
    expect(d.lines).toContain('  checkpoint.revision: "aa" -> "bb"');
    expect(d.lines).toContain('  engineConfig.seed: 1 -> 2');
    expect(d.lines.some((l) => l.includes('engineConfig.config'))).toBe(false);
    expect(d.lines).toContain('  prompt 0: REMOVED "ab"');
    expect(d.lines).toContain('  prompt 1: ADDED "x" (1 tokens)');
    expect(d.lines[0]).toMatch(/provenance and prompts/);
  });

  it('shows printable bytes as characters and others as hex', () => {
    expect(showToken(65)).toBe('65 "A"');
    expect(showToken(10)).toBe('10 (0x0a)');
    expect(showToken(200)).toBe('200 (0xc8)');
  });
});

describe('determinism evidence and margins', () => {
  const gen = (tokens: number[]) => ({ tokens, top2MarginNats: tokens.map(() => 1), runnerUp: tokens.map(() => 0) });
  it('counts a cell multi-valued when any run disagrees', () => {
    expect(countMultiValued([[gen([1, 2, 3])], [gen([1, 2, 3])]])).toBe(0);
    expect(countMultiValued([[gen([1, 2, 3]), gen([4])], [gen([1, 9, 3]), gen([4])], [gen([1, 2, 7]), gen([5])]])).toBe(3);
  });
  it('lists the smallest margins first, across prompts', () => {
    const g = golden({ prompts: [
      { id: 0, promptTokens: [1], tokens: [1, 2], top2MarginNats: [0.3, 0.1] },
      { id: 1, promptTokens: [1], tokens: [1, 2], top2MarginNats: [0.2, 0.05] },
    ] });
    expect(smallestMargins(g.prompts, 3)).toEqual([
      { prompt: 1, position: 1, marginNats: 0.05 }, { prompt: 0, position: 1, marginNats: 0.1 }, { prompt: 1, position: 0, marginNats: 0.2 },
    ]);
  });
});

describe('prompt files and numeric options', () => {
  it('reads a JSON array or one prompt per line', () => {
    expect(parsePrompts('["a\\nb", "c"]', 'p.json')).toEqual(['a\nb', 'c']);
    expect(parsePrompts('one\r\n\ntwo\n', 'p.txt')).toEqual(['one', 'two']);
  });
  it('refuses malformed, non-string, empty prompt files by name', () => {
    expect(() => parsePrompts('[1, 2]', 'p.json')).toThrow(/p\.json is a JSON value but not an array of strings/);
    expect(() => parsePrompts('[oops', 'p.json')).toThrow(/p\.json starts with '\[' but is not JSON/);
    expect(() => parsePrompts('["a", ""]', 'p.json')).toThrow(/prompt 1 is empty/);
    expect(() => parsePrompts('\n\n', 'p.txt')).toThrow(/holds no prompts/);
  });
  it('refuses non-positive or non-integer counts and negative margins', () => {
    expect(positiveInt('--runs', '3')).toBe(3);
    for (const bad of ['0', '-1', '1.5', 'x', '']) expect(() => positiveInt('--runs', bad)).toThrow(/--runs .* is not a positive integer/);
    expect(nonNegativeNumber('--near-tie-nats', '0')).toBe(0);
    for (const bad of ['-0.1', 'NaN', 'Infinity', '']) expect(() => nonNegativeNumber('--near-tie-nats', bad)).toThrow(/not a non-negative number/);
  });
});
