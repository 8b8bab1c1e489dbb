// Chunked scan vs single-step update: the same recurrence, checked at n_groups > 2 and heads per
// group >= 4 (the seeds' blind spot was a gate at heads-per-group 2 for a model running 8).
#include <doctest/doctest.h>

#include <cmath>

#include "fixtures.h"
#include "mamba.h"
#include "ops.h"

using namespace nhref;

namespace {

// A float64 reference of MODEL.md's recurrence, written here and sharing no code with the engine.
void referenceScan(const Config& c, const MambaWeights& w, const std::vector<float>& xc, const std::vector<float>& dtRaw, int T,
                   std::vector<double>& y, std::vector<double>& S) {
  const int H = c.mHeads, P = c.mHeadDim, N = c.mState, G = c.mGroups, Cc = c.convChannels(), dI = c.dInner();
  S.assign(size_t(H) * P * N, 0.0);
  y.assign(size_t(T) * dI, 0.0);
  for (int t = 0; t < T; ++t) {
    const float* row = xc.data() + size_t(t) * Cc;
    for (int h = 0; h < H; ++h) {
      const int grp = h * G / H;  // the same mapping, written differently on purpose
      const double raw = double(dtRaw[size_t(t) * H + h]) + w.dtBias[h];
      const double dt = raw > 20 ? raw : std::log1p(std::exp(raw));
      const double a = std::exp(dt * -std::exp(double(w.aLog[h])));
      for (int p = 0; p < P; ++p) {
        double acc = 0.0;
        for (int n = 0; n < N; ++n) {
          double& s = S[(size_t(h) * P + p) * N + n];
          s = a * s + dt * row[dI + grp * N + n] * row[h * P + p];
          acc += row[dI + G * N + grp * N + n] * s;
        }
        y[size_t(t) * dI + h * P + p] = acc + double(w.dSkip[h]) * row[h * P + p];
      }
    }
  }
}

struct ScanInputs {
  std::vector<float> xc, dtRaw;
};

ScanInputs scanInputs(const Config& c, int T, uint64_t seed) {
  SplitMix64 rng{seed};
  ScanInputs in;
  in.xc = nhtest::randomVec(rng, size_t(T) * c.convChannels(), 1.0f);
  in.dtRaw = nhtest::randomVec(rng, size_t(T) * c.mHeads, 1.0f);
  return in;
}

void checkConfig(const Config& c, int T) {
  CAPTURE(c.mHeads);
  CAPTURE(c.mGroups);
  CAPTURE(c.mChunk);
  nhtest::MambaFixture fx(c, 77);
  const ScanInputs in = scanInputs(c, T, 99);
  const int dI = c.dInner(), Cc = c.convChannels(), H = c.mHeads;
  std::vector<double> yRef, sRef;
  referenceScan(c, fx.w, in.xc, in.dtRaw, T, yRef, sRef);

  std::vector<float> yChunk(size_t(T) * dI), sChunk(size_t(H) * c.mHeadDim * c.mState, 0.0f);
  chunkScan(c, fx.w, in.xc.data(), in.dtRaw.data(), H, T, sChunk.data(), yChunk.data());

  std::vector<float> yStep(size_t(T) * dI), sStep(sChunk.size(), 0.0f);
  for (int t = 0; t < T; ++t)
    ssmStep(c, fx.w, sStep.data(), in.xc.data() + size_t(t) * Cc, in.dtRaw.data() + size_t(t) * H, yStep.data() + size_t(t) * dI);

  int badChunk = 0, badStep = 0, badPair = 0;
  for (size_t i = 0; i < yRef.size(); ++i) {
    const double tol = 1e-4 * (1.0 + std::fabs(yRef[i]));
    badChunk += std::fabs(yChunk[i] - yRef[i]) > tol;
    badStep += std::fabs(yStep[i] - yRef[i]) > tol;
    badPair += std::fabs(double(yChunk[i]) - yStep[i]) > tol;
  }
  CHECK(badChunk == 0);
  CHECK(badStep == 0);
  CHECK(badPair == 0);
  int badState = 0;
  for (size_t i = 0; i < sRef.size(); ++i) {
    const double tol = 1e-4 * (1.0 + std::fabs(sRef[i]));
    badState += std::fabs(sChunk[i] - sRef[i]) > tol || std::fabs(sStep[i] - sRef[i]) > tol;
  }
  CHECK(badState == 0);
}

}  // namespace

TEST_CASE("chunk scan == single-step update at n_groups 4, heads per group 4") {
  checkConfig(nhtest::scanConfig(16, 4, 4), 13);
}

TEST_CASE("chunk scan == single-step update at n_groups 3, heads per group 8, chunk 5") {
  checkConfig(nhtest::scanConfig(24, 3, 5), 17);
}

