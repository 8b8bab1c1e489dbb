// ops.h — the host arm's elementwise and matrix-vector primitives (MODEL.md "Forward").
#pragma once
#include <cstdint>

namespace nhref {

// y[out] = W[out, in] · x[in]; row-major W, as every projection in MODEL.md.
void matvec(const float* W, const float* x, float* y, int out, int in);
// y = x / sqrt(mean(x^2) + eps) * w
void rmsnorm(const float* x, const float* w, float* y, int n, double eps);
float silu(float x);
float softplus(float x);
float sigmoid(float x);
// Greedy next token: argmax, ties to the lowest id.
int argmax(const float* v, int n);

}  // namespace nhref
