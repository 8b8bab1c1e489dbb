// dlopen/dlsym of NVML: the addon never links NVML, so it builds and loads on a machine with no GPU.
#include "nvml_lib.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace {

template <typename F>
bool bind(void* h, F& slot, const char* name) {
  slot = reinterpret_cast<F>(dlsym(h, name));
  return slot != nullptr;
}

// First symbol that exists among versioned names, newest first.
template <typename F>
bool bindFirst(void* h, F& slot, std::initializer_list<const char*> names, std::string* which) {
  for (const char* n : names) {
    if (bind(h, slot, n)) {
      if (which) *which = n;
      return true;
    }
  }
  return false;
}

NvmlOpen openOnce() {
  NvmlOpen out;
  std::vector<std::string> candidates;
  const char* override = std::getenv("NH_GATE_NVML_LIBRARY");
  if (override && *override) {
    candidates.push_back(override);
  } else {
    candidates = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
  }
  void* h = nullptr;
  std::string errors;
  for (const auto& c : candidates) {
    dlerror();
    h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      auto* lib = new NvmlLib();
      lib->handle = h;
      lib->path = c;
      out.lib = lib;
      break;
    }
    const char* e = dlerror();
    if (!errors.empty()) errors += "; ";
    errors += e ? e : (c + ": dlopen failed");
  }
  if (!out.lib) {
    out.code = "NVML_UNAVAILABLE";
    out.message = "cannot load NVML: " + errors;
    return out;
  }
  NvmlLib& L = *out.lib;
  std::string missing;
  auto need = [&](bool ok, const char* name) {
    if (!ok) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  need(bindFirst(h, L.init, {"nvmlInit_v2", "nvmlInit"}, nullptr), "nvmlInit_v2");
  need(bind(h, L.shutdown, "nvmlShutdown"), "nvmlShutdown");
  need(bind(h, L.errorString, "nvmlErrorString"), "nvmlErrorString");
  need(bindFirst(h, L.deviceGetCount, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}, nullptr), "nvmlDeviceGetCount_v2");
  need(bindFirst(h, L.deviceGetHandleByIndex, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}, nullptr),
       "nvmlDeviceGetHandleByIndex_v2");
  need(bind(h, L.deviceGetName, "nvmlDeviceGetName"), "nvmlDeviceGetName");
  need(bind(h, L.deviceGetUUID, "nvmlDeviceGetUUID"), "nvmlDeviceGetUUID");
  need(bind(h, L.systemGetDriverVersion, "nvmlSystemGetDriverVersion"), "nvmlSystemGetDriverVersion");
  need(bind(h, L.deviceGetUtilizationRates, "nvmlDeviceGetUtilizationRates"), "nvmlDeviceGetUtilizationRates");
  need(bind(h, L.deviceGetSamples, "nvmlDeviceGetSamples"), "nvmlDeviceGetSamples");
  need(bind(h, L.deviceGetClockInfo, "nvmlDeviceGetClockInfo"), "nvmlDeviceGetClockInfo");
  need(bind(h, L.deviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo"), "nvmlDeviceGetMaxClockInfo");
  if (!missing.empty()) {
    out.code = "NVML_SYMBOL_MISSING";
    out.message = L.path + " lacks required symbol(s): " + missing;
    out.lib = nullptr;
    return out;
  }
  bindFirst(h, L.systemGetCudaDriverVersion, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"}, nullptr);
  bind(h, L.deviceGetCudaComputeCapability, "nvmlDeviceGetCudaComputeCapability");
  bind(h, L.deviceGetPersistenceMode, "nvmlDeviceGetPersistenceMode");
  bind(h, L.deviceGetApplicationsClock, "nvmlDeviceGetApplicationsClock");
  bind(h, L.deviceGetMigMode, "nvmlDeviceGetMigMode");
  bindFirst(h, L.deviceGetClocksEventReasons,
            {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"},
            &L.resolvedEventReasonsSymbol);
  bindFirst(h, L.deviceGetProcessesV2,
            {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"},
            &L.resolvedProcessesSymbol);
  if (!L.deviceGetProcessesV2 && bind(h, L.deviceGetProcessesV1, "nvmlDeviceGetComputeRunningProcesses"))
    L.resolvedProcessesSymbol = "nvmlDeviceGetComputeRunningProcesses";
  bind(h, L.gpmQueryDeviceSupport, "nvmlGpmQueryDeviceSupport");
  bind(h, L.gpmSampleAlloc, "nvmlGpmSampleAlloc");
  bind(h, L.gpmSampleFree, "nvmlGpmSampleFree");
  bind(h, L.gpmSampleGet, "nvmlGpmSampleGet");
  bind(h, L.gpmMetricsGet, "nvmlGpmMetricsGet");

  nvmlReturn_t r = L.init();
  if (r != NVML_SUCCESS) {
    out.code = "NVML_INIT_FAILED";
    out.message = "nvmlInit_v2 failed: " + nvmlDescribe(&L, r);
    out.lib = nullptr;
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace

const NvmlOpen& nvmlOpen() {
  static std::once_flag once;
  static NvmlOpen result;
  std::call_once(once, [] { result = openOnce(); });
  return result;
}

std::string nvmlDescribe(const NvmlLib* lib, nvmlReturn_t r) {
  static const struct {
    int code;
    const char* name;
  } names[] = {{0, "NVML_SUCCESS"},
               {1, "NVML_ERROR_UNINITIALIZED"},
               {2, "NVML_ERROR_INVALID_ARGUMENT"},
               {3, "NVML_ERROR_NOT_SUPPORTED"},
               {4, "NVML_ERROR_NO_PERMISSION"},
               {6, "NVML_ERROR_NOT_FOUND"},
               {7, "NVML_ERROR_INSUFFICIENT_SIZE"},
               {9, "NVML_ERROR_DRIVER_NOT_LOADED"},
               {10, "NVML_ERROR_TIMEOUT"},
               {12, "NVML_ERROR_LIBRARY_NOT_FOUND"},
               {13, "NVML_ERROR_FUNCTION_NOT_FOUND"},
               {15, "NVML_ERROR_GPU_IS_LOST"},
               {17, "NVML_ERROR_OPERATING_SYSTEM"},
               {18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH"},
               {21, "NVML_ERROR_NO_DATA"},
               {999, "NVML_ERROR_UNKNOWN"}};
  std::string name = "NVML_RETURN";
  for (const auto& n : names)
    if (n.code == r) name = n.name;
  std::string text = (lib && lib->errorString) ? lib->errorString(r) : "";
  return name + " (" + std::to_string(r) + ")" + (text.empty() ? "" : ": " + text);
}
