// The sampling thread. Monotonic stamps (CLOCK_MONOTONIC, the clock of process.hrtime) are taken
// here for everything the thread polls; driver samples keep their own timestamps and the
// realtime−monotonic offset measured at start and stop, so the conversion is done and stated in TS.
#include "sampler.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

double monoNowS() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

static double realNowS() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

static double threadCpuS() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

ClockOffset measureClockOffset() {
  ClockOffset best{0, 1e9, 0};
  for (int i = 0; i < 7; ++i) {
    double m1 = monoNowS(), r = realNowS(), m2 = monoNowS();
    if (m2 - m1 < best.bracketS) best = {r - (m1 + m2) / 2, m2 - m1, (m1 + m2) / 2};
  }
  return best;
}

static bool isFatal(nvmlReturn_t r) {
  return r == NVML_ERROR_GPU_IS_LOST || r == NVML_ERROR_UNINITIALIZED || r == NVML_ERROR_DRIVER_NOT_LOADED ||
         r == NVML_ERROR_UNKNOWN;
}

static double sampleValue(int vt, const nvmlValue_t& v) {
  switch (vt) {
    case NVML_VALUE_TYPE_DOUBLE: return v.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT: return v.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return double(v.ulVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return double(v.ullVal);
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return double(v.sllVal);
    case NVML_VALUE_TYPE_SIGNED_INT: return v.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: return v.usVal;
    default: return NAN;
  }
}

Sampler::~Sampler() {
  if (thread_.joinable()) stopAndJoin();
  if (lib_->gpmSampleFree) {
    if (gpmPrev_) lib_->gpmSampleFree(gpmPrev_);
    if (gpmNext_) lib_->gpmSampleFree(gpmNext_);
  }
  delete gpmReq_;
}

void Sampler::note(const std::string& what, nvmlReturn_t r) {
  std::string key = what + "#" + std::to_string(r);
  if (std::find(noted_.begin(), noted_.end(), key) != noted_.end()) return;
  noted_.push_back(key);
  std::lock_guard<std::mutex> lk(mu_);
  rec_.errors.push_back({monoNowS(), what, what + ": " + nvmlDescribe(lib_, r)});
}

void Sampler::fail(const std::string& what, nvmlReturn_t r) {
  note(what, r);
  if (!meta_.failed) {
    meta_.failed = true;
    meta_.failedAtMonoS = monoNowS();
  }
}

void Sampler::start() {
  meta_.startOffset = measureClockOffset();
  meta_.startMonoS = monoNowS();
  buf_.resize(1024);
  meta_.utilStatus = "sampling";
  // Read the driver's buffered history once: its newest timestamp tells which clock NVML stamps with,
  // and becomes the last-seen mark so only samples taken from now on are collected.
  int vt = 0;
  unsigned n = unsigned(buf_.size());
  nvmlReturn_t r = lib_->deviceGetSamples(dev_, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &n, buf_.data());
  if (r == NVML_SUCCESS && n > 0) {
    // The newest buffered sample is kept as a record: it is the level the GPU was at just before start, which
    // a window opening right after start needs to split the period it cuts (src/quantity/busySpans.ts).
    unsigned newestAt = 0;
    unsigned long long before = 0;
    for (unsigned i = 0; i < n; ++i)
      if (buf_[i].timeStamp > buf_[newestAt].timeStamp) newestAt = i;
    const unsigned long long newest = buf_[newestAt].timeStamp;
    for (unsigned i = 0; i < n; ++i)
      if (buf_[i].timeStamp < newest) before = std::max(before, buf_[i].timeStamp);
    lastSeenUs_ = newest;
    rec_.util.push_back({newest, before, sampleValue(vt, buf_[newestAt].sampleValue)});
    unsigned long long oldest = newest;
    for (unsigned i = 0; i < n; ++i) oldest = std::min(oldest, buf_[i].timeStamp);
    meta_.bufferSamples = n;
    meta_.bufferSpanS = double(newest - oldest) * 1e-6;
    if (n >= 2 && newest > oldest) driverPeriodS_ = meta_.bufferSpanS / double(n - 1);
    double tsS = double(newest) * 1e-6;
    double realAgo = meta_.startOffset.monoS + meta_.startOffset.offsetS - tsS;
    double monoAgo = meta_.startOffset.monoS - tsS;
    char line[256];
    if (realAgo > -1.0 && realAgo < 120.0) {
      snprintf(line, sizeof line, "realtime: newest buffered driver sample was %.3f s before start on CLOCK_REALTIME", realAgo);
    } else if (monoAgo > -1.0 && monoAgo < 120.0) {
      snprintf(line, sizeof line, "monotonic: newest buffered driver sample was %.3f s before start on CLOCK_MONOTONIC", monoAgo);
    } else {
      snprintf(line, sizeof line, "unknown: newest buffered driver sample matches neither clock (%.3f s from realtime)", realAgo);
    }
    meta_.clockCheck = line;
  } else if (r == NVML_SUCCESS || r == NVML_ERROR_NOT_FOUND) {
    meta_.clockCheck = "unchecked: the driver held no sample at start; CLOCK_REALTIME assumed (NVML documents CPU timestamps)";
  } else if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_NO_PERMISSION) {
    meta_.utilStatus = "unsupported: nvmlDeviceGetSamples(GPU_UTILIZATION_SAMPLES): " + nvmlDescribe(lib_, r);
    meta_.clockCheck = "unchecked: no driver samples";
  } else {
    meta_.utilStatus = "failed at start: " + nvmlDescribe(lib_, r);
    meta_.clockCheck = "unchecked: no driver samples";
  }
  // Drained before the driver's buffer can wrap: every half of its span (0.5 to 20 s), unless asked otherwise.
  utilEveryS_ = opts_.utilEveryMs > 0 ? opts_.utilEveryMs / 1000.0
                                      : std::min(20.0, std::max(0.5, meta_.bufferSpanS / 2));
  meta_.utilEveryS = utilEveryS_;
  gpmInit();
  startMeta_ = meta_;
  thread_ = std::thread([this] { run(); });
}

