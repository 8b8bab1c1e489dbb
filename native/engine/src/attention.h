// attention.h — the GQA attention block (MODEL.md): no RoPE, a k/v cache per layer.
#pragma once
#include <vector>

#include "checkpoint.h"
#include "config.h"

namespace nhref {

struct AttnWeights {
  const float* q = nullptr;  // [Hq*Dh, D]
  const float* k = nullptr;  // [Hkv*Dh, D]
  const float* v = nullptr;  // [Hkv*Dh, D]
  const float* o = nullptr;  // [D, Hq*Dh]
};

AttnWeights attnWeights(const Checkpoint& ck, int layer);

// Keys and values of every position so far, [T][Hkv*Dh] each.
struct AttnCache {
  std::vector<float> k, v;
  int positions = 0;
  void reset() { k.clear(); v.clear(); positions = 0; }
};

// The kv head a query head reads (GQA): exposed so the mapping is tested on its own.
int kvHeadFor(const Config& c, int qHead);

// Attention over pre-projected rows: q [Hq*Dh] against cache rows 0..T-1; writes o [Hq*Dh].
void attendRow(const Config& c, const float* q, const float* keys, const float* values, int T, float* o);

// One position: project, append k/v, attend over every cached position (itself included), o_proj.
void attnForward(const Config& c, const AttnWeights& w, AttnCache& cache, const float* u, float* out);

}  // namespace nhref
