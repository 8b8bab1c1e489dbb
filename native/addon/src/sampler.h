// The background sampling thread: driver utilization samples (with last-seen timestamps), polled
// utilization, GPM metric pairs, clocks + clock-event reasons and compute processes for one GPU.
// Plain C++ (no N-API) so the thread never touches JavaScript; addon.cc converts the records.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "nvml_lib.h"

// Cadences are CPU cost. On an H200 one nvmlDeviceGetSamples call costs ~1.5 ms of CPU, the rest of a tick
// (clocks, reasons, polled utilization) ~15 µs: so the driver's buffered utilization samples (one per ~200 ms)
// are drained every utilEveryMs — by default every half of what the driver's buffer holds (its span at start),
// 0.5 to 20 s — and only the cheap reads run at the tick.
struct SamplerOptions {
  unsigned deviceIndex = 0;
  unsigned periodMs = 250;        // tick: poll utilization, clocks and clock-event reasons; GPM when due
  unsigned utilEveryMs = 0;       // drain the driver's buffered utilization samples this often (0: from its buffer)
  unsigned gpmIntervalMs = 1000;  // GPM pairs closer than 100 ms read 0.0 with success: never below 100. Each pair
                                  // costs ~0.2-0.3 ms of CPU on an H200; edge pairs are split at their neighbours' level
  unsigned procsEveryMs = 2000;
  unsigned tailMs = 1500;  // after stop, wait this long at most for a driver sample wholly past the stop instant
};

// prevTsUs: the driver sample before this one (0 = unknown), so each sample's period is stated.
struct UtilRec { unsigned long long tsUs; unsigned long long prevTsUs; double pct; };
struct PolledRec { double tMonoS; unsigned gpu; unsigned mem; };
struct GpmRec { double tMonoS; double intervalS; double sm, occ, dram; bool smOk, occOk, dramOk; };
struct ClockRec { double tMonoS; long smMHz; long memMHz; long long reasons; };  // -1 = unavailable
struct ProcsRec { double tMonoS; std::vector<unsigned> pids; std::vector<unsigned long long> memBytes; };
struct ErrorRec { double tMonoS; std::string what; std::string message; };

struct Records {
  std::vector<UtilRec> util;
  std::vector<PolledRec> polled;
  std::vector<GpmRec> gpm;
  std::vector<ClockRec> clocks;
  std::vector<ProcsRec> procs;
  std::vector<ErrorRec> errors;
};

// CLOCK_REALTIME − CLOCK_MONOTONIC, read as a tight bracket (best of several).
struct ClockOffset { double offsetS; double bracketS; double monoS; };

struct SamplerMeta {
  ClockOffset startOffset{};
  ClockOffset stopOffset{};
  std::string clockCheck;  // what the first driver sample's timestamp looked like
  double startMonoS = 0, stopMonoS = 0, threadCpuS = 0;
  bool failed = false;     // NVML failed mid-window: the thread stopped early, samples so far kept
  double failedAtMonoS = 0;
  std::string gpmStatus;   // "sampling" or why not (named)
  std::string utilStatus;  // "sampling" or why not
  bool tailCovered = false;  // a driver sample wholly past the stop instant was collected
  unsigned bufferSamples = 0;  // driver samples buffered at start, and the seconds they spanned
  double bufferSpanS = 0;
  double utilEveryS = 0;       // the drain cadence used
  unsigned utilGaps = 0;       // driver samples that followed a gap (buffer overrun or a paused driver): uncovered
  // Thread CPU seconds by activity, so the sampler's cost can be attributed.
  double cpuUtilS = 0, cpuPolledS = 0, cpuGpmS = 0, cpuProcsS = 0;
};

double monoNowS();
ClockOffset measureClockOffset();

class Sampler {
 public:
  Sampler(NvmlLib* lib, nvmlDevice_t dev, SamplerOptions opts) : lib_(lib), dev_(dev), opts_(opts) {}
  ~Sampler();
  void start();                 // spawns the thread
  Records drain();              // takes what was collected so far
  void stopAndJoin();           // blocks: tail wait + join (call off the JS thread)
  SamplerMeta meta();           // complete only after stopAndJoin
  SamplerMeta startMeta() const { return startMeta_; }  // the start-time facts, safe while running
  bool running() const { return thread_.joinable(); }

 private:
  void run();
  void pollUtil(bool* sawBeyondStop);
  void pollRest(double now, double* nextProcsS);
  void gpmInit();
  void gpmTick(double now, bool closing = false);
  void note(const std::string& what, nvmlReturn_t r);
  void fail(const std::string& what, nvmlReturn_t r);

  NvmlLib* lib_;
  nvmlDevice_t dev_;
  SamplerOptions opts_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopRequested_ = false;
  Records rec_;
  SamplerMeta meta_;
  SamplerMeta startMeta_;
  unsigned long long lastSeenUs_ = 0;
  double driverPeriodS_ = 0.2;  // the driver's sample spacing, as last seen (the tail waits two of them)
  double utilEveryS_ = 2.0;
  std::vector<nvmlSample_t> buf_;
  int utilFailStreak_ = 0;
  std::vector<std::string> noted_;  // what+code already reported once
  nvmlGpmSample_t gpmPrev_ = nullptr, gpmNext_ = nullptr;
  double gpmPrevS_ = 0;
  bool gpmOn_ = false;
  nvmlGpmMetricsGet_t* gpmReq_ = nullptr;
};
