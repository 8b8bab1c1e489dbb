import { matvec, rmsnorm, silu, softplus } from './math.js';

// Dims of one Mamba2 mixer (MODEL.md "Mamba2 mixer").
export interface MambaDims { D: number; H: number; P: number; G: number; N: number; K: number; L: number; eps: number }

// One layer's weights, already float64.
export interface MambaWeights {
  inProj: Float64Array; convW: Float64Array; convB: Float64Array;
  dtBias: Float64Array; ALog: Float64Array; Dskip: Float64Array;
  normW: Float64Array; outProj: Float64Array;
}

// Per-layer decode state: the last K-1 pre-conv xBC rows (oldest first) and S[h][p][n].
export interface MambaState { conv: Float64Array[]; S: Float64Array }

// Counts of work done, so tests can see which path ran.
export interface MambaCounters { stepUpdates: number; chunkScans: number }

// A zeroed state: MODEL.md clarification 5 (every prompt starts from zero).
export function newMambaState(d: MambaDims): MambaState {
  const C = d.H * d.P + 2 * d.G * d.N;
  return { conv: Array.from({ length: d.K - 1 }, () => new Float64Array(C)), S: new Float64Array(d.H * d.P * d.N) };
}

interface Projected { z: Float64Array; xBC: Float64Array; dtRaw: Float64Array }

function project(d: MambaDims, w: MambaWeights, u: Float64Array): Projected {
  const dInner = d.H * d.P;
  const C = dInner + 2 * d.G * d.N;
  const all = matvec(w.inProj, 2 * dInner + 2 * d.G * d.N + d.H, d.D, u);
  return { z: all.subarray(0, dInner), xBC: all.subarray(dInner, dInner + C), dtRaw: all.subarray(dInner + C, dInner + C + d.H) };
}

// Causal conv over the window + this row, then silu; shifts the window (state is updated in place).
function convStep(d: MambaDims, w: MambaWeights, st: MambaState, xBC: Float64Array): Float64Array {
  const C = xBC.length;
  const out = new Float64Array(C);
  for (let c = 0; c < C; c++) {
    let acc = w.convB[c]!;
    for (let j = 0; j < d.K - 1; j++) acc += w.convW[c * d.K + j]! * st.conv[j]![c]!;
    acc += w.convW[c * d.K + d.K - 1]! * xBC[c]!;
    out[c] = silu(acc);
  }
  if (d.K > 1) {
    st.conv.shift();
    st.conv.push(Float64Array.from(xBC));
  }
  return out;
}

function dtAndDecay(d: MambaDims, w: MambaWeights, dtRaw: Float64Array): { dt: Float64Array; logA: Float64Array } {
  const dt = new Float64Array(d.H);
  const logA = new Float64Array(d.H);
  for (let h = 0; h < d.H; h++) {
    dt[h] = softplus(dtRaw[h]! + w.dtBias[h]!);
    logA[h] = dt[h]! * -Math.exp(w.ALog[h]!);
  }
  return { dt, logA };
}

function gateAndOut(d: MambaDims, w: MambaWeights, y: Float64Array, z: Float64Array): Float64Array {
  const g = new Float64Array(y.length);
  for (let i = 0; i < y.length; i++) g[i] = y[i]! * silu(z[i]!);
  return matvec(w.outProj, d.D, d.H * d.P, rmsnorm(g, w.normW, d.eps));
}

