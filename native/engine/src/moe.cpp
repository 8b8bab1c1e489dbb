#include "moe.h"

#include "ops.h"

namespace nhref {

MoeWeights moeWeights(const Checkpoint& ck, int layer, const Config& c) {
  const std::string p = "layers." + std::to_string(layer) + ".mixer.";
  MoeWeights w;
  w.router = ck.get(p + "router.weight");
  w.bias = ck.get(p + "router.e_score_correction_bias");
  for (int e = 0; e < c.eExperts; ++e) {
    w.up.push_back(ck.get(p + "experts." + std::to_string(e) + ".up_proj.weight"));
    w.down.push_back(ck.get(p + "experts." + std::to_string(e) + ".down_proj.weight"));
  }
  return w;
}

Route moeRoute(const float* scores, const float* bias, int nExperts, int topK) {
  std::vector<float> key(nExperts);
  for (int e = 0; e < nExperts; ++e) key[e] = scores[e] + bias[e];  // the routing bias add
  std::vector<bool> taken(nExperts, false);
  Route r;
  for (int k = 0; k < topK; ++k) {
    int best = -1;
    for (int e = 0; e < nExperts; ++e)
      if (!taken[e] && (best < 0 || key[e] > key[best])) best = e;  // strict >: ties to the lower index
    taken[best] = true;
    r.experts.push_back(best);
  }
  float sum = 0.0f;
  for (int e : r.experts) sum += scores[e];
  for (int e : r.experts) r.weights.push_back(scores[e] / sum);
  return r;
}

void moeForward(const Config& c, const MoeWeights& w, const float* u, float* out) {
  const int D = c.dModel, E = c.eExperts, F = c.eFf;
  std::vector<float> scores(E), hidden(F), down(D);
  matvec(w.router, u, scores.data(), E, D);
  for (int e = 0; e < E; ++e) scores[e] = sigmoid(scores[e]);
  const Route r = moeRoute(scores.data(), w.bias, E, c.eTopK);
  for (int d = 0; d < D; ++d) out[d] = 0.0f;
  for (size_t k = 0; k < r.experts.size(); ++k) {
    const int e = r.experts[k];
    matvec(w.up[e], u, hidden.data(), F, D);
    for (int f = 0; f < F; ++f) {
      const float relu = hidden[f] > 0.0f ? hidden[f] : 0.0f;
      hidden[f] = relu * relu;
    }
    matvec(w.down[e], hidden.data(), down.data(), D, F);
    for (int d = 0; d < D; ++d) out[d] += r.weights[k] * down[d];
  }
}

}  // namespace nhref
