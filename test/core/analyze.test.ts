import { describe, expect, it } from 'vitest';
import { analyze, deriveDecodeWindow } from '../../src/analyze/analyze.js';
import { judgeTokenGate } from '../../src/analyze/tokenGate.js';
import { parseWindowArg } from '../../src/analyze/window.js';
import { createDriverReader } from '../../src/profiles/reader.js';
import { NEMOTRON_H } from '../../src/profiles/builtin.js';
import { renderQuantity } from '../../src/quantity/render.js';
import type { Baseline } from '../../src/config/recipe.js';
import { A3_PASS, ARM_DECODE } from './fixtures.js';
import { legFileBase } from '../../src/results/legLog.js';

const BASELINES: Baseline[] = [
  { name: 'vLLM per output token', quantity: 'perOutputToken', value: 0.014369, unit: 's', arch: '121a', source: 'seeds' },
  { name: 'decode busy baseline', quantity: 'busyFraction', value: 6.31, unit: '%', arch: '121a', source: 'seeds', method: 'nonzeroShare' },
];

function report(lines: readonly string[], times?: readonly number[]) {
  const r = createDriverReader(NEMOTRON_H);
  lines.forEach((l, i) => r.push(l, times?.[i]));
  return r.report();
}

// A3_PASS with arrival times: load at 300 s, rows at 304, 308, 313.8, block at 313.9.
const TIMES = [0, 300, 304, 308, 313.8, 313.8, 313.9, 313.9];

describe('decode window and per output token', () => {
  it('from arrival times: load line to the last prompt row, load excluded', () => {
    const a = analyze({ report: report(A3_PASS, TIMES), timed: true, window: null, samples: null, arch: '121a', baselines: BASELINES });
    expect(a.decode).toMatchObject({ source: 'arrival times', window: { startS: 300, endS: 313.8 } });
    expect(renderQuantity(a.perOutputToken)).toBe('per output token 0.143750 s (decode window 13.800 s / 96 tokens compared; engine load 254.5 s excluded)');
    expect(renderQuantity(a.baselines[0]!)).toBe('per output token vs vLLM per output token 10.004x (0.143750 s / 0.014369 s; both on 121a)');
    expect(a.exitClass).toBe('passed');
  });

  it('off the baseline arch: the rate prints, the ratio is withheld by name', () => {
    const a = analyze({ report: report(A3_PASS, TIMES), timed: true, window: null, samples: null, arch: '110', baselines: BASELINES });
    expect(a.perOutputToken.status).toBe('measured');
    expect(a.baselines[0]).toMatchObject({ status: 'withheld', reason: 'CROSS_SILICON' });
    expect(a.baselines[1]).toMatchObject({ status: 'withheld', reason: 'NO_SAMPLES' });
  });

  it('reference-tier lines withhold the baseline comparison', () => {
    const lines = [...A3_PASS, '[nemotron-h reference-tier] op=x device=cuda has NO native kernel; running the PORTABLE fallback'];
    const a = analyze({ report: report(lines, [...TIMES, 314]), timed: true, window: null, samples: null, arch: '121a', baselines: BASELINES });
    expect(a.perOutputToken.status).toBe('measured');
    expect(a.baselines[0]).toMatchObject({ status: 'withheld', reason: 'REFERENCE_TIER' });
  });

  it('no load line → WINDOW_UNKNOWN; no arrival times → MISSING_TERM naming --window', () => {
    const noLoad = A3_PASS.filter((l) => !l.includes('engine loaded'));
    expect(analyze({ report: report(noLoad), timed: false, window: null, samples: null, arch: null, baselines: [] }).perOutputToken).toMatchObject({ reason: 'WINDOW_UNKNOWN' });
    const plain = analyze({ report: report(A3_PASS), timed: false, window: null, samples: null, arch: null, baselines: [] });
    expect(plain.perOutputToken).toMatchObject({ reason: 'MISSING_TERM' });
    expect(renderQuantity(plain.perOutputToken)).toContain('--window');
    expect(plain.exitClass).toBe('passed'); // the token gate passed; a figure nobody asked for does not void it
  });

  it('--window overrides; 5:3 is a refused rate and exit class void, not a crash', () => {
    const a = analyze({ report: report(A3_PASS), timed: false, window: { startS: 5, endS: 3 }, samples: null, arch: null, baselines: [] });
    expect(a.perOutputToken).toMatchObject({ status: 'refused', reason: 'NON_POSITIVE_WINDOW' });
    expect(a.exitClass).toBe('void');
    const ok = analyze({ report: report(A3_PASS), timed: false, window: { startS: 100, endS: 113.8 }, samples: null, arch: null, baselines: [] });
    expect(ok.perOutputToken.status === 'measured' && ok.perOutputToken.value).toBeCloseTo(0.14375, 12);
  });

  it('no TOKEN MATCH line: per-token MISSING_TERM, token gate NOT MEASURED, exit void', () => {
    const a = analyze({ report: report(A3_PASS.slice(0, 5), TIMES), timed: true, window: null, samples: null, arch: null, baselines: [] });
    expect(a.perOutputToken).toMatchObject({ reason: 'MISSING_TERM' });
    expect(a.tokenGate.judged).toBe('NOT MEASURED');
    expect(a.exitClass).toBe('void');
  });

  it('a divergent leg has no speed (WRONG_TOKENS) and exits failed', () => {
    const lines = A3_PASS.map((l) => l.replace('96/96', '93/96').replace('prompt 2: prompt_tokens=13 generated=32 golden_width=32 compared=32 matched=32', 'prompt 2: prompt_tokens=13 generated=32 golden_width=32 compared=32 matched=29').replace('STRICT PASS', 'DIVERGENCE'));
    const a = analyze({ report: report(lines, TIMES), timed: true, window: null, samples: null, arch: '121a', baselines: BASELINES });
    expect(a.perOutputToken).toMatchObject({ reason: 'WRONG_TOKENS' });
    expect(a.tokenGate.judged).toBe('DIVERGENCE');
    expect(a.tokenGate.disagreements).toEqual([]);
    expect(a.exitClass).toBe('failed');
  });

  it('fresh-prefill only: no decode block, the rate is withheld', () => {
    const lines = A3_PASS.map((l) => l.replace('mode=decode', 'mode=fresh-prefill'));
    const a = analyze({ report: report(lines, TIMES), timed: true, window: null, samples: null, arch: null, baselines: [] });
    expect(a.perOutputToken).toMatchObject({ status: 'withheld', reason: 'MISSING_TERM' });
  });

  it('both modes: the decode block and its own window', () => {
    const lines = [
      '[nemotron-h] engine loaded in 10.0s',
      '[nemotron-h] prompt 0: prompt_tokens=5 generated=8 golden_width=8 compared=8 matched=8 wall=2.0s',
      '[nemotron-h] TOKEN MATCH: 8/8 over 1 prompt(s) (full rows=1, short rows=0, mode=fresh-prefill)',
      '[nemotron-h] prompt 0: prompt_tokens=5 generated=8 golden_width=8 compared=8 matched=8 wall=3.0s',
      '[nemotron-h] TOKEN MATCH: 8/8 over 1 prompt(s) (full rows=1, short rows=0, mode=decode)',
      '[nemotron-h] STRICT PASS',
    ];
    const d = deriveDecodeWindow(report(lines, [10, 12, 12.5, 14.5, 14.6, 14.6]), null);
    expect(d.window).toEqual({ startS: 12.5, endS: 14.5 });
    expect(d.block?.mode).toBe('decode');
  });
});

