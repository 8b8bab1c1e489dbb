import { describe, expect, it } from 'vitest';
import { matvec, rmsnorm, silu, softplus, top2 } from '../../src/oracle/math.js';
import { attnStep, kvHeadFor, newKvCache } from '../../src/oracle/attention.js';
import { moeStep, route } from '../../src/oracle/moe.js';

const f = (xs: number[]) => Float64Array.from(xs);

describe('float64 primitives against hand-computed values', () => {
  it('rmsnorm divides by sqrt(mean(x^2)+eps) and scales by w', () => {
    const out = rmsnorm(f([3, 4]), f([1, 2]), 1e-5);
    const rms = Math.sqrt((9 + 16) / 2 + 1e-5);
    expect(out[0]).toBeCloseTo(3 / rms, 14);
    expect(out[1]).toBeCloseTo((4 / rms) * 2, 14);
    expect(out[1]).toBeCloseTo(2.2627, 3);
  });

  it('softplus cuts over at 20 and is ln 2 at 0; silu(0) = 0, silu(1) = 1/(1+1/e)', () => {
    expect(softplus(25)).toBe(25);
    expect(softplus(0)).toBeCloseTo(Math.LN2, 15);
    expect(softplus(20)).toBeCloseTo(20 + Math.exp(-20), 12);
    expect(silu(0)).toBe(0);
    expect(silu(1)).toBeCloseTo(0.7310585786300049, 15);
  });

  it('matvec reads the weight as row-major [out, in]', () => {
    expect(Array.from(matvec(f([1, 2, 3, 4, 5, 6]), 2, 3, f([1, 0, -1])))).toEqual([-2, -2]);
    expect(() => matvec(f([1, 2, 3]), 2, 2, f([1, 1]))).toThrow(/matvec/);
  });

  it('top2 picks the lowest id on a tie and reports margin 0 there', () => {
    expect(top2(f([1, 5, 5, 2]))).toEqual({ token: 1, runnerUp: 2, marginNats: 0 });
    const p = top2(f([-1, 3, 2.5]));
    expect(p.token).toBe(1);
    expect(p.runnerUp).toBe(2);
    expect(p.marginNats).toBeCloseTo(0.5, 15);
    expect(top2(f([9, 1, 2])).runnerUp).toBe(2);
  });
});

describe('GQA head mapping (Hq/Hkv = 4)', () => {
  it('maps q heads 0-3 to kv head 0 and 4-7 to kv head 1', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((h) => kvHeadFor(h, 8, 2))).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
  });

  it('a one-position attention returns the mapped kv head value; a uniform two-position one returns the mean', () => {
    const Hq = 8, Hkv = 2, Dh = 2, D = Hq * Dh;
    const eye = new Float64Array(D * D);
    for (let i = 0; i < D; i++) eye[i * D + i] = 1;
    const v = new Float64Array(Hkv * Dh * D);
    // v row r reads input component r, so v = u[0..3]
    for (let r = 0; r < Hkv * Dh; r++) v[r * D + r] = 1;
    const w = { q: new Float64Array(Hq * Dh * D), k: new Float64Array(Hkv * Dh * D), v, o: eye };
    const cache = newKvCache();
    const u0 = f([10, 11, 20, 21, ...new Array(D - 4).fill(0)]);
    const out0 = attnStep({ D, Hq, Hkv, Dh }, w, cache, u0);
    for (let h = 0; h < Hq; h++) expect([out0[h * Dh], out0[h * Dh + 1]]).toEqual(h < 4 ? [10, 11] : [20, 21]);
    const u1 = f([30, 31, 40, 41, ...new Array(D - 4).fill(0)]);
    const out1 = attnStep({ D, Hq, Hkv, Dh }, w, cache, u1);
    expect(cache.k.length).toBe(2);
    expect(Array.from(out1.subarray(0, 2))).toEqual([20, 21]);
    expect(Array.from(out1.subarray(14, 16))).toEqual([30, 31]);
  });
});

describe('MoE routing with correction bias', () => {
  it('the bias changes the choice but not the weights', () => {
    const s = f([0.6, 0.5, 0.4]);
    expect(route(s, f([0, 0, 0]), 1)).toEqual({ chosen: [0], weights: [1] });
    expect(route(s, f([0, 0, 0.3]), 1)).toEqual({ chosen: [2], weights: [1] });
    const two = route(s, f([0, 0, 0.3]), 2);
    expect(two.chosen).toEqual([2, 0]);
    expect(two.weights[0]).toBeCloseTo(0.4 / 1.0, 15);
    expect(two.weights[1]).toBeCloseTo(0.6 / 1.0, 15);
  });

  it('ties in score + bias go to the lower index', () => {
    expect(route(f([0.5, 0.7, 0.5]), f([0.2, 0, 0.2]), 1).chosen).toEqual([0]);
  });

  it('moeStep computes sum of w_e * down_e (relu(up_e u))^2 over the chosen experts', () => {
    const D = 1, E = 3, F = 1;
    const w = { router: f([1, 0, -1]), bias: f([0, 0, 5]), up: [f([1]), f([-1]), f([2])], down: [f([2]), f([3]), f([1.5])] };
    const u = f([3]);
    // scores sigmoid(3), sigmoid(0), sigmoid(-3); bias steers to experts 2 then 0
    const s0 = 1 / (1 + Math.exp(-3)), s2 = 1 / (1 + Math.exp(3));
    const y0 = 2 * 9, y2 = 1.5 * 36;
    const expected = (s2 / (s0 + s2)) * y2 + (s0 / (s0 + s2)) * y0;
    expect(moeStep({ D, E, k: 2, F }, w, u)[0]).toBeCloseTo(expected, 13);
    // expert 1's up is negative: relu clips it, so choosing it alone gives 0
    expect(moeStep({ D, E, k: 1, F }, { ...w, bias: f([0, 5, 0]) }, u)[0]).toBe(0);
  });
});
