/* A stand-in libnvidia-ml for machines with no GPU (CI): exercises the addon's real dlopen, symbol
 * fallbacks, sampler thread and clock handling. Loaded only through NH_GATE_NVML_LIBRARY.
 * It exports the OLDER symbol names where the addon prefers newer ones (_v2 process query,
 * ClocksThrottleReasons) so the fallbacks are exercised too. Behaviour is set by environment:
 *   FAKE_NVML_DEVICES=n        devices visible (default 1)
 *   FAKE_NVML_UTIL_PCT=x       value of every driver utilization sample (default 40)
 *   FAKE_NVML_PERIOD_MS=n      driver sample period (default 50)
 *   FAKE_NVML_BUFFER_MS=n      how far back the driver's sample buffer reaches (default 5000)
 *   FAKE_NVML_LAG_MS=n         a sample becomes visible n ms after its timestamp (default 0)
 *   FAKE_NVML_FAIL_AFTER_MS=n  after n ms from init every device call returns GPU_IS_LOST
 *   FAKE_NVML_FAIL_AT_MONO_S=t from CLOCK_MONOTONIC second t on, likewise (tests set it mid-process)
 *   FAKE_NVML_SAMPLES_FAIL_AT_MONO_S=t  only nvmlDeviceGetSamples fails (UNKNOWN) from then on
 *   FAKE_NVML_FAIL_AFTER_CALLS=n  after n nvmlDeviceGetSamples calls of one sampler (counted from its
 *                              priming call, lastSeen 0) the GPU is lost: every device call returns
 *                              GPU_IS_LOST, a failure at a point of the sampler's own progress
 *   FAKE_NVML_NO_PROCS=1       no compute process is listed (the harness itself is not reported)
 *   FAKE_NVML_MIG=1            MIG enabled: utilization samples and GPM are NOT_SUPPORTED
 *   FAKE_NVML_INIT_FAIL=code   nvmlInit_v2 returns code
 *   FAKE_NVML_CLOCK=monotonic  stamp samples on CLOCK_MONOTONIC instead of CLOCK_REALTIME
 *   FAKE_NVML_NO_GPM=1         device reports no GPM support
 *   FAKE_NVML_NAME=text        device name (default "Fake H200")
 *   FAKE_NVML_CC=M.m           compute capability (default 9.0; 12.1 stands in for a GB10, 11.0 for Thor)
 *   FAKE_NVML_CLOCK_REASONS=m  clock-event reason mask of every read (default 0; 4 = SwPowerCap)
 *   FAKE_NVML_SM_MHZ=n         current SM clock (default 1755)
 *   FAKE_NVML_NO_PROCS=1       no compute process is running (default: the calling process is one) */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>

typedef int nvmlReturn_t;
typedef union { double d; unsigned int ui; unsigned long long ull; } val_t;
typedef struct { unsigned long long timeStamp; val_t v; } sample_t;
typedef struct { unsigned int pid; unsigned long long mem; unsigned int gi, ci; } proc_t;
typedef struct { unsigned int metricId; nvmlReturn_t ret; double value; char *a, *b, *c; } gpm_metric_t;
typedef struct { unsigned int version, numMetrics; void *s1, *s2; gpm_metric_t metrics[1]; } gpm_get_t;
typedef struct { unsigned int version, isSupportedDevice; } gpm_support_t;
typedef struct { double tS; } gpm_sample_t;

static double g_init_mono = 0;
static long g_sample_calls = 0;

static double now_s(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
static long env_l(const char* k, long d) { const char* v = getenv(k); return v && *v ? atol(v) : d; }
static int failing(void) {
  long calls = env_l("FAKE_NVML_FAIL_AFTER_CALLS", -1);
  if (calls >= 0 && g_sample_calls > calls) return 1;
  const char* at = getenv("FAKE_NVML_FAIL_AT_MONO_S");
  if (at && *at && now_s(CLOCK_MONOTONIC) >= atof(at)) return 1;
  long after = env_l("FAKE_NVML_FAIL_AFTER_MS", -1);
  return after >= 0 && (now_s(CLOCK_MONOTONIC) - g_init_mono) * 1000.0 >= (double)after;
}
static int mig(void) { return env_l("FAKE_NVML_MIG", 0) == 1; }
#define DEV_GUARD(dev) do { if (!(dev)) return 2; if (failing()) return 15; } while (0)

nvmlReturn_t nvmlInit_v2(void) {
  g_init_mono = now_s(CLOCK_MONOTONIC);
  return (nvmlReturn_t)env_l("FAKE_NVML_INIT_FAIL", 0);
}
nvmlReturn_t nvmlShutdown(void) { return 0; }
const char* nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case 0: return "Success";
    case 3: return "Not Supported";
    case 9: return "Driver Not Loaded";
    case 15: return "GPU is lost";
    default: return "Fake NVML error";
  }
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* n) { *n = (unsigned)env_l("FAKE_NVML_DEVICES", 1); return 0; }
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, void** dev) {
  if (i >= (unsigned)env_l("FAKE_NVML_DEVICES", 1)) return 2;
  *dev = (void*)(size_t)(i + 1);
  return 0;
}
nvmlReturn_t nvmlDeviceGetName(void* dev, char* buf, unsigned int len) {
  DEV_GUARD(dev);
  const char* name = getenv("FAKE_NVML_NAME");
  snprintf(buf, len, "%s", name && *name ? name : "Fake H200");
  return 0;
}
nvmlReturn_t nvmlDeviceGetUUID(void* dev, char* buf, unsigned int len) {
  DEV_GUARD(dev);
  snprintf(buf, len, "GPU-fake-%04u", (unsigned)(size_t)dev);
  return 0;
}
nvmlReturn_t nvmlSystemGetDriverVersion(char* buf, unsigned int len) { snprintf(buf, len, "999.0.fake"); return 0; }
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* v) { *v = 13000; return 0; }
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(void* dev, int* a, int* b) {
  DEV_GUARD(dev);
  const char* cc = getenv("FAKE_NVML_CC");
  *a = 9; *b = 0;
  if (cc && *cc && sscanf(cc, "%d.%d", a, b) != 2) { *a = 9; *b = 0; }
  return 0;
}
nvmlReturn_t nvmlDeviceGetMaxClockInfo(void* dev, int type, unsigned int* mhz) { DEV_GUARD(dev); *mhz = type == 2 ? 3201 : 1980; return 0; }
nvmlReturn_t nvmlDeviceGetClockInfo(void* dev, int type, unsigned int* mhz) { DEV_GUARD(dev); *mhz = type == 2 ? 3201 : (unsigned)env_l("FAKE_NVML_SM_MHZ", 1755); return 0; }
nvmlReturn_t nvmlDeviceGetApplicationsClock(void* dev, int type, unsigned int* mhz) { DEV_GUARD(dev); *mhz = type == 2 ? 3201 : 1755; return 0; }

