#include "ops.h"

#include <cmath>

namespace nhref {

void matvec(const float* W, const float* x, float* y, int out, int in) {
  for (int o = 0; o < out; ++o) {
    const float* row = W + int64_t(o) * in;
    // Four partial sums in a fixed order: deterministic, and lets the compiler pipeline the loop.
    float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
    int i = 0;
    for (; i + 4 <= in; i += 4) {
      s0 += row[i] * x[i];
      s1 += row[i + 1] * x[i + 1];
      s2 += row[i + 2] * x[i + 2];
      s3 += row[i + 3] * x[i + 3];
    }
    for (; i < in; ++i) s0 += row[i] * x[i];
    y[o] = (s0 + s1) + (s2 + s3);
  }
}

void rmsnorm(const float* x, const float* w, float* y, int n, double eps) {
  double ss = 0.0;
  for (int i = 0; i < n; ++i) ss += double(x[i]) * double(x[i]);
  const float inv = float(1.0 / std::sqrt(ss / n + eps));
  for (int i = 0; i < n; ++i) y[i] = x[i] * inv * w[i];
}

float silu(float x) { return x / (1.0f + std::exp(-x)); }

float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

int argmax(const float* v, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (v[i] > v[best]) best = i;
  return best;
}

}  // namespace nhref
