// MoE routing (with the correction bias) and the GQA head mapping.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "attention.h"
#include "fixtures.h"
#include "moe.h"
#include "ops.h"

using namespace nhref;

TEST_CASE("MoE routing: the correction bias selects the experts but never weights them") {
  const std::vector<float> scores = {0.9f, 0.8f, 0.7f, 0.1f};
  const std::vector<float> bias = {0.0f, 0.0f, 0.0f, 1.0f};
  const Route r = moeRoute(scores.data(), bias.data(), 4, 2);
  REQUIRE(r.experts.size() == 2);
  CHECK(r.experts[0] == 3);  // 0.1 + 1.0 beats 0.9 only through the bias
  CHECK(r.experts[1] == 0);
  CHECK(r.weights[0] == doctest::Approx(0.1 / 1.0));
  CHECK(r.weights[1] == doctest::Approx(0.9 / 1.0));
}

TEST_CASE("MoE routing: without bias the top scores win; ties go to the lower index") {
  const std::vector<float> scores = {0.5f, 0.7f, 0.7f, 0.2f, 0.7f};
  const std::vector<float> zero(5, 0.0f);
  const Route r = moeRoute(scores.data(), zero.data(), 5, 3);
  REQUIRE(r.experts.size() == 3);
  CHECK(r.experts[0] == 1);
  CHECK(r.experts[1] == 2);
  CHECK(r.experts[2] == 4);
  float sum = 0.0f;
  for (float w : r.weights) sum += w;
  CHECK(sum == doctest::Approx(1.0));
  // A negative bias pushes an expert out.
  const std::vector<float> bias = {0.0f, -1.0f, 0.0f, 0.0f, 0.0f};
  const Route r2 = moeRoute(scores.data(), bias.data(), 5, 3);
  CHECK(r2.experts[0] == 2);
  CHECK(r2.experts[1] == 4);
  CHECK(r2.experts[2] == 0);
}

TEST_CASE("MoE block: output is the routed, weighted sum of squared-ReLU experts") {
  Config c;
  c.dModel = 8; c.eExperts = 4; c.eTopK = 2; c.eFf = 6;
  SplitMix64 rng{21};
  std::vector<float> router = nhtest::randomVec(rng, 4 * 8, 0.5f), bias = {0.0f, 0.0f, 2.0f, 0.0f};
  std::vector<std::vector<float>> up, down;
  MoeWeights w;
  w.router = router.data();
  w.bias = bias.data();
  for (int e = 0; e < 4; ++e) {
    up.push_back(nhtest::randomVec(rng, 6 * 8, 0.5f));
    down.push_back(nhtest::randomVec(rng, 8 * 6, 0.5f));
  }
  for (int e = 0; e < 4; ++e) {
    w.up.push_back(up[e].data());
    w.down.push_back(down[e].data());
  }
  const std::vector<float> u = nhtest::randomVec(rng, 8, 1.0f);
  std::vector<float> out(8);
  moeForward(c, w, u.data(), out.data());
  // Independent recomputation in double.
  std::vector<double> s(4);
  for (int e = 0; e < 4; ++e) {
    double acc = 0;
    for (int d = 0; d < 8; ++d) acc += double(router[e * 8 + d]) * u[d];
    s[e] = 1.0 / (1.0 + std::exp(-acc));
  }
  int first = 2, second = -1;  // expert 2 carries +2 bias: always chosen first
  for (int e = 0; e < 4; ++e)
    if (e != first && (second < 0 || s[e] + bias[e] > s[second] + bias[second])) second = e;
  std::vector<double> expect(8, 0.0);
  for (int e : {first, second}) {
    const double we = s[e] / (s[first] + s[second]);
    std::vector<double> hidden(6);
    for (int f = 0; f < 6; ++f) {
      double acc = 0;
      for (int d = 0; d < 8; ++d) acc += double(up[e][f * 8 + d]) * u[d];
      hidden[f] = acc > 0 ? acc * acc : 0.0;
    }
    for (int d = 0; d < 8; ++d) {
      double acc = 0;
      for (int f = 0; f < 6; ++f) acc += double(down[e][d * 6 + f]) * hidden[f];
      expect[d] += we * acc;
    }
  }
  for (int d = 0; d < 8; ++d) CHECK(out[d] == doctest::Approx(expect[d]).epsilon(1e-4));
}

TEST_CASE("GQA: query head h reads kv head h / (Hq / Hkv)") {
  Config c;
  c.aHeads = 8; c.aKvHeads = 2; c.aHeadDim = 4;
  for (int h = 0; h < 4; ++h) CHECK(kvHeadFor(c, h) == 0);
  for (int h = 4; h < 8; ++h) CHECK(kvHeadFor(c, h) == 1);
  c.aKvHeads = 4;
  CHECK(kvHeadFor(c, 1) == 0);
  CHECK(kvHeadFor(c, 2) == 1);
  CHECK(kvHeadFor(c, 7) == 3);
}

TEST_CASE("GQA attention: each query head averages its own kv head's values") {
  Config c;
  c.aHeads = 6; c.aKvHeads = 3; c.aHeadDim = 2;
  const int kvStride = 3 * 2, T = 2;
  // Keys equal everywhere: softmax is uniform, so o_h = the mean of its kv head's values.
  std::vector<float> keys(T * kvStride, 0.5f), values(T * kvStride);
  for (int s = 0; s < T; ++s)
    for (int kvh = 0; kvh < 3; ++kvh)
      for (int d = 0; d < 2; ++d) values[s * kvStride + kvh * 2 + d] = float(10 * kvh + d + s);
  std::vector<float> q(6 * 2, 1.0f), o(6 * 2);
  attendRow(c, q.data(), keys.data(), values.data(), T, o.data());
  for (int h = 0; h < 6; ++h) {
    const int kvh = h / 2;
    for (int d = 0; d < 2; ++d) CHECK(o[h * 2 + d] == doctest::Approx(10.0 * kvh + d + 0.5));
  }
  // Attention weights follow the scores: a key aligned with q dominates.
  std::vector<float> keys2(T * kvStride, 0.0f);
  for (int d = 0; d < 2; ++d) keys2[1 * kvStride + 0 * 2 + d] = 20.0f;
  attendRow(c, q.data(), keys2.data(), values.data(), T, o.data());
  CHECK(o[0] == doctest::Approx(values[1 * kvStride + 0]).epsilon(1e-3));
}