// The single-step recurrent update: the decode arm of MODEL.md, and the plain recurrence the oracle trusts.
export function mambaStep(d: MambaDims, w: MambaWeights, st: MambaState, u: Float64Array, ctr?: MambaCounters): Float64Array {
  const { H, P, G, N } = d;
  const dInner = H * P;
  const pr = project(d, w, u);
  const xc = convStep(d, w, st, pr.xBC);
  const { dt, logA } = dtAndDecay(d, w, pr.dtRaw);
  const y = new Float64Array(dInner);
  const hpg = H / G;
  for (let h = 0; h < H; h++) {
    const g = Math.floor(h / hpg);
    const a = Math.exp(logA[h]!);
    for (let p = 0; p < P; p++) {
      const x = xc[h * P + p]!;
      let acc = 0;
      for (let n = 0; n < N; n++) {
        const i = (h * P + p) * N + n;
        const s = a * st.S[i]! + dt[h]! * xc[dInner + g * N + n]! * x;
        st.S[i] = s;
        acc += xc[dInner + G * N + g * N + n]! * s;
      }
      y[h * P + p] = acc + w.Dskip[h]! * x;
    }
  }
  if (ctr) ctr.stepUpdates++;
  return gateAndOut(d, w, y, pr.z);
}

// The chunked (SSD) scan over a whole sequence: intra-chunk through the cumulative decay matrix,
// inter-chunk through the carried state. Same recurrence as mambaStep, different arithmetic order.
export function mambaChunked(d: MambaDims, w: MambaWeights, st: MambaState, us: Float64Array[], ctr?: MambaCounters): Float64Array[] {
  const { H, P, G, N, L } = d;
  const dInner = H * P;
  const hpg = H / G;
  const T = us.length;
  const pr = us.map((u) => project(d, w, u));
  const xc = pr.map((p) => convStep(d, w, st, p.xBC));
  const dd = pr.map((p) => dtAndDecay(d, w, p.dtRaw));
  const ys = us.map(() => new Float64Array(dInner));
  const Bn = (t: number, g: number, n: number): number => xc[t]![dInner + g * N + n]!;
  const Cn = (t: number, g: number, n: number): number => xc[t]![dInner + G * N + g * N + n]!;
  for (let c0 = 0; c0 < T; c0 += L) {
    const c1 = Math.min(T, c0 + L);
    for (let h = 0; h < H; h++) {
      const g = Math.floor(h / hpg);
      const cum = new Float64Array(c1 - c0);
      let run = 0;
      for (let t = c0; t < c1; t++) { run += dd[t]!.logA[h]!; cum[t - c0] = run; }
      // y_t = C_t · (e^{cum_t} S_prev) + sum_{s<=t} (C_t · B_s) e^{cum_t - cum_s} dt_s x_s + D x_t
      for (let t = c0; t < c1; t++) {
        const decayIn = Math.exp(cum[t - c0]!);
        const cb = new Float64Array(t - c0 + 1);
        for (let s = c0; s <= t; s++) {
          let dot = 0;
          for (let n = 0; n < N; n++) dot += Cn(t, g, n) * Bn(s, g, n);
          cb[s - c0] = dot * Math.exp(cum[t - c0]! - cum[s - c0]!) * dd[s]!.dt[h]!;
        }
        for (let p = 0; p < P; p++) {
          let inter = 0;
          for (let n = 0; n < N; n++) inter += Cn(t, g, n) * st.S[(h * P + p) * N + n]!;
          let intra = 0;
          for (let s = c0; s <= t; s++) intra += cb[s - c0]! * xc[s]![h * P + p]!;
          ys[t]![h * P + p] = decayIn * inter + intra + w.Dskip[h]! * xc[t]![h * P + p]!;
        }
      }
      // S_end = e^{cum_last} S_prev + sum_s e^{cum_last - cum_s} dt_s B_s x_s
      const last = cum[c1 - c0 - 1]!;
      for (let p = 0; p < P; p++) {
        for (let n = 0; n < N; n++) {
          const i = (h * P + p) * N + n;
          let acc = Math.exp(last) * st.S[i]!;
          for (let s = c0; s < c1; s++) acc += Math.exp(last - cum[s - c0]!) * dd[s]!.dt[h]! * Bn(s, g, n) * xc[s]![h * P + p]!;
          st.S[i] = acc;
        }
      }
    }
    if (ctr) ctr.chunkScans++;
  }
  return ys.map((y, t) => gateAndOut(d, w, y, pr[t]!.z));
}
