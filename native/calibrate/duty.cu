// Calibration load for the busy sampler: kernels at a chosen duty cycle for a chosen duration, in a
// one-block or a full-GPU variant, measuring its own true busy fraction with CUDA events.
// Prints one JSON object on stdout. Usage:
//   nh-duty --duty 0.33 --seconds 8 [--period-ms 20] [--variant one-block|full-gpu] [--device 0]
#include <cuda_runtime.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <chrono>

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      fprintf(stderr, "nh-duty: %s failed: %s\n", #x, cudaGetErrorString(e_));                  \
      return 3;                                                                                 \
    }                                                                                           \
  } while (0)

// Spins every thread for `ns` nanoseconds of the GPU's global timer (independent of SM clock).
__global__ void spin(unsigned long long ns, unsigned long long* sink) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  unsigned long long acc = 0;
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    acc += t;
  } while (t - t0 < ns);
  if (acc == 42ull) *sink = acc;  // keeps the loop
}

static double monoS() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

int main(int argc, char** argv) {
  double duty = 0.33, seconds = 8.0, periodMs = 20.0;
  std::string variant = "full-gpu";
  int device = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--duty") duty = atof(argv[i + 1]);
    else if (k == "--seconds") seconds = atof(argv[i + 1]);
    else if (k == "--period-ms") periodMs = atof(argv[i + 1]);
    else if (k == "--variant") variant = argv[i + 1];
    else if (k == "--device") device = atoi(argv[i + 1]);
    else { fprintf(stderr, "nh-duty: unknown option %s\n", k.c_str()); return 2; }
  }
  if (!(duty > 0 && duty < 1) || !(seconds > 0) || !(periodMs >= 1) || (variant != "one-block" && variant != "full-gpu")) {
    fprintf(stderr, "nh-duty: need 0<duty<1, seconds>0, period-ms>=1, variant one-block|full-gpu\n");
    return 2;
  }
  CK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, device));
  int threads = variant == "one-block" ? 32 : 256;
  int blocks = variant == "one-block" ? 1 : prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / threads);
  unsigned long long* sink = nullptr;
  CK(cudaMalloc(&sink, sizeof *sink));
  cudaStream_t stream;
  CK(cudaStreamCreate(&stream));
  cudaEvent_t evA, evB, evFirst, evLast;
  CK(cudaEventCreate(&evA));
  CK(cudaEventCreate(&evB));
  CK(cudaEventCreate(&evFirst));
  CK(cudaEventCreate(&evLast));
  const unsigned long long busyNs = (unsigned long long)(duty * periodMs * 1e6);
  spin<<<blocks, threads, 0, stream>>>(1000000ull, sink);  // warm-up, outside the window
  CK(cudaStreamSynchronize(stream));

  double busyMs = 0;
  long iterations = 0;
  const auto period = std::chrono::duration<double, std::milli>(periodMs);
  CK(cudaEventRecord(evFirst, stream));
  CK(cudaEventSynchronize(evFirst));
  const double t0 = monoS();
  auto next = std::chrono::steady_clock::now();
  while (monoS() - t0 < seconds) {
    CK(cudaEventRecord(evA, stream));
    spin<<<blocks, threads, 0, stream>>>(busyNs, sink);
    CK(cudaEventRecord(evB, stream));
    CK(cudaEventSynchronize(evB));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, evA, evB));
    busyMs += ms;
    ++iterations;
    next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
    std::this_thread::sleep_until(next);
  }
  CK(cudaEventRecord(evLast, stream));
  CK(cudaEventSynchronize(evLast));
  const double t1 = monoS();
  float windowMs = 0;
  CK(cudaEventElapsedTime(&windowMs, evFirst, evLast));
  printf(
      "{\"variant\":\"%s\",\"dutyTarget\":%.4f,\"periodMs\":%.3f,\"seconds\":%.3f,\"blocks\":%d,\"threadsPerBlock\":%d,"
      "\"sms\":%d,\"device\":\"%s\",\"iterations\":%ld,\"busyMs\":%.3f,\"windowMs\":%.3f,\"trueBusyFraction\":%.6f,"
      "\"monoStartS\":%.6f,\"monoEndS\":%.6f}\n",
      variant.c_str(), duty, periodMs, seconds, blocks, threads, prop.multiProcessorCount, prop.name, iterations, busyMs,
      windowMs, busyMs / windowMs, t0, t1);
  return 0;
}
