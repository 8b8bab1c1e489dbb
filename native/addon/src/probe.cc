// probe(): silicon identity of every device NVML sees. Never throws for a missing NVML: it answers
// {available:false, code, message} so the caller can say why and fall back.
#include "probe.h"

#include <string>

namespace {

std::string field(NvmlLib* lib, nvmlReturn_t r, Napi::Object errors, const char* name) {
  if (r != NVML_SUCCESS) errors.Set(name, nvmlDescribe(lib, r));
  return {};
}

Napi::Object deviceToJs(Napi::Env env, NvmlLib* lib, unsigned index) {
  Napi::Object d = Napi::Object::New(env);
  Napi::Object errors = Napi::Object::New(env);
  d.Set("index", index);
  nvmlDevice_t dev = nullptr;
  nvmlReturn_t r = lib->deviceGetHandleByIndex(index, &dev);
  if (r != NVML_SUCCESS) {
    field(lib, r, errors, "handle");
    d.Set("fieldErrors", errors);
    return d;
  }
  char buf[256] = {0};
  if ((r = lib->deviceGetName(dev, buf, sizeof buf)) == NVML_SUCCESS) d.Set("name", std::string(buf));
  else { d.Set("name", env.Null()); field(lib, r, errors, "name"); }
  buf[0] = 0;
  if ((r = lib->deviceGetUUID(dev, buf, sizeof buf)) == NVML_SUCCESS) d.Set("uuid", std::string(buf));
  else { d.Set("uuid", env.Null()); field(lib, r, errors, "uuid"); }
  int major = -1, minor = -1;
  if (lib->deviceGetCudaComputeCapability && (r = lib->deviceGetCudaComputeCapability(dev, &major, &minor)) == NVML_SUCCESS) {
    d.Set("ccMajor", major);
    d.Set("ccMinor", minor);
  } else {
    d.Set("ccMajor", env.Null());
    d.Set("ccMinor", env.Null());
    if (lib->deviceGetCudaComputeCapability) field(lib, r, errors, "computeCapability");
    else errors.Set("computeCapability", "nvmlDeviceGetCudaComputeCapability not exported");
  }
  unsigned mhz = 0;
  if ((r = lib->deviceGetMaxClockInfo(dev, NVML_CLOCK_SM, &mhz)) == NVML_SUCCESS) d.Set("maxSmClockMHz", mhz);
  else { d.Set("maxSmClockMHz", env.Null()); field(lib, r, errors, "maxSmClockMHz"); }
  if ((r = lib->deviceGetClockInfo(dev, NVML_CLOCK_SM, &mhz)) == NVML_SUCCESS) d.Set("smClockMHz", mhz);
  else { d.Set("smClockMHz", env.Null()); field(lib, r, errors, "smClockMHz"); }
  int pm = 0;
  if (lib->deviceGetPersistenceMode && (r = lib->deviceGetPersistenceMode(dev, &pm)) == NVML_SUCCESS) d.Set("persistenceMode", pm != 0);
  else { d.Set("persistenceMode", env.Null()); if (lib->deviceGetPersistenceMode) field(lib, r, errors, "persistenceMode"); }
  // Application clocks (the clocks a kernel launch targets), for the silicon record beside persistence mode.
  for (int which : {NVML_CLOCK_SM, NVML_CLOCK_MEM}) {
    const char* key = which == NVML_CLOCK_SM ? "appSmClockMHz" : "appMemClockMHz";
    if (lib->deviceGetApplicationsClock && (r = lib->deviceGetApplicationsClock(dev, which, &mhz)) == NVML_SUCCESS) d.Set(key, mhz);
    else { d.Set(key, env.Null()); if (lib->deviceGetApplicationsClock) field(lib, r, errors, key); else errors.Set(key, "nvmlDeviceGetApplicationsClock not exported"); }
  }
  unsigned cur = 0, pending = 0;
  if (lib->deviceGetMigMode && (r = lib->deviceGetMigMode(dev, &cur, &pending)) == NVML_SUCCESS) {
    Napi::Object mig = Napi::Object::New(env);
    mig.Set("current", cur != 0);
    mig.Set("pending", pending != 0);
    d.Set("mig", mig);
  } else {
    // NOT_SUPPORTED here means the GPU has no MIG at all, which is a state, not an error.
    d.Set("mig", env.Null());
    if (lib->deviceGetMigMode && r != NVML_ERROR_NOT_SUPPORTED) field(lib, r, errors, "mig");
  }
  if (lib->gpmQueryDeviceSupport) {
    nvmlGpmSupport_t sup{NVML_GPM_SUPPORT_VERSION, 0};
    if ((r = lib->gpmQueryDeviceSupport(dev, &sup)) == NVML_SUCCESS) d.Set("gpmSupported", sup.isSupportedDevice != 0);
    else { d.Set("gpmSupported", false); field(lib, r, errors, "gpm"); }
  } else {
    d.Set("gpmSupported", false);
    errors.Set("gpm", "nvmlGpmQueryDeviceSupport not exported");
  }
  d.Set("fieldErrors", errors);
  return d;
}

}  // namespace

