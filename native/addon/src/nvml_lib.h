// NVML opened with dlopen and its symbols resolved by name: required ones fail the open with the
// missing name, optional ones (GPM, clock-event reasons, newer process queries) stay null.
#pragma once
#include <string>
#include "nvml_types.h"

struct NvmlLib {
  void* handle = nullptr;
  std::string path;  // the library that was opened

  // Required.
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*errorString)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*deviceGetCount)(unsigned int*) = nullptr;
  nvmlReturn_t (*deviceGetHandleByIndex)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*deviceGetName)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*deviceGetUUID)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*systemGetDriverVersion)(char*, unsigned int) = nullptr;
  nvmlReturn_t (*deviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*deviceGetSamples)(nvmlDevice_t, int, unsigned long long, int*, unsigned int*, nvmlSample_t*) = nullptr;
  nvmlReturn_t (*deviceGetClockInfo)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*deviceGetMaxClockInfo)(nvmlDevice_t, int, unsigned int*) = nullptr;

  // Optional: absent on older drivers or not exported everywhere.
  nvmlReturn_t (*systemGetCudaDriverVersion)(int*) = nullptr;
  nvmlReturn_t (*deviceGetCudaComputeCapability)(nvmlDevice_t, int*, int*) = nullptr;
  nvmlReturn_t (*deviceGetPersistenceMode)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*deviceGetApplicationsClock)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*deviceGetMigMode)(nvmlDevice_t, unsigned int*, unsigned int*) = nullptr;
  nvmlReturn_t (*deviceGetClocksEventReasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*deviceGetProcessesV2)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_v2_t*) = nullptr;  // _v3 or _v2
  nvmlReturn_t (*deviceGetProcessesV1)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_v1_t*) = nullptr;
  nvmlReturn_t (*gpmQueryDeviceSupport)(nvmlDevice_t, nvmlGpmSupport_t*) = nullptr;
  nvmlReturn_t (*gpmSampleAlloc)(nvmlGpmSample_t*) = nullptr;
  nvmlReturn_t (*gpmSampleFree)(nvmlGpmSample_t) = nullptr;
  nvmlReturn_t (*gpmSampleGet)(nvmlDevice_t, nvmlGpmSample_t) = nullptr;
  nvmlReturn_t (*gpmMetricsGet)(nvmlGpmMetricsGet_t*) = nullptr;

  std::string resolvedProcessesSymbol;  // which process query was found
  std::string resolvedEventReasonsSymbol;
};

// Result of opening NVML once per process: either usable, or why not (dlerror text, missing symbol, init code).
struct NvmlOpen {
  bool ok = false;
  std::string code;     // NVML_UNAVAILABLE | NVML_SYMBOL_MISSING | NVML_INIT_FAILED
  std::string message;  // includes dlerror() / nvmlErrorString()
  NvmlLib* lib = nullptr;
};

// Opens (once) and initialises NVML; NH_GATE_NVML_LIBRARY names another library file to try first.
const NvmlOpen& nvmlOpen();

// "NVML_ERROR_NOT_SUPPORTED (3): Not Supported" — a return code with its name and the driver's text.
std::string nvmlDescribe(const NvmlLib* lib, nvmlReturn_t r);