void Sampler::gpmInit() {
  const char* off = std::getenv("NH_GATE_NO_GPM");
  if (off && *off == '1') { meta_.gpmStatus = "off: NH_GATE_NO_GPM=1"; return; }
  if (!lib_->gpmQueryDeviceSupport || !lib_->gpmSampleAlloc || !lib_->gpmSampleGet || !lib_->gpmMetricsGet) {
    meta_.gpmStatus = "unsupported: " + lib_->path + " does not export the GPM API (driver older than 520)";
    return;
  }
  nvmlGpmSupport_t sup{NVML_GPM_SUPPORT_VERSION, 0};
  nvmlReturn_t r = lib_->gpmQueryDeviceSupport(dev_, &sup);
  if (r != NVML_SUCCESS) { meta_.gpmStatus = "unsupported: nvmlGpmQueryDeviceSupport: " + nvmlDescribe(lib_, r); return; }
  if (!sup.isSupportedDevice) { meta_.gpmStatus = "unsupported: device has no GPM (Hopper or newer needed)"; return; }
  if (lib_->gpmSampleAlloc(&gpmPrev_) != NVML_SUCCESS || lib_->gpmSampleAlloc(&gpmNext_) != NVML_SUCCESS) {
    meta_.gpmStatus = "unsupported: nvmlGpmSampleAlloc failed";
    return;
  }
  r = lib_->gpmSampleGet(dev_, gpmPrev_);
  if (r != NVML_SUCCESS) { meta_.gpmStatus = "unsupported: nvmlGpmSampleGet: " + nvmlDescribe(lib_, r); return; }
  gpmPrevS_ = monoNowS();
  gpmReq_ = new nvmlGpmMetricsGet_t();
  gpmOn_ = true;
  meta_.gpmStatus = "sampling";
}

void Sampler::gpmTick(double now, bool closing) {
  // The closing pair (after the tail) only needs the 100 ms GPM must span: it covers the stop instant.
  const unsigned minMs = closing ? 100u : std::max(100u, opts_.gpmIntervalMs);
  if (!gpmOn_ || (now - gpmPrevS_) * 1000.0 < minMs) return;
  nvmlReturn_t r = lib_->gpmSampleGet(dev_, gpmNext_);
  double t = monoNowS();
  if (r != NVML_SUCCESS) {
    if (isFatal(r)) fail("GPM sample", r); else note("GPM sample", r);
    return;
  }
  std::memset(gpmReq_, 0, sizeof *gpmReq_);
  gpmReq_->version = NVML_GPM_METRICS_GET_VERSION;
  gpmReq_->numMetrics = 3;
  gpmReq_->sample1 = gpmPrev_;
  gpmReq_->sample2 = gpmNext_;
  gpmReq_->metrics[0].metricId = NVML_GPM_METRIC_SM_UTIL;
  gpmReq_->metrics[1].metricId = NVML_GPM_METRIC_SM_OCCUPANCY;
  gpmReq_->metrics[2].metricId = NVML_GPM_METRIC_DRAM_BW_UTIL;
  r = lib_->gpmMetricsGet(gpmReq_);
  GpmRec g{t, t - gpmPrevS_, gpmReq_->metrics[0].value, gpmReq_->metrics[1].value, gpmReq_->metrics[2].value,
           gpmReq_->metrics[0].nvmlReturn == NVML_SUCCESS, gpmReq_->metrics[1].nvmlReturn == NVML_SUCCESS,
           gpmReq_->metrics[2].nvmlReturn == NVML_SUCCESS};
  if (r != NVML_SUCCESS) {
    note("GPM metrics", r);
    g.smOk = g.occOk = g.dramOk = false;
  }
  const char* names[3] = {"GPM SM_UTIL", "GPM SM_OCCUPANCY", "GPM DRAM_BW_UTIL"};
  for (int i = 0; i < 3 && r == NVML_SUCCESS; ++i)
    if (gpmReq_->metrics[i].nvmlReturn != NVML_SUCCESS) note(names[i], gpmReq_->metrics[i].nvmlReturn);
  {
    std::lock_guard<std::mutex> lk(mu_);
    rec_.gpm.push_back(g);
  }
  std::swap(gpmPrev_, gpmNext_);
  gpmPrevS_ = t;
}

