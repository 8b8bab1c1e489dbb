// device_mamba.cu — the CUDA device arm (NH_REF_DEVICE_MAMBA=1): Mamba2 blocks on the GPU, weights
// resident, state kept on the device. Same math as mamba.cpp (MODEL.md); float32 throughout.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "counters.h"
#include "device.h"

namespace nhref {
namespace {

#include "common.cuh"

__device__ float dSilu(float x) { return x / (1.0f + expf(-x)); }
__device__ float dSoftplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }

// One conv row per channel: the window's K-1 rows (oldest first) then the new row; shifts the window.
__global__ void convStepKernel(const float* w, const float* b, float* window, const float* xBC, float* xc, int C, int K) {
  const int ch = blockIdx.x * blockDim.x + threadIdx.x;
  if (ch >= C) return;
  float acc = b[ch];
  for (int j = 0; j < K - 1; ++j) acc += w[ch * K + j] * window[j * C + ch];
  acc += w[ch * K + K - 1] * xBC[ch];
  xc[ch] = dSilu(acc);
  for (int j = 0; j + 1 < K - 1; ++j) window[j * C + ch] = window[(j + 1) * C + ch];
  if (K > 1) window[(K - 2) * C + ch] = xBC[ch];
}

// The whole-sequence causal conv (rows before 0 are zero); leaves the last K-1 rows in window.
__global__ void convFwdKernel(const float* w, const float* b, const float* xBC, int stride, int T, float* xc, float* window, int C, int K) {
  const int ch = blockIdx.x * blockDim.x + threadIdx.x;
  if (ch >= C) return;
  for (int t = 0; t < T; ++t) {
    float acc = b[ch];
    for (int j = 0; j < K; ++j) {
      const int src = t - (K - 1) + j;
      if (src >= 0) acc += w[ch * K + j] * xBC[size_t(src) * stride + ch];
    }
    xc[size_t(t) * C + ch] = dSilu(acc);
  }
  for (int j = 0; j < K - 1; ++j) {
    const int src = T - (K - 1) + j;
    window[j * C + ch] = src >= 0 ? xBC[size_t(src) * stride + ch] : 0.0f;
  }
}

// The recurrence over T rows from the state in S: block = head h, thread = channel p.
// T == 1 is the single-step update; T > 1 is the device's whole-sequence scan.
__global__ void ssmKernel(float* S, const float* xc, int xcStride, const float* dtRaw, int dtStride, const float* dtBias,
                          const float* aLog, const float* dSkip, float* y, int T, int H, int P, int N, int G, int dI) {
  const int h = blockIdx.x, p = threadIdx.x;
  if (p >= P) return;
  const int hpg = H / G;
  const int g = h / hpg;  // device: the group this head reads B and C from
  const float A = -expf(aLog[h]);
  float* s = S + (size_t(h) * P + p) * N;
  for (int t = 0; t < T; ++t) {
    const float* row = xc + size_t(t) * xcStride;
    const float dt = dSoftplus(dtRaw[size_t(t) * dtStride + h] + dtBias[h]);
    const float a = expf(dt * A);
    const float xv = row[h * P + p];
    const float* B = row + dI + g * N;
    const float* Cm = row + dI + G * N + g * N;
    float acc = 0.0f;
    for (int n = 0; n < N; ++n) {
      const float v = a * s[n] + dt * B[n] * xv;
      s[n] = v;
      acc += Cm[n] * v;
    }
    y[size_t(t) * dI + h * P + p] = acc + dSkip[h] * xv;
  }
}

// g = y * silu(z); out = rmsnorm(g) * w over dInner; one block per row.
__global__ void gatedNormKernel(const float* y, const float* zx, int zxStride, const float* w, float* out, int dI, float eps) {
  extern __shared__ float red[];
  const float* yr = y + size_t(blockIdx.x) * dI;
  const float* z = zx + size_t(blockIdx.x) * zxStride;
  float* o = out + size_t(blockIdx.x) * dI;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < dI; i += blockDim.x) {
    const float g = yr[i] * dSilu(z[i]);
    o[i] = g;
    ss += g * g;
  }
  red[threadIdx.x] = ss;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = rsqrtf(red[0] / dI + eps);
  for (int i = threadIdx.x; i < dI; i += blockDim.x) o[i] = o[i] * inv * w[i];
}

class CudaMamba final : public DeviceMamba {
 public:
  CudaMamba(const Config& c, const MambaWeights& w) : c_(c) {
    const size_t D = c.dModel, rows = c.inProjRows(), C = c.convChannels(), dI = c.dInner(), H = c.mHeads;
    inProj_.upload(w.inProj, rows * D);
    convW_.upload(w.convW, C * c.mConv);
    convB_.upload(w.convB, C);
    dtBias_.upload(w.dtBias, H);
    aLog_.upload(w.aLog, H);
    dSkip_.upload(w.dSkip, H);
    normW_.upload(w.normW, dI);
    outProj_.upload(w.outProj, D * dI);
    state_.ensure(H * c.mHeadDim * c.mState);
    window_.ensure(std::max<size_t>(1, size_t(c.mConv - 1) * C));
  }

  void prefill(const float* u, int T, float* out) override {
    positions_ = 0;
    appendInputs(u, T);
    runSequence(T, out, 0);
  }

