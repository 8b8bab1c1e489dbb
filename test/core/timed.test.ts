import fc from 'fast-check';

fc.configureGlobal({ seed: Number(process.env.NHG_FC_SEED ?? 20261202) });
import { describe, expect, it } from 'vitest';
import { arrivalS, formatTimedLine, parseTimedLine, timedS, timedTab } from '../../src/profiles/timed.js';
import { createDriverReader } from '../../src/profiles/reader.js';
import { NEMOTRON_H } from '../../src/profiles/builtin.js';

const RUNS = Number(process.env.NHG_PROPERTY_RUNS ?? 0) || undefined;
const runs = (n: number): number => RUNS ?? n;

// The leg log's arrival times are read back without a substring per line (issue 25); the window a re-read
// log gives must still be the leg's own to the last bit, so the fast read is held to Number() of the text.
describe('timed leg-log lines', () => {
  it('a stored arrival time reads back as the very value the leg used', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n * 1000n }), fc.string({ maxLength: 30 }), (ns, text) => {
        const t = arrivalS(ns);
        const line = formatTimedLine(t, text);
        const r = parseTimedLine(line);
        expect(Object.is(r.tS, t)).toBe(true);
        expect(r.text).toBe(text);
      }),
      { numRuns: runs(2000) },
    );
  });

  it('the digits-over-a-power-of-ten read equals Number() of the text for every accepted shape', () => {
    const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
    fc.assert(
      fc.property(digits(1, 14), digits(3, 9), (whole, frac) => {
        const head = `${whole}.${frac}`;
        const line = `${head}\tx`;
        const tab = timedTab(line);
        if (tab < 0) return; // too long a head for the shape: read as a plain line
        expect(Object.is(timedS(line, tab), Number(head))).toBe(true);
      }),
      { numRuns: runs(3000) },
    );
    // Past 2^53 the digits are no longer exact as one integer: Number() reads it instead.
    const big = '98765432109876543.123456';
    expect(timedS(`${big}\tx`, big.length)).toBe(Number(big));
  });

  it('a leg stores whole microseconds of its monotonic clock; the widest head the shape allows still reads', () => {
    expect(arrivalS(1_234_567_891n)).toBe(1.234567);
    expect(formatTimedLine(arrivalS(25_565_107_619_057n), 'x')).toBe('25565.107619\tx');
    const widest = '12345678901234.123456789'; // 24 characters before the tab
    expect(parseTimedLine(`${widest}\tx`)).toEqual({ tS: Number(widest), text: 'x' });
    expect(parseTimedLine(`1${widest}\tx`).tS).toBeUndefined();
  });

  it('a line not in the stored shape is plain text with no time', () => {
    for (const line of ['[nh-ref] engine loaded in 0.05 s', '12345678901234567890.123456\tall digits but too long', '12.5\tshort head', '1234.56\ttwo decimals', '12a4.567890\tletter', '.123456\tno whole part', '1234.567890', '1.2.3456\ttwo dots']) {
      expect(timedTab(line)).toBe(-1);
      expect(parseTimedLine(line)).toEqual({ tS: undefined, text: line });
    }
  });
});

describe('driver reader finish()', () => {
  it('gives the report a snapshot would, lines left unbound included, and takes no line after it', () => {
    const lines = ['[nemotron-h] engine loaded in 1.0s', 'got: 1 2 3', '[nemotron-h] prompt 0: prompt_tokens=5 generated=3 golden_width=3 compared=3 matched=3 wall=0.1s', 'exp: 4 5', 'prompt 7: got: 9 9'];
    const a = createDriverReader(NEMOTRON_H);
    const b = createDriverReader(NEMOTRON_H);
    for (const l of lines) {
      a.push(l, 1);
      b.push(l, 1);
    }
    const snapshot = a.report();
    expect(b.finish()).toEqual(snapshot);
    expect(snapshot.unboundIds.length).toBeGreaterThan(0);
    expect(() => b.push('[nemotron-h] STRICT PASS')).toThrow(/after finish/);
  });

  // Repeated lines are matched from memory (compile.ts memoMatcher, its last-character check) and their
  // counter group found by their captures (reader.ts): lines that differ at the end, or only in the middle,
  // are never taken for one another.
  it('counter lines that differ only at their end, or only in the middle, stay apart', () => {
    const r = createDriverReader(NEMOTRON_H);
    for (let i = 0; i < 40; i++) r.push(`ARM step T=1 nd=1 gathers=${(i >> 1) % 2} scatters=${i % 2}`);
    r.push('ARM step T=1 nd=1 gathers=0 scatters=0');
    const c = r.finish().counters;
    expect(c.groups.map((g) => [g.fields['gathers'], g.fields['scatters'], g.count])).toEqual([[0, 0, 11], [0, 1, 10], [1, 0, 10], [1, 1, 10]]);
    expect(c.total).toBe(41);
  });
});
