// common.cuh — what every device-arm translation unit shares: the error check, the device buffer and
// the row-per-warp GEMV. Each .cu includes it inside its own anonymous namespace (no relocatable code).
// The including file includes <cuda_runtime.h>, <stdexcept> and <string> first (this file adds no includes).
#pragma once

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA ") + what + " failed: " + cudaGetErrorString(e));
}

// Y[t][o] = W[o] · X[t]: one warp per output row, blockIdx.y = row t of the batch.
__global__ void gemvKernel(const float* W, const float* X, float* Y, int out, int in) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= out) return;
  const float* row = W + size_t(warp) * in;
  const float* x = X + size_t(blockIdx.y) * in;
  float acc = 0.0f;
  for (int i = lane; i < in; i += 32) acc += row[i] * x[i];
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  if (lane == 0) Y[size_t(blockIdx.y) * out + warp] = acc;
}

inline void launchGemv(const float* W, const float* X, float* Y, int out, int in, int T) {
  dim3 grid((out * 32 + 255) / 256, T);
  gemvKernel<<<grid, 256>>>(W, X, Y, out, in);
}

// A device array of floats that only grows; freed with its owner.
struct Buf {
  float* p = nullptr;
  size_t n = 0;
  Buf() = default;
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  Buf(Buf&& o) noexcept : p(o.p), n(o.n) { o.p = nullptr; o.n = 0; }
  ~Buf() {
    if (p) cudaFree(p);
  }
  void ensure(size_t count) {
    if (count <= n) return;
    if (p) cudaFree(p);
    p = nullptr;
    check(cudaMalloc(&p, count * sizeof(float)), "cudaMalloc");
    n = count;
  }
  void upload(const float* host, size_t count) {
    ensure(count);
    check(cudaMemcpy(p, host, count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
};
