// device_forward.cu — the rest of the forward on the GPU in a CUDA build: GQA attention (k/v cache on the
// device), the MoE block and the lm_head. They run on the device in BOTH arms of NH_REF_DEVICE_MAMBA, so
// the flag moves only the Mamba blocks (the seeds' question) and the host arm's GPU is not idle.
// Same math as attention.cpp / moe.cpp / model.cpp (MODEL.md); float32, --fmad=false.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "counters.h"
#include "device.h"
#include "moe.h"

namespace nhref {
namespace {

#include "common.cuh"

// One query row against cache rows [0, T): block = query head, shared memory = T scores.
__global__ void attendKernel(const float* q, const float* keys, const float* values, int T, int Hq, int Hkv, int Dh,
                             float* o) {
  extern __shared__ float score[];
  __shared__ float red[128];
  const int h = blockIdx.x, kvh = h / (Hq / Hkv), kvStride = Hkv * Dh;
  const float scale = 1.0f / sqrtf(float(Dh));
  const float* qh = q + h * Dh;
  float mx = -INFINITY;
  for (int s = threadIdx.x; s < T; s += blockDim.x) {
    const float* ks = keys + size_t(s) * kvStride + kvh * Dh;
    float dot = 0.0f;
    for (int d = 0; d < Dh; ++d) dot += qh[d] * ks[d];
    score[s] = dot * scale;
    mx = fmaxf(mx, score[s]);
  }
  red[threadIdx.x] = mx;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + w]);
    __syncthreads();
  }
  mx = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int s = threadIdx.x; s < T; s += blockDim.x) {
    score[s] = expf(score[s] - mx);
    sum += score[s];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w];
    __syncthreads();
  }
  sum = red[0];
  for (int d = threadIdx.x; d < Dh; d += blockDim.x) {
    float acc = 0.0f;
    for (int s = 0; s < T; ++s) acc += (score[s] / sum) * values[size_t(s) * kvStride + kvh * Dh + d];
    o[h * Dh + d] = acc;
  }
}

// hidden = relu(hidden)^2 in place.
__global__ void reluSquaredKernel(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float r = x[i] > 0.0f ? x[i] : 0.0f;
    x[i] = r * r;
  }
}

// out += w * x (out zeroed first by first=1).
__global__ void axpyKernel(float* out, const float* x, float w, int n, int first) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (first ? 0.0f : out[i]) + w * x[i];
}