  void decode(const float* u, float* out, bool decodeStep) override {
    appendInputs(u, 1);
    if (!decodeStep) {
      runSequence(positions_, out, positions_ - 1);
      return;
    }
    const int rows = c_.inProjRows(), C = c_.convChannels(), dI = c_.dInner();
    const float* uRow = inputs_.p + size_t(positions_ - 1) * c_.dModel;
    work(1);
    gemv(inProj_.p, uRow, zx_.p, rows, c_.dModel, 1);
    convStepKernel<<<(C + 127) / 128, 128>>>(convW_.p, convB_.p, window_.p, zx_.p + dI, xc_.p, C, c_.mConv);
    armCounters().convUpdateRows += 1;
    ssm(xc_.p, zx_.p + dI + C, rows, 1);
    armCounters().stateUpdateRows += 1;
    finishRows(0, 1, out);
  }

 private:
  void appendInputs(const float* u, int T) {
    const size_t D = c_.dModel, need = size_t(positions_ + T) * D;
    if (need > inputs_.n) {
      Buf bigger;
      bigger.ensure(std::max(need, 2 * inputs_.n));
      if (positions_ > 0) check(cudaMemcpy(bigger.p, inputs_.p, size_t(positions_) * D * sizeof(float), cudaMemcpyDeviceToDevice), "cudaMemcpy D2D");
      std::swap(bigger.p, inputs_.p);
      std::swap(bigger.n, inputs_.n);
    }
    check(cudaMemcpy(inputs_.p + size_t(positions_) * D, u, size_t(T) * D * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    positions_ += T;
  }

  void work(int T) {
    zx_.ensure(size_t(T) * c_.inProjRows());
    xc_.ensure(size_t(T) * c_.convChannels());
    y_.ensure(size_t(T) * c_.dInner());
    normed_.ensure(size_t(T) * c_.dInner());
    out_.ensure(size_t(T) * c_.dModel);
  }

  void gemv(const float* W, const float* X, float* Y, int out, int in, int T) { launchGemv(W, X, Y, out, in, T); }

  void ssm(const float* xc, const float* dtRaw, int dtStride, int T) {
    ssmKernel<<<c_.mHeads, c_.mHeadDim>>>(state_.p, xc, c_.convChannels(), dtRaw, dtStride, dtBias_.p, aLog_.p, dSkip_.p, y_.p, T,
                                          c_.mHeads, c_.mHeadDim, c_.mState, c_.mGroups, c_.dInner());
  }

  // in_proj, conv, scan over the first T stored inputs from a zero state; outputs rows from firstOut.
  void runSequence(int T, float* out, int firstOut) {
    const int rows = c_.inProjRows(), C = c_.convChannels(), dI = c_.dInner();
    work(T);
    gemv(inProj_.p, inputs_.p, zx_.p, rows, c_.dModel, T);
    convFwdKernel<<<(C + 127) / 128, 128>>>(convW_.p, convB_.p, zx_.p + dI, rows, T, xc_.p, window_.p, C, c_.mConv);
    armCounters().convFwdCalls += 1;
    check(cudaMemset(state_.p, 0, state_.n * sizeof(float)), "cudaMemset");
    ssm(xc_.p, zx_.p + dI + C, rows, T);
    armCounters().chunkScanCalls += 1;
    finishRows(firstOut, T - firstOut, out);
  }

  // Gated norm and out_proj for rows [first, first + count), copied to the host.
  void finishRows(int first, int count, float* out) {
    const int rows = c_.inProjRows(), dI = c_.dInner(), D = c_.dModel;
    gatedNormKernel<<<count, 256, 256 * sizeof(float)>>>(y_.p + size_t(first) * dI, zx_.p + size_t(first) * rows, rows, normW_.p,
                                                         normed_.p, dI, float(c_.normEps));
    gemv(outProj_.p, normed_.p, out_.p, D, dI, count);
    check(cudaGetLastError(), "kernel launch");
    check(cudaMemcpy(out, out_.p, size_t(count) * D * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  }

  Config c_;
  Buf inProj_, convW_, convB_, dtBias_, aLog_, dSkip_, normW_, outProj_;
  Buf state_, window_, inputs_, zx_, xc_, y_, normed_, out_;
  int positions_ = 0;
};

}  // namespace

bool cudaBuild() { return true; }

DeviceInfo probeDevice() {
  DeviceInfo d;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    d.why = e != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e) : "no CUDA device is visible";
    return d;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    d.why = "cudaGetDeviceProperties failed";
    return d;
  }
  d.available = true;
  d.name = prop.name;
  d.ccMajor = prop.major;
  d.ccMinor = prop.minor;
  return d;
}

std::vector<std::string> missingDeviceOps() {
  // A kernel with no image for this GPU's arch fails cudaFuncGetAttributes: that op has NO native kernel.
  struct Op {
    const char* name;
    const void* fn;
  };
  const Op ops[] = {{"mamba-gemv", (const void*)gemvKernel},
                    {"mamba-conv1d", (const void*)convStepKernel},
                    {"mamba-conv1d", (const void*)convFwdKernel},
                    {"mamba-ssm", (const void*)ssmKernel},
                    {"mamba-gated-norm", (const void*)gatedNormKernel}};
  std::vector<std::string> missing;
  for (const Op& op : ops) {
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, op.fn) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky-free error
      if (missing.empty() || missing.back() != op.name) missing.push_back(op.name);
    }
  }
  return missing;
}

std::unique_ptr<DeviceMamba> createDeviceMamba(const Config& c, const MambaWeights& w) {
  return std::make_unique<CudaMamba>(c, w);
}

}  // namespace nhref
