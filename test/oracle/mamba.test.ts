import { describe, expect, it } from 'vitest';
import { mambaChunked, mambaStep, newMambaState } from '../../src/oracle/mamba.js';
import type { MambaDims, MambaState, MambaWeights } from '../../src/oracle/mamba.js';
import { rng } from './fixture.js';

const f = (xs: number[]) => Float64Array.from(xs);
const silu = (x: number) => x / (1 + Math.exp(-x));

function randomWeights(d: MambaDims, seed: number): MambaWeights {
  const r = rng(seed);
  const u = (n: number, s = 0.5, c = 0) => Float64Array.from({ length: n }, () => c + s * (r() * 2 - 1));
  const dInner = d.H * d.P, C = dInner + 2 * d.G * d.N;
  return {
    inProj: u((2 * dInner + 2 * d.G * d.N + d.H) * d.D), convW: u(C * d.K), convB: u(C, 0.1),
    dtBias: u(d.H, 1, -1), ALog: u(d.H, 0.5, 0.5), Dskip: u(d.H, 0.5, 1),
    normW: u(dInner, 0.1, 1), outProj: u(d.D * dInner),
  };
}

function clone(s: MambaState): MambaState {
  return { conv: s.conv.map((c) => Float64Array.from(c)), S: Float64Array.from(s.S) };
}

function maxAbsDiff(a: Float64Array, b: Float64Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

describe('Mamba2 single step against a hand-computed recurrence', () => {
  it('two steps of a 2-head, 1-group, P=N=K=1 mixer follow S = a S + dt B x, y = C S + D x', () => {
    const d: MambaDims = { D: 1, H: 2, P: 1, G: 1, N: 1, K: 1, L: 4, eps: 1e-5 };
    // in_proj rows: z0 z1 | x0 x1 B C | dt0 dt1 ; with u = [1] the projections are these numbers
    const w: MambaWeights = {
      inProj: f([0.5, -0.25, 1, 2, 0.75, -1.5, 0, 0]), convW: f([1, 1, 1, 1]), convB: f([0, 0, 0, 0]),
      dtBias: f([Math.log(Math.E - 1), Math.log(Math.exp(2) - 1)]), ALog: f([0, Math.log(0.5)]), Dskip: f([0.5, 2]),
      normW: f([1, 3]), outProj: f([1, -1]),
    };
    const st = newMambaState(d);
    const u = f([1]);
    const x = [silu(1), silu(2)], B = silu(0.75), C = silu(-1.5), dt = [1, 2];
    const a = [Math.exp(-1 * 1), Math.exp(-2 * 0.5)];
    const z = [silu(0.5), silu(-0.25)];
    const expectOut = (S: number[]) => {
      const y = [0, 1].map((h) => C * S[h]! + [0.5, 2][h]! * x[h]!);
      const g = y.map((v, h) => v * z[h]!);
      const rms = Math.sqrt((g[0]! ** 2 + g[1]! ** 2) / 2 + 1e-5);
      return (g[0]! / rms) * 1 - (g[1]! / rms) * 3;
    };
    const S1 = [0, 1].map((h) => dt[h]! * B * x[h]!);
    expect(mambaStep(d, w, st, u)[0]).toBeCloseTo(expectOut(S1), 13);
    expect(Array.from(st.S)).toEqual(S1.map((s) => expect.closeTo(s, 14)));
    const S2 = [0, 1].map((h) => a[h]! * S1[h]! + dt[h]! * B * x[h]!);
    expect(mambaStep(d, w, st, u)[0]).toBeCloseTo(expectOut(S2), 13);
  });

  it('the causal conv sees the previous K-1 rows and zeros before position 0', () => {
    const d: MambaDims = { D: 1, H: 2, P: 1, G: 1, N: 1, K: 3, L: 4, eps: 1e-5 };
    const w = randomWeights(d, 7);
    const st = newMambaState(d);
    mambaStep(d, w, st, f([1]));
    expect(st.conv.length).toBe(2);
    expect(Array.from(st.conv[0]!)).toEqual([0, 0, 0, 0]);
    mambaStep(d, w, st, f([2]));
    // the window holds the two latest pre-conv rows, oldest first: xBC(u=1), xBC(u=2) = 2 * xBC(u=1)
    expect(Array.from(st.conv[1]!)).toEqual(Array.from(st.conv[0]!, (v) => 2 * v));
  });
});

describe('chunked scan equals the plain recurrence (n_groups 2, heads per group 4)', () => {
  const d: MambaDims = { D: 6, H: 8, P: 3, G: 2, N: 4, K: 4, L: 3, eps: 1e-5 };
  const w = randomWeights(d, 99);
  const r = rng(5);
  const us = Array.from({ length: 10 }, () => Float64Array.from({ length: d.D }, () => r() * 2 - 1));

  it.each([1, 3, 4, 16])('chunk size %i: same outputs, same carried state, from a non-zero start', (L) => {
    const start = newMambaState(d);
    mambaStep(d, w, start, us[9]!);
    mambaStep(d, w, start, us[8]!);
    const a = clone(start), b = clone(start);
    const ctr = { stepUpdates: 0, chunkScans: 0 };
    const rec = us.map((u) => mambaStep(d, w, a, u));
    const chk = mambaChunked({ ...d, L }, w, b, us, ctr);
    expect(ctr.chunkScans).toBe(Math.ceil(10 / L));
    for (let t = 0; t < us.length; t++) expect(maxAbsDiff(rec[t]!, chk[t]!)).toBeLessThan(1e-12);
    expect(maxAbsDiff(a.S, b.S)).toBeLessThan(1e-12);
    expect(a.S.some((v) => Math.abs(v) > 1e-3)).toBe(true);
    for (let j = 0; j < 3; j++) expect(maxAbsDiff(a.conv[j]!, b.conv[j]!)).toBe(0);
  });

  it('a scan that dropped the carried state would differ (the check can fail)', () => {
    const a = newMambaState(d), b = newMambaState(d);
    mambaStep(d, w, a, us[0]!);
    const rec = mambaStep(d, w, a, us[1]!);
    mambaStep(d, w, b, us[0]!);
    b.S.fill(0);
    const chk = mambaChunked(d, w, b, [us[1]!]);
    expect(maxAbsDiff(rec, chk[0]!)).toBeGreaterThan(1e-6);
  });
});
