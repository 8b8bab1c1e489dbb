#include <cuda_runtime.h>

#include "scale.h"

namespace {

// y = a * x + b, one thread per element.
__global__ void axpbKernel(const float* x, float* y, float a, float b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

}  // namespace

bool deviceAvailable() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

void deviceAxpb(const float* x, float* y, float a, float b, int n) {
  float *dx = nullptr, *dy = nullptr;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  axpbKernel<<<(n + 127) / 128, 128>>>(dx, dy, a, b, n);
  cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
}