void Sampler::pollUtil(bool* sawBeyondStop) {
  if (meta_.utilStatus != "sampling") return;
  int vt = 0;
  unsigned n = unsigned(buf_.size());
  nvmlReturn_t r = lib_->deviceGetSamples(dev_, NVML_GPU_UTILIZATION_SAMPLES, lastSeenUs_, &vt, &n, buf_.data());
  if (r == NVML_ERROR_INSUFFICIENT_SIZE) {
    buf_.resize(buf_.size() * 4);
    n = unsigned(buf_.size());
    r = lib_->deviceGetSamples(dev_, NVML_GPU_UTILIZATION_SAMPLES, lastSeenUs_, &vt, &n, buf_.data());
  }
  if (r == NVML_ERROR_NOT_FOUND) { utilFailStreak_ = 0; return; }  // nothing newer than last-seen
  if (r != NVML_SUCCESS) {
    if (isFatal(r) || ++utilFailStreak_ >= 5) fail("utilization samples", r); else note("utilization samples", r);
    return;
  }
  utilFailStreak_ = 0;
  std::vector<UtilRec> fresh;
  for (unsigned i = 0; i < n; ++i) {
    if (buf_[i].timeStamp <= lastSeenUs_) continue;
    fresh.push_back({buf_[i].timeStamp, 0, sampleValue(vt, buf_[i].sampleValue)});
  }
  std::sort(fresh.begin(), fresh.end(), [](const UtilRec& a, const UtilRec& b) { return a.tsUs < b.tsUs; });
  if (fresh.empty()) return;
  // Each sample covers back to the one before it, unless a gap lies between (the buffer wrapped before this
  // drain, or the driver paused): then it covers one period, and the gap stays uncovered (coverage says so).
  const unsigned long long periodUs = (unsigned long long)std::llround(driverPeriodS_ * 1e6);
  for (size_t i = 0; i < fresh.size(); ++i) {
    unsigned long long prev = i == 0 ? lastSeenUs_ : fresh[i - 1].tsUs;
    if (prev != 0 && fresh[i].tsUs - prev > periodUs * 5 / 2) {
      ++meta_.utilGaps;
      prev = fresh[i].tsUs - periodUs;
    } else if (prev != 0) {
      driverPeriodS_ = double(fresh[i].tsUs - prev) * 1e-6;
    }
    fresh[i].prevTsUs = prev;
  }
  lastSeenUs_ = fresh.back().tsUs;
  if (sawBeyondStop) {
    // Done when a sample lies wholly past the stop instant: its period starts at or after it. The sample
    // that covers the stop instant is then in, and so is the level after it, which splits that period.
    double periodStartS = double(fresh.back().prevTsUs) * 1e-6;
    bool mono = meta_.clockCheck.rfind("monotonic", 0) == 0;
    double stopOnDriverClock = mono ? meta_.stopMonoS : meta_.stopMonoS + meta_.startOffset.offsetS;
    if (fresh.back().prevTsUs != 0 && periodStartS >= stopOnDriverClock) *sawBeyondStop = true;
  }
  std::lock_guard<std::mutex> lk(mu_);
  rec_.util.insert(rec_.util.end(), fresh.begin(), fresh.end());
}

