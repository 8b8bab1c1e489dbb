#include "mamba.h"

#include <cmath>
#include <cstring>

#include "counters.h"
#include "ops.h"

namespace nhref {

MambaWeights mambaWeights(const Checkpoint& ck, int layer) {
  const std::string p = "layers." + std::to_string(layer) + ".mixer.";
  MambaWeights w;
  w.inProj = ck.get(p + "in_proj.weight");
  w.convW = ck.get(p + "conv1d.weight");
  w.convB = ck.get(p + "conv1d.bias");
  w.dtBias = ck.get(p + "dt_bias");
  w.aLog = ck.get(p + "A_log");
  w.dSkip = ck.get(p + "D");
  w.normW = ck.get(p + "norm.weight");
  w.outProj = ck.get(p + "out_proj.weight");
  return w;
}

void MambaState::reset(const Config& c) {
  convWindow.assign(size_t(c.mConv - 1) * c.convChannels(), 0.0f);
  ssm.assign(size_t(c.mHeads) * c.mHeadDim * c.mState, 0.0f);
  inputs.clear();
  positions = 0;
}

void convStep(const Config& c, const MambaWeights& w, float* window, const float* xBC, float* xc) {
  const int C = c.convChannels(), K = c.mConv;
  for (int ch = 0; ch < C; ++ch) {
    float acc = w.convB[ch];
    // The conv window: taps 0..K-2 read the last K-1 rows (oldest first), tap K-1 the new row.
    for (int j = 0; j < K - 1; ++j) acc += w.convW[ch * K + j] * window[j * C + ch];
    acc += w.convW[ch * K + (K - 1)] * xBC[ch];
    xc[ch] = silu(acc);
  }
  if (K > 1) {
    std::memmove(window, window + C, sizeof(float) * size_t(K - 2) * C);
    std::memcpy(window + size_t(K - 2) * C, xBC, sizeof(float) * C);
  }
  armCounters().convUpdateRows += 1;
}

void convForward(const Config& c, const MambaWeights& w, const float* xBC, int T, int rowStride, float* xc, float* windowOut) {
  const int C = c.convChannels(), K = c.mConv;
  for (int t = 0; t < T; ++t) {
    for (int ch = 0; ch < C; ++ch) {
      float acc = w.convB[ch];
      for (int j = 0; j < K; ++j) {
        const int src = t - (K - 1) + j;  // rows before position 0 are zero
        if (src >= 0) acc += w.convW[ch * K + j] * xBC[size_t(src) * rowStride + ch];
      }
      xc[size_t(t) * C + ch] = silu(acc);
    }
  }
  for (int j = 0; j < K - 1; ++j) {
    const int src = T - (K - 1) + j;
    for (int ch = 0; ch < C; ++ch) windowOut[j * C + ch] = src >= 0 ? xBC[size_t(src) * rowStride + ch] : 0.0f;
  }
  armCounters().convFwdCalls += 1;
}

void ssmStep(const Config& c, const MambaWeights& w, float* S, const float* xc, const float* dtRaw, float* y) {
  const int H = c.mHeads, P = c.mHeadDim, N = c.mState, G = c.mGroups, hpg = c.headsPerGroup();
  const float* x = xc;
  const float* B = xc + c.dInner();
  const float* Cm = xc + c.dInner() + G * N;
  for (int h = 0; h < H; ++h) {
    const int g = h / hpg;  // step: the group this head reads B and C from
    const float dt = softplus(dtRaw[h] + w.dtBias[h]);
    const float a = std::exp(dt * -std::exp(w.aLog[h]));
    for (int p = 0; p < P; ++p) {
      float* s = S + (size_t(h) * P + p) * N;
      const float xv = x[h * P + p];
      float acc = 0.0f;
      for (int n = 0; n < N; ++n) {
        s[n] = a * s[n] + dt * B[g * N + n] * xv;  // the state carry
        acc += Cm[g * N + n] * s[n];
      }
      y[h * P + p] = acc + w.dSkip[h] * xv;
    }
  }
  armCounters().stateUpdateRows += 1;
}

void chunkScan(const Config& c, const MambaWeights& w, const float* xc, const float* dtRaw, int dtStride, int T, float* S, float* y) {
  const int H = c.mHeads, P = c.mHeadDim, N = c.mState, G = c.mGroups, L = c.mChunk, hpg = c.headsPerGroup();
  const int Cc = c.convChannels(), dI = c.dInner();
  std::vector<float> cum(L), dt(L), cb(size_t(L) * L);
  for (int c0 = 0; c0 < T; c0 += L) {
    const int len = std::min(L, T - c0);
    for (int h = 0; h < H; ++h) {
      const int g = h / hpg;  // chunk scan: the group this head reads B and C from
      const float A = -std::exp(w.aLog[h]);
      float run = 0.0f;
      for (int i = 0; i < len; ++i) {
        dt[i] = softplus(dtRaw[size_t(c0 + i) * dtStride + h] + w.dtBias[h]);
        run += dt[i] * A;
        cum[i] = run;  // log of the decay from the chunk start through position i
      }
      // C_t · B_s within the chunk, for this head's group.
      for (int i = 0; i < len; ++i) {
        const float* Ct = xc + size_t(c0 + i) * Cc + dI + G * N + g * N;
        for (int j = 0; j <= i; ++j) {
          const float* Bs = xc + size_t(c0 + j) * Cc + dI + g * N;
          float dot = 0.0f;
          for (int n = 0; n < N; ++n) dot += Ct[n] * Bs[n];
          cb[size_t(i) * L + j] = dot;
        }
      }
      for (int p = 0; p < P; ++p) {
        float* s = S + (size_t(h) * P + p) * N;
        for (int i = 0; i < len; ++i) {
          const float* xt = xc + size_t(c0 + i) * Cc;
          const float* Ct = xt + dI + G * N + g * N;
          // Inter-chunk: the carried state decayed to position i.
          float carry = 0.0f;
          for (int n = 0; n < N; ++n) carry += Ct[n] * s[n];
          float acc = std::exp(cum[i]) * carry;
          // Intra-chunk: the cumulative decay matrix.
          for (int j = 0; j <= i; ++j)
            acc += std::exp(cum[i] - cum[j]) * dt[j] * cb[size_t(i) * L + j] * xc[size_t(c0 + j) * Cc + h * P + p];
          y[size_t(c0 + i) * dI + h * P + p] = acc + w.dSkip[h] * xt[h * P + p];
        }
        // The state carried into the next chunk.
        const float total = std::exp(cum[len - 1]);
        for (int n = 0; n < N; ++n) {
          float add = 0.0f;
          for (int j = 0; j < len; ++j)
            add += std::exp(cum[len - 1] - cum[j]) * dt[j] * xc[size_t(c0 + j) * Cc + dI + g * N + n] * xc[size_t(c0 + j) * Cc + h * P + p];
          s[n] = total * s[n] + add;
        }
      }
    }
  }
  armCounters().chunkScanCalls += 1;
}

namespace {

// y * silu(z) -> rmsnorm over dInner -> out_proj.
void gatedOut(const Config& c, const MambaWeights& w, const float* y, const float* z, float* out) {
  const int dI = c.dInner();
  std::vector<float> g(dI), n(dI);
  for (int i = 0; i < dI; ++i) g[i] = y[i] * silu(z[i]);
  rmsnorm(g.data(), w.normW, n.data(), dI, c.normEps);
  matvec(w.outProj, n.data(), out, c.dModel, dI);
}

// The prefill path over T rows; output rows from firstOut on (the re-scan arm needs only the last).
void runSequence(const Config& c, const MambaWeights& w, MambaState& st, const float* u, int T, float* out, int firstOut) {
  const int rows = c.inProjRows(), dI = c.dInner(), Cc = c.convChannels(), D = c.dModel;
  std::vector<float> zx(size_t(T) * rows), xc(size_t(T) * Cc), y(size_t(T) * dI);
  for (int t = 0; t < T; ++t) matvec(w.inProj, u + size_t(t) * D, zx.data() + size_t(t) * rows, rows, D);
  convForward(c, w, zx.data() + dI, T, rows, xc.data(), st.convWindow.data());
  std::fill(st.ssm.begin(), st.ssm.end(), 0.0f);
  chunkScan(c, w, xc.data(), zx.data() + dI + Cc, rows, T, st.ssm.data(), y.data());
  for (int t = firstOut; t < T; ++t)
    gatedOut(c, w, y.data() + size_t(t) * dI, zx.data() + size_t(t) * rows, out + size_t(t - firstOut) * D);
}

}  // namespace

void mambaPrefill(const Config& c, const MambaWeights& w, MambaState& st, const float* u, int T, float* out) {
  st.reset(c);
  runSequence(c, w, st, u, T, out, 0);
  st.inputs.assign(u, u + size_t(T) * c.dModel);
  st.positions = T;
}

void mambaDecode(const Config& c, const MambaWeights& w, MambaState& st, const float* u, float* out, bool decodeStep) {
  st.inputs.insert(st.inputs.end(), u, u + c.dModel);
  st.positions += 1;
  if (!decodeStep) {
    runSequence(c, w, st, st.inputs.data(), st.positions, out, st.positions - 1);
    return;
  }
  const int rows = c.inProjRows(), dI = c.dInner(), Cc = c.convChannels();
  std::vector<float> zx(rows), xc(Cc), y(dI);
  matvec(w.inProj, u, zx.data(), rows, c.dModel);
  convStep(c, w, st.convWindow.data(), zx.data() + dI, xc.data());
  ssmStep(c, w, st.ssm.data(), xc.data(), zx.data() + dI + Cc, y.data());
  gatedOut(c, w, y.data(), zx.data(), out);
}

}  // namespace nhref
