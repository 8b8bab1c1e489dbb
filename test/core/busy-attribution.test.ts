import { describe, expect, it } from 'vitest';
import { busyFromSamples, type UtilPoint } from '../../src/quantity/busy.js';
import { busyInWindow, readingLevel, readingsOfSource, spansOf } from '../../src/quantity/busySpans.js';
import { burstLoad, driverSamples, dutyLoad, truePct, type Interval } from './driverSim.js';
// @ts-expect-error plain ESM script without types
import { uniformBusyPct } from '../../scripts/calibrate/judge.mjs';

// Issue #23: nh-gate busy read low against CUDA-event truth, more so at high duty. Its cause, pinned here against
// a stand-in driver (test/core/driverSim.ts) whose busy intervals are known exactly: a load that starts and stops
// with the window leaves the periods cut by the window's edges partly idle OUTSIDE it, and spreading such a
// period uniformly over its overlap charges that idle time to the inside. Plus the driver truncates its readings.

const P = 0.2; // the H200 driver's period
const PHASES = Array.from({ length: 20 }, (_, i) => (i * P) / 20 + 0.0037);

function figure(samples: UtilPoint[], startS: number, endS: number, readings: 'driver' | 'exact' = 'exact'): number {
  const q = busyFromSamples(samples, { startS, endS }, { readings }).timeWeighted;
  if (q.status !== 'measured') throw new Error(`not measured: ${q.reason}`);
  return q.value;
}

// The rule this issue replaced (scripts/calibrate/judge.mjs keeps it for the battery's before column): each
// period spread uniformly over its overlap with the window, readings as given.
const uniformFigure = (samples: UtilPoint[], startS: number, endS: number): number => uniformBusyPct(samples, { startS, endS }) as number;

// Errors (figure − truth) over every driver phase for a load that runs exactly over the window [10, 10 + W).
function errors(load: (s: number, e: number) => Interval[], windowS: number, truncate: boolean, rule: 'new' | 'uniform' = 'new'): number[] {
  const [s, e] = [10, 10 + windowS];
  const intervals = load(s, e);
  return PHASES.map((phaseS) => {
    const samples = driverSamples(intervals, { fromS: s - 2, toS: e + 2, periodS: P, phaseS, truncate });
    const got = rule === 'uniform' ? uniformFigure(samples, s, e) : figure(samples, s, e, truncate ? 'driver' : 'exact');
    return got - truePct(intervals, s, e);
  });
}
const maxAbs = (xs: number[]): number => Math.max(...xs.map(Math.abs));
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('busy attribution against a driver with known busy intervals (issue #23)', () => {
  it('the cause: uniform spreading reads a load that fills the window low, by up to duty × period / 4 per edge', () => {
    const e80 = errors((s, e) => dutyLoad(0.8, s, e), 6, false, 'uniform');
    // Always low, and at its worst about 2 × 0.8 × 0.2 / 4 / 6 = 1.33 points: the table, −0.4 to −2.2.
    expect(Math.max(...e80)).toBeLessThan(0.01);
    expect(Math.min(...e80)).toBeLessThan(-1.0);
    expect(Math.min(...e80)).toBeGreaterThan(-1.4);
  });

  it('the fix: the edge periods split at the neighbouring level read the same load exactly, at every duty and phase', () => {
    for (const duty of [0.05, 0.2, 0.5, 0.8, 0.95]) {
      for (const windowS of [3, 6]) expect(maxAbs(errors((s, e) => dutyLoad(duty, s, e), windowS, false))).toBeLessThan(0.02);
    }
  });

  it('truncated driver readings: within 0.5 points at ≤ 20% and 1 point at any duty (windows of 3 and 6 s), no bias left', () => {
    for (const duty of [0.05, 0.2, 0.5, 0.8]) {
      for (const windowS of [3, 6]) {
        const regular = errors((s, e) => dutyLoad(duty * 1.0073, s, e), windowS, true);
        const bursts = errors((s, e) => burstLoad(duty, s, e, Math.round(duty * 1000) + windowS), windowS, true);
        const bound = duty <= 0.2 ? 0.5 : 1;
        expect(maxAbs(regular), `regular ${duty} over ${windowS} s`).toBeLessThanOrEqual(bound);
        expect(maxAbs(bursts), `bursts ${duty} over ${windowS} s`).toBeLessThanOrEqual(bound);
        expect(Math.abs(mean(bursts)), `bursts ${duty} over ${windowS} s: mean`).toBeLessThan(0.35);
      }
    }
  });

  it('without the midpoint, truncated readings read low: the second half of the cause', () => {
    const intervals = burstLoad(0.2, 10, 16, 7);
    const low = PHASES.map((phaseS) => {
      const samples = driverSamples(intervals, { fromS: 8, toS: 18, periodS: P, phaseS, truncate: true });
      return figure(samples, 10, 16, 'exact') - truePct(intervals, 10, 16);
    });
    expect(mean(low)).toBeLessThan(-0.3);
  });

  it('a level that holds through the edges is split as uniformly as before; busy before an idle window stays outside', () => {
    const steady = dutyLoad(0.6, 5, 20);
    const samples = driverSamples(steady, { fromS: 4, toS: 21, periodS: P, phaseS: 0.07, truncate: false });
    expect(figure(samples, 10.05, 13.13)).toBeCloseTo(uniformFigure(samples, 10.05, 13.13), 6);
    const before = dutyLoad(0.9, 5, 10);
    const s2 = driverSamples(before, { fromS: 4, toS: 16, periodS: P, phaseS: 0.09, truncate: false });
    expect(figure(s2, 10, 13)).toBeCloseTo(0, 9);
    expect(uniformFigure(s2, 10, 13)).toBeGreaterThan(1);
  });
});