TEST_CASE("chunk scan carries its state across calls (prefix then rest == whole)") {
  const Config c = nhtest::scanConfig(16, 4, 4);
  nhtest::MambaFixture fx(c, 5);
  const int T = 11, first = 6, H = c.mHeads, dI = c.dInner(), Cc = c.convChannels();
  const ScanInputs in = scanInputs(c, T, 6);
  std::vector<float> yAll(size_t(T) * dI), sAll(size_t(H) * c.mHeadDim * c.mState, 0.0f);
  chunkScan(c, fx.w, in.xc.data(), in.dtRaw.data(), H, T, sAll.data(), yAll.data());
  std::vector<float> ySplit(size_t(T) * dI), sSplit(sAll.size(), 0.0f);
  chunkScan(c, fx.w, in.xc.data(), in.dtRaw.data(), H, first, sSplit.data(), ySplit.data());
  chunkScan(c, fx.w, in.xc.data() + size_t(first) * Cc, in.dtRaw.data() + size_t(first) * H, H, T - first, sSplit.data(),
            ySplit.data() + size_t(first) * dI);
  int bad = 0;
  for (size_t i = 0; i < yAll.size(); ++i) bad += std::fabs(yAll[i] - ySplit[i]) > 1e-4f * (1.0f + std::fabs(yAll[i]));
  CHECK(bad == 0);
}

TEST_CASE("causal conv: row updates == whole-sequence pass, window carried") {
  const Config c = nhtest::scanConfig(16, 4, 4);
  nhtest::MambaFixture fx(c, 8);
  const int T = 9, Cc = c.convChannels(), K = c.mConv;
  SplitMix64 rng{9};
  const std::vector<float> xBC = nhtest::randomVec(rng, size_t(T) * Cc, 1.0f);
  std::vector<float> full(size_t(T) * Cc), windowFull(size_t(K - 1) * Cc);
  convForward(c, fx.w, xBC.data(), T, Cc, full.data(), windowFull.data());
  std::vector<float> window(size_t(K - 1) * Cc, 0.0f), rows(size_t(T) * Cc);
  for (int t = 0; t < T; ++t) convStep(c, fx.w, window.data(), xBC.data() + size_t(t) * Cc, rows.data() + size_t(t) * Cc);
  int bad = 0;
  for (size_t i = 0; i < full.size(); ++i) bad += std::fabs(full[i] - rows[i]) > 1e-5f;
  CHECK(bad == 0);
  CHECK(window == windowFull);
  // The first row sees only itself: silu(bias + w[K-1] * x).
  const float expect0 = silu(fx.convB[3] + fx.convW[3 * K + K - 1] * xBC[3]);
  CHECK(full[3] == doctest::Approx(expect0).epsilon(1e-6));
  // Row 2 sees rows 0..2 through taps 1..3.
  float acc = fx.convB[5];
  for (int j = 1; j < K; ++j) acc += fx.convW[5 * K + j] * xBC[size_t(j - 1) * Cc + 5];
  CHECK(full[size_t(2) * Cc + 5] == doctest::Approx(silu(acc)).epsilon(1e-5));
}

TEST_CASE("Mamba mixer: decode step == re-scan of the prefix == prefill of the whole sequence") {
  const Config c = nhtest::scanConfig(16, 4, 4);
  nhtest::MambaFixture fx(c, 11);
  const int T = 10, first = 5, D = c.dModel;
  SplitMix64 rng{12};
  const std::vector<float> u = nhtest::randomVec(rng, size_t(T) * D, 1.0f);
  MambaState whole, step, rescan;
  std::vector<float> outWhole(size_t(T) * D), outStep(size_t(T) * D), outRescan(size_t(T) * D);
  mambaPrefill(c, fx.w, whole, u.data(), T, outWhole.data());
  mambaPrefill(c, fx.w, step, u.data(), first, outStep.data());
  mambaPrefill(c, fx.w, rescan, u.data(), first, outRescan.data());
  for (int t = first; t < T; ++t) {
    mambaDecode(c, fx.w, step, u.data() + size_t(t) * D, outStep.data() + size_t(t) * D, true);
    mambaDecode(c, fx.w, rescan, u.data() + size_t(t) * D, outRescan.data() + size_t(t) * D, false);
  }
  int badStep = 0, badRescan = 0;
  for (size_t i = 0; i < outWhole.size(); ++i) {
    const float tol = 1e-4f * (1.0f + std::fabs(outWhole[i]));
    badStep += std::fabs(outWhole[i] - outStep[i]) > tol;
    badRescan += std::fabs(outWhole[i] - outRescan[i]) > tol;
  }
  CHECK(badStep == 0);
  CHECK(badRescan == 0);
}