class CudaAttention final : public DeviceAttention {
 public:
  CudaAttention(const Config& c, const AttnWeights& w) : c_(c) {
    const size_t D = c.dModel, qDim = size_t(c.aHeads) * c.aHeadDim, kvDim = size_t(c.aKvHeads) * c.aHeadDim;
    q_.upload(w.q, qDim * D);
    k_.upload(w.k, kvDim * D);
    v_.upload(w.v, kvDim * D);
    o_.upload(w.o, D * qDim);
    u_.ensure(D);
    qv_.ensure(qDim);
    att_.ensure(qDim);
    out_.ensure(D);
  }
  void reset() override { positions_ = 0; }
  void forward(const float* u, float* out) override {
    const int D = c_.dModel, qDim = c_.aHeads * c_.aHeadDim, kvDim = c_.aKvHeads * c_.aHeadDim;
    const size_t need = size_t(positions_ + 1) * kvDim;
    if (need > keys_.n) grow(std::max(need, 2 * keys_.n));
    check(cudaMemcpy(u_.p, u, size_t(D) * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    launchGemv(q_.p, u_.p, qv_.p, qDim, D, 1);
    launchGemv(k_.p, u_.p, keys_.p + size_t(positions_) * kvDim, kvDim, D, 1);
    launchGemv(v_.p, u_.p, values_.p + size_t(positions_) * kvDim, kvDim, D, 1);
    positions_ += 1;
    attendKernel<<<c_.aHeads, 128, size_t(positions_) * sizeof(float)>>>(qv_.p, keys_.p, values_.p, positions_, c_.aHeads,
                                                                         c_.aKvHeads, c_.aHeadDim, att_.p);
    launchGemv(o_.p, att_.p, out_.p, D, qDim, 1);
    check(cudaGetLastError(), "attention kernel launch");
    check(cudaMemcpy(out, out_.p, size_t(D) * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    armCounters().deviceForwardBlocks += 1;
  }

 private:
  void grow(size_t count) {
    const size_t kvDim = size_t(c_.aKvHeads) * c_.aHeadDim, keep = size_t(positions_) * kvDim;
    for (Buf* b : {&keys_, &values_}) {
      Buf bigger;
      bigger.ensure(count);
      if (keep) check(cudaMemcpy(bigger.p, b->p, keep * sizeof(float), cudaMemcpyDeviceToDevice), "cudaMemcpy D2D");
      std::swap(bigger.p, b->p);
      std::swap(bigger.n, b->n);
    }
  }
  Config c_;
  Buf q_, k_, v_, o_, u_, qv_, att_, out_, keys_, values_;
  int positions_ = 0;
};

class CudaMoe final : public DeviceMoe {
 public:
  CudaMoe(const Config& c, const MoeWeights& w) : c_(c), bias_(w.bias) {
    const size_t D = c.dModel, F = c.eFf;
    router_.upload(w.router, size_t(c.eExperts) * D);
    up_.resize(c.eExperts);
    down_.resize(c.eExperts);
    for (int e = 0; e < c.eExperts; ++e) {
      up_[e].upload(w.up[e], F * D);
      down_[e].upload(w.down[e], D * F);
    }
    u_.ensure(D);
    scores_.ensure(c.eExperts);
    hidden_.ensure(F);
    down1_.ensure(D);
    out_.ensure(D);
  }
  void forward(const float* u, float* out) override {
    const int D = c_.dModel, E = c_.eExperts, F = c_.eFf;
    check(cudaMemcpy(u_.p, u, size_t(D) * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    launchGemv(router_.p, u_.p, scores_.p, E, D, 1);
    std::vector<float> scores(E);
    check(cudaMemcpy(scores.data(), scores_.p, size_t(E) * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    for (int e = 0; e < E; ++e) scores[e] = 1.0f / (1.0f + std::exp(-scores[e]));  // host sigmoid, as moe.cpp
    const Route r = moeRoute(scores.data(), bias_, E, c_.eTopK);  // the routing decision: the host's own code
    for (size_t k = 0; k < r.experts.size(); ++k) {
      const int e = r.experts[k];
      launchGemv(up_[e].p, u_.p, hidden_.p, F, D, 1);
      reluSquaredKernel<<<(F + 255) / 256, 256>>>(hidden_.p, F);
      launchGemv(down_[e].p, hidden_.p, down1_.p, D, F, 1);
      axpyKernel<<<(D + 255) / 256, 256>>>(out_.p, down1_.p, r.weights[k], D, k == 0 ? 1 : 0);
    }
    check(cudaGetLastError(), "MoE kernel launch");
    check(cudaMemcpy(out, out_.p, size_t(D) * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    armCounters().deviceForwardBlocks += 1;
  }

 private:
  Config c_;
  const float* bias_;
  Buf router_, u_, scores_, hidden_, down1_, out_;
  std::vector<Buf> up_, down_;
};

class CudaHead final : public DeviceHead {
 public:
  CudaHead(const Config& c, const float* lmHead) : c_(c) {
    w_.upload(lmHead, size_t(c.vocab) * c.dModel);
    x_.ensure(c.dModel);
    y_.ensure(c.vocab);
  }
  void logits(const float* normed, float* out) override {
    check(cudaMemcpy(x_.p, normed, size_t(c_.dModel) * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    launchGemv(w_.p, x_.p, y_.p, c_.vocab, c_.dModel, 1);
    check(cudaGetLastError(), "lm_head kernel launch");
    check(cudaMemcpy(out, y_.p, size_t(c_.vocab) * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    armCounters().deviceForwardBlocks += 1;
  }

 private:
  Config c_;
  Buf w_, x_, y_;
};

}  // namespace

std::vector<std::string> missingForwardOps() {
  struct Op {
    const char* name;
    const void* fn;
  };
  const Op ops[] = {{"attention", (const void*)attendKernel},
                    {"attention", (const void*)gemvKernel},
                    {"moe", (const void*)reluSquaredKernel},
                    {"moe", (const void*)axpyKernel}};
  std::vector<std::string> missing;
  for (const Op& op : ops) {
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, op.fn) != cudaSuccess) {
      cudaGetLastError();
      if (std::find(missing.begin(), missing.end(), op.name) == missing.end()) missing.push_back(op.name);
    }
  }
  return missing;
}

std::unique_ptr<DeviceAttention> createDeviceAttention(const Config& c, const AttnWeights& w) {
  return std::make_unique<CudaAttention>(c, w);
}
std::unique_ptr<DeviceMoe> createDeviceMoe(const Config& c, const MoeWeights& w) { return std::make_unique<CudaMoe>(c, w); }
std::unique_ptr<DeviceHead> createDeviceHead(const Config& c, const float* lmHead) {
  return std::make_unique<CudaHead>(c, lmHead);
}

}  // namespace nhref
