// device.h — the CUDA device arm's host-side interface (NH_REF_DEVICE_MAMBA): Mamba blocks on
// the GPU. A non-CUDA build links the stub in device_host.cpp, which reports why there is none.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "attention.h"
#include "config.h"
#include "mamba.h"
#include "moe.h"

namespace nhref {

// Whether this binary carries the device arm, and for which archs (the configure list).
bool cudaBuild();
std::string cudaBuildArchs();

// The running GPU, or why there is none usable.
struct DeviceInfo {
  bool available = false;
  std::string name;
  std::string why;
  int ccMajor = 0, ccMinor = 0;
};
DeviceInfo probeDevice();

// Device ops that have NO kernel for the running GPU's arch (the reference tier runs them on host).
std::vector<std::string> missingDeviceOps();

// One Mamba layer resident on the device: weights uploaded once, state kept on the device.
class DeviceMamba {
 public:
  virtual ~DeviceMamba() = default;
  // The mixer over u [T][D] from a fresh state (host in, host out).
  virtual void prefill(const float* u, int T, float* out) = 0;
  // One new position: decodeStep=true single-step update; false re-scans the whole prefix.
  virtual void decode(const float* u, float* out, bool decodeStep) = 0;
};

// nullptr on a non-CUDA build; throws std::runtime_error naming the CUDA call that failed.
std::unique_ptr<DeviceMamba> createDeviceMamba(const Config& c, const MambaWeights& w);

// The rest of the forward on the device (CUDA build + usable GPU), in BOTH arms of NH_REF_DEVICE_MAMBA:
// the flag moves only the Mamba blocks, as in the seeds' engine. One position per call (host in, host out).
class DeviceAttention {
 public:
  virtual ~DeviceAttention() = default;
  virtual void reset() = 0;                              // a fresh prefill empties the device k/v cache
  virtual void forward(const float* u, float* out) = 0;  // project, append k/v, attend, o_proj
};
class DeviceMoe {
 public:
  virtual ~DeviceMoe() = default;
  virtual void forward(const float* u, float* out) = 0;
};
class DeviceHead {
 public:
  virtual ~DeviceHead() = default;
  virtual void logits(const float* normed, float* out) = 0;  // lm_head · normed
};
// Forward ops with no kernel image for the running GPU (those blocks then stay on the host).
std::vector<std::string> missingForwardOps();
// nullptr on a non-CUDA build.
std::unique_ptr<DeviceAttention> createDeviceAttention(const Config& c, const AttnWeights& w);
std::unique_ptr<DeviceMoe> createDeviceMoe(const Config& c, const MoeWeights& w);
std::unique_ptr<DeviceHead> createDeviceHead(const Config& c, const float* lmHead);

}  // namespace nhref
