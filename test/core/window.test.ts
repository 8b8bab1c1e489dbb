import { describe, expect, it } from 'vitest';
import { createDriverReader } from '../../src/profiles/reader.js';
import { NEMOTRON_H } from '../../src/profiles/builtin.js';
import { decodeBlock, decodeWindowOf } from '../../src/gates/leg/window.js';
import { A3_PASS } from './fixtures.js';

function report(lines: readonly string[], times?: readonly (number | undefined)[]) {
  const r = createDriverReader(NEMOTRON_H);
  lines.forEach((l, i) => r.push(l, times?.[i]));
  return r.report();
}
const T = [0, 300, 304, 308, 313.8, 313.8, 313.9, 313.9];

describe('the one decode-window rule (gates and analyze)', () => {
  it('load line → last prompt row of the decode block, on arrival times', () => {
    const w = decodeWindowOf(report(A3_PASS, T), 'decode');
    expect(w.missing).toBeNull();
    expect(w.window).toEqual({ startS: 300, endS: 313.8 });
    expect(w.block?.compared).toBe(96);
    expect(w.source).toMatch(/^the load line \(line 2\) → the last prompt row of block 0/);
    expect(decodeWindowOf(report(A3_PASS, T), 'both').window).toEqual({ startS: 300, endS: 313.8 });
  });

  it('fresh-prefill has no decode window: MISSING_TERM, whatever the lines', () => {
    const w = decodeWindowOf(report(A3_PASS, T), 'fresh-prefill');
    expect(w.window).toBeNull();
    expect(w.missing).toMatchObject({ code: 'MISSING_TERM', why: expect.stringMatching(/fresh-prefill stream takes no decode step/) });
    expect(w.missing?.windowMissing).toBeUndefined();
    const onlyPrefill = A3_PASS.map((l) => l.replace('mode=decode', 'mode=fresh-prefill'));
    expect(decodeWindowOf(report(onlyPrefill, T), 'decode').missing).toMatchObject({ code: 'MISSING_TERM', why: expect.stringMatching(/modes: fresh-prefill/) });
  });

  it('no load line → WINDOW_UNKNOWN; no arrival times → MISSING_TERM (pass --window)', () => {
    const noLoad = decodeWindowOf(report(A3_PASS.filter((l) => !l.includes('loaded')), T), 'decode');
    expect(noLoad.missing).toMatchObject({ code: 'WINDOW_UNKNOWN', windowMissing: 'load-line-absent' });
    const untimed = decodeWindowOf(report(A3_PASS), 'decode');
    expect(untimed.missing).toMatchObject({ code: 'MISSING_TERM', windowMissing: 'no-arrival-times' });
  });

  it('rows without a TOKEN MATCH line: the window closes at the last row', () => {
    const rows = A3_PASS.slice(0, 5);
    const w = decodeWindowOf(report(rows, T), 'decode');
    expect(w.window).toEqual({ startS: 300, endS: 313.8 });
    expect(w.block).toBeNull();
    expect(w.source).not.toMatch(/of block/);
    expect(decodeWindowOf(report(A3_PASS.slice(0, 2), T), 'decode').missing).toMatchObject({ code: 'WINDOW_UNKNOWN', why: 'no prompt row closes the decode window' });
  });

  it('the decode block: mode=decode or an older build without mode, never fresh-prefill', () => {
    const blocks = report([...A3_PASS, ...A3_PASS.slice(2).map((l) => l.replace('mode=decode', 'mode=fresh-prefill'))], [...T, ...T]).tokenMatch;
    expect(decodeBlock(blocks)?.index).toBe(0);
    expect(decodeBlock(blocks.slice(1))).toBeNull();
    expect(decodeBlock(report(A3_PASS.map((l) => l.replace(', mode=decode', '')), T).tokenMatch)?.mode).toBeNull();
  });
});
