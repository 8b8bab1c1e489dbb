// Toolchain probe for recipes/nemotron-h.json: proves the CUDA toolkit can LINK cuBLASLt.
// The seeds' gate scripts (scripts/nemotron-h-a2q1-dgx-gate.sh @ 3b20ae0f) record that a partial
// install printed every CMake feature line and then failed to link CUDA::cublasLt, so
// `nvcc --version` alone is not a sufficient postcondition. Linking this file is.
#include <cublasLt.h>
#include <cstdio>

int main() {
  cublasLtHandle_t handle = nullptr;
  const cublasStatus_t status = cublasLtCreate(&handle);
  std::printf("cublasLtCreate status %d\n", static_cast<int>(status));
  if (status == CUBLAS_STATUS_SUCCESS) cublasLtDestroy(handle);
  return status == CUBLAS_STATUS_SUCCESS ? 0 : 1;
}
