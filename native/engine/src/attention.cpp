#include "attention.h"

#include <cmath>

#include "ops.h"

namespace nhref {

AttnWeights attnWeights(const Checkpoint& ck, int layer) {
  const std::string p = "layers." + std::to_string(layer) + ".mixer.";
  return AttnWeights{ck.get(p + "q_proj.weight"), ck.get(p + "k_proj.weight"), ck.get(p + "v_proj.weight"),
                     ck.get(p + "o_proj.weight")};
}

int kvHeadFor(const Config& c, int qHead) {
  const int group = c.aHeads / c.aKvHeads;
  return qHead / group;  // the GQA kv-head mapping
}

void attendRow(const Config& c, const float* q, const float* keys, const float* values, int T, float* o) {
  const int Hq = c.aHeads, Dh = c.aHeadDim, kvStride = c.aKvHeads * c.aHeadDim;
  const float scale = 1.0f / std::sqrt(float(Dh));
  std::vector<float> score(T);
  for (int h = 0; h < Hq; ++h) {
    const int kvh = kvHeadFor(c, h);
    const float* qh = q + h * Dh;
    float mx = -INFINITY;
    for (int s = 0; s < T; ++s) {
      const float* ks = keys + size_t(s) * kvStride + kvh * Dh;
      float dot = 0.0f;
      for (int d = 0; d < Dh; ++d) dot += qh[d] * ks[d];
      score[s] = dot * scale;
      mx = std::max(mx, score[s]);
    }
    float sum = 0.0f;
    for (int s = 0; s < T; ++s) {
      score[s] = std::exp(score[s] - mx);
      sum += score[s];
    }
    float* oh = o + h * Dh;
    for (int d = 0; d < Dh; ++d) oh[d] = 0.0f;
    for (int s = 0; s < T; ++s) {
      const float p = score[s] / sum;
      const float* vs = values + size_t(s) * kvStride + kvh * Dh;
      for (int d = 0; d < Dh; ++d) oh[d] += p * vs[d];
    }
  }
}

void attnForward(const Config& c, const AttnWeights& w, AttnCache& cache, const float* u, float* out) {
  const int D = c.dModel, qDim = c.aHeads * c.aHeadDim, kvDim = c.aKvHeads * c.aHeadDim;
  std::vector<float> q(qDim), k(kvDim), v(kvDim), o(qDim);
  matvec(w.q, u, q.data(), qDim, D);
  matvec(w.k, u, k.data(), kvDim, D);
  matvec(w.v, u, v.data(), kvDim, D);
  cache.k.insert(cache.k.end(), k.begin(), k.end());
  cache.v.insert(cache.v.end(), v.begin(), v.end());
  cache.positions += 1;
  attendRow(c, q.data(), cache.k.data(), cache.v.data(), cache.positions, o.data());
  matvec(w.o, o.data(), out, D, qDim);
}

}  // namespace nhref