describe('token gate: the engine against its own counters', () => {
  it('STRICT PASS printed over a divergent block is flagged and fails', () => {
    const g = judgeTokenGate(report(['[nemotron-h] TOKEN MATCH: 93/96 over 3 prompt(s) (full rows=3, short rows=0, mode=decode)', '[nemotron-h] STRICT PASS']));
    expect(g.judged).toBe('DIVERGENCE');
    expect(g.disagreements.some((d) => d.includes('printed STRICT PASS but its counters read DIVERGENCE'))).toBe(true);
    expect(g.exitClass).toBe('failed');
  });

  it('rows that do not sum to the block line are flagged', () => {
    const lines = [...A3_PASS];
    lines[6] = '[nemotron-h] TOKEN MATCH: 96/96 over 4 prompt(s) (full rows=4, short rows=0, mode=decode)';
    const g = judgeTokenGate(report(lines));
    expect(g.disagreements).toContain('block 0 (mode=decode): 3 prompt row(s) printed, the TOKEN MATCH line says 4');
    const sums = [...A3_PASS];
    sums[4] = sums[4]!.replace('matched=32', 'matched=30');
    expect(judgeTokenGate(report(sums)).disagreements).toContain('block 0 (mode=decode): prompt rows sum to matched=94, the TOKEN MATCH line says 96');
  });

  it('SHORT rows give SHORT (exit 4); REFUSING gives void; zero compared is REFUSED', () => {
    const short = judgeTokenGate(report(['[nemotron-h] TOKEN MATCH: 20/20 over 1 prompt(s) (full rows=0, short rows=1, mode=decode)', '[nemotron-h] SHORT: 1 row']));
    expect([short.judged, short.exitClass]).toEqual(['SHORT', 'short']);
    const refusing = judgeTokenGate(report(['[nemotron-h] REFUSING: no golden']));
    expect([refusing.judged, refusing.exitClass]).toEqual(['NOT MEASURED', 'void']);
    const zero = judgeTokenGate(report(['[nemotron-h] TOKEN MATCH: 0/0 over 0 prompt(s) (full rows=0, short rows=0, mode=decode)', '[nemotron-h] STRICT PASS']));
    expect([zero.judged, zero.exitClass]).toEqual(['REFUSED', 'void']);
    expect(zero.disagreements.join()).toContain('printed STRICT PASS but its counters read REFUSED');
  });

  it('rows with no TOKEN MATCH at all: NOT MEASURED naming the rows once (a cut log, or an engine that prints none), not a second "after the last" line', () => {
    const g = judgeTokenGate(report(A3_PASS.slice(0, 5)));
    expect(g.judged).toBe('NOT MEASURED');
    expect(g.why).toMatch(/^no TOKEN MATCH line, only 3 prompt row\(s\): the log was cut before the engine's summary, or the engine prints none/);
    expect(g.disagreements).toEqual([]);
    // after a block, rows that no block closed are a cut log
    const cut = judgeTokenGate(report([...A3_PASS, A3_PASS[2]!]));
    expect(cut.disagreements).toEqual(['1 prompt row(s) after the last TOKEN MATCH line (a truncated log?)']);
    expect(judgeTokenGate(report([])).why).toMatch(/^no TOKEN MATCH line: the run compared nothing/);
  });

  it('no verdict line is noted; a DIVERGENCE over matching counters is flagged and fails', () => {
    expect(judgeTokenGate(report(A3_PASS.slice(0, 7))).disagreements).toContain('the engine printed no verdict line');
    const g = judgeTokenGate(report([...A3_PASS.slice(0, 7), '[nemotron-h] DIVERGENCE']));
    expect(g.exitClass).toBe('failed');
    expect(g.disagreements.join()).toContain('printed DIVERGENCE but its counters read STRICT PASS');
  });
});

describe('busy in analyze', () => {
  it('samples clipped to the derived window; the nonzero share is compared with the nonzero-share baseline', () => {
    const points = [];
    for (let t = 290; t <= 320; t += 0.5) points.push({ tS: t, gpuPct: t > 300 && t <= 313.8 ? 50 : 0, periodS: 0.5 });
    const a = analyze({ report: report(A3_PASS, TIMES), timed: true, window: null, samples: { points, garbage: [] }, arch: '121a', baselines: BASELINES });
    const tw = a.busy?.timeWeighted;
    expect(tw?.status).toBe('measured');
    if (tw?.status === 'measured') expect(tw.value).toBeGreaterThan(45);
    expect(a.baselines[1]?.status).toBe('measured');
    expect(renderQuantity(a.baselines[1]!)).toMatch(/^GPU busy \(nonzero-sample share\) vs decode busy baseline \d+\.\d{3}x \(\d+\.\d{2}% \/ 6\.31%; both on 121a\)$/);
  });

  it('samples but no load line → WINDOW_UNKNOWN and exit void', () => {
    const noLoad = A3_PASS.filter((l) => !l.includes('engine loaded'));
    const a = analyze({ report: report(noLoad), timed: false, window: null, samples: { points: [{ tS: 1, gpuPct: 5 }], garbage: [{ lineNo: 2, reason: 'not JSON' }] }, arch: null, baselines: [] });
    expect(a.busy?.timeWeighted).toMatchObject({ reason: 'WINDOW_UNKNOWN' });
    expect(a.notes.join()).toContain('1 garbage line(s) skipped');
    expect(a.exitClass).toBe('void');
  });
});

describe('logs without a token gate', () => {
  it('a doctest log is judged by its summaries; an ARM-only log is NOT MEASURED', () => {
    const red = analyze({ report: report(['[doctest] test cases: 1 | 0 passed | 1 failed | 2 skipped', '[doctest] Status: FAILURE!']), timed: false, window: null, samples: null, arch: null, baselines: [] });
    expect(red.exitClass).toBe('failed');
    const none = analyze({ report: report([ARM_DECODE]), timed: false, window: null, samples: null, arch: null, baselines: [] });
    expect(none.exitClass).toBe('void');
    expect(none.notes.join()).toContain('NOT MEASURED');
  });

  it('two load lines are noted', () => {
    const a = analyze({ report: report([A3_PASS[1]!, ...A3_PASS]), timed: false, window: null, samples: null, arch: null, baselines: [] });
    expect(a.notes.join()).toContain('2 engine-load lines');
  });
});

describe('--window parsing', () => {
  it('two numbers parse (even reversed); anything else is a usage error', () => {
    expect(parseWindowArg('12.5:88')).toEqual({ startS: 12.5, endS: 88 });
    expect(parseWindowArg('5:3')).toEqual({ startS: 5, endS: 3 });
    for (const bad of ['abc', '5', '1:2:3', ':3', '1e:2', 'NaN:1']) expect(() => parseWindowArg(bad)).toThrow(/expected T0:T1/);
  });
});

describe('leg file names: one rule', () => {
  it('the leg number, the arm when the run compares arms, the mode', () => {
    expect(legFileBase({ index: 0, arm: 'single', mode: 'decode' })).toBe('leg-01-decode');
    expect(legFileBase({ index: 1, arm: 'B', mode: 'decode' })).toBe('leg-02-B-decode');
    expect(legFileBase({ index: 11, arm: 'A', mode: 'fresh-prefill' })).toBe('leg-12-A-fresh-prefill');
    expect(legFileBase({ index: 99, arm: 'single', mode: 'decode' })).toBe('leg-100-decode');
  });
});
