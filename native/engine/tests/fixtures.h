// fixtures.h — deterministic random inputs for the suites (the engine's own SplitMix64).
#pragma once
#include <vector>

#include "checkpoint.h"
#include "config.h"
#include "mamba.h"

namespace nhtest {

inline std::vector<float> randomVec(nhref::SplitMix64& rng, size_t n, float scale, float offset = 0.0f) {
  std::vector<float> v(n);
  for (float& x : v) x = offset + scale * rng.uniform();
  return v;
}

// A Mamba config with n_groups > 2 and heads per group >= 4, where a wrong group index shows.
inline nhref::Config scanConfig(int heads, int groups, int chunk) {
  nhref::Config c;
  c.dModel = 32;
  c.layers = "M";
  c.mHeads = heads; c.mHeadDim = 4; c.mGroups = groups; c.mState = 8; c.mConv = 4; c.mChunk = chunk;
  return c;
}

// Owns the buffers a MambaWeights points into.
struct MambaFixture {
  nhref::Config cfg;
  std::vector<float> inProj, convW, convB, dtBias, aLog, dSkip, normW, outProj;
  nhref::MambaWeights w;
  explicit MambaFixture(const nhref::Config& c, uint64_t seed) : cfg(c) {
    nhref::SplitMix64 rng{seed};
    inProj = randomVec(rng, size_t(c.inProjRows()) * c.dModel, 0.3f);
    convW = randomVec(rng, size_t(c.convChannels()) * c.mConv, 0.5f);
    convB = randomVec(rng, size_t(c.convChannels()), 0.2f);
    dtBias = randomVec(rng, size_t(c.mHeads), 1.0f, -2.0f);
    aLog = randomVec(rng, size_t(c.mHeads), 0.75f, 0.75f);
    dSkip = randomVec(rng, size_t(c.mHeads), 0.5f, 1.0f);
    normW = randomVec(rng, size_t(c.dInner()), 0.1f, 1.0f);
    outProj = randomVec(rng, size_t(c.dModel) * c.dInner(), 0.3f);
    w = nhref::MambaWeights{inProj.data(), convW.data(), convB.data(), dtBias.data(), aLog.data(), dSkip.data(), normW.data(), outProj.data()};
  }
};

}  // namespace nhtest
