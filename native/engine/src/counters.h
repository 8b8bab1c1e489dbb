// counters.h — per-step arm counters, incremented where each op actually runs (never inferred from
// a flag), so an A/B of NH_REF_MAMBA_DECODE_STEP / NH_REF_DEVICE_MAMBA can show the arms differed.
#pragma once
#include <cstdint>

namespace nhref {

// One step's op counts; the driver prints them as "ARM step ..." and emits a counters event.
struct ArmCounters {
  int64_t stateUpdateRows = 0;  // single-step recurrent updates (one per Mamba layer per row)
  int64_t chunkScanCalls = 0;   // whole-sequence scans (host chunked scan or device sequence scan)
  int64_t convUpdateRows = 0;   // single-row causal conv updates
  int64_t convFwdCalls = 0;     // whole-sequence causal conv passes
  int64_t deviceBlocks = 0;     // Mamba blocks executed on the device
  int64_t referenceTierOps = 0; // device ops that fell back to the portable host path
  int64_t deviceForwardBlocks = 0; // attention, MoE and lm_head calls on the device (both arms of a CUDA build)
};

// The process-wide counters (the engine is single-threaded by design).
inline ArmCounters& armCounters() {
  static ArmCounters c;
  return c;
}

}  // namespace nhref