describe('busySpans', () => {
  it('readingLevel: driver readings 1–99 count at their midpoint; 0, 100 and fractional readings as given', () => {
    expect([0, 1, 37, 99, 100, 37.2].map((v) => readingLevel(v, 'driver'))).toEqual([0, 1.5, 37.5, 99.5, 100, 37.2]);
    expect([0, 37, 100].map((v) => readingLevel(v, 'exact'))).toEqual([0, 37, 100]);
    // nh-gate's own samplers write the driver's readings; a file from elsewhere is taken as given.
    expect(['nvml', 'nvidia-smi', 'file', undefined, null].map(readingsOfSource)).toEqual(['driver', 'driver', 'exact', 'exact', 'exact']);
  });

  it('spans: own period clipped at the previous sample, else back to it, else nominal; a first sample with neither has none', () => {
    const s = spansOf([{ tS: 1, pct: 10 }, { tS: 2, pct: 20, periodS: 5 }, { tS: 4, pct: 30 }, { tS: 5, pct: 40, periodS: 0.5 }, { tS: 6, pct: 1, periodS: 0 }]);
    expect(s).toEqual([{ startS: 1, endS: 2, pct: 20 }, { startS: 2, endS: 4, pct: 30 }, { startS: 4.5, endS: 5, pct: 40 }, { startS: 5, endS: 6, pct: 1 }]);
    expect(spansOf([{ tS: 1, pct: 10 }], 0.25)).toEqual([{ startS: 0.75, endS: 1, pct: 10 }]);
  });

  it('an edge split by a neighbour is clamped to what the period can hold', () => {
    // Window [1.5, 3]: the period (1, 2] read 50% → 0.5 busy s; its neighbour before read 100%, so the 0.5 s
    // outside would take all of it → inside 0, never negative. After: (3, 4] read 0 → the period (2.5, 3.5]
    // keeps at most its inside 0.5 s busy.
    const b = busyInWindow([{ startS: 0, endS: 1, pct: 100 }, { startS: 1, endS: 2, pct: 50 }, { startS: 2, endS: 3, pct: 20 }], 1.5, 3);
    expect(b).toMatchObject({ spans: 2, coveredS: 1.5, startEdge: 'neighbour', endEdge: null, periodsS: [1, 1] });
    expect(b.busyPctS).toBeCloseTo(0 + 20, 9);
    const c = busyInWindow([{ startS: 1.5, endS: 2.5, pct: 10 }, { startS: 2.5, endS: 3.5, pct: 100 }, { startS: 3.5, endS: 4.5, pct: 0 }], 1.5, 3);
    expect(c).toMatchObject({ startEdge: null, endEdge: 'neighbour' });
    expect(c.busyPctS).toBeCloseTo(10 + 50, 9);
    // A gap of more than 1 ms before a span: no neighbour, spread uniformly.
    const d = busyInWindow([{ startS: 0, endS: 1, pct: 0 }, { startS: 1.01, endS: 2, pct: 50 }], 1.5, 2);
    expect(d).toMatchObject({ startEdge: 'uniform' });
    expect(d.busyPctS).toBeCloseTo(25, 9);
  });

  it('spans: a stated period that is not a positive finite number is no period; a repeated timestamp covers nothing', () => {
    expect(spansOf([{ tS: 1, pct: 10 }, { tS: 2, pct: 20, periodS: -1 }, { tS: 3, pct: 30, periodS: Number.NaN }])).toEqual([
      { startS: 1, endS: 2, pct: 20 }, { startS: 2, endS: 3, pct: 30 },
    ]);
    expect(spansOf([{ tS: 1, pct: 10, periodS: Number.POSITIVE_INFINITY }])).toEqual([]);
    expect(spansOf([{ tS: 1, pct: 10, periodS: 1 }, { tS: 1, pct: 70 }])).toEqual([{ startS: 0, endS: 1, pct: 10 }]);
  });

  it('neighbours are spans that touch (1 ms of float slack, inclusive); a gap after a span leaves its end uniform', () => {
    const touch = busyInWindow([{ startS: -1, endS: 0, pct: 0 }, { startS: 0.001, endS: 1.001, pct: 50 }], 0.5, 1.001);
    expect(touch).toMatchObject({ startEdge: 'neighbour', endEdge: null, spans: 1 });
    expect(touch.periodsS[0]).toBeCloseTo(1, 9);
    expect(touch.busyPctS).toBeCloseTo(50, 9);
    const touchAfter = busyInWindow([{ startS: -1, endS: 0, pct: 50 }, { startS: 0.001, endS: 1, pct: 0 }], -1, -0.5);
    expect(touchAfter).toMatchObject({ startEdge: null, endEdge: 'neighbour', busyPctS: 50 });
    const gapAfter = busyInWindow([{ startS: 0, endS: 1, pct: 50 }, { startS: 1.01, endS: 2, pct: 0 }], 0, 0.5);
    expect(gapAfter).toMatchObject({ startEdge: null, endEdge: 'uniform', spans: 1, coveredS: 0.5 });
    expect(gapAfter.busyPctS).toBeCloseTo(25, 9);
  });

  it('a non-finite reading is dropped, not a NaN figure; a window of exactly two periods is fine; uncut edges say so', () => {
    const q = busyFromSamples([{ tS: 11, gpuPct: 50, periodS: 1 }, { tS: 12, gpuPct: Number.NaN, periodS: 1 }], { startS: 10, endS: 12 }).timeWeighted;
    expect(q).toMatchObject({ status: 'measured', value: 50 });
    const two = busyFromSamples([{ tS: 1, gpuPct: 10, periodS: 1 }, { tS: 2, gpuPct: 10, periodS: 1 }], { startS: 0, endS: 2 }).timeWeighted;
    expect(two.status === 'measured' && [two.terms.resolution?.value, two.terms.edges?.value]).toEqual(['fine', 'none cut']);
  });

  it('the terms say how the edges were split and what the readings are', () => {
    const q = busyFromSamples([{ tS: 1, gpuPct: 0, periodS: 1 }, { tS: 2, gpuPct: 40, periodS: 1 }, { tS: 3, gpuPct: 40, periodS: 1 }], { startS: 1.5, endS: 2.9 }, { readings: 'driver' }).timeWeighted;
    expect(q.status).toBe('measured');
    if (q.status !== 'measured') return;
    expect(q.terms.edges?.value).toBe('start: the part outside charged at the level of the sample before it; end: spread uniformly (no sample after it)');
    expect(String(q.terms.readings?.value)).toMatch(/truncated by the driver.*\+0\.5/);
    // (40.5 × 1 − 0 × 0.5 = 40.5 busy inside (1.5, 2]) + 40.5 × 0.9 over (2, 2.9] = 76.95 over 1.4 s
    expect(q.value).toBeCloseTo(76.95 / 1.4, 9);
  });
});