Napi::Value probeToJs(Napi::Env env) {
  Napi::Object out = Napi::Object::New(env);
  const NvmlOpen& o = nvmlOpen();
  out.Set("available", o.ok);
  if (!o.ok) {
    out.Set("code", o.code);
    out.Set("message", o.message);
    out.Set("devices", Napi::Array::New(env));
    return out;
  }
  NvmlLib* lib = o.lib;
  out.Set("library", lib->path);
  out.Set("processesSymbol", lib->resolvedProcessesSymbol);
  out.Set("eventReasonsSymbol", lib->resolvedEventReasonsSymbol);
  char buf[128] = {0};
  nvmlReturn_t r = lib->systemGetDriverVersion(buf, sizeof buf);
  out.Set("driverVersion", r == NVML_SUCCESS ? Napi::Value(Napi::String::New(env, buf)) : env.Null());
  int cuda = 0;
  if (lib->systemGetCudaDriverVersion && lib->systemGetCudaDriverVersion(&cuda) == NVML_SUCCESS)
    out.Set("cudaDriverVersion", std::to_string(cuda / 1000) + "." + std::to_string((cuda % 1000) / 10));
  else
    out.Set("cudaDriverVersion", env.Null());
  unsigned count = 0;
  r = lib->deviceGetCount(&count);
  Napi::Array devices = Napi::Array::New(env);
  if (r != NVML_SUCCESS) {
    out.Set("code", "NVML_ERROR");
    out.Set("message", "nvmlDeviceGetCount_v2: " + nvmlDescribe(lib, r));
  }
  for (unsigned i = 0; r == NVML_SUCCESS && i < count; ++i) devices[i] = deviceToJs(env, lib, i);
  out.Set("devices", devices);
  return out;
}

Napi::Value processesToJs(Napi::Env env, NvmlLib* lib, nvmlDevice_t dev) {
  unsigned count = 512;
  nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
  Napi::Array list = Napi::Array::New(env);
  auto push = [&](unsigned pid, unsigned long long mem) {
    Napi::Object p = Napi::Object::New(env);
    p.Set("pid", pid);
    p.Set("usedMemoryBytes", mem == NH_NVML_VALUE_NOT_AVAILABLE ? env.Null() : Napi::Value(Napi::Number::New(env, double(mem))));
    list[list.Length()] = p;
  };
  if (lib->deviceGetProcessesV2) {
    std::vector<nvmlProcessInfo_v2_t> v(count);
    r = lib->deviceGetProcessesV2(dev, &count, v.data());
    if (r == NVML_SUCCESS) for (unsigned i = 0; i < count; ++i) push(v[i].pid, v[i].usedGpuMemory);
  } else if (lib->deviceGetProcessesV1) {
    std::vector<nvmlProcessInfo_v1_t> v(count);
    r = lib->deviceGetProcessesV1(dev, &count, v.data());
    if (r == NVML_SUCCESS) for (unsigned i = 0; i < count; ++i) push(v[i].pid, v[i].usedGpuMemory);
  }
  if (r != NVML_SUCCESS) {
    Napi::Error e = Napi::Error::New(env, (lib->resolvedProcessesSymbol.empty() ? std::string("compute process query")
                                                                                 : lib->resolvedProcessesSymbol) +
                                              ": " + nvmlDescribe(lib, r));
    e.Set("code", Napi::String::New(env, "NVML_ERROR"));
    throw e;
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("symbol", lib->resolvedProcessesSymbol);
  out.Set("processes", list);
  return out;
}
