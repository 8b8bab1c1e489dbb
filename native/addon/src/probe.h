// Silicon identity and compute processes, read synchronously on the JS thread (both are quick).
#pragma once
#include <napi.h>

#include <vector>

#include "nvml_lib.h"

// {available, code?, message?, library?, driverVersion, cudaDriverVersion, devices: [...]}
Napi::Value probeToJs(Napi::Env env);

// {symbol, processes: [{pid, usedMemoryBytes}]}; throws NVML_ERROR with the driver's text.
Napi::Value processesToJs(Napi::Env env, NvmlLib* lib, nvmlDevice_t dev);
