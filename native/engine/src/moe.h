// moe.h — the top-k MoE block with a routing correction bias (MODEL.md).
#pragma once
#include <vector>

#include "checkpoint.h"
#include "config.h"

namespace nhref {

struct MoeWeights {
  const float* router = nullptr;  // [E, D]
  const float* bias = nullptr;    // [E] e_score_correction_bias
  std::vector<const float*> up;   // E x [F, D]
  std::vector<const float*> down; // E x [D, F]
};

MoeWeights moeWeights(const Checkpoint& ck, int layer, const Config& c);

// Routing alone (tested on its own): the topK experts by score + bias (ties to the lower index),
// and their weights s_e / sum of chosen s_e (the bias selects, it never weights).
struct Route {
  std::vector<int> experts;
  std::vector<float> weights;
};
Route moeRoute(const float* scores, const float* bias, int nExperts, int topK);

// One position through the block.
void moeForward(const Config& c, const MoeWeights& w, const float* u, float* out);

}  // namespace nhref
