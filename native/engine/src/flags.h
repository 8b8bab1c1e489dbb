// flags.h — the runtime flags of the one binary (env), read strictly: an unknown value is a named
// error, never a silent default.
#pragma once
#include <functional>
#include <stdexcept>
#include <string>

#include "model.h"

namespace nhref {

struct FlagError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Everything the env selects.
struct RunFlags {
  EngineOptions engine;
  bool armTrace = false;  // NH_REF_ARM_TRACE
};

// Reads NH_REF_MAMBA_DECODE_STEP (default 1), NH_REF_DEVICE_MAMBA (default 0), NH_REF_DEVICE_FORWARD (default 1:
// attention/MoE/head on the GPU of a CUDA build), NH_REF_ARM_TRACE (default 0).
// Each is "0" or "1" when set; anything else throws FlagError naming the variable and the value.
RunFlags readFlags(const std::function<const char*(const char*)>& getenv);

}  // namespace nhref