void Sampler::pollRest(double now, double* nextProcsS) {
  double c0 = threadCpuS();
  nvmlUtilization_t u{};
  nvmlReturn_t r = lib_->deviceGetUtilizationRates(dev_, &u);
  if (r == NVML_SUCCESS) {
    std::lock_guard<std::mutex> lk(mu_);
    rec_.polled.push_back({now, u.gpu, u.memory});
  } else if (isFatal(r)) fail("polled utilization", r); else note("polled utilization", r);

  ClockRec c{now, -1, -1, -1};
  unsigned mhz = 0;
  if ((r = lib_->deviceGetClockInfo(dev_, NVML_CLOCK_SM, &mhz)) == NVML_SUCCESS) c.smMHz = mhz; else note("SM clock", r);
  if ((r = lib_->deviceGetClockInfo(dev_, NVML_CLOCK_MEM, &mhz)) == NVML_SUCCESS) c.memMHz = mhz; else note("memory clock", r);
  if (lib_->deviceGetClocksEventReasons) {
    unsigned long long mask = 0;
    if ((r = lib_->deviceGetClocksEventReasons(dev_, &mask)) == NVML_SUCCESS) c.reasons = (long long)mask;
    else note(lib_->resolvedEventReasonsSymbol, r);
  }
  {
    std::lock_guard<std::mutex> lk(mu_);
    rec_.clocks.push_back(c);
  }
  double c1 = threadCpuS();
  meta_.cpuPolledS += c1 - c0;
  if (now < *nextProcsS) return;
  *nextProcsS = now + opts_.procsEveryMs / 1000.0;
  struct Charge {
    double c1; double* acc;
    ~Charge() { *acc += threadCpuS() - c1; }
  } charge{c1, &meta_.cpuProcsS};
  ProcsRec p{now, {}, {}};
  unsigned count = 256;
  if (lib_->deviceGetProcessesV2) {
    std::vector<nvmlProcessInfo_v2_t> infos(count);
    r = lib_->deviceGetProcessesV2(dev_, &count, infos.data());
    if (r == NVML_SUCCESS)
      for (unsigned i = 0; i < count; ++i) { p.pids.push_back(infos[i].pid); p.memBytes.push_back(infos[i].usedGpuMemory); }
  } else if (lib_->deviceGetProcessesV1) {
    std::vector<nvmlProcessInfo_v1_t> infos(count);
    r = lib_->deviceGetProcessesV1(dev_, &count, infos.data());
    if (r == NVML_SUCCESS)
      for (unsigned i = 0; i < count; ++i) { p.pids.push_back(infos[i].pid); p.memBytes.push_back(infos[i].usedGpuMemory); }
  } else {
    return;
  }
  if (r != NVML_SUCCESS) { note(lib_->resolvedProcessesSymbol, r); return; }
  std::lock_guard<std::mutex> lk(mu_);
  rec_.procs.push_back(std::move(p));
}

void Sampler::run() {
  double cpu0 = threadCpuS();
  // start() has just drained the driver's buffer, so the first drain here waits a full interval.
  double nextProcs = 0, nextUtil = monoNowS() + utilEveryS_;
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    double now = monoNowS();
    if (now >= nextUtil) {
      nextUtil = now + utilEveryS_;
      double c0 = threadCpuS();
      pollUtil(nullptr);
      meta_.cpuUtilS += threadCpuS() - c0;
      if (meta_.failed) break;
    }
    pollRest(now, &nextProcs);
    double c2 = threadCpuS();
    gpmTick(now);
    meta_.cpuGpmS += threadCpuS() - c2;
    if (meta_.failed) break;
    next += std::chrono::milliseconds(opts_.periodMs);
    std::unique_lock<std::mutex> lk(mu_);
    if (cv_.wait_until(lk, next, [this] { return stopRequested_; })) break;
  }
  // Tail: the driver sample covering the stop instant arrives up to one driver period (~200 ms) later, and
  // the one after it (the level beyond the window's end) a period after that. Each drain costs ~1.5 ms of
  // CPU, so wait two periods out first, then drain every 100 ms until a sample lies wholly past the stop.
  if (!meta_.failed && meta_.utilStatus == "sampling") {
    double c0 = threadCpuS();
    double deadline = monoNowS() + opts_.tailMs / 1000.0;
    bool beyond = false;
    unsigned firstWaitMs = unsigned(std::lround(2000.0 * driverPeriodS_)) + 30;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(firstWaitMs, opts_.tailMs)));
    while (!beyond && !meta_.failed && monoNowS() < deadline) {
      pollUtil(&beyond);
      if (!beyond) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!beyond && !meta_.failed) pollUtil(&beyond);
    meta_.tailCovered = beyond;
    meta_.cpuUtilS += threadCpuS() - c0;
  }
  if (!meta_.failed) gpmTick(monoNowS(), true);
  meta_.threadCpuS = threadCpuS() - cpu0;
}

void Sampler::stopAndJoin() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    meta_.stopMonoS = monoNowS();
    stopRequested_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  meta_.stopOffset = measureClockOffset();
}

Records Sampler::drain() {
  std::lock_guard<std::mutex> lk(mu_);
  Records out;
  std::swap(out, rec_);
  return out;
}

SamplerMeta Sampler::meta() { return meta_; }
