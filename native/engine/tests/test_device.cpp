// Device vs host, per Mamba block. Without a GPU (or in a non-CUDA build) each case takes its
// skip path LOUDLY: a MESSAGE and zero assertions, so the suite's assertion count shows it.
#include <doctest/doctest.h>

#include <cmath>

#include "device.h"
#include "fixtures.h"
#include "mamba.h"

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
