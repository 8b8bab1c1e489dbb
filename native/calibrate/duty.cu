// Calibration load for the busy sampler: kernels at a chosen duty cycle for a chosen duration, in a
// one-block or a full-GPU variant, measuring its own true busy time with CUDA events.
// Prints one JSON object on stdout (last line). Usage:
//   nh-duty --duty 0.33 --seconds 8 [--period-ms 20] [--variant one-block|full-gpu] [--device 0]
//           [--pattern steady|bursts] [--seed N] [--ready-line]
// steady: every period one kernel of duty × period. bursts (issue #23): irregular bursts of 2–120 ms (one
// kernel each, so the events bracket nothing but kernel time) with gaps drawn so the long-run share is the
// duty — the kind of load that read low in round 2. --ready-line prints "LOAD READY" (flushed) when the
// timed window opens, for `nh-gate busy --start-marker 'LOAD READY'`.
#include <cuda_runtime.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <thread>

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

// Deterministic draws in [0, 1) (splitmix64), so a burst pattern is the same for the same seed.
struct Draw {
  uint64_t s;
  double next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return double(z >> 11) / 9007199254740992.0;
  }
};

int main(int argc, char** argv) {
  double duty = 0.33, seconds = 8.0, periodMs = 20.0;
  std::string variant = "full-gpu", pattern = "steady";
  int device = 0;
  unsigned long long seed = 1;
  bool readyLine = false;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--ready-line") { readyLine = true; continue; }
    static const char* const valued[] = {"--duty", "--seconds", "--period-ms", "--variant", "--pattern", "--seed", "--device"};
    if (std::none_of(std::begin(valued), std::end(valued), [&](const char* n) { return k == n; })) {
      fprintf(stderr, "nh-duty: unknown option %s\n", k.c_str());
      return 2;
    }
    if (i + 1 >= argc) { fprintf(stderr, "nh-duty: %s needs a value\n", k.c_str()); return 2; }
    const char* v = argv[++i];
    if (k == "--duty") duty = atof(v);
    else if (k == "--seconds") seconds = atof(v);
    else if (k == "--period-ms") periodMs = atof(v);
    else if (k == "--variant") variant = v;
    else if (k == "--pattern") pattern = v;
    else if (k == "--seed") seed = strtoull(v, nullptr, 10);
    else device = atoi(v);
  }
  if (!(duty > 0 && duty < 1) || !(seconds > 0) || !(periodMs >= 1) || (variant != "one-block" && variant != "full-gpu") ||
      (pattern != "steady" && pattern != "bursts")) {
    fprintf(stderr, "nh-duty: need 0<duty<1, seconds>0, period-ms>=1, variant one-block|full-gpu, pattern steady|bursts\n");
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
  spin<<<blocks, threads, 0, stream>>>(1000000ull, sink);  // warm-up, outside the window
  CK(cudaStreamSynchronize(stream));

  Draw draw{seed};
  double busyMs = 0;
  long iterations = 0;
  CK(cudaEventRecord(evFirst, stream));
  CK(cudaEventSynchronize(evFirst));
  const double t0 = monoS();
  if (readyLine) {
    printf("LOAD READY\n");
    fflush(stdout);
  }
  auto next = std::chrono::steady_clock::now();
  while (monoS() - t0 < seconds) {
    // steady: duty × period busy, the rest of the period idle. bursts: 2–120 ms busy (skewed short), then a gap
    // of busy × (1 − duty) / duty × U(0, 2), so the long-run share is the duty.
    double kernelMs = duty * periodMs, gapMs = 0;
    if (pattern == "bursts") {
      kernelMs = 2.0 + 118.0 * draw.next() * draw.next();
      gapMs = 2.0 * draw.next() * kernelMs * (1.0 - duty) / duty;
    }
    CK(cudaEventRecord(evA, stream));
    spin<<<blocks, threads, 0, stream>>>((unsigned long long)(kernelMs * 1e6), sink);
    CK(cudaEventRecord(evB, stream));
    CK(cudaEventSynchronize(evB));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, evA, evB));
    busyMs += ms;
    ++iterations;
    if (pattern == "bursts") {
      next = std::chrono::steady_clock::now();
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double, std::milli>(gapMs));
    } else {
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double, std::milli>(periodMs));
    }
    std::this_thread::sleep_until(next);
  }
  CK(cudaEventRecord(evLast, stream));
  CK(cudaEventSynchronize(evLast));
  const double t1 = monoS();
  float windowMs = 0;
  CK(cudaEventElapsedTime(&windowMs, evFirst, evLast));
  printf(
      "{\"variant\":\"%s\",\"pattern\":\"%s\",\"seed\":%llu,\"dutyTarget\":%.4f,\"periodMs\":%.3f,\"seconds\":%.3f,\"blocks\":%d,"
      "\"threadsPerBlock\":%d,\"sms\":%d,\"device\":\"%s\",\"iterations\":%ld,\"busyMs\":%.3f,\"windowMs\":%.3f,"
      "\"trueBusyFraction\":%.6f,\"monoStartS\":%.6f,\"monoEndS\":%.6f}\n",
      variant.c_str(), pattern.c_str(), seed, duty, periodMs, seconds, blocks, threads, prop.multiProcessorCount, prop.name,
      iterations, busyMs, windowMs, busyMs / windowMs, t0, t1);
  return 0;
}