nvmlReturn_t nvmlDeviceGetPersistenceMode(void* dev, int* m) { DEV_GUARD(dev); *m = 1; return 0; }
nvmlReturn_t nvmlDeviceGetMigMode(void* dev, unsigned int* cur, unsigned int* pend) { DEV_GUARD(dev); *cur = *pend = (unsigned)mig(); return 0; }
nvmlReturn_t nvmlDeviceGetUtilizationRates(void* dev, unsigned int* u) {
  DEV_GUARD(dev);
  u[0] = (unsigned)env_l("FAKE_NVML_UTIL_PCT", 40);
  u[1] = 7;
  return 0;
}
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(void* dev, unsigned long long* mask) { DEV_GUARD(dev); *mask = (unsigned long long)env_l("FAKE_NVML_CLOCK_REASONS", 0); return 0; }

nvmlReturn_t nvmlDeviceGetSamples(void* dev, int type, unsigned long long lastSeen, int* vt, unsigned int* count, sample_t* out) {
  /* lastSeen 0 is a sampler's priming call: the count is per sampler (per leg), not per process. */
  if (type == 1) g_sample_calls = lastSeen == 0 ? 1 : g_sample_calls + 1;
  DEV_GUARD(dev);
  if (type != 1 || mig()) return 3;
  const char* sf = getenv("FAKE_NVML_SAMPLES_FAIL_AT_MONO_S");
  if (sf && *sf && now_s(CLOCK_MONOTONIC) >= atof(sf)) return 999;
  int mono = getenv("FAKE_NVML_CLOCK") && strcmp(getenv("FAKE_NVML_CLOCK"), "monotonic") == 0;
  double periodS = env_l("FAKE_NVML_PERIOD_MS", 50) / 1000.0;
  double now = now_s(mono ? CLOCK_MONOTONIC : CLOCK_REALTIME);
  long long k1 = (long long)((now - env_l("FAKE_NVML_LAG_MS", 0) / 1000.0) / periodS), k0 = (long long)((now - env_l("FAKE_NVML_BUFFER_MS", 5000) / 1000.0) / periodS);
  unsigned n = 0;
  *vt = 1;
  for (long long k = k0 + 1; k <= k1; ++k) {
    unsigned long long ts = (unsigned long long)(k * periodS * 1e6);
    if (ts <= lastSeen) continue;
    if (out) {
      if (n >= *count) return 7;
      out[n].timeStamp = ts;
      out[n].v.ui = (unsigned)env_l("FAKE_NVML_UTIL_PCT", 40);
    }
    ++n;
  }
  *count = n;
  return n == 0 ? 6 : 0;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(void* dev, unsigned int* count, proc_t* out) {
  DEV_GUARD(dev);
  if (env_l("FAKE_NVML_NO_PROCS", 0)) { *count = 0; return 0; }
  if (*count < 1) { *count = 1; return 7; }
  out[0].pid = (unsigned)getpid();
  out[0].mem = 1ull << 20;
  out[0].gi = out[0].ci = 0xFFFFFFFFu;
  *count = 1;
  return 0;
}

nvmlReturn_t nvmlGpmQueryDeviceSupport(void* dev, gpm_support_t* s) {
  DEV_GUARD(dev);
  s->isSupportedDevice = env_l("FAKE_NVML_NO_GPM", 0) ? 0 : 1;
  return 0;
}
nvmlReturn_t nvmlGpmSampleAlloc(gpm_sample_t** s) { *s = calloc(1, sizeof(gpm_sample_t)); return 0; }
nvmlReturn_t nvmlGpmSampleFree(gpm_sample_t* s) { free(s); return 0; }
nvmlReturn_t nvmlGpmSampleGet(void* dev, gpm_sample_t* s) {
  DEV_GUARD(dev);
  if (mig()) return 3;
  s->tS = now_s(CLOCK_MONOTONIC);
  return 0;
}
nvmlReturn_t nvmlGpmMetricsGet(gpm_get_t* g) {
  if (g->version != 1) return 25;
  double util = (double)env_l("FAKE_NVML_UTIL_PCT", 40);
  for (unsigned i = 0; i < g->numMetrics; ++i) {
    gpm_metric_t* m = &g->metrics[i];
    m->ret = 0;
    if (m->metricId == 2) m->value = util / 4.0;        /* SM_UTIL */
    else if (m->metricId == 3) m->value = util / 8.0;   /* SM_OCCUPANCY */
    else if (m->metricId == 10) { m->ret = 3; m->value = 0; } /* DRAM_BW_UTIL: unsupported, must not read as 0 */
    else m->ret = 2;
  }
  return 0;
}
