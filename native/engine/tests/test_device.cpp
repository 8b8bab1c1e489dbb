// Device vs host, per Mamba block. Without a GPU (or in a non-CUDA build) each case takes its
// skip path LOUDLY: a MESSAGE and zero assertions, so the suite's assertion count shows it.
#include <doctest/doctest.h>

#include <cmath>

#include "device.h"
#include "fixtures.h"
#include "attention.h"
#include "mamba.h"
#include "moe.h"
#include "ops.h"

using namespace nhref;

namespace {

bool deviceOrSkip() {
  if (!cudaBuild()) {
    MESSAGE("SKIPPED device case: this build has no CUDA arm (NH_REF_CUDA=OFF); 0 device assertions ran");
    return false;
  }
  const DeviceInfo d = probeDevice();
  if (!d.available) {
    MESSAGE("SKIPPED device case: no usable GPU (" << d.why << "); 0 device assertions ran");
    return false;
  }
  MESSAGE("device case running on " << d.name << " (cc " << d.ccMajor << "." << d.ccMinor << ")");
  return true;
}

int countBad(const std::vector<float>& a, const std::vector<float>& b, float rel) {
  int bad = 0;
  for (size_t i = 0; i < a.size(); ++i) bad += !(std::fabs(a[i] - b[i]) <= rel * (1.0f + std::fabs(a[i])));
  return bad;
}

void compareBlock(const Config& c, bool decodeStep) {
  CAPTURE(c.mHeads);
  CAPTURE(c.mGroups);
  CAPTURE(decodeStep);
  REQUIRE(missingDeviceOps().empty());
  nhtest::MambaFixture fx(c, 31);
  const int T = 12, first = 7, D = c.dModel;
  SplitMix64 rng{32};
  const std::vector<float> u = nhtest::randomVec(rng, size_t(T) * D, 1.0f);
  MambaState host;
  std::vector<float> outHost(size_t(T) * D), outDev(size_t(T) * D);
  mambaPrefill(c, fx.w, host, u.data(), first, outHost.data());
  for (int t = first; t < T; ++t) mambaDecode(c, fx.w, host, u.data() + size_t(t) * D, outHost.data() + size_t(t) * D, decodeStep);
  std::unique_ptr<DeviceMamba> dev = createDeviceMamba(c, fx.w);
  REQUIRE(dev != nullptr);
  dev->prefill(u.data(), first, outDev.data());
  for (int t = first; t < T; ++t) dev->decode(u.data() + size_t(t) * D, outDev.data() + size_t(t) * D, decodeStep);
  CHECK(countBad(outHost, outDev, 2e-3f) == 0);
  // Fresh prefill again on the same device object resets its state.
  std::vector<float> again(size_t(first) * D);
  dev->prefill(u.data(), first, again.data());
  CHECK(countBad(std::vector<float>(outHost.begin(), outHost.begin() + size_t(first) * D), again, 2e-3f) == 0);
}

}  // namespace

TEST_CASE("device Mamba block == host block: n_groups 4, heads per group 4, decode step") {
  if (!deviceOrSkip()) return;
  compareBlock(nhtest::scanConfig(16, 4, 4), true);
}

TEST_CASE("device Mamba block == host block: re-scan arm (NH_REF_MAMBA_DECODE_STEP=0)") {
  if (!deviceOrSkip()) return;
  compareBlock(nhtest::scanConfig(16, 4, 4), false);
}

TEST_CASE("device Mamba block == host block: wide heads (P 64, N 64, heads per group 8)") {
  if (!deviceOrSkip()) return;
  Config c = nhtest::scanConfig(32, 4, 16);
  c.mHeadDim = 64;
  c.mState = 64;
  c.dModel = 256;
  compareBlock(c, true);
}

// The rest of the forward (attention, MoE, lm_head) runs on the device in BOTH arms of a CUDA build.
TEST_CASE("device attention, MoE and head == host: GQA 4/2, top-2 of 4 experts") {
  if (!deviceOrSkip()) return;
  REQUIRE(missingForwardOps().empty());
  Config c;
  c.dModel = 64;
  c.vocab = 256;
  c.layers = "AE";
  c.aHeads = 4; c.aKvHeads = 2; c.aHeadDim = 16;
  c.eExperts = 4; c.eTopK = 2; c.eFf = 32;
  SplitMix64 rng{41};
  const int D = c.dModel, qDim = c.aHeads * c.aHeadDim, kvDim = c.aKvHeads * c.aHeadDim, T = 9;
  const std::vector<float> q = nhtest::randomVec(rng, size_t(qDim) * D, 0.2f), k = nhtest::randomVec(rng, size_t(kvDim) * D, 0.2f),
                           v = nhtest::randomVec(rng, size_t(kvDim) * D, 0.2f), o = nhtest::randomVec(rng, size_t(D) * qDim, 0.2f);
  const AttnWeights aw{q.data(), k.data(), v.data(), o.data()};
  const std::vector<float> u = nhtest::randomVec(rng, size_t(T) * D, 1.0f);
  AttnCache cache;
  std::unique_ptr<DeviceAttention> attn = createDeviceAttention(c, aw);
  REQUIRE(attn != nullptr);
  std::vector<float> host(size_t(T) * D), dev(size_t(T) * D);
  for (int t = 0; t < T; ++t) {
    attnForward(c, aw, cache, u.data() + size_t(t) * D, host.data() + size_t(t) * D);
    attn->forward(u.data() + size_t(t) * D, dev.data() + size_t(t) * D);
  }
  CHECK(countBad(host, dev, 2e-3f) == 0);
  attn->reset();  // a fresh prefill: the device cache starts empty again
  std::vector<float> first(D);
  attn->forward(u.data(), first.data());
  CHECK(countBad(std::vector<float>(host.begin(), host.begin() + D), first, 2e-3f) == 0);

  std::vector<std::vector<float>> up, down;
  MoeWeights mw;
  const std::vector<float> router = nhtest::randomVec(rng, size_t(c.eExperts) * D, 0.3f), bias = nhtest::randomVec(rng, size_t(c.eExperts), 0.5f);
  mw.router = router.data();
  mw.bias = bias.data();
  for (int e = 0; e < c.eExperts; ++e) {
    up.push_back(nhtest::randomVec(rng, size_t(c.eFf) * D, 0.3f));
    down.push_back(nhtest::randomVec(rng, size_t(D) * c.eFf, 0.3f));
  }
  for (int e = 0; e < c.eExperts; ++e) { mw.up.push_back(up[e].data()); mw.down.push_back(down[e].data()); }
  std::unique_ptr<DeviceMoe> moe = createDeviceMoe(c, mw);
  REQUIRE(moe != nullptr);
  for (int t = 0; t < T; ++t) {
    moeForward(c, mw, u.data() + size_t(t) * D, host.data() + size_t(t) * D);
    moe->forward(u.data() + size_t(t) * D, dev.data() + size_t(t) * D);
  }
  CHECK(countBad(host, dev, 2e-3f) == 0);

  const std::vector<float> lm = nhtest::randomVec(rng, size_t(c.vocab) * D, 0.3f);
  std::unique_ptr<DeviceHead> head = createDeviceHead(c, lm.data());
  REQUIRE(head != nullptr);
  std::vector<float> hostLogits(c.vocab), devLogits(c.vocab);
  matvec(lm.data(), u.data(), hostLogits.data(), c.vocab, D);
  head->logits(u.data(), devLogits.data());
  CHECK(countBad(hostLogits, devLogits, 2e-3f) == 0);
}
